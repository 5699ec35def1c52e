"""Data in and out: DataLoaders yield cpu batches, TensorDatasets keep their tensors' device,
and `torch.load` restores tensors on the device they were saved from unless told `map_location`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, cast

import libcst as cst

from devlint.core.facts import CpuOnlyArgument, Load
from devlint.core.torch_catalogue import views as api
from devlint.core.torch_catalogue.records import CPU_TYPE
from devlint.static.semantics.callsite import Args, Argument, CallSite
from devlint.static.semantics.containers import tensors_in
from devlint.static.semantics.devices import device_argument
from devlint.static.syntax import dotted
from devlint.core.values import (
    CPU, IMPLICIT_CPU, UNKNOWN, Const, Dataset, Device, DeviceValue, Function, HostArray, HostTransform, Instance,
    Loader, Located, Optimizer, Seq, Tensor, Value,
)

if TYPE_CHECKING:
    from devlint.core.values import Why


def data_loader(site: CallSite) -> Value:
    dataset = site.args.first("dataset")
    collate = site.args.find(6, "collate_fn")
    custom = collate is not None and not (isinstance(collate[1], Const) and collate[1].value is None)
    if isinstance(dataset, Dataset):
        return Loader(why=dataset.why + ((site.node, ""),), where=dataset.where, custom_collate=custom)
    collated = _collated_by(site, collate[1]) if custom and collate is not None else None
    if collated is not None and collated.where is not None:
        return collated  # the batch is what the collate_fn makes of the items, not the items
    if isinstance(dataset, Instance):
        where, parts, elsewhere = _item_device(site, dataset)
        if where is not None:  # (with the collate_fn's numpy lengths, where it makes some)
            return Loader(why=((site.node, f"its dataset's items are on {where}"),), where=where,
                          custom_collate=custom, host_items=collated.host_items if collated is not None else ())
        if parts or elsewhere:  # `return x.to(self.device), extra`: the batch's parts are where the items' are
            return Loader(why=((site.node, "its dataset's items"),), where=None, custom_collate=custom,
                          item_devices=parts)
    if collated is not None:
        return collated
    if isinstance(dataset, Seq):
        # `DataLoader(list(zip(users, items)))` of tensors moved before: the default collate stacks them where
        # they are
        devices = {t.where for t in tensors_in(dataset)}
        where = devices.pop() if len(devices) == 1 else None
        if where is not None:
            return Loader(why=((site.node, f"its items are on {where}"),), where=where)
    return Loader(why=((site.node, "a DataLoader yields cpu batches"),), custom_collate=custom)


def _collated_by(site: CallSite, collate: Value) -> Loader:
    """A DataLoader whose collate_fn builds the batch: where that function of this file puts what it returns
    (`torch.rand(n, 3, device=self.device)`), else unknown."""
    where: Optional[Device] = None
    items: tuple[Value, ...] = ()
    if isinstance(collate, Function):
        args = Args()
        args.positional.append((site.node, UNKNOWN))
        batch = site.walk.invoke(collate, args, site.node, site.state, None)
        devices = {t.where for t in tensors_in(batch)}
        where = devices.pop() if len(devices) == 1 else None
        if isinstance(batch, Seq) and batch.kind == "tuple" and batch.items is not None:
            items = batch.items  # `return xs, np.array(lengths)`: the lengths stay a numpy array
    note = f"its collate_fn puts batches on {where}" if where is not None else ""
    host = tuple(isinstance(item, HostArray) for item in items)
    return Loader(why=((site.node, note),), where=where, custom_collate=True, host_items=host if any(host) else ())


def _item_device(site: CallSite, dataset: Instance) -> tuple[Optional[Device], tuple[Optional[Device], ...], bool]:
    """Where a dataset of this file puts its items (its `__getitem__`), or, for a tuple of tensors on several
    devices, where each part is, and whether some of its tensors are off the cpu (then its batches are not the cpu
    batches of a plain DataLoader: where, unknown); checks that a DataLoader can pin them and send them to worker
    processes (cpu tensors only)."""
    item = site.walk.call_method_of(dataset, "__getitem__", [UNKNOWN], site.node, site.state)
    devices = {t.where for t in tensors_in(item)}
    parts = tuple(part.where if isinstance(part, (Tensor, Located)) else None for part in item.items) \
        if isinstance(item, Seq) and item.kind in ("tuple", "list") and item.items is not None else ()
    if len(set(parts)) > 1 and any(part is None or part.kind != CPU_TYPE for part in parts):
        # `return graph.to(self.device), label`: each part where the item has it; `return img, labels, path,
        # shapes`: a path and a tuple of sizes are no tensors (a list is collated part by part as a tuple is:
        # `[torch.tensor(idx), self.X[idx]]` of a dataset built on the GPU)
        return None, parts, True
    if len(devices) != 1 or None in devices:
        # `[torch.tensor(idx), self.X[idx]]` of a dataset built on the GPU, joined with its labels: not all cpu
        return None, (), any(d is not None and d.kind != CPU_TYPE for d in devices)
    where = cast(Device, devices.pop())  # (not None: checked above)
    if where.concrete and where.kind != CPU_TYPE:
        for option, does in api.LOADER_CPU_ONLY_OPTIONS:
            value = site.args.get(option)
            if isinstance(value, Const) and value.value not in (None, False, 0):
                # (the dataset was given: found, an Instance)
                site.emit(CpuOnlyArgument(site.node, "DataLoader", f"the items it {does}",
                                          site.operand(cast(Argument, site.args.find(0, "dataset"))[0],
                                                       Tensor(why=item_why(item), where=where)), site.context))
                break
    return where, (), False


def item_why(item: Value) -> Why:
    found = tensors_in(item)
    return found[0].why if found else ()


def tensor_dataset(site: CallSite) -> Value:
    """TensorDataset(x.to(device), ...): its batches are where its tensors are."""
    tensors = [v for _, v in site.args.positional]
    devices = {t.where for t in tensors if isinstance(t, Tensor)}
    if tensors and all(isinstance(t, Tensor) for t in tensors) and len(devices) == 1:
        return Dataset(why=tensors[0].why, where=devices.pop())
    if any(not isinstance(t, Tensor) or t.where != CPU for t in tensors):
        return Dataset(where=None)
    return Dataset(where=CPU)


def load(site: CallSite) -> Value:
    args = site.args
    given = args.find(1, "map_location")
    # (`map_location=map_location` of a helper's parameter that defaults to None, given none: no map at all)
    has_map = given is not None and not (isinstance(given[1], Const) and given[1].value is None) \
        or bool(args.starstar)
    if given is not None and isinstance(given[1], (DeviceValue, Const)):
        # `map_location="cuda"` is a device too: every tensor restored there, a GPU needed even for a cpu checkpoint
        device_argument(site.facts, given[1], site.state, given[0])
    scope = {**site.file.globals(), **site.state.env}  # for the fix: a selected device in scope
    device_name = next((name for name, value in scope.items() if isinstance(value, DeviceValue)
                        and value.where is not None and value.where.kind == "selected"), None)
    source = args.find(0, "f")
    saved_here = _written_here(site, source[0] if source is not None else None) or (
        source is not None and isinstance(source[1], Const) and isinstance(source[1].value, str)
        and site.file.saved_as(source[1].value)) or (  # `load_checkpoint("checkpoint.pth")` of a file it saved
        source is not None and site.file.released(source[0], source[1])) or (  # a model zoo's weights, from the cpu
        source is not None and site.file.shipped(source[0])) or (  # the package's own file, read as its authors read it
        site.file.converted_to_numpy(site.node)) or (  # `torch.load(path).numpy()`: only a cpu tensor converts so
        site.file.own_weights(site.node, lambda receiver: type(receiver) is cst.Name and isinstance(
            site.state.env.get(receiver.value), Optimizer)))  # a project's weights, its writers saving from the cpu
    site.emit(Load(site.node, has_map, site.state.guarded, site.context, device_name, saved_here))
    return UNKNOWN


def _written_here(site: CallSite, source: Optional[cst.CSTNode]) -> bool:
    """Was what it loads written on this machine, by this process? A test (or a helper of a test module) loads
    what the code it tests just wrote; a dataset loads its processed data; an in-memory buffer holds bytes made here."""
    function = site.context.function or ""
    if site.file.in_test() or site.file.in_test_module():
        return True
    owner = site.file.classes.get(function.rsplit(".", 1)[0]) if "." in function else None
    if owner is not None and owner.is_dataset:
        return True
    if type(source) is cst.Call and (dotted(source.func) or "").endswith("BytesIO"):
        return _buffered_here(source) or site.file.saves_to_memory()
    return source is not None and (site.file.saved_here(source) or site.file.saved_beside(source)
                                   or type(source) is cst.SimpleString and isinstance(source.evaluated_value, str)
                                   and site.file.saved_as(source.evaluated_value))


def _buffered_here(buffer: cst.Call) -> bool:
    """`io.BytesIO(stream.getvalue())`: bytes an in-memory buffer of this process holds (so are those of a file
    that saves into one: saves_to_memory). Not the bytes of a file read into memory (`io.BytesIO(f.read())` of a
    zip member, a download's content): a stored checkpoint."""
    content = buffer.args[0].value if buffer.args else None
    return content is None or type(content) is cst.Call and type(content.func) is cst.Attribute \
        and content.func.attr.value in _BUFFER_READS


_BUFFER_READS = frozenset({"getvalue", "getbuffer"})


def save(site: CallSite) -> Value:
    """`torch.save(state, path)`: its tensors are copied to the host, after the work queued on them."""
    site.facts.note_sync(site.state)
    return UNKNOWN


def loader_next(site: CallSite) -> Value:
    return site.walk.iterate(site.receiver, site.node)


def to_tensor_transform(site: CallSite) -> Value:
    """`transforms.ToTensor()`: a transform whose call gives a cpu tensor."""
    site.evaluate_arguments()
    return HostTransform(why=((site.node, ""),))


def compose(site: CallSite) -> Value:
    """`transforms.Compose([Resize(256), ToTensor(), Normalize(...)])`: turns images into cpu tensors when one of
    its steps does (the steps after it compute where the tensor is)."""
    steps = site.args.first("transforms")
    members = steps.items if isinstance(steps, Seq) and steps.items is not None else ()
    found = next((m for m in members if isinstance(m, HostTransform)), None)
    return HostTransform(why=found.why + ((site.node, ""),)) if found is not None else UNKNOWN


def image_to_tensor(site: CallSite) -> Value:
    """`TF.to_tensor(image)`: a cpu tensor."""
    site.evaluate_arguments()
    return transformed(site.node, HostTransform(why=()))


def transformed(node: cst.CSTNode, transform: HostTransform) -> Tensor:
    """What calling a HostTransform gives: a tensor on the cpu."""
    return Tensor(why=transform.why + ((node, "a torchvision transform makes a cpu tensor"),), where=IMPLICIT_CPU)


FUNCTIONS = {
    **{path: to_tensor_transform for path in api.TO_TENSOR_TRANSFORMS},
    **{path: compose for path in api.TRANSFORM_COMPOSE},
    **{path: image_to_tensor for path in api.TO_TENSOR_FUNCTIONS},
    **{path: load for path in api.LOAD},
    **{path: save for path in api.SAVE},
    **{path: data_loader for path in api.LOADERS},
    **{path: tensor_dataset for path in api.TENSOR_DATASETS},
}
LOADER_METHODS = {"next": loader_next, "__next__": loader_next}
