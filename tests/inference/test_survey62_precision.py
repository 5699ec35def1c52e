"""False findings of the sixty-second and sixty-third precision surveys (issue 17 item 9), each beside a twin that
must stay reported.

Survey 62 (speech and audio) and survey 63 (video understanding and tracking), pinned to 9417951 (this stop's
fixes of surveys 58-61). The mechanisms:
- `preds[n] = preds[n].detach().cpu().numpy()` in `for n in range(N):` rewrites every entry of the list from
  itself: what is read from it after is host data (Sound-of-Pixels' visualisation, 2 DEV401).
- `F.interpolate(x, size)`: the output size is numbers, read on the host, whatever holds them (STCN's `size` from
  a batch's info, 1 DEV101).
- `batch.to(device)` as a statement, of a parameter only guessed to be a tensor and used as none in the function,
  may be an object that moves itself (torch_geometric's `Batch.to` works in place: mot_neural_solver, 1 DEV103).
- A clock read that is only subtracted from (`batch_time.update(time.time() - end)`) starts no measurement: the
  one `end` started goes on, a lap (the classic ImageNet loop, 1 DEV301 warning).
- A blocking upload (`x.to("cuda")` of a host tensor) returns once the work queued before it is done (UniVTG's
  input preparation, 2 DEV301 warnings).
- `torch.set_default_tensor_type(torch.FloatTensor)` after a CUDA type ends the switch; a run's default is a GPU only
  where a file's last setter call makes it one (found reading the regression run: LLaMA-Adapter's 4 true DEV102,
  judged by survey 34, had gone).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.inference.test_survey58_precision import READERS
from tests.lint_helpers import found

REWRITTEN = """
import numpy as np
import torch
from sep_models import Separator


def save_masks(outputs, count):
    preds = outputs["pred_masks"]
    {loop}
        preds[n] = preds[n].detach().cpu().numpy()
    for j in range(2):
        for n in range(count):
            print((np.clip(preds[n][j, 0], 0, 1) * 255).astype(np.uint8).shape){mark}


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = Separator().to(device)
    save_masks(net(torch.randn(2, 1, 16, 16, device=device)), 2)


main()
"""


@pytest.mark.parametrize("loop, mark", [
    ("for n in range(len(preds)):", ""),
    ("for n in range(count):", ""),
    # one entry rewritten: the others are still the model's
    ("for n in [0]:", "  # expect: DEV401"),
])
def test_a_loop_that_rewrites_every_entry_from_itself_leaves_host_data(loop, mark):
    source = REWRITTEN.format(loop=loop, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)


RESIZED = """
import torch
import torch.nn.functional as F


def run(loader):
    for data in loader:
        prob = data["rgb"].cuda()
        info = data["info"]
        size = info["size_480p"]
        out = F.interpolate(prob, {size}, mode="bilinear", align_corners=False){mark}
        print(out.shape)
"""


@pytest.mark.parametrize("size, mark", [
    ("size", ""),
    ("scale_factor=size", ""),
])
def test_the_size_of_an_interpolation_is_no_operand(size, mark):
    """(`info` is host data of the batch: the loop moves `data["rgb"]` and not it.)"""
    source = RESIZED.format(size=size, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


def test_a_tensor_met_by_interpolation_is_still_judged():
    """The input and the output size are no pair; a tensor of another device in the input still is."""
    source = """
import torch
import torch.nn.functional as F

x = torch.rand(1, 2, 8, 8).cuda()
y = torch.rand(1, 2, 8, 8)
F.interpolate(x + y, (16, 16))  # expect: DEV101
"""
    assert found(source, ["DEV101"]) == expected_findings(source)


STEPPED = """
import pytorch_lightning as pl
import torch


