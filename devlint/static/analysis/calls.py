"""`f(...)`: find out what is called, then hand the call to the right place.

Imported functions and methods of known kinds go to devlint.static.semantics (tables
of handlers); functions and classes of this file to devlint.static.analysis.functions
(analysed with the caller's arguments); modules are called like `forward`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import libcst as cst

from devlint.core.torch_catalogue import views as api
from devlint.static.analysis import functions, instances
from devlint.static.analysis.attributes import attribute
from devlint.static.analysis.definitions import clock_wrapped
from devlint.static.analysis.guards import comparison_guard
from devlint.static.semantics import data, host, modules, opaque, registry, tensors, timing
from devlint.static.semantics.callsite import CallSite
from devlint.static.syntax import dotted
from devlint.static.semantics.containers import join_all
from devlint.core.values import (
    Alternatives, ArgsNamespace, Availability, BoundMethod, Builtin, Class, Const, DeviceValue, Function, HostTransform,
    Instance, LambdaFunction, Located, ModelWrapper, Module, Ref, Tensor, TensorType, UNKNOWN, Value,
)

if TYPE_CHECKING:
    from devlint.static.analysis.state import State
    from devlint.static.analysis.walker import Walker

_CONTAINS = "__contains__"  # `a.__contains__(b)`: `b in a`, written as a call


def eval_call(interp: Walker, node: cst.Call, state: State) -> Value:
    result = _eval_call(interp, node, state)
    if type(result) is Module and result.ident == id(node) and state.moved:
        state.moved.pop(id(node), None)  # a new object: the one this line built on a loop's last pass was moved
    if any(arg.keyword is not None and arg.keyword.value in api.GPU_QUANTIZATION_KEYWORDS
           and type(arg.value) is cst.Name and arg.value.value == "True" for arg in node.args):
        state.guarded = True  # a model quantized by bitsandbytes: what follows runs with a CUDA GPU
    return result


def _eval_call(interp: Walker, node: cst.Call, state: State) -> Value:
    func = node.func
    if opaque.returns_torch_tensors(node):
        CallSite(interp, node, state).evaluate_arguments()
        return opaque.tokenized(node)
    if type(func) is cst.Attribute:
        receiver = interp.eval(func.value, state)
        name = func.attr.value
        if name == _CONTAINS and len(node.args) == 1 and node.args[0].keyword is None:
            # `str(device).__contains__("cuda")` tests what `"cuda" in str(device)` does
            guard = comparison_guard(interp.eval(node.args[0].value, state), cst.In(), receiver)
            if guard is not None:
                return Availability(positive=guard)
        if isinstance(receiver, (Module, Instance, Class)):
            callee = interp.current(attribute(interp, receiver, name, state), state)  # `self.policy(x)`
            if isinstance(receiver, Class) and callee is UNKNOWN and name in api.INHERITED_CONSTRUCTORS:
                return instances.restored(interp, receiver, CallSite(interp, node, state))
            if isinstance(callee, Function):
                site = CallSite(interp, node, state)
                return interp.invoke(callee, site.args, node, state, func.value)
            if isinstance(callee, BoundMethod) or isinstance(receiver, Module) and not isinstance(callee, Module):
                return _method(interp, node, state, receiver, name, func.value)
            if isinstance(receiver, Instance) and callee is UNKNOWN and name in _MOVES:
                # `pipe.to("cuda")` of a class whose base (a library's) gives it `to`: its device is read as any
                # move's is (a hardcoded 'cuda'); the object is itself still (diffusers' `to` returns self), and
                # its own methods say what calling it gives (a `__call__` that returns a host copy)
                _method(interp, node, state, UNKNOWN, name, func.value)
                return receiver
        elif isinstance(receiver, Ref):
            callee = attribute(interp, receiver, name, state)
        elif isinstance(receiver, ArgsNamespace) and isinstance(held := dict(receiver.options).get(name), (
                Class, Function, Alternatives)):
            callee = held  # `opt.model_class(opt)` of `opt.model_class = model_classes[opt.model_name]`
        else:
            return _method(interp, node, state, receiver, name, func.value)
    elif type(func) is cst.Subscript and (namespace := _namespace_entry(interp, func, state)) is not None:
        # `models.__dict__[args.arch](...)`: a model zoo's entry, taken by name from an imported module
        return opaque.unknown_function(CallSite(interp, node, state, path=namespace.path), by_name=True)
    else:
        callee = interp.eval(func, state)
    return _call_value(interp, node, state, callee)


def _namespace_entry(interp: Walker, func: cst.Subscript, state: State) -> Optional[Ref]:
    """`models.__dict__[name]`: a member of an imported module (returned), looked up by its name."""
    table = func.value
    if type(table) is not cst.Attribute or table.attr.value != "__dict__":
        return None
    namespace = interp.eval(table.value, state)
    return namespace if isinstance(namespace, Ref) else None


def _call_value(interp: Walker, node: cst.Call, state: State, callee: Value) -> Value:
    site = CallSite(interp, node, state)
    if isinstance(callee, Ref):
        site.path = callee.path
        return registry.call_function(site)
    if isinstance(callee, Function):
        clock = clock_wrapped(callee.node) if type(callee.node) is cst.FunctionDef and not node.args else None
        if clock is not None:  # `current_time_millis()`: a clock read, under the name the code calls it by
            site.path = dotted(node.func) or clock
            return timing.clock_read(site)
        return interp.invoke(callee, site.args, node, state, None)
    if isinstance(callee, Alternatives):
        return _call_either(interp, callee, site)
    if isinstance(callee, Class):
        return instances.instantiate(interp, callee, site)
    if isinstance(callee, LambdaFunction):
        return functions.call_lambda(interp, callee, site)
    if isinstance(callee, TensorType):
        return tensors.typed_factory(site, callee)
    if isinstance(callee, HostTransform):
        site.evaluate_arguments()
        return data.transformed(node, callee)
    if isinstance(callee, Builtin):
        site.name = callee.name
        named = _named_attribute(interp, site, state) if callee.name == _GETATTR else None
        return named if named is not None else registry.call_builtin(site)
    if isinstance(callee, Module) or isinstance(callee, Located) and _given_data(site):
        return modules.call_module(site, callee)
    if isinstance(callee, BoundMethod):
        return _method(interp, node, state, callee.receiver, callee.name, node.func)
    if isinstance(callee, ModelWrapper):
        return opaque.wrapper_call(site, callee)
    if isinstance(callee, Instance):
        # `predictor(image)`: calling an object runs its class's `__call__`
        method = attribute(interp, callee, _CALL, state)
        if isinstance(method, Function):
            return interp.invoke(method, site.args, node, state, node.func)
    return opaque.unknown_callee(site)


_CALL = "__call__"
_MOVES = api.MOVES_TO_ARGUMENT | api.MOVES_TO_GPU
_GETATTR = "getattr"


def _call_either(interp: Walker, callee: Alternatives, site: CallSite) -> Value:
    """`evaluate(net, loader)` where `evaluate` is one of a few functions, by path: each runs on its own copy of
    the caller's path, and the caller goes on from where either leaves it (their syncs, moves and results)."""
    paths = [site.state.copy() for _ in callee.options]
    results = [interp.invoke(option, site.args, site.node, path, None) for option, path in zip(callee.options, paths)]
    site.state.take_either(paths)
    return join_all(results)


