"""False findings of the twenty-sixth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- A model nobody can see (a class from a star import, picked by name) given only numpy may compute on the host (a
  statistical model: naive, ARIMA): its output is not taken to be a tensor on its device (cure-lab/LTSF-Linear,
  2 false DEV401). Given a tensor, it still computes where it is.
- `token.data = token.data.cuda()` moves `token` itself: the tensor keeps its identity and takes the new storage
  (salesforce/awd-lstm-lm, a false DEV102). Without it, the cpu token given to the GPU model is still reported.
- `map_location="cuda:%d" % gpu` (or `f"cuda:{gpu}"`, `torch.device("cuda", gpu)`) names the process's own GPU, not
  plain 'cuda' (JaidedAI/EasyOCR, a false DEV205). Plain "cuda" in an NCCL worker still is GPU 0 on every rank.
- A checkpoint the package ships beside its code (`os.path.join(os.path.dirname(__file__), "../data/rnet.pt")`) is
  read by its authors' own code as it is, wherever the package runs (timesler/facenet-pytorch, 2 false DEV202; 3 in
  survey 23). A path a caller gives is still reported.
- Heads kept in a plain list on purpose, each moved where it is made (`[nn.Linear(...).to(device) for ...]`) and
  trained by an optimizer of its own, are where the module's weights go (facebookresearch/DomainBed, a false
  DEV107). Heads made on the cpu in a plain list are still reported: the module's `.to()` leaves them behind.
- A pytest test's parameter with a default (`def test_attack(name, device="cpu")`) is its default: pytest passes
  nothing there (Harry24k/adversarial-attacks-pytorch, a false DEV301 on cpu work). One that
  `@pytest.mark.parametrize` names is whatever it is given: a GPU among them is still GPU work.
- `torch.onnx.export(model, img, path)` runs the model and writes its weights out, copied to the host: a clock read
  after it times the export's work (WongKinYiu/yolov7's export.py, a false DEV301). `torch.jit.trace` alone writes
  nothing: the work it queued may still run.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

HOST_MODEL = """
import numpy as np
import torch
from stat_models import *


class Experiment:
    def __init__(self, name, use_gpu):
        self.device = torch.device("cuda:0") if use_gpu else torch.device("cpu")
        self.model = {{"naive": NaiveRepeat}}[name](24).to(self.device)

    def test(self, loader):
        preds = []
        for batch in loader:
            batch = batch.float().to(self.device){host}
            preds.append(self.model(batch))
        return np.concatenate(preds, axis=0){mark}
"""

DATA_MOVE = """
import torch
from torch import nn

use_cuda = torch.cuda.is_available()
model = nn.Embedding(100, 16)
if use_cuda:
    model.cuda()
token = torch.rand(1, 1).mul(100).long()
if use_cuda:
    {move}
out = model(token){mark}
"""

RANKED = """
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def worker(gpu, world_size, path):
    dist.init_process_group(backend="nccl", init_method="tcp://127.0.0.1:23456", world_size=world_size, rank=gpu)
    params = torch.load(path, map_location={location}){mark}
    dist.destroy_process_group()
    return params


if __name__ == "__main__":
    n = torch.cuda.device_count()
    mp.spawn(worker, nprocs=n, args=(n, "ckpt.pth"))
"""

SHIPPED = """
import os
import torch
from torch import nn


class TinyNet(nn.Module):
    def __init__(self, path=None):
        super().__init__()
        self.fc = nn.Linear(8, 2)
        if path is None:
            path = os.path.join(os.path.dirname(__file__), "../data/tinynet.pt")
        self.load_state_dict(torch.load({given})){mark}
"""

HEADS = """
import torch
from torch import nn
import torch.nn.functional as F


class PerDomainHeads(nn.Module):
    def __init__(self, n_features, n_classes, n_domains, device):
        super().__init__()
        self.heads = [nn.Linear(n_features, n_classes){moved} for _ in range(n_domains)]
        self.head_opts = [torch.optim.SGD(h.parameters(), lr=0.1) for h in self.heads]

    def fit_heads(self, feats, labels):
        loss = 0.0
        for k, (f, y) in enumerate(zip(feats, labels)):
            loss = loss + F.cross_entropy(self.heads[k](f.detach()), y){mark}
        return loss
"""

PYTEST = """
import time
import pytest
import torch
from torch import nn


@pytest.mark.parametrize({names}, {values})
def test_attack(name, device="cpu"):
    model = nn.Linear(8, 2).to(device)
    images = torch.rand(5, 8).to(device)
    start = time.time()
    out = model(images)
    print(name, time.time() - start){mark}
"""

EXPORT = """
import time
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU()).to(device)
img = torch.zeros(1, 3, 64, 64, device=device)
t = time.time()
y = model(img)
try:
    {export}
except Exception as e:
    print("export failure: %s" % e)
print("Export complete (%.2fs)" % (time.time() - t)){mark}
"""

CASES = {
    "a_hidden_model_given_numpy": HOST_MODEL.format(host=".cpu().numpy()", mark=""),
    "a_hidden_model_given_a_tensor": HOST_MODEL.format(host="", mark="  # expect: DEV401"),
    "a_move_through_data": DATA_MOVE.format(move="token.data = token.data.cuda()", mark=""),
    "no_move_through_data": DATA_MOVE.format(move="pass", mark="  # expect: DEV102"),
    "a_rank_formatted_device": RANKED.format(location='"cuda:%d" % gpu', mark=""),
    "a_rank_in_an_f_string": RANKED.format(location='f"cuda:{gpu}"', mark=""),
    "a_rank_as_a_device_index": RANKED.format(location='torch.device("cuda", gpu)', mark=""),
    "plain_cuda_on_every_rank": RANKED.format(location='"cuda"', mark="  # expect: DEV205"),
    "heads_moved_where_they_are_made": HEADS.format(moved=".to(device)", mark=""),
    "heads_left_on_the_cpu": HEADS.format(moved="", mark="  # expect: DEV107"),
    "a_test_at_its_default_device": PYTEST.format(names='"name"', values='["fgsm", "pgd"]', mark=""),
    "a_test_given_devices": PYTEST.format(names='"name, device"', values='[("fgsm", "cpu"), ("pgd", "cuda")]',
                                          mark="  # expect: DEV301"),
    "an_onnx_export": EXPORT.format(export='torch.onnx.export(model, img, "model.onnx")', mark=""),
    "a_trace_alone": EXPORT.format(export="traced = torch.jit.trace(model, img)", mark="  # expect: DEV301"),
    "a_shipped_checkpoint": SHIPPED.format(
        given='os.path.join(os.path.dirname(__file__), "../data/tinynet.pt")', mark=""),
    "a_shipped_checkpoint_by_name": SHIPPED.format(given="path", mark=""),
    "a_checkpoint_of_the_callers": SHIPPED.replace("self, path=None", "self, path=None, weights=None").format(
        given="weights", mark="  # expect: DEV202"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
