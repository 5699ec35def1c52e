"""semantics/cuda.py: availability, calls that need a GPU, events, skip markers."""

from devlint.core.facts import EventElapsed, GpuAssumption
from devlint.core.values import Availability, SkipMarker
from tests.lint_helpers import infer


def test_availability_values():
    names, _ = infer("""
        import torch
        a = torch.cuda.is_available()
        b = not torch.cuda.is_available()
        c = torch.cuda.device_count() > 0
    """)
    assert names["a"] == Availability(positive=True)
    assert names["b"] == Availability(positive=False)
    assert names["c"] == Availability(positive=True)


def test_calls_that_need_a_gpu_say_whether_they_are_guarded():
    _, facts = infer("""
        import torch
        torch.cuda.synchronize()
        torch.cuda.manual_seed(0)
        if torch.cuda.is_available():
            torch.cuda.synchronize()
    """)
    calls = [(f.what, f.guarded) for f in facts if isinstance(f, GpuAssumption)]
    assert calls == [("torch.cuda.synchronize", False), ("torch.cuda.synchronize", True)]


def test_events_are_synchronized_by_a_sync():
    _, facts = infer("""
        import torch
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        end.record()
        a = start.elapsed_time(end)
        torch.cuda.synchronize()
        b = start.elapsed_time(end)
    """)
    assert [f.synced for f in facts if isinstance(f, EventElapsed)] == [False, True]


def test_skip_markers():
    names, _ = infer("""
        import pytest, torch, unittest
        a = pytest.mark.skipif(not torch.cuda.is_available(), reason="gpu")
        b = unittest.skipUnless(torch.cuda.is_available(), "gpu")
        c = pytest.mark.skipif(torch.cuda.is_available(), reason="cpu only")
    """)
    assert isinstance(names["a"], SkipMarker) and isinstance(names["b"], SkipMarker)
    assert not isinstance(names["c"], SkipMarker)