def _named_attribute(interp: Walker, site: CallSite, state: State) -> Optional[Value]:
    """`getattr(args, "gpu", False)` is `args.gpu` (a user's `--gpu` flag), where the name is written out and
    the object is no module path (`getattr(torch, name)` is the builtins' business)."""
    positional = site.args.positional
    if not 2 <= len(positional) <= 3 or site.args.keywords or site.args.star:
        return None
    base, name = positional[0][1], positional[1][1]
    if isinstance(base, Ref) or not (isinstance(name, Const) and isinstance(name.value, str)) \
            or not name.value.isidentifier():
        return None
    return attribute(interp, base, name.value, state, node=site.node)


def _method(interp: Walker, node: cst.Call, state: State, receiver: Value, name: str,
            receiver_node: Optional[cst.CSTNode]) -> Value:
    if type(receiver) is Located and receiver.where is not None and (receiver.where.kind == api.CUDA_TYPE
                                                                     or host.sent_away(receiver)) \
            and name in api.TENSOR_ONLY_ATTRS and name not in api.METADATA_METHODS:
        # `batch.cuda().numpy()`, `labels.to(device).numpy()`: a value of unknown kind sent to a GPU, asked what
        # only a tensor answers (elsewhere the walk keeps its old view: a conversion that may wait for the GPU)
        receiver = Tensor(why=receiver.why, where=receiver.where, derived=True)
    site = CallSite(interp, node, state, name=name, receiver=receiver, receiver_node=receiver_node)
    return registry.call_method(site)


def _given_data(site: CallSite) -> bool:
    """A value of unknown kind called like a module is (`encoder(x)`), not like a class is (`buffer_cls(10,
    device=device)`: given a device, it builds something there)."""
    return "device" not in site.args.keywords and not any(isinstance(v, DeviceValue) for _, v in site.args.all())
