"""Two simulated GPUs and more: DataParallel replicas in threads, current devices, cuda:1 against cuda:0."""

from __future__ import annotations

import threading

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from devlint.runtime import DeviceMismatchError, check  # noqa: E402


class Recorder(nn.Module):
    """Notes the device each replica's input is on."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.seen: list = []

    def forward(self, x):
        self.seen.append((str(x.device), threading.current_thread() is threading.main_thread()))
        return self.fc(x)


def test_data_parallel_replicates_over_the_simulated_gpus():
    torch.manual_seed(0)
    reference = Recorder()
    x, y = torch.randn(8, 4), torch.randn(8, 2)
    expected = nn.functional.mse_loss(reference(x), y)
    expected.backward()
    with check(simulate_gpu=True, gpus=3) as report:
        module = Recorder()
        module.load_state_dict(reference.state_dict())
        model = nn.DataParallel(module.to("cuda"))
        out = model(x.to("cuda"))
        loss = nn.functional.mse_loss(out, y.cuda())
        loss.backward()
        assert out.device == torch.device("cuda", 0)
        assert module.fc.weight.grad.device == torch.device("cuda", 0)
    assert report.clean
    # one replica per GPU, each in its own thread, each on its own device
    assert sorted(module.seen) == [("cuda:0", False), ("cuda:1", False), ("cuda:2", False)]
    assert torch.allclose(loss, expected) and torch.allclose(module.fc.weight.grad, reference.fc.weight.grad)


class Masked(nn.Module):
    def __init__(self, mask_device: str) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.mask_device = mask_device

    def forward(self, x):
        mask = torch.ones(x.shape[0], 2, device=self.mask_device)
        return self.fc(x) * mask  # the-replica-line


def line_of(marker: str) -> int:
    import inspect

    lines = inspect.getsource(inspect.getmodule(line_of)).splitlines()
    return next(n for n, text in enumerate(lines, 1) if text.rstrip().endswith(f"# {marker}"))


def test_a_replica_meeting_cuda0_is_caught_at_the_users_line():
    # plain 'cuda' in a replica is that replica's GPU (parallel_apply makes it current): correct
    with check(simulate_gpu=True, gpus=2) as report:
        nn.DataParallel(Masked("cuda").cuda())(torch.randn(4, 4).cuda())
    assert report.clean
    # 'cuda:0' is not: replica 1 runs on cuda:1
    with pytest.raises(DeviceMismatchError, match="cuda:1 and cuda:0"):
        with check(simulate_gpu=True, gpus=2) as report:
            nn.DataParallel(Masked("cuda:0").cuda())(torch.randn(4, 4).cuda())
    [problem] = report.problems
    assert problem.site.line == line_of("the-replica-line") and problem.site.function == "forward"


def test_threads_carry_the_checker_and_have_their_own_current_device():
    seen = {}

    def worker():
        seen["device"] = torch.ones(2, device="cuda").device  # would need a real GPU if unchecked
        seen["current"] = torch.cuda.current_device()

    with check(simulate_gpu=True, gpus=2):
        torch.cuda.set_device(1)
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert torch.cuda.current_device() == 1
    assert seen == {"device": torch.device("cuda", 0), "current": 0}  # as in CUDA: a new thread starts on GPU 0


def test_device_contexts_and_accelerator_index():
    with check(simulate_gpu=True, gpus=2):
        with torch.cuda.device(1):
            assert torch.zeros(1, device="cuda").device.index == 1
            with torch.accelerator.device_index(0):
                assert torch.accelerator.current_device_index() == 0
            assert torch.cuda.current_device() == 1
        assert torch.cuda.current_device() == 0
        with torch.cuda.device_of(torch.ones(1, device="cuda:1")):
            assert torch.ones(1).cuda().device.index == 1
