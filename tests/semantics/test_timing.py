"""semantics/timing.py: clock reads that end a measurement, and what happened since the start."""

from devlint.core.facts import ClockRead
from tests.lint_helpers import infer

GPU = 'import time, torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n' \
      'x = torch.ones(3, device=device)\n'


def test_a_measurement_of_gpu_work():
    _, facts = infer(GPU + "t0 = time.time()\ny = x * 2\nelapsed = time.time() - t0\n")
    [read] = [f for f in facts if isinstance(f, ClockRead)]
    assert read.gpu_work is not None and not read.synced


def test_a_synchronized_measurement():
    _, facts = infer(GPU + "t0 = time.time()\ny = x * 2\ntorch.cuda.synchronize()\nelapsed = time.time() - t0\n")
    [read] = [f for f in facts if isinstance(f, ClockRead)]
    assert read.synced


def test_a_clock_read_that_ends_nothing_is_no_measurement():
    _, facts = infer(GPU + "t0 = time.time()\nprint(time.time())\n")
    assert not [f for f in facts if isinstance(f, ClockRead)]
