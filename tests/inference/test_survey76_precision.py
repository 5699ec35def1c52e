"""False findings of the seventy-sixth precision survey (issue 17 item 9: point clouds and 3D vision, video, OCR and
documents, image restoration, LLM fine-tuning), each beside a twin that must stay reported.

- Lightning's `Fabric(accelerator="cuda")` (or a Trainer's `accelerator="gpu"`) is built only where a GPU is: what
  follows runs with one (lit-llama's fine-tuning scripts: two DEV202).
- `if num_gpus: x = x.cuda()` ... `if num_gpus: x = x.cpu()`: where the flag is as it was when x stayed on the cpu,
  x is on the cpu (and what an unseen call makes of it, `model(x)`, too); a helper's DEV104 guess is answered by a
  caller in another module that hands it such values, though the helper's own file walks it on its own symbolic
  parameters from another method, and though the caller's script is named `test_net.py` (a module of tests
  uses pytest or unittest, or lives under `tests/`) (SlowFast's `WrongPredictionVis`, survey 72's TimeSformer
  meter: DEV104).
- An option whose default names published weights (`--ckpt` defaulting to
  `stylegan2_ffhq_config_f_1024_official-3ab41b38.pth`, torch.hub's name-and-hash form) holds released weights, saved
  from the cpu (BasicSR's StyleGAN2 inference script: DEV202).
- A load in a function that assumes a GPU unguarded, itself or in what it calls (`device = "cuda"` it then quantizes
  on), dies without a GPU whatever the load does: the assumption is the report (lit-llama's GPTQ script: DEV202).
- A project whose every writer of a module's weights moves them to the cpu first (`state_dict[key] = param.cpu()`
  before `torch.save`, KAIR's and BasicSR's `save_network`) loads cpu tensors into its modules: its test scripts'
  `model.load_state_dict(torch.load(path))` is not reported (KAIR's `main_test_*.py`: five DEV202). One writer
  that saves a module's `state_dict()` from its device keeps them reported, and so does a load into an optimizer.
- An item of a dict keyed by device (`self._tables[device]`, a lookup table built on the cpu and moved to each device
  it is asked for) is on that device: `table = lut(key.device)` then `table[k]` is no mix (Pointcept's z-order
  decoder: DEV104). Looked up by another key, it is what the dict holds, as before.
- A top-level import no import root holds, of a package a setup.py in the project's folders builds with CUDA kernels
  only (`setup(name="pointops", packages=["pointops"], ext_modules=[CUDAExtension(...)])` in `libs/pointops/`),
  is a CUDA-only import: what follows it runs with a GPU, in the module and in the modules that import it
  (Pointcept's masked scene contrast model: two DEV201).
- `str(device).__contains__("cuda")` is `"cuda" in str(device)` written as a call: it guards what it branches to
  (DBNet.pytorch's predictor: DEV203).
- A module of a package whose setup.py builds CUDA kernels only is GPU-only by construction, and so is every module
  that imports it (occupancy_networks' encoder imports its `grid_pool` op: DEV201).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import expected_findings
from devlint.cli.batch import check_files
from devlint.static.rules import ALL_RULES
from tests.lint_helpers import found, lint_in_run, write_files

FABRIC = """
import lightning as L
import torch
from torch import nn


def main(pretrained_path="checkpoints/base.pth"):
    fabric = L.Fabric(accelerator={accelerator}, devices=1, precision="bf16-true")
    fabric.launch()
    model = nn.Linear(16, 16)
    model.load_state_dict(torch.load(pretrained_path)){mark}
    return fabric.setup(model)


DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
"""


@pytest.mark.parametrize("accelerator, mark", [
    ('"cuda"', ""),
    ('"gpu"', ""),
    ('"auto"', "  # expect: DEV202"),
])
def test_fabric_on_cuda_runs_with_a_gpu(accelerator, mark):
    source = FABRIC.format(accelerator=accelerator, mark=mark)
    assert found(source, ["DEV202", "DEV201"]) == expected_findings(source)


SETUP = """
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, {kind}

