"""The device checker: mismatches with provenance, PyTorch's exemptions, silent costs."""

from __future__ import annotations

import inspect
import json
import time

import pytest

torch = pytest.importorskip("torch")

from devlint.runtime import DeviceMismatchError, check  # noqa: E402


def line_of(marker: str) -> int:
    """The line of this file that ends with `# <marker>`."""
    for number, text in enumerate(inspect.getsource(inspect.getmodule(line_of)).splitlines(), start=1):
        if text.rstrip().endswith(f"# {marker}"):
            return number
    raise AssertionError(marker)


def test_mismatch_names_each_operands_line():
    with pytest.raises(DeviceMismatchError) as caught:
        with check(simulate_gpu=True):
            a = torch.zeros(3)  # made-a
            b = torch.ones(3).to("cuda")  # made-b
            a + b  # the-add
    message = str(caught.value)
    assert "Expected all tensors to be on the same device" in message
    assert "cpu" in message and "cuda:0" in message
    assert f"test_checker.py:{line_of('made-a')} (torch.zeros without device=)" in message
    assert f"test_checker.py:{line_of('made-b')} (.to(cuda:0))" in message
    assert f"test_checker.py:{line_of('the-add')}" in message
    assert caught.value.code == "DEV101"


def test_module_input_on_another_device_is_dev102():
    with pytest.raises(DeviceMismatchError) as caught:
        with check(simulate_gpu=True):
            model = torch.nn.Linear(4, 2).to("cuda")
            model(torch.randn(3, 4))
    assert caught.value.code == "DEV102"


def test_exemptions_hold():
    with check(simulate_gpu=True) as report:
        x = torch.randn(4, device="cuda")
        y = x * torch.tensor(2.0)  # 0-dim cpu tensors combine with any device
        y = y + 1.5  # Python scalars too
        cpu = torch.empty(4)
        cpu.copy_(y)  # copy_ crosses devices
        rows = torch.randn(5, 4, device="cuda")[torch.tensor([0, 2])]  # cpu indices for a GPU tensor
        moved = torch.nn.Linear(4, 4)
        moved.to("cuda")  # Module.to's own checks
        moved(x)
        assert rows.device.type == "cuda"
    assert report.clean


def test_two_gpus():
    with pytest.raises(DeviceMismatchError) as caught:
        with check(simulate_gpu=True, gpus=2):
            a = torch.ones(2, device="cuda:0")
            b = torch.ones(2, device="cuda:1")
            torch.cat([a, b])
    assert "cuda:0" in str(caught.value) and "cuda:1" in str(caught.value)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        with check(simulate_gpu=True, gpus=1):
            torch.ones(2, device="cuda:1")


def test_current_device_follows_set_device_and_context():
    with check(simulate_gpu=True, gpus=2):
        with torch.cuda.device(1):
            a = torch.ones(2, device="cuda")
        torch.cuda.set_device(1)
        b = torch.ones(2).cuda()
        assert a.device == torch.device("cuda:1") and b.device == torch.device("cuda:1")
        assert a.get_device() == 1 and torch.cuda.current_device() == 1


def test_numpy_of_a_gpu_tensor_raises_what_cuda_raises():
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        with check(simulate_gpu=True):
            torch.ones(3, device="cuda").numpy()
    with check(simulate_gpu=True) as report:
        values = torch.ones(3, device="cuda").cpu().numpy()
    assert report.clean and values.sum() == 3


def test_pack_padded_sequence_needs_cpu_lengths():
    from torch.nn.utils.rnn import pack_padded_sequence

    with pytest.raises(DeviceMismatchError) as caught:
        with check(simulate_gpu=True):
            x = torch.randn(2, 3, 4, device="cuda")
            lengths = torch.tensor([3, 2], device="cuda")
            pack_padded_sequence(x, lengths, batch_first=True)
    assert caught.value.code == "DEV106" and "1D CPU int64 tensor" in str(caught.value)
    with check(simulate_gpu=True) as report:
        pack_padded_sequence(x, lengths.cpu(), batch_first=True)
    assert report.clean


def test_record_and_keep_going_deduplicates_by_site():
    with check(simulate_gpu=True, raise_on_error=False) as report:
        a = torch.zeros(3)
        b = torch.ones(3, device="cuda")
        for _ in range(5):
            a + b  # the-repeated-add
    [problem] = report.problems
    assert problem.count == 5 and problem.site.line == line_of("the-repeated-add")


def test_transfers_and_syncs_are_counted_by_call_site():
    with check(simulate_gpu=True) as report:
        for _ in range(3):
            x = torch.ones(256).to("cuda")  # the-transfer
            x.sum().item()  # the-sync
    [transfer] = report.transfers.values()
    assert transfer.count == 3 and transfer.nbytes == 3 * 256 * 4 and transfer.site.line == line_of("the-transfer")
    [sync] = report.syncs.values()
    assert sync.count == 3 and sync.what == "item" and sync.site.line == line_of("the-sync")


def test_a_clock_read_with_queued_gpu_work_is_a_lying_timer():
    with check(simulate_gpu=True) as report:
        x = torch.randn(64, 64, device="cuda")
        start = time.perf_counter()
        x @ x
        time.perf_counter() - start  # the-lying-read
    # (the start read lies a little too: the randn may still be queued)
    assert line_of("the-lying-read") in {timer.site.line for timer in report.lying_timers.values()}
    with check(simulate_gpu=True) as report:
        x = torch.randn(64, 64, device="cuda")
        torch.cuda.synchronize()
        start = time.perf_counter()
        x @ x
        torch.cuda.synchronize()
        time.perf_counter() - start
    assert not report.lying_timers


def test_report_json_uses_the_static_codes():
    with check(simulate_gpu=True, raise_on_error=False) as report:
        torch.zeros(2) + torch.ones(2, device="cuda")
        torch.ones(2).to("cuda").sum().item()
    data = json.loads(report.to_json())
    assert data["simulated_gpu"] is True
    assert data["problems"][0]["code"] == "DEV101"
    assert {t["code"] for t in data["transfers"]} == {"DEV501"}
    assert {s["code"] for s in data["syncs"]} == {"DEV502"}
    assert "DEV101" in report.summary_table()


def test_the_checker_leaves_torch_as_it_found_it():
    real_available = torch.cuda.is_available
    real_time = time.time
    with check(simulate_gpu=True):
        assert torch.cuda.is_available()
    assert torch.cuda.is_available is real_available and time.time is real_time
    assert torch.ones(2).device.type == "cpu"


def test_a_timed_loop_that_waits_every_step_is_not_a_lying_timer():
    """word_language_model's idiom: `.item()` each batch, elapsed time logged every N batches."""
    with check(simulate_gpu=True) as report:
        weights = torch.randn(8, 8, device="cuda")
        start = time.time()
        for step in range(6):
            loss = (weights @ weights).sum()
            total = loss.item()  # waits for the GPU
            weights.mul_(0.9)  # queued again
            if step % 3 == 2:
                elapsed = time.time() - start  # noqa: F841
                start = time.time()
    assert not report.lying_timers and total


def test_a_watched_clock_is_still_found_by_its_module_and_name():
    """pytest plugins (on a GPU machine: `devlint --runtime -- pytest` died with INTERNALERROR) and pickle find a
    function by `__module__` and `__name__`: the watched clock must answer as `time.perf_counter`."""
    import pickle
    import time

    from devlint.runtime import check

    with check(simulate_gpu=True):
        clock = time.perf_counter
        assert (clock.__module__, clock.__qualname__) == ("time", "perf_counter")
        assert pickle.loads(pickle.dumps(clock)) is clock
