"""The simulated GPU trains a model end to end with exactly the numbers of a cpu run."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from devlint.runtime import check  # noqa: E402


def train(checkpoint_path) -> list:
    """A small but complete training run: the code a user writes for a GPU."""
    from torch import nn
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = TensorDataset(torch.randn(96, 12), torch.randint(0, 3, (96,)))
    loader = DataLoader(data, batch_size=16, shuffle=True)
    model = nn.Sequential(nn.Linear(12, 24), nn.BatchNorm1d(24), nn.ReLU(), nn.Linear(24, 3))
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    losses = []
    for _ in range(3):
        for x, y in loader:
            x, y = x.to(device, non_blocking=True), y.to(device)
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, checkpoint_path)
    state = torch.load(checkpoint_path, map_location=device)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    model.eval()
    with torch.no_grad():
        probe = torch.randn(4, 12, device=device)
        losses.append(model(probe).sum().item())
    assert next(model.parameters()).device.type == device.type
    return losses


def test_simulated_training_matches_a_cpu_run_exactly(tmp_path, monkeypatch):
    with monkeypatch.context() as on_the_cpu:  # a machine with a real GPU trains the plain run on the cpu too
        on_the_cpu.setattr(torch.cuda, "is_available", lambda: False)
        plain = train(tmp_path / "plain.pt")
    with check(simulate_gpu=True) as report:
        assert torch.cuda.is_available()
        simulated = train(tmp_path / "simulated.pt")
    assert simulated == plain
    assert report.clean
    assert report.transfers and report.syncs  # batches went to the GPU, .item() waited for it


def test_torch_cuda_answers_as_on_a_gpu_machine():
    real_count = torch.cuda.device_count()  # 0 here; a machine with GPUs has its own answer back after
    with check(simulate_gpu=True, gpus=2):
        assert torch.cuda.is_available() and torch.cuda.device_count() == 2
        assert "simulated" in torch.cuda.get_device_name(0)
        assert torch.cuda.memory_allocated() == 0
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.randn(32, 32, device="cuda").sum()
        end.record()
        end.synchronize()
        assert start.elapsed_time(end) >= 0
        torch.cuda.synchronize()
        x = torch.cuda.FloatTensor(2, 3)
        assert x.is_cuda and x.shape == (2, 3)
        p = torch.nn.Parameter(torch.ones(2, device="cuda"))
        assert p.device.type == "cuda"
    assert torch.cuda.device_count() == real_count  # the real torch.cuda is back


def test_gradients_live_with_their_parameters():
    with check(simulate_gpu=True):
        layer = torch.nn.Linear(3, 1).to("cuda")
        layer(torch.randn(2, 3, device="cuda")).sum().backward()
        assert layer.weight.grad.device.type == "cuda"


def test_a_run_is_simulated_without_cuda_or_with_fewer_gpus_than_asked(monkeypatch):
    from devlint.runtime.devices import why_simulate

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert why_simulate(2) == "no CUDA here: simulating 2 GPU(s) on the cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert why_simulate(1) is None  # the real GPU runs it
    assert why_simulate(2) == "1 CUDA device(s) here, 2 asked: simulating 2 GPU(s) on the cpu"


def test_a_legacy_type_names_a_device_as_well_as_a_dtype():
    """`x.type(torch.FloatTensor)` is a cpu tensor wherever x was; `torch.cuda.FloatTensor` a GPU one, on a
    simulated GPU as on a real one (the static analysis reads them so too)."""
    with check(simulate_gpu=True):
        on_gpu = torch.rand(3, device="cuda")
        assert on_gpu.type(torch.FloatTensor).device.type == "cpu"
        assert on_gpu.type("torch.LongTensor").device.type == "cpu"
        assert on_gpu.type(torch.float64).device.type == "cuda"
        assert torch.rand(3).type(torch.cuda.FloatTensor).device.type == "cuda"
        assert on_gpu.type() == "torch.cuda.FloatTensor"
