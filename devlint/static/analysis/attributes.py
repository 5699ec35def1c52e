"""`value.attr`: what an attribute of each kind of value is."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, cast

import libcst as cst

from devlint.static.analysis.definitions import (
    decorator_name, find_method, is_abstract, is_classmethod, sole_override, unpacked_at_top,
)
from devlint.static.analysis.guards import guess_flag
from devlint.static.analysis.imports import project_attribute
from devlint.static.semantics import accelerate
from devlint.static.semantics.containers import dict_entry
from devlint.static.syntax import dotted
from devlint.core.torch_catalogue import views as api
from devlint.core.values import (
    CPU, SELECTED, UNKNOWN, ArgsNamespace, Availability, BoundMethod, Class, Const, Device, DeviceType, DeviceValue,
    Instance, Located, Module, Ref, Seq, Tensor, Unknown, Value, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.state import State
    from devlint.static.analysis.walker import Walker

# Attributes that are the tensor itself, for device purposes.
_SAME_TENSOR = api.SAME_DEVICE_ATTRIBUTES


def attribute(interp: Walker, base: Value, attr: str, state: State, name: Optional[str] = None,
              node: Optional[cst.CSTNode] = None) -> Value:
    if isinstance(base, Ref):
        found = project_attribute(interp, base.path, attr) if interp.tables.project is not None else None
        if found is not None:
            return found
        path = api.ALIASES.get(f"{base.path}.{attr}", f"{base.path}.{attr}")
        return accelerate.device_of(node) if path == api.ACCELERATOR_DEVICE else Ref(path=path)
    if isinstance(base, Tensor):
        return _tensor_attribute(base, attr)
    if isinstance(base, DeviceValue):
        return DeviceType(device=base.where) if attr == "type" else UNKNOWN
    if isinstance(base, Const) and base.value is None:
        # None has no attributes: code that reads one sees what was stored over it elsewhere (`self.device = None`
        # in `__init__`, set by another method), which is unknown here
        return _unknown_attribute(UNKNOWN, attr, node)
    if isinstance(base, Module):
        return _module_attribute(interp, base, attr, node, state)
    if isinstance(base, Instance):
        value = base.attr(attr)
        if value is not None:
            return value
        method = _dispatched(interp, interp.tables.classes.get(base.cls), attr)
        if method is not None:
            return _method_value(interp, method, base, node, state)
        return _unknown_attribute(UNKNOWN, attr, node)  # set elsewhere: `trainer.device`
    if isinstance(base, Class):
        method = find_method(base, attr, interp.tables.classes)
        if method is None:
            return UNKNOWN
        return _method_value(interp, method, base if is_classmethod(method) else None)  # `cls()` builds one
    if isinstance(base, ArgsNamespace):
        for dest, default in base.options:
            if dest == attr:
                return default
        return guess_flag(attr)
    if isinstance(base, Located) and attr == "device" and _configuration(interp, base):
        # `args.device` of a parameter used as no tensor or module is: the device a configuration chose
        param = cast(Device, base.where).param  # a parameter's device (_configuration)
        return DeviceValue(why=((node, ""),) if node is not None else (),
                           where=replace(SELECTED, name=f"{param}.device"))
    if isinstance(base, Unknown) and attr == "device" and _unknown_local(interp, node, state):
        return DeviceValue(where=None)  # the device of a tensor we know nothing of: unknown, not a chosen one
    if isinstance(base, (Unknown, Located)):
        return _unknown_attribute(base, attr, node)
    if isinstance(base, Seq) and base.kind == "dict" and not hasattr(dict, attr) and attr not in api.MOVES_TO_ARGUMENT \
            and attr not in api.MOVES_TO_GPU and attr not in api.MOVES_TO_CPU:
        # `tokenizer(texts, return_tensors="pt").input_ids`: a mapping read by attribute (a dict has none) gives its
        # entries (a `BatchEncoding`, an `EasyDict` of settings)
        found = dict_entry(base, attr)
        return found if found is not None else base.elem
    return BoundMethod(receiver=base, name=attr)


def _unknown_local(interp: Walker, node: Optional[cst.CSTNode], state: State) -> bool:
    """`inter.device` where `inter` is a value this function computed and we cannot know (a tensor, as a
    rule: `x.device` of a configuration, `args.device`, is the chosen device, but a configuration is a
    parameter or a module-level name), or a name used as a tensor."""
    if node is None or type(node) is not cst.Attribute:
        return False
    if type(node.value) is cst.Attribute:  # `self.alive_seq.device`: an attribute the class uses as a tensor
        return dotted(node.value) in interp.file.tensor_names()
    if type(node.value) is not cst.Name:
        return False
    name = node.value.value
    if name in interp.file.tensor_names():
        return True
    function = interp.frames.current_function
    if function is None and name in state.env:
        return name in interp.tables.syntax(unpacked_at_top, interp.tables.module)
    if function is None or name not in state.env:
        return False
    params = function.params
    return all(p.name.value != name for p in (*params.posonly_params, *params.params, *params.kwonly_params))


def _configuration(interp: Walker, base: Located) -> bool:
    """Is `base` a parameter of the current function that it never uses as a tensor or a module?"""
    where = base.where
    if where is None or where.kind != "param" or where.param in (None, "self"):
        return False
    name = where.param
    file = interp.file
    return name not in file.tensor_names() and name not in file.module_names() and name not in file.moved_names()


def _tensor_attribute(base: Tensor, attr: str) -> Value:
    if attr == "device":
        return DeviceValue(why=base.why, where=base.where)
    if attr in _SAME_TENSOR:
        return base
    if attr == "is_cuda":
        # `if x.is_cuda:` guards GPU code; with x on the selected device, it is the availability check itself:
        # branching on it chooses the device (`out.cuda()` under it is on the selected device after the join)
        selected = base.where is not None and base.where.kind == "selected"
        return Availability(positive=True, choice=selected, holds=_is_cuda_known(base))
    if attr in ("shape", "dtype", "ndim", "requires_grad", "layout"):
        return UNKNOWN
    if not api.is_tensor_method(attr) and base.where is not None and base.where.kind != "param":
        # `outputs.pooler_output`: no tensor has it, so the value is an object (a model's output), and this is a
        # field of it, where the object is (not a parameter's, only guessed to be a tensor: `graph.edge_mat`); of
        # an object that may hold numpy (a model's own API: EfficientZero's `initial_inference(obs).value`), a
        # field that may be numpy too
        if base.maybe_object and base.inferred:
            return replace(base, fresh=False)
        return Located(why=base.why, where=base.where)
    return BoundMethod(receiver=base, name=attr)


def _is_cuda_known(tensor: Tensor) -> Optional[bool]:
    """`x.is_cuda` of a tensor known to be on cuda (a caller's, moved there) or put on the cpu by name (not
    merely made without `device=`, nor on the cpu on some path only): None where it may be either."""
    where = tensor.where
    if where is None or tensor.maybe_cpu is not None or tensor.cpu_path is not None or tensor.inferred \
            or tensor.maybe_object:
        return None
    if where.kind == api.CUDA_TYPE:
        return True
    return False if where.kind == api.CPU_TYPE and not where.implicit else None


def _module_attribute(interp: Walker, base: Module, attr: str, node: Optional[cst.CSTNode] = None,
                      state: Optional[State] = None) -> Value:
    value = base.attr(attr)
    cls = interp.tables.classes.get(base.cls or "")
    if value is not None:
        if isinstance(value, Module) and value.moved and cls is not None and cls.by_shape:
            return value  # a module by its `forward` only has no `.to()` that moves its members: each is where it went
        if isinstance(value, Tensor) and value.parameter and _being_built(interp, base, node):
            return value  # `self.gate.data.mul_(mask)` in `__init__`: nothing has moved it yet, it is where it was made
        return as_member(base, value)
    method = _dispatched(interp, cls, attr) if cls else None
    if method is not None:
        return _method_value(interp, method, base, node, state)
    if attr == "device":
        if _being_built(interp, base):
            # `self.device` in `__init__`: nothing has moved the module yet, it is where modules start
            return DeviceValue(why=((node, "a module being built is on cpu"),) if node is not None else (), where=CPU)
        return DeviceValue(why=base.why, where=base.where)
    if attr in ("weight", "bias"):
        return Tensor(why=base.why, where=base.where, parameter=True)
    if cls is not None and not attr.startswith("__"):
        return Located(why=base.why, where=base.where)
    return BoundMethod(receiver=base, name=attr)


def _being_built(interp: Walker, module: Module, node: Optional[cst.CSTNode] = None) -> bool:
    """`self` in its `__init__`, not moved there yet: walked on its own, or for a caller's `Table(n)` (read as
    `self.table`)."""
    where = module.where
    if not interp.frames.constructing or module.moved or where is None:
        return False
    if where.kind == "param" and where.param == "self":
        return True
    return type(node) is cst.Attribute and type(node.value) is cst.Name and node.value.value == "self"


def _unknown_attribute(base: Value, attr: str, node: Optional[cst.CSTNode]) -> Value:
    polarity = api.flag_polarity(attr)
    if polarity is not None:
        return Availability(positive=polarity)
    if isinstance(base, Located) and attr == "device":
        return DeviceValue(where=base.where)
    if isinstance(base, Located) and attr in _SAME_TENSOR:
        return base
    if api.looks_like_device_name(attr):
        return DeviceValue(why=((node, ""),) if node is not None else (), where=SELECTED)
    return UNKNOWN


def _dispatched(interp: Walker, cls: Optional[Class], attr: str) -> Optional[cst.FunctionDef]:
    """The method `obj.attr` runs: the class's own or a base's, or where that one is abstract (it only raises
    NotImplementedError) the one override of the file's subclasses: a base class's template method (`run()`
    timing `self.forward()`) analysed on its own runs what its subclass does."""
    classes = interp.tables.classes
    method = find_method(cls, attr, classes)
    if method is not None and is_abstract(method):
        return sole_override(cls, attr, classes) or method
    return method


def _method_value(interp: Walker, method: cst.FunctionDef, bound: Optional[Value],
                  node: Optional[cst.CSTNode] = None, state: Optional[State] = None) -> Value:
    fn = interp.tables.functions.get(id(method))
    if fn is None:
        return UNKNOWN
    decorators = [decorator_name(d) for d in method.decorators]
    if any(name.endswith(api.PROPERTY_DECORATORS) for name in decorators):
        if node is not None and state is not None and bound is not None \
                and any(name.rsplit(".", 1)[-1] in api.PROPERTY_GETTERS for name in decorators):
            # `trainer.networks` of `@property def networks(self): return [self.policy, self.qf]`: the getter's
            # result (rlkit moves each net by looping over it), where it is an object; a device or a tensor a
            # getter reads from deep inside (Fabric's `self._strategy.root_device`) is left unknown, as before
            value = interp.read_property(replace(fn, bound=bound), node, state)
            if isinstance(value, Seq):
                # a list the getter builds afresh (`[a.target_policy for a in self.agents]`) holds objects whose
                # later moves the walk may not have followed (MAAC's `a.target_policy = fn(a.target_policy)`): each
                # keeps its identity (a loop over it moves them), not a place
                return replace(value, elem=_unplaced(value.elem), items=None if value.items is None else tuple(
                    _unplaced(item) for item in value.items))
            if isinstance(value, DeviceValue) and isinstance(bound, Module) and value.where is not None \
                    and (value.where == bound.where or value.where.concrete):
                # `@property def device(self): return next(self.parameters()).device`: its own, or where the member
                # it reads went (`self.model = self.model.to("cpu")`, pyg's SentenceTransformer's fallback)
                return value
            return value if isinstance(value, (Module, Instance)) else UNKNOWN
        return UNKNOWN  # a setter's, or a property of a class itself: no walk reads it here
    return replace(fn, bound=bound)


def _unplaced(value: Value) -> Value:
    return replace(value, where=None) if isinstance(value, Module) else value


def as_member(module: Module, value: Value) -> Value:
    """A module's attribute as seen through the module: registered members move with it."""
    if isinstance(value, Module):
        if value.stateless:
            return value  # a loss has no device
        if value.moved and not module.moved and module.where is not None and module.where.kind != "param":
            return value  # moved on its own while the module is built (`self.ex = Extractor(n).to(device)`)
        # a holder moved since moved its whole tree: a member's own earlier move is overridden down the tree too
        return replace(value, where=module.where, moved=value.moved or module.moved)
    if isinstance(value, Tensor) and value.parameter:
        return replace(value, where=module.where, why=module.why or value.why,
                       from_param="self" if module.where is not None and module.where.kind == "param" else None)
    if isinstance(value, Seq) and isinstance(value.elem, Module) and value.plain_attr is None:
        return Seq(kind=value.kind, elem=replace(value.elem, where=module.where))
    if isinstance(value, Seq) and value.hand_registered and isinstance(value.elem, Tensor) and value.elem.parameter:
        # parameters a plain list holds and the module registered one by one (`self.register_parameter`)
        return Seq(kind=value.kind, elem=as_member(module, value.elem))
    return value
