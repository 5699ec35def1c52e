"""Devices: `torch.device(...)`, `device=` arguments, and moving tensors with `.to/.cuda/.cpu`.

Plain 'cuda' means the current CUDA device where it is used; a hardcoded
'cuda' outside any availability check is a GPU assumption (DEV201).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, cast

import libcst as cst

from devlint.core.facts import FreshMove, MovedParameter
from devlint.core.torch_catalogue import views as api
from devlint.static.semantics.callsite import Args, CallSite, Facts
from devlint.static.semantics import optim
from devlint.static.semantics.containers import dict_entry
from devlint.static.syntax import dotted
from devlint.core.values import (
    CPU, SELECTED, UNKNOWN, Availability, Const, Device, DeviceValue, Located, Ref, Seq, Tensor, TensorType,
    Unknown, Value, Why, const_device, cuda, parse_device_string, ranked_cuda, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.state import State


def resolve_current(device: Optional[Device], state: State) -> Optional[Device]:
    """Plain 'cuda' means the current device where it is created."""
    if device is not None and device.kind == api.CUDA_TYPE and device.index is None and state.cuda_index is not None \
            and not device.ranked:
        return cuda(state.cuda_index)
    return device


def selected_is_cpu(device: Optional[Device], state: State) -> bool:
    """The selected device, on a path that knows CUDA is missing (`else:` of `if use_cuda:`, `if device.type ==
    "cpu":`): the cpu there."""
    return state.unavailable and device is not None and device.kind == "selected"


def current_device_use(facts: Facts, device: Optional[Device], state: State, node: cst.CSTNode) -> None:
    """Plain 'cuda' after an NCCL group was set up without `set_device`: the same GPU on every rank."""
    if state.ranks is not None and device is not None and device.kind == api.CUDA_TYPE and device.index is None \
            and not device.ranked:
        facts.shared_gpu(node, state.ranks, state)


def as_device(value: Value) -> Optional[Device]:
    if isinstance(value, DeviceValue):
        return value.where
    return const_device(value)


def named(device: Optional[Device], node: cst.CSTNode) -> Optional[Device]:
    """The selected device, named after the variable that holds it (`args.device`) for messages."""
    if device is not None and device.kind == "selected" and device.name is None:
        name = dotted(node)
        if name:
            return replace(device, name=name)
    return device


def only_a_parameter(value: Value) -> bool:
    """Is the value a parameter's own, symbolic (its story one `cst.Param`: nothing the walk learnt of it)?"""
    return len(value.why) == 1 and type(value.why[0][0]) is cst.Param


def device_argument(facts: Facts, value: Value, state: State, node: cst.CSTNode) -> Optional[Device]:
    """The device a `device=`/`.to()` argument names, checking hardcoded 'cuda'."""
    device = named(_argument_device(facts, value, state, node), node)
    # a function's own `device` parameter, analysed with no caller, is no choice the file makes
    parameter = isinstance(value, DeviceValue) and only_a_parameter(value)
    if device is not None and device.kind == "selected" and not parameter:
        facts.portable_use()
    return device


def _argument_device(facts: Facts, value: Value, state: State, node: cst.CSTNode) -> Optional[Device]:
    if isinstance(value, DeviceValue):
        if value.literal is not None and not value.literal_guarded and not state.guarded:
            facts.gpu_assumption(value.literal, "a 'cuda' device", state, use=node)
        current_device_use(facts, value.where, state, node)
        return resolve_current(value.where, state)
    if isinstance(value, Const):
        if isinstance(value.value, str):
            device = parse_device_string(value.value)
            if device is not None and device.kind == api.CUDA_TYPE and not value.guarded and not state.guarded:
                facts.gpu_assumption(value.node or node, f"'{value.value}'", state, use=node)
            current_device_use(facts, device, state, node)
            return resolve_current(device, state)
        if isinstance(value.value, int) and not isinstance(value.value, bool):
            if value.node is node and type(node) is cst.Integer and not value.guarded and not state.guarded:
                # `model.to(0)` written as it is: GPU 0, as hardcoded as 'cuda:0' (an option's value is the user's)
                facts.gpu_assumption(value.node, f"device {value.value} (cuda:{value.value})", state, use=node)
            return cuda(value.value)
        return None
    if isinstance(value, (Tensor, Located)):
        return value.device
    return None


