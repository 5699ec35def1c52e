"""The host: numpy and the libraries built on it, arguments that must be on the cpu, and the
conversions that make the host wait for the GPU (`.item()`, `.tolist()`, `print(t)`)."""

from __future__ import annotations

from typing import cast

import libcst as cst

from devlint.core.facts import CpuOnlyArgument, HostConversion
from devlint.core.torch_catalogue import views as api
from devlint.core.torch_catalogue.records import CPU_TYPE
from devlint.static.semantics.callsite import CallSite
from devlint.static.semantics.containers import tensors_in
from devlint.static.semantics.devices import selected_is_cpu
from devlint.static.semantics.tensors import is_number
from devlint.core.values import CPU, UNKNOWN, Const, HostArray, Located, Seq, Tensor, Value, replace
from devlint.static.syntax import dotted


def host_library(site: CallSite) -> Value:
    """`np.asarray(t)`, `plt.plot(t)`: the library converts its tensor arguments to numpy."""
    args, path = site.args, site.path
    if path in api.HOST_LIBRARY_SAFE:
        return UNKNOWN
    if path in api.NUMPY_SPLITS:
        first = args.first("ary")
        return Seq(kind="list", elem=first) if isinstance(first, Tensor) else UNKNOWN
    if path in api.NUMPY_TENSOR_METHODS and len(args.positional) == 1 and not args.keywords \
            and isinstance(args.positional[0][1], Tensor):
        return args.positional[0][1]  # the tensor's own method: a tensor where it was
    given = args.positional + [v for k, v in args.keywords.items() if k not in api.HOST_PASSED_ON_KEYWORDS]
    for arg_node, value in given:
        for member in _array_members(value):
            if _on_gpu_here(site, member) and not member.inferred:
                how = path.replace("numpy.", "np.").replace("matplotlib.pyplot.", "plt.")
                site.emit(HostConversion(site.node, how, site.operand(arg_node, member), site.context))
                site.facts.note_sync(site.state)
                return _host_result(site)
        _pinned_to_host(site, arg_node, value)
    return _host_result(site)


def _pinned_to_host(site: CallSite, node: cst.CSTNode, value: Value) -> None:
    """`pos = np.asarray(positions)` of a parameter: a GPU tensor would have raised here, so on this path it is on
    the cpu (schnetpack's neighbour list, handed to numpy first, then `torch.mm(shifts, cell)`)."""
    if type(node) is cst.Name and isinstance(value, Tensor) and value.where is not None \
            and value.where.kind == "param":  # (not a number or a list: `np.power(beta, counts)`)
        site.state.env[node.value] = replace(value, where=CPU)


def _array_members(value: Value) -> list[Tensor]:
    """The tensors numpy converts in building an array of `value`: itself, or the members of (nested) lists and
    tuples. A dict is one object to numpy: `np.mean([{"mse": loss}, ...])` reads no tensor inside."""
    if isinstance(value, Seq) and value.kind == "dict":
        return []
    if isinstance(value, Seq):
        items = (list(value.items) if value.items is not None else [value.elem]) + list(value.gpu_members)
        return [t for item in items for t in _array_members(item)]
    if sent_away(value):  # `target = labels.to(self.device)` of a value of unknown kind: a tensor now
        return [Tensor(why=value.why, where=value.device)]
    return tensors_in(value)


def _on_gpu_here(site: CallSite, tensor: Tensor) -> bool:
    """On a GPU on this path: not the selected device where the path knows it is the cpu
    (`if device.type == "cpu": x.numpy()`)."""
    return tensor.where is not None and tensor.where.is_gpu and not selected_is_cpu(tensor.where, site.state)


def _host_result(site: CallSite) -> Value:
    """What a host library returns: an array where numpy builds one, else unknown (a number, a plot)."""
    if site.path not in api.HOST_ARRAY_FUNCTIONS:
        return UNKNOWN
    if site.path in api.NUMPY_ELEMENTWISE and site.args.positional and not site.args.star and all(
            is_number(node, value) for node, value in site.args.positional):
        return UNKNOWN  # `np.log(init_temperature)`: numpy's math on numbers is a number (a 0-dim tensor's)
    size = api.NUMPY_RANDOM_SIZE_POSITION.get(site.path)
    if size is not None and api.NUMPY_SIZE_KEYWORD not in site.args.keywords and len(site.args.positional) <= size \
            and not site.args.star:
        return UNKNOWN  # one draw: a number
    dtype = site.args.keywords.get(api.DTYPE_KEYWORD)
    named = dtype and (dotted(dtype[0]) or (dtype[1].value if isinstance(dtype[1], Const) else None))
    if named in api.OBJECT_ARRAY_DTYPES:
        return UNKNOWN  # an array of Python objects holds tensors as they are
    return HostArray(why=((site.node, "a numpy array, on the host"),))