setup(name="_ext", ext_modules=[{kind}("_ext", ["src/ext.cpp", "src/pool_kernel.cu"])],
      cmdclass={{"build_ext": BuildExtension}})
"""

GRID_POOL = """
import torch
from torch.autograd import Function

from ._ext import grid_pool_forward


class GridPoolFunction(Function):
    @staticmethod
    def forward(ctx, feats, points, shape):
        out = torch.zeros((int(shape.prod()), feats.size(1)), device=feats.device)
        grid_pool_forward(points, feats, shape.cpu(), out)
        return out
"""

ENCODER = """
import torch
from torch import nn

from ops.grid_pool import GridPoolFunction


class LocalPointNet(nn.Module):
    def __init__(self, cells=16):
        super().__init__()
        self.grid_shape = torch.cuda.LongTensor([cells, cells, cells])
        self.fc = nn.Conv1d(3, 32, 1)

    def forward(self, points):
        feats = self.fc(points.transpose(1, 2)).transpose(1, 2)[0]
        return GridPoolFunction.apply(feats, points[0], self.grid_shape)


DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
"""


@pytest.mark.parametrize("kind, reported", [("CUDAExtension", set()), ("CppExtension", {11})])
def test_a_module_that_imports_a_cuda_only_package_runs_with_a_gpu(tmp_path: Path, kind, reported):
    files = {"ops/__init__.py": "", "ops/setup.py": SETUP.format(kind=kind), "ops/grid_pool.py": GRID_POOL,
             "encoder.py": ENCODER}
    findings = lint_in_run(tmp_path, files, "encoder.py")
    assert {f.line for f in findings if f.code == "DEV201"} == reported


VIS = """
import torch


class WrongPredictionVis:
    def __init__(self, subset=None):
        self.subset = subset

    def _pick_wrong_preds(self, labels, preds):
        subset_mask = torch.ones(size=(len(labels),), dtype=torch.bool)
        mask = torch.argmax(preds, dim=-1) != labels
        mask &= subset_mask
        return mask

    def visualize(self, labels, preds):
        return torch.squeeze(self._pick_wrong_preds(labels, preds).nonzero(), dim=-1)
"""

CALLER = """
from vislib.prediction_vis import WrongPredictionVis


def run(loader, model, num_gpus):
    vis = WrongPredictionVis()
    for inputs, labels in loader:
        if num_gpus:
            inputs, labels = inputs.cuda(), labels.cuda()
        preds = model(inputs)
        if {test}:
            labels, preds = labels.cpu(), preds.cpu()
        vis.visualize(labels=labels, preds=preds.detach().clone())
"""


@pytest.mark.parametrize("test, script, reported", [
    ("num_gpus", "tools/visualize.py", set()),
    # an evaluation script named as a test (SlowFast's and TimeSformer's `tools/test_net.py`) is a script
    ("num_gpus", "tools/test_net.py", set()),
    # a flag of its own: where it is false, labels and preds may be on the GPU
    ("verbose", "tools/visualize.py", {12}),
])
def test_callers_in_another_module_answer_a_guess_through_a_shared_flag(tmp_path: Path, test, script, reported):
    files = {"vislib/__init__.py": "", "vislib/prediction_vis.py": VIS, script: CALLER.format(test=test)}
    write_files(tmp_path, files)
    paths = [str(tmp_path / name) for name in sorted(files)]
    found_ = check_files(paths, [rule.code for rule in ALL_RULES], jobs=1, use_cache=False)
    assert {f.line for f in found_ if f.code == "DEV104" and f.path.endswith("prediction_vis.py")} == reported


RELEASED_OPTION = """
import argparse

import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
parser = argparse.ArgumentParser()
parser.add_argument("--ckpt", type=str, default={default!r})
args = parser.parse_args()
net = nn.Linear(4, 4).to(device)
net.load_state_dict(torch.load(args.ckpt)["params_ema"]){mark}
"""


@pytest.mark.parametrize("default, mark", [
    ("experiments/pretrained_models/stylegan2_ffhq_config_f_1024_official-3ab41b38.pth", ""),
    ("experiments/train/models/net_g_latest.pth", "  # expect: DEV202"),
])
def test_an_option_that_defaults_to_released_weights_holds_them(default, mark):
    source = RELEASED_OPTION.format(default=default, mark=mark)
    assert found(source, ["DEV202"]) == expected_findings(source)


GPU_BOUND = """
import torch
from torch import nn