def make_device(site: CallSite) -> Value:
    """`torch.device("cuda", 1)`, `torch.device(args.device)`, `torch.device(x)`."""
    args, state = site.args, site.state
    if not args.positional and "type" not in args.keywords:
        return DeviceValue(where=None)
    _, value = args.positional[0] if args.positional else args.keywords["type"]
    index_value = args.positional[1][1] if len(args.positional) > 1 else args.get("index")
    if isinstance(value, Const) and isinstance(value.value, str):
        device = parse_device_string(value.value)
        if device is not None and device.kind == api.CUDA_TYPE and isinstance(index_value, Const) \
                and isinstance(index_value.value, int):
            device = cuda(index_value.value)
        elif device is not None and device.kind == api.CUDA_TYPE and index_value is not UNKNOWN \
                and len(args.positional) > 1:
            device = ranked_cuda(dotted(args.positional[1][0]))
        literal = value.node if device is not None and device.kind == api.CUDA_TYPE else None
        # constructing a device touches no GPU: using it unguarded is the assumption (device_argument)
        return DeviceValue(why=((site.node, ""),), where=device, literal=literal,
                           literal_guarded=value.guarded or state.guarded)
    if isinstance(value, DeviceValue):
        return replace(value, why=value.why + ((site.node, ""),))
    if isinstance(value, Const) and isinstance(value.value, int):
        return DeviceValue(why=((site.node, ""),), where=cuda(value.value))
    if isinstance(value, Tensor):
        return DeviceValue(where=value.where)
    return DeviceValue(why=((site.node, ""),), where=None)


def set_default_device(site: CallSite) -> Value:
    args = site.args
    value = args.first()
    node = args.positional[0][0] if args.positional else site.node
    site.state.default_device = device_argument(site.facts, value, site.state, node)
    return UNKNOWN


def set_default_tensor_type(site: CallSite) -> Value:
    value = site.args.first()
    text = value.value if isinstance(value, Const) else getattr(value, "path", "")
    if isinstance(text, str) and api.CUDA_TYPE in text:
        site.facts.gpu_assumption(site.node, "torch.set_default_tensor_type(cuda)", site.state)
        site.state.default_device = cuda(site.state.cuda_index)
    elif isinstance(text, str) and text:
        site.state.default_device = None  # `torch.FloatTensor` back (LLaMA-Adapter, after building its model)
    return UNKNOWN


# ---------------------------------------------------------------- moves


def keeps_device(site: CallSite) -> bool:
    """`.to(torch.float16)`, `.to(None)`, `.to()`: a dtype change, the device stays."""
    if site.name in api.MOVES_TO_GPU:
        return False
    args = site.args
    if "device" in args.keywords or spread_device(args) is not None:
        return False
    if not args.positional:
        return True
    node, value = args.positional[0]
    if isinstance(value, Const) and value.value is None:
        return True
    if named_as_dtype(node):
        return True  # `module.to(target_dtype)`, `x.to(self.dtype)`: named as a dtype is
    return isinstance(value, Ref) and value.path.startswith("torch.") and value.path[6:7].islower()


def named_as_dtype(node: cst.CSTNode) -> bool:
    """`torch.float16`, `dtype`, `self.weight_dtype`: an expression that names a dtype."""
    name = dotted(node) or ""
    return name in api.TORCH_DTYPES or name.rsplit(".", 1)[-1].endswith(api.DTYPE_NAME_SUFFIX)