def is_host_library(path: str) -> bool:
    return path.startswith(api.HOST_LIBRARY_PREFIXES)


def sent_away(value: Value) -> bool:
    """A value of unknown kind the code sent to a device other than the cpu (`lengths = lengths.to(device)` of a
    loader's item): what has `.to()` and is handed where a tensor goes is a tensor."""
    where = value.where if type(value) is Located and value.sent else None
    return where is not None and where.concrete and where.kind != CPU_TYPE


def cpu_only_argument(site: CallSite) -> Value:
    """`pack_padded_sequence(x, lengths)`: `lengths` must live on the cpu."""
    args, path = site.args, site.path
    position, keyword = api.CPU_ONLY_ARGS[path]
    found = args.find(position, keyword)
    if found is not None:
        arg_node, value = found
        # (what an object of unknown kind returned may be a list: a model's `decode_lengths`, from `.tolist()`)
        if isinstance(value, Tensor) and value.where is not None and value.where.kind != CPU_TYPE \
                and (value.derived or value.where.concrete) and not value.maybe_object or sent_away(value):
            site.emit(CpuOnlyArgument(site.node, path.rsplit(".", 1)[-1], f"`{keyword}`", site.operand(arg_node, value),
                                      site.context))
    first = args.first()
    return Located(where=first.device) if isinstance(first, (Tensor, Located)) else UNKNOWN


def tensor_numpy(site: CallSite) -> Value:
    receiver = cast(Tensor, site.receiver)  # a Tensor method's (registry.METHODS), whose node is known
    force = site.args.keywords.get("force")
    if force is not None and not (isinstance(force[1], Const) and not force[1].value):
        # `.numpy(force=True)` (torch >= 1.13): detached and copied to the host first, from any device
        if receiver.where is None or receiver.where.kind != CPU_TYPE:
            operand = site.operand(cast(cst.CSTNode, site.receiver_node), receiver)
            site.facts.host_sync(site.node, ".numpy(force=True)", operand, site.state)
        return HostArray(why=((site.node, "a numpy array, copied to the host"),))
    _pinned_to_host(site, cast(cst.CSTNode, site.receiver_node), receiver)
    if _on_gpu_here(site, receiver):
        site.emit(HostConversion(site.node, ".numpy()", site.operand(cast(cst.CSTNode, site.receiver_node), receiver),
                                 site.context))
        site.facts.note_sync(site.state)
    return HostArray(why=((site.node, "a numpy array, on the host"),))


def tensor_to_python(site: CallSite) -> Value:
    """`.item()`, `.tolist()`: a Python value, after waiting for the GPU."""
    receiver = cast(Tensor, site.receiver)  # a Tensor method's (registry.METHODS), whose node is known
    if receiver.where is None or receiver.where.kind != CPU_TYPE:
        operand = site.operand(cast(cst.CSTNode, site.receiver_node), receiver)
        site.facts.host_sync(site.node, f".{site.name}()", operand, site.state)
    if site.name in api.HOST_LIST_METHODS:
        return HostArray(why=((site.node, "a Python list, on the host"),))
    return UNKNOWN  # `.item()`: a number


def array_method(site: CallSite) -> Value:
    """`a.astype(np.float32)`, `a.reshape(-1, 1)` on a host array: an array on the host still."""
    return HostArray(why=site.receiver.why + ((site.node, "a numpy array, on the host"),))


FUNCTIONS = {path: cpu_only_argument for path in api.CPU_ONLY_ARGS}
ARRAY_METHODS = {name: array_method for name in api.HOST_ARRAY_METHODS}
TENSOR_METHODS = {
    **{name: tensor_numpy for name in api.HOST_CONVERSION_METHODS},
    **{name: tensor_to_python for name in api.HOST_SYNC_METHODS},
}
