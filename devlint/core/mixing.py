"""When do two operands of one operation disagree on their device?

Shared by the interpreter (a conflicting operation's result is unknown, so a bug
is reported once) and by the DEV101/DEV104/DEV105 rules (which story to tell).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence, TypeVar, cast

from devlint.core.values import Device, Module, Tensor, Value, conflict

if TYPE_CHECKING:
    from typing_extensions import TypeGuard

    from devlint.core.facts import Operand, Operation

    class PlacedTensor(Tensor):
        """A tensor whose device is known (what `_follows_arguments` establishes)."""

        where: Device

_Operand = TypeVar("_Operand")

MIXED = "mixed"  # DEV101: both devices known and different
CREATED_WITHOUT_DEVICE = "created-without-device"  # DEV104
PLAIN_ATTRIBUTE = "plain-attribute"  # DEV105


def _exempt(value: Value) -> bool:
    """0-dim cpu tensors combine with tensors on any device."""
    return isinstance(value, Tensor) and value.scalar and value.where is not None and value.where.kind == "cpu"


def _plain_cpu_attribute(value: Value) -> bool:
    """A tensor attribute left on the cpu by `Module.to` (a 0-dim one combines with any device, as a number)."""
    return (
        isinstance(value, Tensor)
        and value.attr_node is not None
        and value.where is not None
        and value.where.kind == "cpu"
        and not value.scalar
    )


def created_here_on_cpu(value: Value) -> TypeGuard[Tensor]:
    """Created on cpu by a factory with no device= (on every path, or on some)."""
    if not isinstance(value, Tensor) or value.attr_node is not None:
        return False
    implicit = value.where is not None and value.where.kind == "cpu" and value.where.implicit
    return implicit or (value.where is None and value.maybe_cpu is not None)


def _follows_arguments(value: Value) -> TypeGuard[PlacedTensor]:
    """Its device comes from the function's arguments or its module, and is not known to be cpu."""
    if not isinstance(value, Tensor) or value.where is None or created_here_on_cpu(value):
        return False
    return value.where.kind == "param" or (value.from_param is not None and value.where.kind != "cpu")


def classify(a: Value, b: Value, indexing: bool = False,
             in_module: bool = True) -> Optional[tuple[str, Value, Value]]:
    """The kind of disagreement between `a` and `b`, with (culprit, other) in that order.

    `in_module`: the code runs for an nn.Module, whose inputs follow the module to the GPU.
    Elsewhere (a data pipeline, a plain helper) a parameter's device is only a guess.
    """
    if _exempt(a) or _exempt(b):
        return None
    if indexing and isinstance(b, Tensor) and b.scalar:
        return None  # `idxs[torch.argmax(scores)]`: a 0-dim index selects one element, from any device
    pairs = ((a, b),) if indexing else ((a, b), (b, a))
    for cpu_side, other in pairs:
        if _plain_cpu_attribute(cpu_side) and isinstance(other, Tensor) and other.where is not None \
                and other.where.kind != "cpu" and not _plain_cpu_attribute(other):
            return PLAIN_ATTRIBUTE, cpu_side, other
    for cpu_side, other in pairs:
        # With concrete devices, a cpu tensor the caller passed in is the caller's mix-up (DEV101).
        if created_here_on_cpu(cpu_side) and _follows_arguments(other) and (
                (other.where.kind == "param" and in_module)
                or (other.where.kind != "param" and cpu_side.from_param is None)):
            return CREATED_WITHOUT_DEVICE, cpu_side, other
    if isinstance(a, Tensor) and isinstance(b, Tensor) and conflict(a.where, b.where):
        if indexing and cast(Device, b.where).kind == "cpu":  # (conflict: both devices known)
            return None  # a GPU tensor may be indexed with cpu indices
        return MIXED, a, b
    for cpu_side, other in pairs:
        if on_gpu_but_cpu_on_a_path(other, cpu_side) and not (indexing and cpu_side is b):
            return MIXED, a, b
    return None


def on_gpu_but_cpu_on_a_path(gpu: Value, value: Value) -> bool:
    """`gpu` is on a GPU on every path; `value` stayed on the cpu on one (paths disagree)."""
    return isinstance(value, Tensor) and value.where is None and value.cpu_path is not None \
        and not value.scalar and isinstance(gpu, (Tensor, Module)) and gpu.device is not None \
        and gpu.device.concrete and gpu.device.kind != "cpu"


def classify_module_input(module: Value, value: Value, in_module: bool) -> Optional[str]:
    """How an input disagrees with the module it is given to: MIXED (DEV102), CREATED_WITHOUT_DEVICE
    (made here on the cpu, inside a module, for a module whose device comes from it or the caller)."""
    if _exempt(value) or not isinstance(value, Tensor) or value.host_batch:
        return None
    where = module.device
    if in_module and created_here_on_cpu(value) and where is not None and (
            where.param == "self" or (where.concrete and where.kind != "cpu")):
        return CREATED_WITHOUT_DEVICE
    if conflict(where, value.where) or on_gpu_but_cpu_on_a_path(module, value):
        return MIXED
    return None


def pairs(operands: Sequence[_Operand], indexing: bool) -> list[tuple[_Operand, _Operand]]:
    """The operand pairs that must agree: every pair, or (indexed, index) for indexing."""
    if indexing:
        return [(operands[0], other) for other in operands[1:]]
    return [(a, b) for i, a in enumerate(operands) for b in operands[i + 1:]]


def first_disagreement(operation: Operation, kind: str) -> Optional[tuple[Operand, Operand]]:
    """(culprit, other) operands of the first pair of `operation` that disagree as `kind`."""
    for a, b in pairs(operation.operands, operation.indexing):
        verdict = classify(a.value, b.value, operation.indexing, operation.context.params_on_device)
        if verdict is not None and verdict[0] == kind:
            return (a, b) if verdict[1] is a.value else (b, a)
    return None
