"""On a real GPU (skipped where CUDA is missing): real mismatches, real transfers, real timers."""

from __future__ import annotations

import time

import pytest

torch = pytest.importorskip("torch")

from devlint.runtime import DeviceMismatchError, check  # noqa: E402

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")]


def test_real_mismatch_is_caught_before_cuda_raises():
    with pytest.raises(DeviceMismatchError) as caught:
        with check(simulate_gpu=False) as report:
            a = torch.zeros(1024)
            b = torch.ones(1024, device="cuda")
            a + b
    assert "torch.zeros without device=" in str(caught.value)
    assert "torch.ones(device=cuda:0)" in str(caught.value)
    assert not report.simulated


def test_real_transfers_and_syncs_are_counted():
    with check(simulate_gpu=False) as report:
        for _ in range(4):
            x = torch.randn(1 << 16).to("cuda")
            x.sum().item()
    [transfer] = report.transfers.values()
    assert transfer.count == 4 and transfer.nbytes == 4 * (1 << 16) * 4
    assert sum(s.count for s in report.syncs.values()) == 4


def test_real_lying_timer():
    x = torch.randn(4096, 4096, device="cuda")
    with check(simulate_gpu=False) as report:
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(10):
            x @ x
        lied = time.perf_counter() - start
        torch.cuda.synchronize()
        honest = time.perf_counter() - start
    assert report.lying_timers
    assert lied < honest
