"""semantics/timing.py: clock reads that end a measurement, and what happened since the start."""

from devlint.core.facts import ClockRead
from tests.lint_helpers import infer

GPU = 'import time, torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n' \
      'x = torch.ones(3, device=device)\n'


def test_a_measurement_of_gpu_work():
    _, facts = infer(GPU + "t0 = time.time()\ny = x * 2\nelapsed = time.time() - t0\nprint(elapsed)\n")
    [read] = [f for f in facts if isinstance(f, ClockRead)]
    assert read.gpu_work is not None and not read.synced


def test_a_synchronized_measurement():
    _, facts = infer(GPU + "t0 = time.time()\ny = x * 2\ntorch.cuda.synchronize()\nelapsed = time.time() - t0\n"
                     "print(elapsed)\n")
    [read] = [f for f in facts if isinstance(f, ClockRead)]
    assert read.synced


def test_a_clock_read_that_ends_nothing_is_no_measurement():
    _, facts = infer(GPU + "t0 = time.time()\nprint(time.time())\n")
    assert not [f for f in facts if isinstance(f, ClockRead)]


def _measured_work(body: str):
    _, facts = infer(GPU + "import numpy as np\nt0 = time.time()\n" + body
                     + "elapsed = time.time() - t0\nprint(elapsed)\n")
    [read] = [f for f in facts if isinstance(f, ClockRead)]
    return read.gpu_work


def test_a_blocking_copy_from_the_host_leaves_no_work_queued():
    """ogb's mag240m `mlp.py` times reading features and their `.to(device)` (survey 5): a copy from host
    memory without non_blocking returns once it is done, so that span is measured right. An asynchronous
    copy, or work on what was copied, is still queued when the clock is read."""
    assert _measured_work("h = torch.from_numpy(np.ones(3)).to(torch.float).to(device)\n") is None
    assert _measured_work("h = torch.ones(3).cuda(non_blocking=False)\n") is None
    assert _measured_work("h = torch.ones(3).to(device, non_blocking=True)\n") is not None
    assert _measured_work("h = torch.ones(3).to(device) * 2\n") is not None


def test_saving_and_loading_checkpoints_wait_for_the_gpu():
    """litgpt's "Time to load the model weights" around `load_checkpoint(fabric, model, path)` and Swin's total
    training time ending with `save_checkpoint(...)` (unseen set): checkpoint I/O copies tensors to or from
    the host, after the queued work. Work queued after it is still measured unfinished."""
    model = "from utils import load_checkpoint, save_checkpoint\nmodel = torch.nn.Linear(3, 3).to(device)\n"
    assert _measured_work(model + "y = model(x)\nload_checkpoint(None, model, 'ckpt.pth')\n") is None
    assert _measured_work(model + "y = model(x)\nsave_checkpoint(model, 'ckpt.pth')\n") is None
    assert _measured_work(model + "y = model(x)\ntorch.save(model.state_dict(), 'm.pt')\n") is None
    assert _measured_work(model + "y = model(x)\ntrainer.save_state()\n") is None
    assert _measured_work(model + "save_checkpoint(model, 'ckpt.pth')\ny = model(x)\n") is not None
    assert _measured_work(model + "y = model(x)\nlog_metrics(model)\n") is not None
