"""The lattice: devices, their join where paths meet, and when two of them conflict."""

from __future__ import annotations

import libcst as cst
import pytest

from devlint.core.mixing import CREATED_WITHOUT_DEVICE, MIXED, PLAIN_ATTRIBUTE, classify
from devlint.core.values import (
    CPU, IMPLICIT_CPU, SELECTED, UNKNOWN, Const, Device, DeviceValue, Located, Module, Seq, Tensor, conflict, cuda,
    join, join_device, parse_device_string,
)

PARAM_X = Device("param", param="x")
SELF = Device("param", param="self")


@pytest.mark.parametrize("a, b, expected", [
    (CPU, CPU, False),
    (cuda(0), cuda(0), False),
    (cuda(0), cuda(1), True),
    (cuda(None), cuda(1), False),  # the current device may be cuda:1
    (CPU, SELECTED, True),
    (cuda(0), SELECTED, False),  # selected is cuda wherever cuda works
    (CPU, Device("mps"), True),
    (None, CPU, False),  # unknown never conflicts
    (PARAM_X, CPU, False),  # a parameter's device is judged by the rules' stories, not here
])
def test_conflict(a, b, expected):
    assert conflict(a, b) is expected
    assert conflict(b, a) is expected


@pytest.mark.parametrize("a, b, split, expected", [
    (CPU, CPU, False, CPU),
    (IMPLICIT_CPU, IMPLICIT_CPU, False, IMPLICIT_CPU),
    (IMPLICIT_CPU, CPU, False, CPU),  # implicit only if implicit on every path
    (cuda(0), cuda(1), False, cuda(None)),
    (cuda(0), SELECTED, False, SELECTED),
    (CPU, cuda(0), False, None),  # two paths, two devices: unknown
    (CPU, cuda(0), True, SELECTED),  # unless the split was an availability check
    (CPU, SELECTED, False, None),  # moved on one path of a condition that is no availability check
    (CPU, SELECTED, True, SELECTED),
    (None, CPU, False, None),
])
def test_join_device(a, b, split, expected):
    assert join_device(a, b, split) == expected
    assert join_device(b, a, split) == expected


def test_join_keeps_what_both_paths_agree_on():
    a = Tensor(where=cuda(0), scalar=True)
    b = Tensor(where=cuda(0), scalar=False)
    joined = join(a, b)
    assert isinstance(joined, Tensor) and joined.where == cuda(0) and not joined.scalar
    assert join(Tensor(where=CPU), Module(where=CPU)) is UNKNOWN
    assert join(Const(value=None), Tensor(where=CPU)) == Tensor(where=CPU)  # `if x is None: x = ...`


def test_join_remembers_a_cpu_default_beside_a_parameter():
    """`if h is None: h = torch.zeros(...)`: on the default path h is on the cpu."""
    created = Tensor(why=((cst.Name("h"), "created"),), where=IMPLICIT_CPU)
    joined = join(created, Tensor(where=PARAM_X))
    assert joined.where is None and joined.maybe_cpu is not None


def test_join_of_devices_and_sequences():
    assert join(DeviceValue(where=CPU), DeviceValue(where=cuda(0)), True).where == SELECTED
    assert join(Located(where=cuda(0)), Tensor(where=cuda(0))).device == cuda(0)
    joined = join(Seq(elem=Tensor(where=CPU)), Seq(elem=Tensor(where=CPU)))
    assert isinstance(joined, Seq) and joined.elem.where == CPU


@pytest.mark.parametrize("text, expected", [
    ("cuda", cuda(None)), ("cuda:1", cuda(1)), ("cpu", CPU), ("mps", Device("mps")), ("banana", None)])
def test_parse_device_string(text, expected):
    assert parse_device_string(text) == expected


def test_classify_mixed():
    verdict = classify(Tensor(where=CPU), Tensor(where=cuda(0)))
    assert verdict is not None and verdict[0] == MIXED


def test_classify_exempts_cpu_scalars_and_unknowns():
    assert classify(Tensor(where=CPU, scalar=True), Tensor(where=cuda(0))) is None
    assert classify(Tensor(where=None), Tensor(where=cuda(0))) is None


def test_classify_created_without_device_inside_a_module():
    made_here = Tensor(where=IMPLICIT_CPU)
    from_caller = Tensor(where=PARAM_X, from_param="x")
    verdict = classify(made_here, from_caller, in_module=True)
    assert verdict is not None and verdict[0] == CREATED_WITHOUT_DEVICE and verdict[1] is made_here
    assert classify(made_here, from_caller, in_module=False) is None  # a plain helper: only a guess


def test_classify_plain_attribute():
    attribute = Tensor(where=CPU, attr_node=cst.Name("w"), attr_name="w")
    verdict = classify(attribute, Tensor(where=SELF, from_param="self"))
    assert verdict is not None and verdict[0] == PLAIN_ATTRIBUTE


def test_classify_indexing_a_gpu_tensor_with_cpu_indices_is_fine():
    assert classify(Tensor(where=cuda(0)), Tensor(where=CPU), indexing=True) is None
    assert classify(Tensor(where=CPU), Tensor(where=cuda(0)), indexing=True)[0] == MIXED


def test_join_remembers_the_path_where_a_tensor_stayed_on_the_cpu():
    """`if fast: x = x.to(device)`: after the if, x is on the cpu when `fast` is false."""
    condition = cst.Name("fast")
    stayed = Tensor(why=((cst.Name("x"), "stayed"),), where=CPU)
    moved = Tensor(where=SELECTED)
    joined = join(moved, stayed, branch=condition)
    assert joined.where is None and joined.cpu_path == (condition, "false") and joined.why == stayed.why
    verdict = classify(joined, Tensor(where=SELECTED))
    assert verdict is not None and verdict[0] == MIXED
    assert join(moved, stayed, availability_split=True).where == SELECTED


def test_records_build_like_frozen_dataclasses() -> None:
    """values.record's faster __init__: defaults, positional fields, equality, hashing and immutability."""
    import dataclasses

    from devlint.core.values import Device, Tensor, replace

    assert Device("cuda", 0) == Device(kind="cuda", index=0) and Device("cuda").index is None
    made = Tensor(where=Device("cpu"), fresh=True)
    assert made == Tensor(where=Device("cpu"), fresh=True, why=((None, "ignored by equality"),))
    assert hash(made) == hash(Tensor(where=Device("cpu"), fresh=True))
    assert made.scalar is False and made.why == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.fresh = False  # type: ignore[misc]
    with pytest.raises(TypeError):
        Tensor(no_such_field=1)  # type: ignore[call-arg]
    moved = replace(made, fresh=False)
    assert moved.fresh is False and made.fresh is True and moved.where == made.where
    with pytest.raises(TypeError):
        replace(made, no_such_field=1)
