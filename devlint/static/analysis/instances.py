"""Objects of the project's classes: `Net(...)` built with what its `__init__` does (on the cpu, unless it moves
itself), `Net.load_from_checkpoint(...)`, and whether a module class owns weights at all (`has_state`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, cast

import libcst as cst

from devlint.static.analysis.definitions import by_shape, calls_attribute, dataclass_fields, find_method
from devlint.static.analysis.functions import bind_arguments, class_summary, refill, summarise
from devlint.static.analysis.members import only_handed_in, placed_by_members
from devlint.static.analysis.state import State
from devlint.static.analysis.tables import MAX_CALL_DEPTH
from devlint.core.torch_catalogue import views as api
from devlint.static.semantics.callsite import Args, CallSite
from devlint.static.semantics.modules import torch_base_device
from devlint.static.syntax import children, dotted
from devlint.core.values import (
    CPU, UNKNOWN, Class, Const, HostArray, Instance, Located, Module, Ref, Seq, Step, Tensor, Unknown, Value, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.walker import Walker


def instantiate(interp: Walker, cls: Class, site: CallSite, args: Optional[Args] = None) -> Value:
    """`Net(...)`: a module on the cpu (or the default device), with what its __init__ gives it (`args`: the
    arguments its __init__ takes, where they are not the call's)."""
    args, state, node = args or site.args, site.state, site.node
    if cls.is_module:
        note = "modules are created on cpu" if state.default_device is None else "created on the default device"
        obj: Value = Module(why=((node, note),), where=state.default_device or CPU, cls=cls.name, ident=id(node))
    else:
        obj = Instance(why=((node, ""),), cls=cls.name)
    tables, stack = interp.tables, interp.frames.stack
    init = find_method(cls, "__init__", tables.classes)
    if init is None and isinstance(obj, Instance) and cls.node is not None:
        fields = dataclass_fields(cls.node)
        if fields:  # `TaskOutput(probs=probs)` of a `@dataclass`: its fields hold what it is given
            given = [(f, args.find(i, f)) for i, f in enumerate(fields)]
            return replace(obj, attrs=tuple((f, found[1]) for f, found in given if found is not None))
    if init is None or id(init) not in tables.functions:
        if isinstance(obj, Module) and init is None and not has_state(interp, cls, obj):
            return replace(obj, where=None, stateless=True)  # `class MaskedLoss(nn.CrossEntropyLoss)`
        where = torch_base_device(site, cls.bases) if isinstance(obj, Module) and init is None else None
        return replace(obj, where=where, why=((node, ""),)) if where is not None else obj  # torch's __init__
    if id(init) in stack:
        return obj  # a class that builds itself in its __init__ (a tree of blocks): one level is enough
    if len(stack) >= MAX_CALL_DEPTH:
        return _unfollowed(interp, cls, obj, bind_arguments(interp, init, obj, state, args=args) or {})
    fn = replace(tables.functions[id(init)], bound=obj)
    state.moved.pop(id(node), None)  # a new object (this line's last one may have been moved): see calls.eval_call
    params = bind_arguments(interp, init, obj, state, args=args)
    if params is None:
        return obj
    summary = summarise(interp, fn, params, state, node)
    summary.apply_moves(state)
    for param, filled in summary.filled:  # `Scene(args, gaussians)` that sets up the model it is given
        refill(interp, init, obj, args, param, filled, state, node)
    final_self = summary.final_self
    if isinstance(final_self, Module) and isinstance(obj, Module):
        final_self = replace(final_self, ident=obj.ident)  # this object (a memoised summary may be another's)
    if isinstance(final_self, Module) and not has_state(interp, cls, final_self):
        return replace(final_self, where=None, stateless=True)
    if isinstance(final_self, Module) and final_self.where == cast(Module, obj).where and not final_self.moved:
        final_self = placed_by_members(final_self)
        if by_shape(cls) and only_handed_in(final_self):  # an attack object around the caller's model: no layer
            final_self = replace(final_self, where=None)
    return final_self if isinstance(final_self, (Module, Instance)) else obj


def _unfollowed(interp: Walker, cls: Class, obj: Value, given: Optional[dict[str, Value]] = None) -> Value:
    """An instance whose __init__ is too deep to follow with these arguments: the class's summary (what its
    __init__ does to every instance) says whether it moves itself (`self.to(device)`: then where it ends is
    unknown) or owns no weights; else it is where modules start, as if followed. `given`: what the call gives each
    parameter, which tells what the members kept from them are: plain data (`Dice(smooth=1e-5)`, a loss class),
    a layer (on its own device: as if followed), or a value of unknown kind (then where the whole is, unknown)."""
    summary = class_summary(interp, cls) if isinstance(obj, Module) else None
    if not isinstance(summary, Module):
        return obj
    if summary.moved:
        return replace(obj, where=None)
    if has_state(interp, cls, summary):
        return obj
    kinds = {_member_kind(v, given or {}) for _, v in summary.attrs if isinstance(v, (Unknown, Located))}
    if kinds <= {"data"}:
        return replace(obj, where=None, stateless=True)  # owns no weights (nor a member it is handed, that may)
    return obj if "layer" in kinds else replace(obj, where=None)


def _member_kind(member: Value, given: dict[str, Value]) -> str:
    """"data", "layer" or "unknown": a member of unknown kind kept from a parameter, by what the call gives it."""
    name = _parameter_of(member)
    value = given.get(name) if name is not None else None
    if isinstance(value, (Const, HostArray, Class)) or isinstance(value, Module) and value.stateless or isinstance(
            value, Seq) and all(isinstance(m, Const) for m in (*(value.items or ()), value.elem) if m is not UNKNOWN):
        return "data"
    return "layer" if isinstance(value, (Module, Tensor)) else "unknown"


def _parameter_of(value: Value) -> Optional[str]:
    """The parameter a symbolic value is (its story one `cst.Param`), or None."""
    why: tuple[Step, ...] = getattr(value, "why", ())
    first = why[0][0] if len(why) == 1 else None
    return first.name.value if isinstance(first, cst.Param) else None


def restored(interp: Walker, cls: Class, site: CallSite) -> Value:
    """`Net.load_from_checkpoint(path, n=4)`, a constructor a library base class gives `Net`: an instance of
    `Net` whose `__init__` takes the call's keywords (the rest came with the weights), on the cpu unless a
    keyword places it."""
    loaded = site.evaluate_arguments()
    args = Args()
    args.keywords = {k: a for k, a in loaded.keywords.items() if k not in api.PLACING_KEYWORDS}
    args.starstar = loaded.starstar
    built = instantiate(interp, cls, site, args)
    if isinstance(built, Module) and not api.PLACING_KEYWORDS.isdisjoint(loaded.keywords):
        return replace(built, where=None)  # `map_location=`, `device_map=`: where the caller said, unknown here
    if isinstance(built, Module) and built.where == CPU and not built.moved:
        return replace(built, why=((site.node, "loaded on cpu"),))
    return built


def has_state(interp: Walker, cls: Class, module: Module, _below: frozenset[str] = frozenset(),
              _held: bool = False) -> bool:
    """Does a module of a class defined here own parameters or buffers (so it has a device)?

    `_below`: the classes whose bases are being looked at; a base among them is a cycle
    (`class A(B)` / `class B(A)`, which no program can run), and adds nothing. `_held`: a subclass's object
    holds members of unknown kind (handed in: they may be layers)."""
    _held = _held or any(type(member) is Unknown for _, member in module.attrs)
    for _, value in module.attrs:
        if isinstance(value, Tensor) and value.parameter or isinstance(value, Module) and not value.stateless:
            return True
        if isinstance(value, Seq) and isinstance(value.elem, Module):
            return True
    if _holds_imported_layer(interp, cls):
        return True
    # the bases as they were where the class was defined (another module's names differ from this file's)
    bases = cls.bases or [interp.eval(base.value, State()) for base in (cls.node.bases if cls.node else ())]
    for value in bases:
        if isinstance(value, Ref) and value.path.startswith("torch.nn."):
            if value.path in api.MODULES_WITH_PARAMETERS:
                return True
            continue  # nn.Module itself, a loss, an activation
        if isinstance(value, Ref) and value.path in api.STATELESS_BASES and not _held:
            continue  # `class Encoding(nn.Module, ABC)`: a mixin that makes no parameter (nor holds what may)
        if isinstance(value, Class) and value.name != cls.name:
            if value.name in _below:
                continue
            summary = class_summary(interp, value)
            if not isinstance(summary, Module) or has_state(interp, value, summary, _below | {cls.name}, _held):
                return True
            continue
        return True  # a base we cannot see may create parameters
    return False


def _holds_imported_layer(interp: Walker, cls: Class) -> bool:
    """`self.conv = GINConv(...)` in __init__, a class imported from a library or the project: a layer
    we cannot see, which may own parameters (a torch.nn class is known, and gives a Module value)."""
    layers = interp.tables.imported_layers
    known = layers.get(cls.name)
    if known is None:
        known = layers[cls.name] = _scan_for_imported_layer(interp, cls)
    return known


def _scan_for_imported_layer(interp: Walker, cls: Class) -> bool:
    """(A layer is called, `self.conv(x)`; an object only asked for methods, `self.coder.decode(d)`, is a helper.)"""
    init = find_method(cls, "__init__", interp.tables.classes)
    if init is None:
        return False
    stack: list[cst.CSTNode] = [init.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Assign and type(node.value) is cst.Call:
            targets = [dotted(t.target) or "" for t in node.targets]
            name = (dotted(node.value.func) or "").rsplit(".", 1)[-1]
            if any(t.startswith("self.") for t in targets) and name[:1].isupper() and not name.isupper():
                value = interp.eval(node.value.func, State())
                if isinstance(value, Ref) and not value.path.startswith(("torch.", *api.LIBRARY_PREFIXES)) \
                        and cls.node is not None and calls_attribute(cls.node, targets):
                    return True  # (a scikit-learn estimator, a pandas frame: no layer)
        elif type(node) not in (cst.FunctionDef, cst.ClassDef):
            stack.extend(children(node))
    return False

