"""Custom backward functions run under the checker once a tensor may live on a GPU, and not before.

Before any tensor is on a GPU, every tensor is on the cpu and no two devices can differ; a
backward pass that runs a whole solver (an adjoint ODE method, gradcheck's many passes) would
otherwise pay the checker on every call for nothing.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from devlint.runtime import DeviceMismatchError, check  # noqa: E402
from devlint.runtime.devices import RealDevices  # noqa: E402
from devlint.runtime.patches import _asks_for_a_gpu  # noqa: E402
from devlint.runtime.session import Session  # noqa: E402
from devlint.runtime.tracking import Records  # noqa: E402

CUDA = torch.device("cuda", 0)


def keeping(made: list):
    """A custom function whose backward keeps the tensor it computes, for the test to look at."""
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            result = grad * 2
            made.append(result)
            return result

    return Double


def test_backward_on_the_cpu_alone_runs_unchecked():
    made: list = []
    with Session(simulate=True) as session:
        x = torch.ones(3, requires_grad=True)
        keeping(made).apply(x).sum().backward()
        assert session.checker.records.get(made[0]) is None  # no torch call of the backward was seen
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
    assert session.report.clean


def test_backward_is_checked_once_a_gpu_is_in_use():
    made: list = []
    with Session(simulate=True) as session:
        x = torch.ones(3, device="cuda", requires_grad=True)
        keeping(made).apply(x).sum().backward()
        assert session.checker.records.get(made[0]) is not None
        assert x.grad.device == CUDA


def test_a_mismatch_inside_a_custom_backward_is_caught():
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(w)
            return x * w

        @staticmethod
        def backward(ctx, grad):
            w, = ctx.saved_tensors
            scale = w * torch.ones(3)  # a cpu tensor made in backward meets the GPU weight
            return grad * scale, None

    with pytest.raises(DeviceMismatchError) as caught, check(simulate_gpu=True):
        x = torch.ones(3, device="cuda", requires_grad=True)
        w = torch.full((3,), 2.0, device="cuda")
        Scale.apply(x, w).sum().backward()
    assert caught.value.code == "DEV101"
    assert "test_backward.py" in str(caught.value)


def test_a_backward_that_asks_for_the_gpu_first_gets_it():
    """The first GPU tensor of the session made inside a backward: run again, under the checker."""
    class Shifted(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x + 1

        @staticmethod
        def backward(ctx, grad):
            extra = torch.ones(grad.shape, device="cuda")
            return grad + extra.cpu()

    with check(simulate_gpu=True) as report:
        x = torch.ones(3, requires_grad=True)
        Shifted.apply(x).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
    assert report.clean


def test_errors_that_are_no_gpu_request_are_not_run_again():
    calls = []

    class Failing(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x + 1

        @staticmethod
        def backward(ctx, grad):
            calls.append(1)
            raise ValueError("the user's own error")

    with pytest.raises(ValueError, match="own error"), check(simulate_gpu=True):
        Failing.apply(torch.ones(3, requires_grad=True)).sum().backward()
    assert calls == [1]


def test_what_counts_as_asking_for_a_gpu():
    assert _asks_for_a_gpu(AssertionError("Torch not compiled with CUDA enabled"))
    assert _asks_for_a_gpu(NotImplementedError("Could not run 'aten::empty.memory_format' with arguments "
                                               "from the 'CUDA' backend"))
    assert not _asks_for_a_gpu(ValueError("shapes do not match"))


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a machine with CUDA, the answer depends on the session")
def test_real_devices_without_a_gpu_never_have_one_in_use():
    assert RealDevices(Records()).gpu_in_use() is (torch.accelerator.is_available()
                                                     if hasattr(torch, "accelerator") else False)