def quantize_blockwise(model, inputs, device):
    for block in model:
        block.to(device)
        inputs = block(inputs.to(device))
        block.to("cpu")


def main(checkpoint_path):
    device = {device}
    checkpoint = torch.load(checkpoint_path){mark}
    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 8))
    model.load_state_dict(checkpoint)
    quantize_blockwise(model, torch.randn(4, 8), device)


if __name__ == "__main__":
    main("model.pth")
"""


@pytest.mark.parametrize("device, mark, called", [
    ('"cuda"', "", True),
    ('"cuda"', "", False),  # walked on its own (lit-llama's `CLI(main)`): the callee's use is still its own walk's
    ('"cuda" if torch.cuda.is_available() else "cpu"', "  # expect: DEV202", True),
])
def test_a_load_in_a_function_that_assumes_a_gpu_is_not_reported_again(device, mark, called):
    source = GPU_BOUND if called else GPU_BOUND.split("\n\nif __name__")[0] + "\n"
    source = source.format(device=device, mark=mark)
    assert found(source, ["DEV202"]) == expected_findings(source)


def test_a_cuda_default_a_caller_overrides_leaves_the_load_reported():
    """tez's `Model.load(self, model_path, device="cuda")` (recall 75): `load(path, device="cpu")` on a machine
    without a GPU fails at the load, which is the bug."""
    source = GPU_BOUND.replace("def main(checkpoint_path):\n    device = {device}",
                               'def main(checkpoint_path, device="cuda"):')
    source = source.format(mark="  # expect: DEV202")
    assert found(source, ["DEV202"]) == expected_findings(source)


SAVER = """
import os
import torch


class ModelBase:
    def save_network(self, save_dir, network, label):
        state_dict = network.state_dict()
        for key, param in state_dict.items():
            state_dict[key] = param.cpu()
        torch.save(state_dict, os.path.join(save_dir, label + ".pth"))

    def save_optimizer(self, save_dir, optimizer, label):
        torch.save(optimizer.state_dict(), os.path.join(save_dir, label + "_optim.pth"))
"""

SAVERS = {
    "loop": SAVER,
    "comprehension": SAVER.replace(
        "state_dict = network.state_dict()", "state = {k: v.cpu() for k, v in network.state_dict().items()}"
    ).replace("torch.save(state_dict,", "torch.save(state,"),
    "moved module": SAVER.replace("state_dict = network.state_dict()", "state_dict = network.cpu().state_dict()"),
}

INFER = """
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def main(model_path):
    model = nn.Conv2d(3, 3, 3)
    {load}
    model.eval()
    return model.to(device)
"""

EXPORT = """
import torch
from torch import nn

model = nn.Linear(2, 2).cuda()
torch.save(model.state_dict(), "export.pth")
"""


@pytest.mark.parametrize("saver, load, export, reported", [
    ("loop", "model.load_state_dict(torch.load(model_path), strict=True)", False, set()),
    ("comprehension", "model.load_state_dict(torch.load(model_path), strict=True)", False, set()),
    ("moved module", "model.load_state_dict(torch.load(model_path), strict=True)", False, set()),
    # an item of the checkpoint, through a name and a branch
    ("loop", 'sd = torch.load(model_path); model.load_state_dict(sd["params"] if "params" in sd else sd)',
     False, set()),
    # another writer saves a module's weights from its device: which one wrote this file is unknown
    ("loop", "model.load_state_dict(torch.load(model_path), strict=True)", True, {10}),
    # an optimizer's state is saved from its device
    ("loop", "opt = torch.optim.SGD(model.parameters(), lr=0.1); opt.load_state_dict(torch.load(model_path))",
     False, {10}),
])
def test_a_project_that_writes_its_weights_from_the_cpu_loads_them_anywhere(tmp_path: Path, saver, load, export,
                                                                            reported):
    files = {"models/__init__.py": "", "models/model_base.py": SAVERS[saver],
             "main_infer.py": INFER.format(load=load)}
    if export:
        files["tools/export.py"] = EXPORT
    findings = lint_in_run(tmp_path, files, "main_infer.py")
    assert {f.line for f in findings if f.code == "DEV202"} == reported


LUT = """
import torch


