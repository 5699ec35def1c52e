"""Binding values to assignment targets: names, tuples, attributes, subscripts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union, cast

import libcst as cst

from devlint.core.torch_catalogue import views as api
from devlint.static.semantics.containers import const_key, element, item, seq_store
from devlint.static.semantics import optim
from devlint.static.syntax import dotted
from devlint.core.facts import HostConversion
from devlint.core.values import (
    CPU, UNKNOWN, Class, DeviceValue, HostArray, Located, Module, Seq, Tensor, Unknown, Value, join, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.state import State
    from devlint.static.analysis.walker import Walker

IMPLICIT_HOST = CPU  # a batch on the host: on the cpu, not made here


def assign(interp: Walker, target: cst.CSTNode, value: Value, state: State, line: cst.CSTNode) -> None:
    if type(target) is cst.Name:
        interp.assign_name(target.value, value, state, line)
    elif type(target) in (cst.Tuple, cst.List):
        target = cast("Union[cst.Tuple, cst.List]", target)
        value = _batch_evidence(interp, target, value, line)
        if isinstance(value, Seq) and value.shapes and all(type(e.value) is not cst.StarredElement
                                                           for e in target.elements):
            # `q, real, fake, mask = encode(x)` of a function that returns 2 or 4 things: the 4
            shape = next((shape for shape in value.shapes if len(shape) == len(target.elements)), None)
            value = replace(value, items=shape, shapes=()) if shape is not None else value
        for i, target_element in enumerate(e.value for e in target.elements):
            if type(target_element) is cst.StarredElement:
                assign(interp, target_element.value, Seq(elem=element(value)), state, line)
                continue
            assign(interp, target_element, item(value, i), state, line)
    elif type(target) is cst.Attribute:
        base = dotted(target.value)
        if base is None:
            interp.eval(target.value, state)
            return
        interp.store_attribute(base, target.attr.value, value, state, line)
    elif type(target) is cst.Subscript:
        container = interp.eval(target.value, state)
        eval_slices(interp, target, state)
        rebuilt = _every_entry(interp, target, line) if isinstance(value, HostArray) or isinstance(value, Tensor) \
            and value.where is not None and value.where.kind == api.CPU_TYPE else None
        if rebuilt and not (isinstance(container, Seq) and container.keys is not None):
            # `for key in batch.keys(): batch[key] = torch.tensor(batch[key])`, `for n in range(len(preds)):
            # preds[n] = preds[n].cpu().numpy()`: every entry is rebuilt on the host (a loop that sends each to the
            # GPU is left as it was: the walk keeps what it knew of the batch)
            assign(interp, target.value, Seq(kind=rebuilt, elem=value), state, line)
        elif isinstance(container, Seq) and storable(target.value):
            assign(interp, target.value, seq_store(container, const_key(target), value), state, line)
        elif isinstance(container, HostArray):
            _write_into_array(interp, target, value, state, line)
        elif isinstance(container, Tensor) and (container.collated or container.host_batch) \
                and storable(target.value):
            # `batch[k] = batch[k].to(device)`: a collated batch is a dict here, `blocks[i] = blocks[i].to(device)`
            # a list (a batch's member of unknown kind); its members may have moved
            kind = "dict" if isinstance(const_key(target), str) or container.collated else "list"
            assign(interp, target.value, Seq(kind=kind, elem=join(container, value)), state, line)
        elif _copied_to_host(container, value):
            # `feats[a:b, :] = out` of a cuda `out` into a cpu buffer: the copy waits for the GPU's work
            interp.facts.note_sync(state)


def _every_entry(interp: Walker, target: cst.Subscript, line: cst.CSTNode) -> Optional[str]:
    """`batch[key] = ...` in `for key in batch.keys():` (under an `if` too: on that path, each key that takes it;
    the paths' join holds what each gives), `preds[n] = preds[n].cpu().numpy()` in `for n in range(N):` (an entry
    rewritten from itself, at each index): the kind of container every entry of is written ("dict", "list")."""
    loops = interp.frames.loops
    if not loops or loops[-1].every_key is None or len(target.slice) != 1 \
            or type(target.slice[0].slice) is not cst.Index:
        return None
    key, held, kind = loops[-1].every_key
    if dotted(target.slice[0].slice.value) != key:
        return None
    if held:
        return kind if dotted(target.value) == held else None
    value = line.body[0].value if type(line) is cst.SimpleStatementLine and type(line.body[0]) is cst.Assign \
        else None
    rewritten = dotted(target.value)
    return kind if value is not None and rewritten is not None and any(
        type(node) is cst.Subscript and dotted(node.value) == rewritten and len(node.slice) == 1
        and type(node.slice[0].slice) is cst.Index and dotted(node.slice[0].slice.value) == key
        for node in _chain(value)) else None


def _chain(value: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The receivers of a chain of calls and attributes: `preds[n]` of `preds[n].detach().cpu().numpy()`."""
    found = []
    while type(value) in (cst.Call, cst.Attribute):
        value = value.func if type(value) is cst.Call else value.value  # type: ignore[attr-defined]
        found.append(value)
    return found


def _copied_to_host(container: Value, value: Value) -> bool:
    return isinstance(container, Tensor) and container.where is not None and container.where.kind == api.CPU_TYPE \
        and container.maybe_cpu is None and isinstance(value, Tensor) and value.where is not None \
        and value.where.is_gpu and not value.inferred and not value.scalar