class Tracker(pl.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def training_step(self, batch, batch_idx):
        return self._step(batch)

    def _step(self, batch):
        device = next(self.model.parameters()).device
        batch.to(device){mark}
        {use}
        return self.model(batch).sum()
"""


@pytest.mark.parametrize("use, mark", [
    ("pass", ""),  # a graph batch (torch_geometric's `Batch.to` moves it in place), as far as the function says
    ("batch = batch.view(-1)", "  # expect: DEV103"),  # used as only a tensor is: the move is lost
])
def test_a_discarded_move_of_a_parameter_used_as_no_tensor_is_not_judged(use, mark):
    source = STEPPED.format(use=use, mark=mark)
    assert found(source, ["DEV103"]) == expected_findings(source)


SWITCHED = """
import torch


def build():
    torch.set_default_tensor_type(torch.cuda.HalfTensor)
    w = torch.zeros(3)
    {reset}
    return w


w = build()
x = torch.zeros(3)
y = torch.zeros(3).cuda()
z = x + y{mark}
"""


@pytest.mark.parametrize("reset, mark", [
    ("torch.set_default_tensor_type(torch.FloatTensor)", "  # expect: DEV101"),  # the cpu is the default again
    ("pass", ""),  # CUDA stays the default: `x` is made on the GPU
])
def test_a_default_type_set_back_to_the_cpu_ends_the_switch(reset, mark):
    """LLaMA-Adapter builds its model under `torch.cuda.HalfTensor` and sets `torch.FloatTensor` back: a dataset built
    after it makes cpu tensors (found reading this stop's regression run: survey 34's 4 true DEV102 had gone once a
    dataset's items were read part by part, all of them then on the GPU)."""
    source = SWITCHED.format(reset=reset, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


LAPS = """
import time
import torch


def run_epoch(model, loader, optimizer, device, meter):
    end = time.time()
    for batch in loader:
        {top}
        x = batch.to(device=device, non_blocking=True)
        loss = model(x).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.append(time.time() - {start}){mark}
        end = time.time()
        print(loss.item())
"""


@pytest.mark.parametrize("top, start, mark", [
    # a lap: from one iteration's `end` to the next, every step's GPU time in one of them
    ("print(time.time() - end)", "end", ""),
    ("begin = time.time()", "begin", "  # expect: DEV301"),  # a measurement of this step alone
])
def test_a_read_that_only_ends_a_lap_starts_no_measurement(top, start, mark):
    """The classic ImageNet loop: `data_time.update(time.time() - end)` at the top, `batch_time.update(time.time() -
    end); end = time.time()` at the bottom. The first read was taken as the start of a new measurement, so the second
    looked unsynchronized (survey 63, 1 DEV301 warning)."""
    source = LAPS.format(top=top, start=start, mark=mark)
    assert found(source, ["DEV301"]) == expected_findings(source)


UPLOADED = """
import time
import torch
from torch.utils.data import DataLoader


def prepare(batch):
    feats = batch[0].to("cuda")
    text = batch[1].to("cuda")
    joint = torch.cat((feats, text), dim=1)
    labels = batch[2].to("cuda"{flag})
    return joint, labels


def run(dataset, meter):
    for batch in DataLoader(dataset, batch_size=2):
        t0 = time.time()
        x, y = prepare(batch)
        meter.append(time.time() - t0){mark}
"""


@pytest.mark.parametrize("flag, mark", [
    ("", ""),  # a blocking upload after the `torch.cat`: it waits for it, nothing is queued at the read
    (", non_blocking=True", "  # expect: DEV301"),  # queued too: the cat may still run
])
def test_a_blocking_upload_waits_for_the_work_before_it(flag, mark):
    """UniVTG's input preparation, timed (survey 63, 2 DEV301 warnings)."""
    source = UPLOADED.format(flag=flag, mark=mark)
    assert found(source, ["DEV301"]) == expected_findings(source)


TOTALS = """
import time
import torch


def epoch(x):
    x = x.cuda()
    start = time.time()
    loss = (x @ x).sum()
    print(loss.item())
    begin = time.time()
    y = x @ x
    print(time.time() - begin)  # expect: DEV301
    print(time.time() - {total}){mark}
    return y


epoch(torch.randn(3, 3))
"""


@pytest.mark.parametrize("total, mark", [
    ("start", ""),  # the same queued work as the line before: reported there once
    ("begin", ""),
])
def test_queued_work_is_reported_at_the_first_read_that_ends_on_it(total, mark):
    """KGAT's epoch log, `time() - time5` then `time() - time0`: with reads that only end a measurement no longer
    starting one, the second read saw the same queued work again (found reading the regression run)."""
    source = TOTALS.format(total=total, mark=mark)
    assert found(source, ["DEV301"]) == expected_findings(source)


_CHOICE = """if use_cuda:
    torch.set_default_tensor_type('torch.cuda.FloatTensor')
else:
    torch.set_default_tensor_type('torch.FloatTensor')"""
_BLOCK = """torch.set_default_tensor_type('torch.cuda.FloatTensor')
model = torch.nn.Linear(2, 2)
torch.set_default_tensor_type('torch.FloatTensor')"""


@pytest.mark.parametrize("setter, expected", [
    (_CHOICE, {(10, "DEV401")}),  # aster's main.py: CUDA the default where there is one, for the whole run
    (_BLOCK, set()),  # LLaMA-Adapter: CUDA the default while one model is built, then the cpu again
])
def test_a_default_switch_lasts_unless_the_same_block_sets_it_back(tmp_path, setter, expected):
    from tests.lint_helpers import lint_in_run

    script = f"import torch\nfrom readers import read_cameras\n\nuse_cuda = torch.cuda.is_available()\n{setter}\n" \
             "cams = read_cameras(4)\n"
    findings = lint_in_run(tmp_path, {"readers.py": READERS, "train.py": script}, "readers.py")
    assert {(f.line, f.code) for f in findings if f.code == "DEV401"} == expected
