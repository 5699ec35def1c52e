"""semantics/devices.py: torch.device, device= arguments, and moves."""

from devlint.core.facts import FreshMove, GpuAssumption
from devlint.core.values import CPU, SELECTED, DeviceValue, Located, Tensor, cuda
from tests.lint_helpers import infer


def test_torch_device_forms():
    names, _ = infer("""
        import torch
        a = torch.device("cuda", 1)
        b = torch.device("cpu")
        c = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        d = torch.device(3)
    """)
    assert names["a"].where == cuda(1)
    assert names["b"].where == CPU
    assert isinstance(names["c"], DeviceValue) and names["c"].where == SELECTED
    assert names["d"].where == cuda(3)


def test_hardcoded_cuda_is_an_assumption_unless_guarded():
    _, facts = infer("""
        import torch
        a = torch.device("cuda")
        unused = torch.device("cuda", 1)  # constructing a device touches no GPU
        x = torch.zeros(2, device=a)
        if torch.cuda.is_available():
            b = torch.device("cuda")
            y = torch.zeros(2, device=b)
    """)
    assumptions = [f for f in facts if isinstance(f, GpuAssumption)]
    assert len(assumptions) == 1 and not assumptions[0].guarded


def test_to_moves_a_copy_and_dtype_keeps_the_device():
    names, _ = infer("""
        import torch
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        x = torch.zeros(3)
        y = x.to(device)
        z = y.to(torch.float16)
        w = y.cpu()
    """)
    assert names["x"].where.kind == "cpu"
    assert names["y"].where == SELECTED
    assert names["z"].where == SELECTED
    assert names["w"].where == CPU


def test_plain_cuda_follows_the_current_device():
    names, _ = infer("""
        import torch
        torch.cuda.set_device(1)
        x = torch.zeros(3, device="cuda")
        with torch.cuda.device(2):
            y = torch.zeros(3).cuda()
    """)
    assert names["x"].where == cuda(1)
    assert names["y"].where == cuda(2)


def test_created_then_moved_is_a_fresh_move():
    _, facts = infer("""
        import torch
        x = torch.zeros(3).cuda()
    """)
    assert any(isinstance(f, FreshMove) for f in facts)


def test_unknown_object_moved_is_located():
    names, _ = infer("""
        import torch
        from mylib import build
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        thing = build().to(device)
    """)
    assert isinstance(names["thing"], Located) and names["thing"].where == SELECTED


def test_default_device():
    names, _ = infer("""
        import torch
        torch.set_default_device("cuda:0")
        x = torch.ones(2)
    """)
    assert isinstance(names["x"], Tensor) and names["x"].where == cuda(0)