def move_target(site: CallSite) -> Optional[Device]:
    """Where `.to(...)`/`.cuda(...)` sends its receiver (not a dtype-only `.to`); None when unknown."""
    args, state = site.args, site.state
    if site.name in api.MOVES_TO_GPU:
        if not state.guarded:
            site.facts.gpu_assumption(site.node, ".cuda()", state)
        value = args.first("device")
        if isinstance(value, Const) and isinstance(value.value, int):
            return cuda(value.value)
        if isinstance(value, DeviceValue) and value.where is not None:
            current_device_use(site.facts, value.where, state, site.node)
            return resolve_current(value.where, state)
        if value is UNKNOWN:  # `.cuda()`: the current device
            current_device_use(site.facts, cuda(None), state, site.node)
        return cuda(state.cuda_index)
    if "device" in args.keywords:
        arg_node, value = args.keywords["device"]
        return device_argument(site.facts, value, state, arg_node)
    spread = spread_device(args)
    if spread is not None:  # `.to(**self.tpdv)`, `self.tpdv = dict(dtype=torch.float32, device=device)`
        return device_argument(site.facts, spread[1], state, spread[0]) if spread[1] is not UNKNOWN else None
    arg_node, value = args.positional[0]
    if isinstance(value, (Unknown, Ref)):
        # An imported or unknown name: a device if it is named like one (DEVICE, args.device).
        name_text = dotted(arg_node) or ""
        if name_text and api.looks_like_device_name(name_text):
            return replace(SELECTED, name=name_text)
        return None
    return device_argument(site.facts, value, state, arg_node)


def spread_device(args: Args) -> Optional[tuple[cst.CSTNode, Value]]:
    """The `device` a `**options` argument holds (`.to(**self.tpdv)`, `torch.zeros(n, **dd)`): UNKNOWN where the
    dict may hold one we cannot read; None where no spread dict may name a device."""
    for node, extra in args.starstar:
        keys = extra.keys if isinstance(extra, Seq) else None
        if keys is None or None in keys or "device" in keys:
            return node, dict_entry(extra, "device") or UNKNOWN
    return None


def target_why(args: Args) -> Why:
    """Where the device a value is moved to was chosen: the last step of its story."""
    value = args.keywords["device"][1] if "device" in args.keywords else (
        args.positional[0][1] if args.positional else None)
    if isinstance(value, DeviceValue) and value.why:
        return value.why[-1:]
    return ()


def tensor_to(site: CallSite) -> Value:
    """`x.to(device)`, `x.cuda()`: a new tensor on the target (the receiver is unchanged)."""
    receiver = cast(Tensor, site.receiver)  # (a Tensor method)
    if keeps_device(site):
        return replace(receiver, fresh=False, derived=True)
    where = move_target(site)
    node, state = site.node, site.state
    if receiver.parameter and where is not None and where.kind not in (api.CPU_TYPE, "param") and _made_here(site) \
            and receiver.where is not None and receiver.where.kind == api.CPU_TYPE and _stored_on_self(site):
        # `self.w = nn.Parameter(torch.ones(n)).to(device)`: a copy on the GPU that no module registers (a device
        # the caller chooses is judged where a caller chooses it: with a cpu one, the move is a no-op)
        site.emit(MovedParameter(node, cast(cst.CSTNode, site.receiver_node), Tensor(where=where), site.context))
    if receiver.fresh and where is not None and where.is_gpu:
        site.emit(FreshMove(node, site.file.code(cast("cst.CSTNode", site.receiver_node)), Tensor(where=where),
                            site.context))
    if where is not None and where.is_gpu and not _blocking_upload(site, receiver):
        state.timing.note_work((node, ""))
    elif where is not None and where.is_gpu:
        # a blocking copy from the host runs after the work queued before it and returns once it is done: nothing
        # earlier is still queued (UniVTG's `prepare`: a `torch.cat` of moved features, then a blocking upload). No
        # sync of the step either: the work queued after it is the measurement's own
        state.timing.work = None
    if receiver.where is not None and receiver.where.is_gpu and where is not None and where.kind == api.CPU_TYPE:
        site.facts.note_sync(state)
    return Tensor(why=receiver.why + target_why(site.args) + ((node, f"moved to {where}" if where else ""),),
                  where=where, scalar=receiver.scalar, from_param=receiver.from_param, derived=True)


def _made_here(site: CallSite) -> bool:
    """The receiver is `nn.Parameter(...)` itself, made in the moving expression."""
    made = site.receiver_node
    if type(made) is not cst.Call:
        return False
    func = site.walk.eval(made.func, site.state)
    return isinstance(func, Ref) and func.path in api.PARAMETER_CLASSES


def _stored_on_self(site: CallSite) -> bool:
    """`self.w = <the call>`: kept as an attribute of the object (a copy used in an expression, or returned as a
    dummy loss, needs no registering)."""
    consumer = site.file.consumer(site.node)
    return type(consumer) is cst.Assign and len(consumer.targets) == 1 and consumer.value is site.node \
        and (dotted(consumer.targets[0].target) or "").startswith("self.")


