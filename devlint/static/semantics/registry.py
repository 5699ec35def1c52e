"""Which handler tells what a call does to devices.

Functions are looked up by canonical dotted path (after import aliases are
resolved), then by namespace; methods by the kind of their receiver, then by
name. Each subject module (devices, tensors, modules, cuda, host, timing,
data, builtins, argparse_options) lists its own entries; adding a torch
function's behaviour is one entry there.
"""

from __future__ import annotations

from typing import Callable, Mapping, Optional, cast

from devlint.static.semantics import (
    accelerate, argparse_options, builtins, cuda, data, devices, host, modules, opaque, optim, tensors, timing,
)
from devlint.core.torch_catalogue import views as api
from devlint.static.semantics.callsite import CallSite, Handler, MethodHandler
from devlint.core.values import (
    UNKNOWN, Const, CudaEvent, DeviceValue, HostArray, Loader, Module, Optimizer, Parser, ParserGroup, RandomGenerator, Seq, Super,
    Integer, Tensor, Unknown, Value, replace,
)


def _merge(*tables: Mapping[str, Handler]) -> dict[str, Handler]:
    merged: dict[str, Handler] = {}
    for table in tables:
        for key, handler in table.items():
            if key in merged:
                raise ValueError(f"two semantics handlers for {key!r}")
            merged[key] = handler
    return merged


FUNCTIONS: dict[str, Handler] = _merge(
    builtins.FUNCTIONS, timing.FUNCTIONS, devices.FUNCTIONS, cuda.FUNCTIONS, tensors.FUNCTIONS, data.FUNCTIONS,
    host.FUNCTIONS, modules.FUNCTIONS, argparse_options.FUNCTIONS, accelerate.FUNCTIONS,
)
# Namespaces, tried in order when no exact path matches.
NAMESPACES: list[tuple[Callable[[str], bool], Handler]] = [
    (cuda.is_cuda_api, cuda.cuda_api),
    (modules.is_torch_module_class, modules.torch_module),
    (api.LIBRARY_LOSSES.__contains__, modules.torch_module),  # another library's loss, known as torch's are
    (optim.is_optimizer_class, optim.optimizer),
    (opaque.is_zoo_builder, opaque.zoo_model),
    (opaque.is_hub_model, opaque.hub_model),
    (host.is_host_library, host.host_library),
    (tensors.is_torch_op, tensors.torch_function),
    (devices.is_xla_device, devices.xla_device),
    (lambda path: path.startswith(api.PYTHON_MATH), builtins.math_function),
]


def _ignore(site: CallSite) -> Value:
    return UNKNOWN


# Receiver kind -> (method name -> handler, the handler for other names; None: as an unknown receiver).
# A handler may return None to leave the call to the kind's default handler.
METHODS: dict[type[Value], tuple[Mapping[str, MethodHandler], Optional[Handler]]] = {
    Parser: (argparse_options.PARSER_METHODS, argparse_options.parser_other),
    ParserGroup: (argparse_options.GROUP_METHODS, None),
    CudaEvent: (cuda.EVENT_METHODS, cuda.event_other),
    Super: ({}, builtins.super_method),
    Seq: ({**builtins.SEQ_METHODS, **{name: devices.mapping_to for name in api.MOVES_TO_ARGUMENT | api.MOVES_TO_GPU}},
          builtins.seq_other),
    Loader: (data.LOADER_METHODS, _ignore),
    Module: (modules.MODULE_METHODS, modules.module_other),
    Tensor: ({**tensors.TENSOR_METHODS, **host.TENSOR_METHODS,
              **{name: devices.tensor_to for name in api.MOVES_TO_ARGUMENT | api.MOVES_TO_GPU},
              **{name: devices.tensor_cpu for name in api.MOVES_TO_CPU},
              **{name: devices.tensor_type_as for name in api.MOVES_LIKE}, "type": devices.tensor_type,
              api.DEVICE_INDEX_METHOD: devices.tensor_get_device},
             tensors.tensor_other),
    DeviceValue: ({"startswith": devices.startswith_cuda}, _ignore),
    HostArray: (host.ARRAY_METHODS, None),
    Optimizer: (optim.OPTIMIZER_METHODS, optim.optimizer_other),
    RandomGenerator: ({"manual_seed": tensors.generator_seed, "seed": tensors.generator_seed}, _ignore),
}


def call_function(site: CallSite) -> Value:
    """A call of an imported name: `torch.zeros(...)`, `np.asarray(...)`, `utils.train(...)`."""
    site.path = api.ALIASES.get(site.path, site.path)
    handler = FUNCTIONS.get(site.path)
    if handler is None:
        handler = next((h for matches, h in NAMESPACES if matches(site.path)), opaque.unknown_function)
    return handler(site)


def call_method(site: CallSite) -> Value:
    """`receiver.name(...)` where the receiver is a value (not a module path)."""
    receiver, name = site.receiver, site.name
    by_kind = METHODS.get(type(receiver))
    if by_kind is not None:
        table, default = by_kind
        handler = table.get(name, default)
        if handler is default and type(receiver) is Tensor and not api.is_tensor_method(name):
            handler = None  # `ctx.save_for_backward(x)`: no tensor has it, so the receiver is not one
        if handler is not None:
            site.evaluate_arguments()  # walked before the handler runs, whether or not it reads them
            result = handler(site)
            # (only kinds with a default handler have handlers that return None)
            result = cast(Handler, default)(site) if result is None else result
            return _proven_tensor(result, site) if type(receiver) is Tensor and _tensor_evidence(site) else result
    if name == "startswith" and isinstance(receiver, Unknown):
        return devices.startswith_cuda(site)
    if isinstance(receiver, Const) and isinstance(receiver.value, str):
        site.evaluate_arguments()
        return devices.string_method(site)
    if name in api.TRACE_CALLS:
        return modules.trace(site)
    return opaque.unknown_method(site)


def _tensor_evidence(site: CallSite) -> bool:
    """Does the call show its receiver is a tensor: a method only tensors have (not one arrays share), or a
    `view` given sizes (numpy's takes a dtype)?"""
    name = site.name
    if name == api.VIEW_METHOD:
        return any(isinstance(v, (Const, Integer)) for _, v in site.args.positional)
    return name in api.TENSOR_ONLY_ATTRS and name not in api.ARRAY_SHARED_METHODS


def _proven_tensor(result: Value, site: CallSite) -> Value:
    """What only a tensor has (`h.unsqueeze(0)` of a value a call devlint cannot see gave): the receiver was a
    tensor, and a result on its device is one too, whatever the receiver's doubt (a helper's `isinstance(x,
    np.ndarray)` branch is not taken for it); of a parameter, no longer only guessed to be one."""
    if type(result) is not Tensor:
        return result
    if result.inferred or result.maybe_object:
        result = replace(result, inferred=False, maybe_object=False)
    return result.with_why((site.node, "")) if devices.only_a_parameter(result) else result


def call_builtin(site: CallSite) -> Value:
    site.evaluate_arguments()  # (a builtin's handler may not read them)
    return builtins.BUILTINS[site.name](site)


BUILTIN_NAMES = frozenset(builtins.BUILTINS)
