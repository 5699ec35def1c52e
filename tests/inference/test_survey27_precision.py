"""False findings of the twenty-seventh precision survey (issue 17 item 9), each beside a twin that must stay reported.

- The pix2pix/CycleGAN device option: `--gpu_ids 0,1` (`-1`: the cpu) parsed into a list of ids, then `if
  len(opt.gpu_ids) > 0:` before `.cuda()` and `torch.cuda.set_device(opt.gpu_ids[0])`: the user's explicit
  choice of a GPU, as `if use_gpu:` is (3 false warnings, DEV201 and DEV203). So are `if args.gpu_id >= 0:`
  and `if args.gpu_id == -1:` (the cpu). A test true for one GPU only (`if params.num_gpus == 1:`, whose else
  may be several GPUs) guards its own branch and tells nothing of the other (zylo117's EfficientDet). A length
  test of a list that names no GPU choice guards nothing; `args.gpu_id == 0` is GPU 0, not the cpu.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

GPU_IDS = """
import argparse
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--{option}", type=str, default="0", help="e.g. 0  0,1,2  -1 for CPU")
opt = parser.parse_args()
ids = []
for s in opt.{option}.split(","):
    if int(s) >= 0:
        ids.append(int(s))
opt.{option} = ids
if len(opt.{option}) > 0:
    torch.cuda.set_device(opt.{option}[0]){mark}


class Head(nn.Module):
    def __init__(self, ids):
        super().__init__()
        self.ids = ids

    def build(self, width):
        mlp = nn.Sequential(nn.Linear(width, 16), nn.ReLU())
        if len(self.{attr}) > 0:
            mlp.cuda(){mark2}
        self.mlp = mlp


Head(opt.{option}).build(8)
"""

GPU_ID = """
import argparse
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--gpu_id", type=int, default=0)
args = parser.parse_args()
net = nn.Linear(8, 2)
if {test}:
    net = net.cuda(){mark}
"""

CASES = {
    "a_list_of_gpu_ids": GPU_IDS.replace("self.ids", "self.gpu_ids").replace("ids):\n", "gpu_ids):\n").replace(
        "self.gpu_ids = ids", "self.gpu_ids = gpu_ids").format(option="gpu_ids", attr="gpu_ids", mark="", mark2=""),
    # (unguarded throughout: the file is GPU-only, reported once)
    "a_list_of_names": GPU_IDS.format(option="names", attr="ids", mark="  # expect: DEV204", mark2=""),
    "a_gpu_id_at_least_zero": GPU_ID.format(test="args.gpu_id >= 0", mark=""),
    "a_gpu_id_of_minus_one_is_the_cpu": GPU_ID.format(test="not args.gpu_id == -1", mark=""),
    "a_gpu_id_of_zero_is_a_gpu": GPU_ID.format(test="args.gpu_id == 0", mark=""),
    "a_gpu_id_other_than_zero": GPU_ID.format(test="args.gpu_id != 0", mark="  # expect: DEV201"),
    "one_gpu_counted": GPU_ID.replace("--gpu_id", "--num_gpus").format(test="args.num_gpus == 1", mark=""),
    "no_gpu_counted": GPU_ID.replace("--gpu_id", "--num_gpus").format(
        test="args.num_gpus == 0", mark="  # expect: DEV201"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