class DecodeLUT:
    def __init__(self):
        cpu = torch.device("cpu")
        self._tables = {cpu: torch.arange(512, dtype=torch.int64) * 3}

    def lut(self, device):
        if device not in self._tables:
            self._tables[device] = self._tables[torch.device("cpu")].to(device)
        return self._tables[device]


_lut = DecodeLUT()


def decode(key: torch.Tensor) -> torch.Tensor:
    table = _lut.lut(key.device)
    k = key & 511
    return table[k]


x = torch.ones(4, dtype=torch.int64)
cached = {"cpu": torch.arange(8)}
y = cached[x.device][x]
z = cached[torch.device("cpu")][x.cuda()]  # expect: DEV101
"""


def test_an_item_of_a_cache_keyed_by_device_is_on_that_device():
    assert found(LUT, ["DEV101", "DEV104"]) == expected_findings(LUT)


CONTAINS = """
import time

import torch


class Predictor:
    def __init__(self, gpu_id=None):
        if gpu_id is not None and torch.cuda.is_available():
            self.device = torch.device("cuda:%s" % gpu_id)
        else:
            self.device = torch.device("cpu")

    def predict(self, x):
        start = time.time()
        out = x.to(self.device) * 2
        if str(self.device).__contains__({word}):
            torch.cuda.synchronize(self.device){mark}
        return out, time.time() - start


Predictor(gpu_id=0).predict(torch.randn(3, 4))
"""


@pytest.mark.parametrize("word, mark", [('"cuda"', ""), ('"cpu"', "  # expect: DEV203")])
def test_a_contains_call_on_the_device_guards_as_in_does(word, mark):
    source = CONTAINS.format(word=word, mark=mark)
    assert found(source, ["DEV203"]) == expected_findings(source)


NESTED_SETUP = """
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, {kind}

setup(
    name="fastops",
    packages=["fastops"],
    package_dir={{"fastops": "functions"}},
    ext_modules=[{kind}(name="fastops._C", sources=["src/knn.cpp"])],
    cmdclass={{"build_ext": BuildExtension}},
)
"""

CONTRAST = """
import torch
{how}


def contrast(feats, labels):
    counts = torch.zeros(4).cuda()
    return fastops.knn(feats, labels) + counts
"""

TRAINER = """
import torch
from pkg.contrast import contrast


def step(x):
    return contrast(x, x).sum() + torch.ones(1).cuda()
"""


@pytest.mark.parametrize("kind, how, reported", [
    ("CUDAExtension", "import fastops", set()),
    ("CUDAExtension", "from fastops import knn as _knn\nimport fastops", set()),
    ("CppExtension", "import fastops", {("pkg/contrast.py", 7), ("train.py", 7)}),
])
def test_a_package_a_nested_setup_builds_with_cuda_only_is_a_cuda_import(tmp_path: Path, kind, how, reported):
    files = {"setup.py": "from setuptools import setup\nsetup(name='proj')\n",
             "libs/fastops/setup.py": NESTED_SETUP.format(kind=kind), "libs/fastops/functions/__init__.py": "",
             "pkg/__init__.py": "", "pkg/contrast.py": CONTRAST.format(how=how), "train.py": TRAINER}
    write_files(tmp_path, files)
    paths = [str(tmp_path / name) for name in ("pkg/contrast.py", "train.py")]
    found_ = check_files(paths, [rule.code for rule in ALL_RULES], jobs=1, use_cache=False)
    assert {(Path(f.path).relative_to(tmp_path).as_posix(), f.line) for f in found_
            if f.code in ("DEV201", "DEV204")} == reported