def _blocking_upload(site: CallSite, receiver: Tensor) -> bool:
    """A copy from host memory without `non_blocking=True` returns once the data is on its way from a staging
    buffer (pageable) or there (pinned): it leaves no GPU work queued behind the host's clock."""
    if receiver.where is None or receiver.where.kind != api.CPU_TYPE:
        return False
    flag = site.args.keywords.get("non_blocking")
    return flag is None or (isinstance(flag[1], Const) and flag[1].value is False)


def tensor_get_device(site: CallSite) -> Value:
    """`x.get_device()`: -1 for a tensor on the cpu, its GPU's index on one (so that
    `torch.device(f"cuda:{n}") if n >= 0 else "cpu"` folds to `x`'s own device where `x`'s is known)."""
    where = cast(Tensor, site.receiver).where
    if where is not None and where.kind == api.CPU_TYPE:
        return Const(value=-1, node=site.node)
    if where is not None and where.kind == api.CUDA_TYPE and where.concrete and where.index is not None:
        return Const(value=where.index, node=site.node)
    return UNKNOWN


def tensor_cpu(site: CallSite) -> Value:
    receiver = cast(Tensor, site.receiver)  # (a Tensor method)
    if receiver.where is None or receiver.where.kind != api.CPU_TYPE:
        site.facts.host_sync(site.node, ".cpu()", site.operand(cast("cst.CSTNode", site.receiver_node), receiver),
                            site.state)
    return Tensor(why=receiver.why + ((site.node, "moved to cpu"),), where=CPU, scalar=receiver.scalar,
                  from_param=receiver.from_param, derived=True)


def tensor_type_as(site: CallSite) -> Optional[Value]:
    if not site.args.positional:
        return None
    other = site.args.positional[0][1]
    if isinstance(other, (Tensor, Located)):
        return Tensor(why=other.why + ((site.node, ""),), where=other.device,
                      from_param=getattr(other, "from_param", None), derived=True)
    return Tensor(where=None, derived=True)


def tensor_type(site: CallSite) -> Value:
    """`x.type(torch.cuda.FloatTensor)` moves; `x.type()` is metadata."""
    if not site.args.positional:
        return UNKNOWN
    value = site.args.positional[0][1]
    if isinstance(value, TensorType):
        return Tensor(why=site.receiver.why + ((site.node, f"moved to {value.where}"),), where=value.where,
                      derived=True)
    text = value.value if isinstance(value, Const) else getattr(value, "path", "")
    if isinstance(text, str) and api.CUDA_TYPE in text:
        site.facts.gpu_assumption(site.node, ".type(cuda)", site.state)
        return Tensor(why=((site.node, ""),), where=cuda(site.state.cuda_index), derived=True)
    if isinstance(text, str) and text in api.LEGACY_CONSTRUCTORS:  # `x.type(torch.FloatTensor)`: a cpu type
        receiver = cast(Tensor, site.receiver)  # (a Tensor method)
        if receiver.where is None or receiver.where.kind != api.CPU_TYPE:
            site.facts.note_sync(site.state)  # (a copy to the host, where the receiver is on a GPU)
        return Tensor(why=receiver.why + ((site.node, f"converted to a cpu `{text}`"),), where=CPU,
                      scalar=receiver.scalar, from_param=receiver.from_param, derived=True)
    return replace(site.receiver, fresh=False, derived=True) if text else Tensor(where=None, derived=True)


def unknown_to(site: CallSite) -> Value:
    """`obj.to(device)` on a value of unknown kind: it is on that device now, whatever it is."""
    if keeps_device(site):
        return site.receiver
    where = move_target(site)
    site.facts.note_gpu_work(site.node, [Located(where=where)], site.state)
    if where is None:
        return UNKNOWN
    moved = Located(why=target_why(site.args) + ((site.node, ""),), where=where, sent=True)
    optim.unplaced_moved(site, moved, where)  # a model of an unseen factory, whose optimizer was loaded before
    return moved


