"""Tensors' stories: the lines a mismatch report names for each operand.

A story says where a tensor was computed, where its input was computed, and
which line put it on its device. The checker's fast paths must keep them whole.
"""

from __future__ import annotations

import inspect
import os

import pytest

torch = pytest.importorskip("torch")

from devlint.runtime import DeviceMismatchError, check  # noqa: E402


def at(marker: str) -> str:
    """'test_stories.py:N' for the line of this file that ends with `# <marker>`."""
    for number, text in enumerate(inspect.getsource(inspect.getmodule(at)).splitlines(), start=1):
        if text.rstrip().endswith(f"# {marker}"):
            return f"{os.path.relpath(__file__)}:{number}"
    raise AssertionError(marker)


def mismatch(run) -> str:
    with pytest.raises(DeviceMismatchError) as caught:
        with check(simulate_gpu=True):
            run()
    return str(caught.value)


def test_a_computed_tensor_names_its_line_its_inputs_line_and_its_device_line():
    def run():
        base = torch.zeros(3)  # s1-base
        doubled = base * 2  # s1-doubled
        shifted = doubled + 1  # s1-shifted
        shifted + torch.ones(3, device="cuda")  # s1-add

    message = mismatch(run)
    assert (f"cpu tensor from {at('s1-shifted')} (from {at('s1-doubled')}), on that device since "
            f"{at('s1-base')} (torch.zeros without device=)") in message
    assert f"cuda:0 tensor from {at('s1-add')} (torch.ones(device=cuda:0))" in message


def test_one_line_of_many_ops_is_named_once():
    def run():
        moved = torch.ones(3).to("cuda")  # s2-moved
        chained = (moved * 2 + 1) / 3  # s2-chained
        chained + torch.zeros(3)  # s2-add

    message = mismatch(run)
    # the move gives a device, not a line of computing: nothing "(from ...)" before the chain
    assert f"cuda:0 tensor from {at('s2-chained')}, on that device since {at('s2-moved')} (.to(cuda:0))" in message
    assert f"cpu tensor from {at('s2-add')} (torch.zeros without device=)" in message


def test_work_done_inside_torch_is_the_callers_line():
    def run():
        layer = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Tanh())
        inputs = torch.ones(2, 3).to("cuda")  # s3-inputs
        out = layer[0].to("cuda")(inputs)  # s3-layer
        hidden = layer(out)  # s3-hidden
        hidden + torch.zeros(2, 3)  # s3-add

    message = mismatch(run)
    assert f"at {at('s3-add')}" in message
    assert (f"cuda:0 tensor from {at('s3-hidden')} (from {at('s3-layer')}), on that device since "
            f"{at('s3-inputs')} (.to(cuda:0))") in message


def test_a_dtype_change_keeps_where_the_tensor_was_made():
    def run():
        base = torch.arange(3)  # s4-base
        counted = base + 1  # s4-counted
        wide = counted.to(torch.float64)
        wide + torch.ones(3, dtype=torch.float64, device="cuda")

    message = mismatch(run)
    assert (f"cpu tensor from {at('s4-counted')}, on that device since {at('s4-base')} "
            f"(torch.arange without device=)") in message


def test_an_in_place_op_keeps_the_tensors_story():
    def run():
        kept = torch.zeros(3)  # s5-kept
        kept.add_(1)
        kept.mul_(2)
        torch.ones(3, device="cuda") - kept

    message = mismatch(run)
    assert f"cpu tensor from {at('s5-kept')} (torch.zeros without device=)" in message


def test_an_alias_made_in_cpp_tells_its_sources_story():
    def run():
        weight = torch.nn.Parameter(torch.ones(3).to("cuda"))  # s6-weight
        weight.data + torch.zeros(3)

    message = mismatch(run)
    assert f"cuda:0 tensor from {at('s6-weight')} (.to(cuda:0))" in message


def test_a_tensor_made_outside_the_check_says_so():
    outside = torch.zeros(3)

    def run():
        outside + torch.ones(3, device="cuda")

    message = mismatch(run)
    assert "cpu tensor from an unknown place (created outside the checked code)" in message


def test_a_tensor_computed_from_one_made_outside_names_its_line():
    outside = torch.zeros(3)

    def run():
        computed = outside * 2  # s8-computed
        computed + torch.ones(3, device="cuda")

    message = mismatch(run)
    assert f"cpu tensor from {at('s8-computed')} (its device was set outside the checked code)" in message


def test_outputs_of_a_multi_output_op_each_have_the_story():
    def run():
        pair = torch.ones(4, 2).to("cuda")  # s9-pair
        left, right = pair.unbind(1)  # s9-unbind
        right + torch.zeros(4)

    message = mismatch(run)
    assert f"cuda:0 tensor from {at('s9-unbind')}, on that device since {at('s9-pair')} (.to(cuda:0))" in message


def test_a_keyword_call_keeps_the_story():
    def run():
        base = torch.ones(3).to("cuda")  # s10-base
        summed = torch.sum(base, dim=0, keepdim=True)  # s10-sum
        torch.zeros(1) * 2 + summed

    message = mismatch(run)
    assert f"cuda:0 tensor from {at('s10-sum')}, on that device since {at('s10-base')} (.to(cuda:0))" in message