def _write_into_array(interp: Walker, target: cst.Subscript, value: Value, state: State,
                      line: cst.CSTNode) -> None:
    """`scores[i] = model(x)`: numpy converts what is written into its array (Tensor.__array__)."""
    if isinstance(value, Tensor) and value.where is not None and value.where.is_gpu and not value.inferred \
            and not value.scalar:
        node = line.body[0].value if type(line) is cst.SimpleStatementLine and type(line.body[0]) is cst.Assign \
            else target
        how = f"{interp.file.code(target)} = ..."
        interp.facts.emit(HostConversion(line, how, interp.file.operand(node, value), interp.frames.context))
        interp.facts.note_sync(state)


def _batch_evidence(interp: Walker, target: cst.Tuple | cst.List, value: Value, line: cst.CSTNode) -> Value:
    """`x, y = batch` of unknown origin, where the code moves `x` to the device but never `y`: the batch
    is host data (the reason to move `x`), so `y` stays on the cpu, as a DataLoader's batch does. Not a
    sibling that a move is made to meet (`p.add_(x.cuda())`): the code believes that one is on the device."""
    if not isinstance(value, (Unknown, Located)):
        return value
    names = [dotted(e.value) for e in target.elements]
    modules = interp.file.module_names()  # `model.eval()`, `model.parameters()`: a module, which moves in place
    moved = {name for name in interp.file.moved_names() if name not in modules}
    if not any(n in moved for n in names if n) or all(n in moved for n in names if n):
        return value
    shown = ", ".join(f"`{n}`" for n in names if n in moved)
    host = Tensor(why=((line, f"a batch: the code moves {shown} to the device, so it is on the host"),),
                  where=IMPLICIT_HOST, host_batch=True, maybe_object=True)
    met = interp.file.met_names()
    return Seq(kind="tuple", items=tuple(host if n and n not in met else UNKNOWN for n in names), elem=host)


def unmoved_item(interp: Walker, node: cst.Subscript, container: Value) -> Optional[Tensor]:
    """`batch["label"]` of a batch of unknown origin whose other items the code sends to the device
    (`batch["image"].to(device)`) but never this one: host data, as `_batch_evidence` reads `x, y = batch`."""
    key, name = const_key(node), dotted(node.value)
    if not isinstance(container, (Unknown, Located)) or not isinstance(key, str) or name is None \
            or container.device is not None and container.device.concrete:
        return None
    moved = interp.file.moved_keys(name)
    if not moved or key in moved or None in moved or _batches_placed(interp):
        return None
    keys = sorted((f'"{k}"' if isinstance(k, str) else repr(k) for k in moved))  # (`batch[0]` and `batch["x"]`)
    shown = " and ".join(f"`{name}[{k}]`" for k in keys)
    return Tensor(why=((node, f"a batch: the code moves {shown} to the device, so this item is on the host"),),
                  where=IMPLICIT_HOST, host_batch=True, maybe_object=True)


def _batches_placed(interp: Walker) -> bool:
    """Does the file use a library whose loaders put batches on the device themselves (`accelerator.prepare`)?"""
    return any(path.split(".", 1)[0] in api.BATCH_PLACING_LIBRARIES for path in interp.tables.prepass.imports.values())


def storable(node: cst.CSTNode) -> bool:
    """Can a new value be bound to this expression: a name, `a.b`, `a["k"]`, `a.b[0]["k"]`?"""
    while type(node) is cst.Subscript:
        node = node.value
    return dotted(node) is not None


def eval_slices(interp: Walker, node: cst.Subscript, state: State) -> list[tuple[cst.BaseExpression, Value]]:
    """Evaluate the indices of `x[...]`: (node, value) for each plain index."""
    out = []
    for element_ in node.slice:
        if type(element_.slice) is cst.Index:
            out.append((element_.slice.value, interp.eval(element_.slice.value, state)))
        else:
            bounds = cast(cst.Slice, element_.slice)  # not an Index: a Slice
            for part in (bounds.lower, bounds.upper, bounds.step):
                if part is not None:
                    interp.eval(part, state)
    return out


def exec_assign(interp: Walker, small: cst.Assign, line: cst.CSTNode, state: State) -> None:
    value = interp.eval(small.value, state)
    if isinstance(value, (Tensor, Module, DeviceValue, Located)) and type(small.value) is not cst.Name:
        value = value.with_why((line, ""))
    for target in small.targets:
        assign(interp, target.target, value, state, line)
        if type(target.target) is cst.Name and type(small.value) is cst.Call and isinstance(value, (Module, Unknown)):
            # (a model, or what a call nobody can see built: only then may the name hold another model now)
            optim.owner_rebound(state.env, target.target.value, small.value)


def exec_ann_assign(interp: Walker, small: cst.AnnAssign, line: cst.CSTNode, state: State) -> None:
    if small.value is not None:
        value = interp.eval(small.value, state)
        if type(value) is Unknown:
            value = _annotated(interp, small.annotation.annotation, state) or value
        assign(interp, small.target, value, state, line)


def _annotated(interp: Walker, annotation: cst.BaseExpression, state: State) -> Optional[Value]:
    """`alg_class: type[PPO] = resolve_callable(cfg["class_name"])`: a value nobody can see, annotated with a
    class of the project, is that class (`type[C]`), or an object of a plain class as its methods see it (`C`)."""
    wrapped = type(annotation) is cst.Subscript and dotted(annotation.value) in _CLASS_OF and len(
        annotation.slice) == 1 and type(annotation.slice[0].slice) is cst.Index
    node = cast(cst.Index, cast(cst.Subscript, annotation).slice[0].slice).value if wrapped else annotation
    cls = interp.eval(node, state) if type(node) in (cst.Name, cst.Attribute) else None
    if not isinstance(cls, Class) or cls.node is None or not wrapped and cls.is_module:
        return None  # (an object of a module class: where it is, nobody says)
    return cls if wrapped else interp.class_object(cls)


_CLASS_OF = frozenset({"type", "Type", "typing.Type"})