def is_xla_device(path: str) -> bool:
    """`xm.xla_device()`, `torch_xla.device()`: a TPU or other XLA device, which is no GPU."""
    return path.startswith("torch_xla.") and path.rsplit(".", 1)[-1] in ("xla_device", "device")


def xla_device(site: CallSite) -> Value:
    """An XLA device: tensors sent there are not on the cpu, and no CUDA queue holds their work."""
    site.evaluate_arguments()
    return DeviceValue(why=((site.node, "an XLA device"),), where=Device("xla"))


def string_method(site: CallSite) -> Value:
    """`"cuda:{}".format(rank)`: a GPU chosen at run time. `"{:.0f}".format(n_ok)` of a GPU tensor reads its value
    (`Tensor.__format__` calls `.item()`): it waits for the GPU."""
    if site.name == "format":
        for arg_node, value in site.args.positional + list(site.args.keywords.values()):
            site.facts.shown(site.node, "str.format", site.operand(arg_node, value), site.state)
    if site.name in _STRING_TESTS and len(site.args.positional) == 1 and not site.args.keywords:
        suffix = site.args.positional[0][1]  # `name.endswith(".pth")` of a known name: decided here
        if isinstance(suffix, Const) and isinstance(suffix.value, str):
            return Const(value=getattr(cast(str, cast(Const, site.receiver).value), site.name)(suffix.value))
    if site.name == "format" and isinstance(site.receiver, Const) and isinstance(site.receiver.value, str) \
            and site.receiver.value.startswith(api.CUDA_TYPE):  # (always a string: call_method)
        given = site.args.positional
        return built_cuda(site.node, given[0][0] if len(given) == 1 else None, site.receiver.node,
                          site.receiver.guarded or site.state.guarded)
    return UNKNOWN


_STRING_TESTS = frozenset({"startswith", "endswith"})


def built_cuda(node: cst.CSTNode, index: Optional[cst.CSTNode], literal: Optional[cst.CSTNode],
               guarded: bool) -> DeviceValue:
    """`f"cuda:{rank}"`, `"cuda:%d" % rank`, `"cuda:{}".format(rank)`: a GPU chosen at run time, named by the code
    that chooses it. Its index written as a number (`"cuda:{}".format(1)`): a hardcoded GPU, as `"cuda:1"` is."""
    if type(index) is cst.Integer:
        try:
            number = int(index.value, 0)
        except ValueError:
            number = None
        if number is not None:
            return DeviceValue(why=((node, ""),), where=cuda(number), literal=literal, literal_guarded=guarded)
    return DeviceValue(why=((node, ""),), where=ranked_cuda(dotted(index) if index is not None else None))


def startswith_cuda(site: CallSite) -> Value:
    """`if args.device.startswith("cuda"):` is a guard (as `args.device == "cuda"` is: an option's default is
    not what every run is given)."""
    first = site.args.first()
    if isinstance(first, Const) and isinstance(first.value, str) and first.value.startswith(api.CUDA_TYPE):
        return Availability(positive=True)
    return UNKNOWN


FUNCTIONS = {
    **{path: make_device for path in api.DEVICE_CONSTRUCTORS},
    **{path: set_default_device for path in api.SET_DEFAULT_DEVICE},
    **{path: set_default_tensor_type for path in api.SET_DEFAULT_TENSOR_TYPE},
}


def mapping_to(site: CallSite) -> Value:
    """`inputs.to(device)` of a mapping of tensors (a tokenizer's `BatchEncoding`, a dict has no `.to`): its
    tensors move, in place, and it is returned."""
    receiver = cast(Seq, site.receiver)  # (a Seq method)
    if receiver.kind != "dict":
        return UNKNOWN  # a list has no `.to()`: a value the walk took for one, on a path it does not take
    if keeps_device(site):
        return receiver  # `.to(dtype=...)`, `.to(x.dtype)`: where it was
    where = move_target(site)
    if where is None or not isinstance(receiver.elem, Tensor):
        site.update_receiver(UNKNOWN)
        return UNKNOWN
    elem = replace(receiver.elem, why=receiver.elem.why + target_why(site.args) + ((site.node, ""),), where=where,
                   fresh=False)
    moved = Seq(kind=receiver.kind, elem=elem)
    site.update_receiver(moved)
    return moved
