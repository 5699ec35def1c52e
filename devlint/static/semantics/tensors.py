"""Tensors: factories (`torch.zeros`, `*_like`, `new_*`), torch functions, and tensor methods.

A factory creates on the cpu unless told `device=` (or a default device is
set); a function or method that computes on several tensors needs them on one
device, and its result lives there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union, cast

import libcst as cst

from devlint.core.devices import Device
from devlint.core.facts import CpuOnlyArgument, Operand
from devlint.core.torch_catalogue import views as api
from devlint.static.semantics.callsite import Args, CallSite
from devlint.static.semantics.containers import element
from devlint.static.semantics.devices import device_argument, only_a_parameter, spread_device
from devlint.static.syntax import dotted
from devlint.core.values import (
    CPU, CRASHED, IMPLICIT_CPU, UNKNOWN, Const, DeviceValue, Located, RandomGenerator, Ref, Seq, Tensor, Unknown,
    Value, cuda, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.state import State


def is_number(node: cst.CSTNode, value: Value) -> bool:
    """A Python number (or what may be one): `2.0`, `-1`, `float("inf")`, `math.pi`, `n`."""
    if isinstance(value, Unknown) and type(node) not in (cst.List, cst.Tuple, cst.ListComp):
        return True  # `torch.tensor(y)`: 0-dim unless y is a sequence, which we do not know
    if type(value) is Located and value.where is not None and value.where.kind == "param" and value.why \
            and type(value.why[0][0]) is cst.Param:
        # a parameter with a number for its default, never used as a tensor (`eps=1e-10`, a schedule's `self.k`)
        default = value.why[0][0].default
        default = default.expression if type(default) is cst.UnaryOperation else default
        return type(default) in (cst.Integer, cst.Float)
    if isinstance(value, Const):
        return isinstance(value.value, (int, float, bool, complex))
    if type(node) is cst.UnaryOperation:
        return type(node.expression) in (cst.Integer, cst.Float)
    if type(node) is cst.BinaryOperation and not isinstance(value, (Tensor, Seq)):
        return cst.Integer in (type(node.left), type(node.right)) or cst.Float in (type(node.left), type(node.right))
    if type(node) is cst.Call and type(node.func) is cst.Name:
        return node.func.value in ("float", "int", "bool", "len", "round", "sum", "max", "min")
    return isinstance(value, Ref) and value.path.startswith("math.")


# ---------------------------------------------------------------- factories


def factory(site: CallSite) -> Value:
    """`torch.zeros(...)`, `torch.tensor(...)`: on `device=`, the default device, or the cpu."""
    args, state, node = site.args, site.state, site.node
    if site.path in api.SAMPLING_FACTORIES and any(
            isinstance(v, (Tensor, Located)) for k, (_, v) in [*enumerate(args.positional), *args.keywords.items()]
            if type(k) is int or k in api.SAMPLED_FROM_KEYWORDS):
        return torch_function(site)  # `torch.normal(mean, std)`, `torch.normal(mean=m, std=s)`: on their device
    scalar = site.path in api.SCALAR_FACTORIES and len(args.positional) == 1 and is_number(*args.positional[0]) \
        or _no_dimensions(site)
    if "device" in args.keywords:
        arg_node, value = args.keywords["device"]
        where = device_argument(site.facts, value, state, arg_node)
        if site.path in api.LEGACY_CONSTRUCTORS and _gpu_here(where, state):
            _legacy_on_gpu(site, arg_node, value, cast(Device, where))
            return CRASHED  # on the GPU it raised; without one, nothing follows that this report does not name
        made = Tensor(why=getattr(value, "why", ()) + ((node, ""),), where=where, scalar=scalar)
        return _with_generator(site, made)
    if "out" in args.keywords:
        # `torch.arange(n, out=buf)`: written into buf, so where buf is (`device=` may only repeat it)
        out = args.keywords["out"][1]
        if isinstance(out, Tensor):
            return replace(out, why=out.why + ((node, "written into `out=`"),), fresh=False, scalar=False)
        return Tensor(why=((node, ""),), where=out.where if isinstance(out, Located) else None, derived=True)
    spread = spread_device(args)
    if spread is not None:  # `torch.zeros(n, **dd)`: dd may well hold the device
        where = device_argument(site.facts, spread[1], state, node) if spread[1] is not UNKNOWN else None
        return Tensor(why=((node, ""),), where=where, scalar=scalar)
    first = args.first()
    if site.path in api.DATA_FOLLOWING_FACTORIES and isinstance(first, Tensor):
        return replace(first, why=first.why + ((node, ""),), fresh=False)
    if site.path in api.INDEX_BUILT_FACTORIES and isinstance(first, (Unknown, Located)):
        return Tensor(why=((node, ""),), where=first.device if isinstance(first, Located) else None, derived=True)
    if state.default_device is not None:
        return Tensor(why=((node, "created on the default device"),), where=state.default_device, scalar=scalar)
    if state.unavailable:  # `else:` of `if torch.cuda.is_available():`: the cpu is this path's choice
        return Tensor(why=((node, "created on cpu, where CUDA is missing"),), where=CPU, scalar=scalar, fresh=True)
    return Tensor(why=((node, "created on cpu (no device=)"),), where=IMPLICIT_CPU, scalar=scalar, fresh=True,
                  empty=_empty_shape(site))


def _gpu_here(where: Optional[Device], state: State) -> bool:
    """A device that is a GPU on some machine this path runs on (not the selected one where CUDA is missing)."""
    return where is not None and where.kind != api.CPU_TYPE and (
        where.concrete or where.kind == "selected" and not state.unavailable)


def _legacy_on_gpu(site: CallSite, arg_node: cst.CSTNode, value: Value, where: Device) -> None:
    """`torch.LongTensor(ids, device=device)`: a legacy constructor makes cpu tensors only ("legacy constructor
    expects device type: cpu but device type: cuda was passed")."""
    name = site.path.rsplit(".", 1)[-1]
    dtype = api.LEGACY_DTYPES[site.path]
    given = DeviceValue(why=getattr(value, "why", ()) or ((arg_node, ""),), where=where)
    site.emit(CpuOnlyArgument(
        site.node, name, "`device=`", site.operand(arg_node, given), site.context,
        fix=f"`torch.tensor(..., dtype=torch.{dtype}, device={cst.Module([]).code_for_node(arg_node)})`"))


def _empty_shape(site: CallSite) -> bool:
    """`torch.zeros(0, 0)`, `torch.empty((0,))`: a literal 0 among the sizes of a shaped factory."""
    if site.path not in api.SHAPED_FACTORIES:
        return False
    sizes = [v for _, v in site.args.positional]
    if len(sizes) == 1 and isinstance(sizes[0], Seq) and sizes[0].items is not None:
        sizes = list(sizes[0].items)
    return any(isinstance(v, Const) and type(v.value) is int and v.value == 0 for v in sizes)


def _no_dimensions(site: CallSite) -> bool:
    """`torch.rand(())`, `torch.zeros([])`: a shaped factory given an empty shape makes a 0-dim tensor."""
    sizes = [v for _, v in site.args.positional] or [site.args.get(api.SIZE_KEYWORD)]
    return site.path in api.SHAPED_FACTORIES and len(sizes) == 1 and isinstance(sizes[0], Seq) \
        and sizes[0].kind in ("tuple", "list") and sizes[0].items == ()


def _with_generator(site: CallSite, made: Tensor) -> Value:
    """`torch.randn(n, device=d, generator=g)`: g must be on d ("Expected a 'cuda' device type for generator")."""
    found = site.args.keywords.get("generator")
    if found is None or not isinstance(found[1], RandomGenerator) or found[1].where is None:
        return made
    generator = Tensor(why=found[1].why, where=found[1].where)
    return site.walk.operation(site.node, site.path, [site.operand(site.node, made),
                                                      site.operand(found[0], generator)], site.state)


def generator(site: CallSite) -> Value:
    """`torch.Generator()`: on the cpu unless given a device."""
    given = site.args.find(0, "device")
    # an argument nobody can read is a device nobody knows, not the cpu of a generator made without one
    where = device_argument(site.facts, given[1], site.state, given[0]) if given is not None else CPU
    return RandomGenerator(why=((site.node, f"a generator on {where}" if where else ""),), where=where)


def generator_seed(site: CallSite) -> Value:
    """`g.manual_seed(0)` returns g."""
    return site.receiver


def cpu_result(site: CallSite) -> Value:
    """`torch.from_numpy(a)`: always on the cpu."""
    site.evaluate_arguments()
    return Tensor(why=((site.node, "created on cpu"),), where=IMPLICIT_CPU)


def like_factory(site: CallSite) -> Value:
    """`torch.zeros_like(x)`: on x's device unless told otherwise."""
    args = site.args
    if "device" in args.keywords:
        where = device_argument(site.facts, args.keywords["device"][1], site.state, site.node)
        return Tensor(why=((site.node, ""),), where=where)
    first = args.first()
    if isinstance(first, (Tensor, Located)):
        return Tensor(why=first.why + ((site.node, ""),), where=first.device,
                      from_param=getattr(first, "from_param", None))
    return Tensor(why=((site.node, ""),), where=None)


def identity(site: CallSite) -> Value:
    """`Variable(x)`: x itself."""
    return site.args.first()


def typed_factory(site: CallSite, tensor_type: Value) -> Value:
    """`Tensor(3, 4)` where `Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor`."""
    site.evaluate_arguments()
    return Tensor(why=((site.node, f"created on {tensor_type.device}"),), where=tensor_type.device, fresh=True)


def cuda_tensor_type(site: CallSite) -> Value:
    """`torch.cuda.FloatTensor(...)`: on the current GPU, and assumes one."""
    site.evaluate_arguments()
    site.facts.gpu_assumption(site.node, site.path, site.state)
    return Tensor(why=((site.node, ""),), where=cuda(site.state.cuda_index), fresh=True)


# ---------------------------------------------------------------- torch functions


def reduces_to_one(args: Args) -> bool:
    """A loss's arguments keep its default reduction (not `reduction="none"`, nor the old `reduce=False`)."""
    reduction, reduce = args.get("reduction"), args.get("reduce")
    return not (isinstance(reduction, Const) and reduction.value == api.NO_REDUCTION) \
        and not (isinstance(reduce, Const) and reduce.value is False)


def torch_function(site: CallSite) -> Value:
    """`torch.cat([a, b])`, `F.linear(x, w)`: the tensors must share a device; the result is there."""
    args, path = site.args, site.path
    operands = _function_operands(site)
    if "device" in args.keywords and operands:
        # an op told where to put its result: its result follows device=
        where = device_argument(site.facts, args.keywords["device"][1], site.state, site.node)
        return Tensor(why=((site.node, ""),), where=where)
    if not operands:
        if path.startswith(api.FUNCTIONAL_PREFIX) and any(isinstance(v, Unknown) for _, v in args.positional[:1]):
            return Tensor(why=((site.node, ""),), where=None, derived=True)  # a loss, an activation: a tensor
        return UNKNOWN
    unknown_operand = any(isinstance(v, Unknown) for _, v in args.positional[:2]) and path not in api.SEQUENCE_OPS
    name = path.rsplit(".", 1)[-1]
    reduce = name in api.REDUCTIONS and (len(args.positional) <= 1 or name in api.ORDER_SECOND_REDUCTIONS
                                         and len(args.positional) == 2) and not args.keywords or (
        path.startswith(api.FUNCTIONAL_PREFIX) and (name.endswith(api.LOSS_SUFFIX) or name in api.FUNCTIONAL_LOSSES)
        and reduces_to_one(args))
    if path.rsplit(".", 1)[-1] in api.DATA_DEPENDENT_SIZE:
        _waits_for_size(site, [o.value for o in operands])
    result = site.walk.operation(site.node, path.replace(api.FUNCTIONAL_PREFIX, "F."), operands, site.state,
                                 reduce=reduce)
    if isinstance(result, Tensor) and unknown_operand:
        # `torch.matmul(unknown, x)`: the result is wherever the unknown operand is
        result = Tensor(why=((site.node, ""),), where=None, derived=True)
    if isinstance(result, Tensor) and path in api.TUPLE_OPS and (len(args.positional) > 1 or args.keywords
                                                                  or args.star):
        return Seq(kind="tuple", elem=replace(result, scalar=False))
    return result


def _function_operands(site: CallSite) -> list[Operand]:
    operands: list[Operand] = []
    args = site.args
    elsewhere = _any_device_nodes(site)
    for position, (arg_node, value) in enumerate(args.positional + list(args.keywords.values())):
        if id(arg_node) in elsewhere:
            continue
        if isinstance(value, Located) and position == 0 and args.positional:
            value = Tensor(why=value.why, where=value.where)  # a torch function's input is a tensor
        if isinstance(value, Tensor):
            operands.append(site.operand(arg_node, value))
        elif isinstance(value, Seq) and site.path in api.SEQUENCE_OPS:
            items = value.items if value.items is not None else (value.elem,)
            nodes = [e.value for e in cast("Union[cst.List, cst.Tuple]", arg_node).elements] \
                if type(arg_node) in (cst.List, cst.Tuple) else []
            for i, member in enumerate(items):
                if isinstance(member, Located):
                    member = Tensor(why=member.why, where=member.where)
                if isinstance(member, Tensor):
                    member_node = nodes[i] if len(nodes) == len(items) else arg_node
                    operands.append(site.operand(member_node, member))
    for arg_node, value in args.star:  # `torch.lu_unpack(*x.lu())`: the tensors unpacked into it
        member = element(value) if isinstance(value, Seq) else value
        if isinstance(member, Tensor):
            operands.append(site.operand(arg_node, member))
    return operands


def _any_device_nodes(site: CallSite) -> set[int]:
    """id() of the argument nodes the function takes on any device (CTC's targets and lengths)."""
    spec = api.ANY_DEVICE_ARGS.get(site.path, ())
    found = [site.args.find(position, keyword) for position, keyword in spec]
    return {id(f[0]) for f in found if f is not None}


def is_torch_op(path: str) -> bool:
    """`torch.X`, `torch.nn.functional.X`... in lower case: a function computing on tensors."""
    namespace, _, function = path.rpartition(".")
    return namespace + "." in api.TORCH_OP_NAMESPACES and function[:1].islower() and path not in api.NOT_OPS


# ---------------------------------------------------------------- tensor methods


def tensor_new(site: CallSite) -> Value:
    """`x.new_zeros(...)`: on x's device."""
    receiver = cast(Tensor, site.receiver)  # (a Tensor method)
    if "device" in site.args.keywords:
        where = device_argument(site.facts, site.args.keywords["device"][1], site.state, site.node)
        return Tensor(why=((site.node, ""),), where=where)
    return Tensor(why=receiver.why + ((site.node, ""),), where=receiver.where, from_param=receiver.from_param,
                  derived=True)


def tensor_op(site: CallSite) -> Value:
    """Any other method: it computes on the receiver (and its tensor arguments, which must agree)."""
    receiver = cast(Tensor, site.receiver)  # (a Tensor method)
    name, args = site.name, site.args
    operands = [site.operand(cast(cst.CSTNode, site.receiver_node), receiver)]
    if name not in api.CROSS_DEVICE_METHODS and name not in api.SHAPE_ONLY_METHODS:  # (`x.expand(n, longest)`: sizes)
        for arg_node, value in args.positional + list(args.keywords.values()):
            if isinstance(value, Tensor):
                operands.append(site.operand(arg_node, value))
    reduce = name in api.REDUCTIONS and not args.positional and not args.keywords
    if name in api.DATA_DEPENDENT_SIZE:
        _waits_for_size(site, [receiver])
    result = site.walk.operation(site.node, f".{name}", operands, site.state, reduce=reduce)
    if isinstance(result, Tensor):
        result = replace(result, fresh=False, scalar=reduce or (result.scalar and name in api.SCALAR_KEEPING))
        if only_a_parameter(result) and name not in api.ARRAY_SHARED_METHODS:  # `x.unsqueeze(0)`: x is a tensor
            result = replace(result, why=result.why + ((site.node, ""),))
        if name in api.TUPLE_METHODS and (args.positional or args.keywords):
            return Seq(kind="tuple", elem=result)
    return result


def _waits_for_size(site: CallSite, inputs: list[Value]) -> None:
    """An op whose result's size the data decides: on a GPU, the host waits for the queue to learn it."""
    if any(isinstance(v, Tensor) and v.where is not None and v.where.is_gpu for v in inputs):
        site.facts.note_sync(site.state)


def tensor_other(site: CallSite) -> Value:
    """A method the catalogue does not name. A public one computes on its receiver (`x.erfinv()`); a private
    one (`t._share_cuda_()`, `x._nnz()`) is torch's internals, whose results are handles, counts or
    tuples of host objects as often as tensors: unknown, not a tensor on the receiver's device."""
    name = site.name
    if name.startswith("_") and not name.endswith("__"):
        return UNKNOWN
    return tensor_op(site)


def tensor_backward(site: CallSite) -> Value:
    site.facts.note_gpu_work(site.node, [site.receiver], site.state)
    return UNKNOWN


def tensor_keep(site: CallSite) -> Value:
    """`.float()`, `.half()`: another dtype, the same device."""
    return replace(site.receiver, fresh=False)


def tensor_items(site: CallSite) -> Value:
    """A batch that is a dict-like of tensors (`batch.items()`)."""
    return Seq(kind="list", elem=Seq(kind="tuple", items=(UNKNOWN, site.receiver)))


def tensor_values(site: CallSite) -> Value:
    return Seq(kind="list", elem=site.receiver)


def tensor_get(site: CallSite) -> Value:
    """`batch.get("image")` on a batch we took for a tensor: an entry of it."""
    args = site.args
    if args.positional and isinstance(args.positional[0][1], Const) and isinstance(args.positional[0][1].value, str):
        return site.receiver
    return tensor_op(site)


def metadata(site: CallSite) -> Value:
    return UNKNOWN


def tensor_copy(site: CallSite) -> Value:
    """`x.copy_(y)` may cross devices by design: x stays where it is."""
    return site.receiver


FUNCTIONS = {
    "torch.Generator": generator,
    **{path: identity for path in api.IDENTITY_FUNCTIONS},
    **{path: cuda_tensor_type for path in api.CUDA_TENSOR_TYPES},
    **{path: factory for path in api.FACTORIES},
    **{path: cpu_result for path in api.CPU_RESULTS},
    **{path: like_factory for path in api.LIKE_FACTORIES},
}

# Method name -> handler for tensors; a handler returning None falls back to `tensor_op`.
TENSOR_METHODS = {
    **{name: metadata for name in api.METADATA_METHODS | {"keys"}},
    **{name: tensor_new for name in api.NEW_METHODS},
    "copy_": tensor_copy, "backward": tensor_backward, "items": tensor_items, "values": tensor_values,
    "get": tensor_get, "pop": tensor_get,
    **{name: tensor_keep for name in api.SAME_TENSOR_METHODS},
}
