"""Real device bugs the seventieth and seventy-first surveys found missed (issue 17: bug reports from repositories
nobody on the team had used), and the false findings of the sixty-ninth precision survey (speech, graphs, point
clouds, time series), each beside a twin.

Recall:
- `for batch in tqdm(loader):` yields what the loader yields (lm-evaluation-harness's requests, DEV102).
- `torch.tensor([0] * n)`: a list repeated is still a list of numbers, so a cpu tensor (graph4nlp, DEV104).
- `if etypes is None: etypes = torch.tensor(...)` of a parameter of unknown kind: on the path that takes the default
  it is a cpu tensor (graph4nlp, DEV104), as it already was for a parameter guessed to be a tensor.
- `torch.load(path, map_location=map_location)` of a helper's parameter that defaults to None and that no caller
  sets: no map at all (light-weight-refinenet, DEV202).
- `model.generate(input_ids=..., attention_mask=...)` of a moved model: its keyword tensors are its data (dolly,
  DEV102).
Precision (survey 69):
- `isinstance(x, np.ndarray)` of a value a tensor-only method made (`batch["angle"].unsqueeze(0)`): not an array
  (OpenPCDet, a false DEV104 error).
- `torch.rand(())`: a 0-dim tensor, which combines with any device (OpenPCDet, a false DEV104).
- A notebook cell `pip install -r requirements.txt`: IPython's automagic (Time-Series-Library, a false DEV001).
- A helper whose every caller in another module passes cpu tensors made by a factory: its parameters are those
  (deepspeech.pytorch, four false DEV104).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import json
from pathlib import Path

import libcst as cst
import pytest

from devlint.core.devices import CPU
from devlint.static.analysis.callers import Passed, evident
from devlint.static.notebooks import python_lines
from tests.conftest import expected_findings
from devlint.static.project.call_sites import _calls_in as calls_in
from tests.lint_helpers import check_file, found, lint_in_run

LOOP = """
import torch
from torch import nn
from tqdm import tqdm


class Scorer:
    def __init__(self, device):
        self.model = nn.Embedding(100, 8)
        self.model.to(device)

    def score(self, texts):
        requests = [(t, {{"ids": torch.tensor([len(t) % 100])}}) for t in texts]
        for key, inputs in {loop}:
            self.model(**{inputs}){mark}
"""


@pytest.mark.parametrize("loop, inputs, mark", [
    ("tqdm(requests)", "inputs", "  # expect: DEV102"),
    ("tqdm(iterable=requests, desc='scoring')", "inputs", "  # expect: DEV102"),
    ("requests", "inputs", "  # expect: DEV102"),
    ("tqdm(requests)", "{k: v.to(self.model.weight.device) for k, v in inputs.items()}", ""),
])
def test_a_progress_bar_yields_what_it_wraps(loop, inputs, mark):
    source = LOOP.format(loop=loop, inputs=inputs, mark=mark)
    assert found(source, ["DEV102"]) == expected_findings(source)


def test_a_progress_bar_over_a_loader_yields_its_batches():
    source = """
import torch
from tqdm.auto import tqdm

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(3, 3).to(device)
data = torch.utils.data.TensorDataset(torch.randn(8, 3))
bar = tqdm(torch.utils.data.DataLoader(data, batch_size=2))
for (x,) in bar:
    model(x)  # expect: DEV102
    bar.set_postfix(step=1)
"""
    assert found(source, ["DEV102"]) == expected_findings(source)


REPEATED = """
import torch
from torch import nn


class EdgeLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, feats, kinds=None):
        {made}
        h = self.lin(feats)
        return h * (kinds == 0).unsqueeze(1){mark}
"""


@pytest.mark.parametrize("made, mark", [
    ("if kinds is None:\n            kinds = torch.tensor([0] * feats.shape[0], dtype=torch.long)",
     "  # expect: DEV104"),
    ("kinds = torch.tensor([0] * feats.shape[0])", "  # expect: DEV104"),
    ("kinds = torch.tensor([0, 1] * 3)", "  # expect: DEV104"),
    ("if kinds is None:\n            kinds = torch.tensor([0] * feats.shape[0], device=feats.device)", ""),
    ("if kinds is None:\n            kinds = torch.zeros(feats.shape[0], device=feats.device)", ""),
    ("kinds = torch.tensor([0] * feats)", ""),  # (a list times a tensor is the tensor's operation)
])
def test_a_list_repeated_and_a_defaulted_parameter_are_made_here(made, mark):
    source = REPEATED.format(made=made, mark=mark)
    assert found(source, ["DEV104"]) == expected_findings(source)


DOWNLOAD = """
import os
import torch
from torch import nn


def fetch(name, url, folder="~/.cache", map_location={default}):
    cached = os.path.join(os.path.expanduser(folder), name + ".pth")
    if not os.path.exists(cached):
        torch.hub.download_url_to_file(url, cached)
    return torch.load(cached, map_location=map_location){mark}


def build(pretrained=False):
    net = nn.Conv2d(3, 8, 1)
    if pretrained:
        net.load_state_dict(fetch("net", "https://example.org/net.pth"{given}))
    return net


model = build(pretrained=True)
if torch.cuda.is_available():
    model = model.cuda()
"""


@pytest.mark.parametrize("default, given, mark", [
    ("None", "", "  # expect: DEV202"),
    ("None", ", map_location='cpu'", ""),
    ("'cpu'", "", ""),
])
def test_a_map_location_that_is_none_is_no_map(default, given, mark):
    source = DOWNLOAD.format(default=default, given=given, mark=mark)
    assert found(source, ["DEV202"]) == expected_findings(source)


GENERATE = """
import torch
import transformers


class Generator:
    def __init__(self, name):
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(name)
        self.model = transformers.AutoModelForCausalLM.from_pretrained(name)
        self.model.to("cuda" if torch.cuda.is_available() else "cpu")

    def __call__(self, text):
        inputs = self.tokenizer(text, return_tensors="pt")
        return self.model.generate(  {mark}
            input_ids=inputs["input_ids"].to(self.model.device),
            attention_mask={mask},
            max_new_tokens=20,
        )
"""


@pytest.mark.parametrize("mask, mark", [
    ('inputs["attention_mask"]', "# expect: DEV102"),
    ('inputs["attention_mask"].to(self.model.device)', ""),
])
def test_keyword_tensors_are_the_data_of_a_moved_models_method(mask, mark):
    source = GENERATE.format(mask=mask, mark=mark)
    assert found(source, ["DEV102"]) == expected_findings(source)


DISPATCH = """
import numpy as np
import torch


def as_tensor(x):
    if isinstance(x, np.ndarray):
        return torch.from_numpy(x).float()
    return x


def rotate(points, angle):
    angle = as_tensor(angle)
    return points * angle{mark}


def run(points, batch):
    points = points + torch.zeros(2).cuda()
    return rotate(points, {angle})
"""


@pytest.mark.parametrize("angle, mark", [
    ('batch["angle"].unsqueeze(0)', ""),
    ("batch.permute(1, 0)", ""),
    ("np.zeros(2)", "  # expect: DEV104"),
])
def test_a_tensor_only_method_says_its_value_is_no_array(angle, mark):
    source = DISPATCH.format(angle=angle, mark=mark)
    assert found(source, ["DEV101", "DEV104"]) == expected_findings(source)


JITTER = """
import math
import torch


def jitter(box):
    box = box.cuda()
    noise = {made}
    return box + noise{mark}
"""


@pytest.mark.parametrize("made, mark", [
    ("(torch.rand(()) - 0.5) * math.pi", ""),
    ("torch.zeros([])", ""),
    ("torch.rand(size=())", ""),
    ("(torch.rand(7) - 0.5) * math.pi", "  # expect: DEV101"),
    ("torch.rand((1,))", "  # expect: DEV101"),
])
def test_an_empty_shape_makes_a_cpu_scalar(made, mark):
    source = JITTER.format(made=made, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


@pytest.mark.parametrize("line, python", [
    ("pip install -r requirements.txt", False),
    ("cd ../data", False),
    ("ls -la", False),
    ("time - start", True),
    ("history = []", True),
    ("run(model)", True),
])
def test_automagic_lines_are_ipython(line, python):
    """A cell Python cannot parse: a line starting with a line magic's name and no operator is that magic."""
    assert (python_lines(line + "\nx = 1 +")[0] == line) is python


def test_a_pip_cell_is_no_syntax_error(tmp_path):
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
             for source in (["pip install -r requirements.txt"], ["import torch\n", "x = torch.ones(3)"])]
    notebook = tmp_path / "setup.ipynb"
    notebook.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert [f.code for f in check_file(notebook)] == []


WARP = """\
import torch


def solve(points, values):
    ones = torch.ones(points.shape[0], 1, dtype=points.dtype)
    a = torch.cat((points, ones), 1){mark}
    return torch.linalg.lstsq(a, values).solution


def warp(spec, src, dst):
    return solve(dst, dst - src)
"""

AUGMENT = """\
import random
import torch
from .warping import warp


def time_warp(spec):
    y = spec.shape[0] // 2
    src = {src}
    dst = torch.tensor([[y, 3.0 + random.random()], [y, 7.0]])
    return warp(spec, src, dst)
"""


@pytest.mark.parametrize("src, dst_made, mark", [
    ("torch.tensor([[y, 3.0], [y, 7.0]])", "torch.tensor([[y, 3.0 + random.random()], [y, 7.0]])", ""),
    ("torch.zeros(2, 2)", "torch.tensor([[y, 3.0 + random.random()], [y, 7.0]])", ""),
    ("torch.zeros(2, 2)", "spec[:2]", "  # expect: DEV104"),
])
def test_callers_in_another_module_that_pass_cpu_tensors(tmp_path: Path, src, dst_made, mark):
    files = {"aug/__init__.py": "", "aug/warping.py": WARP.format(mark=mark),
             "aug/augment.py": AUGMENT.format(src=src).replace(
                 "torch.tensor([[y, 3.0 + random.random()], [y, 7.0]])", dst_made)}
    findings = lint_in_run(tmp_path, files, "aug/warping.py")
    expected = {(line, code) for line, code in expected_findings(WARP.format(mark=mark))}
    assert {(f.line, f.code) for f in findings if f.code == "DEV104"} == expected



@pytest.mark.parametrize("argument, factories, evident_cpu", [
    ("torch.zeros(2, 2)", True, True),
    ("torch.tensor([[y, 3.0], [y, 7.0]])", True, True),
    ("torch.tensor(values)", True, False),  # (a tensor given to `torch.tensor` keeps its device)
    ("torch.zeros(2, 2, device=device)", True, False),
    ("torch.zeros(2, 2, **options)", True, False),
    ("torch.zeros(2, 2)", False, False),  # its file switches the default device: a factory may make cuda
])
def test_a_factory_given_no_device_is_an_evident_cpu_tensor(argument, factories, evident_cpu):
    found = evident(cst.parse_expression(argument), factories)
    assert (found == (Passed.TENSOR, CPU)) is evident_cpu


def test_a_callers_file_that_switches_the_default_device_says_so():
    switched = calls_in(b'import torch\ntorch.set_default_device("cuda")\nwarp(x)\n', b"warp", False, "a.py")
    kept = calls_in(b"import torch\nx = torch.zeros(2)\nwarp(x)\n", b"warp", False, "a.py")
    assert switched and all(site.switches_default for site in switched)
    assert kept and not any(site.switches_default for site in kept)


PHASE = """
import torch

PHASE = "train"


def load(model):
    if PHASE == "train":
        state = torch.load("pretrained.pth", map_location="cpu")
    else:
        state = torch.load("final.pth"){mark}
    model.load_state_dict(state)


if __name__ == "__main__":
    {set_phase}
    load(torch.nn.Linear(2, 2))
"""


@pytest.mark.parametrize("set_phase, mark", [
    ('PHASE = "test"', "  # expect: DEV202"),
    ("pass", ""),
])
def test_a_name_the_main_block_sets_is_what_its_calls_see(set_phase, mark):
    """SegmenTron: the config's phase is "train" where it is defined and "test" in the evaluation entry point, whose
    load has no map_location; a call under `if __name__ == "__main__":` sees the names as that block left them."""
    source = PHASE.format(set_phase=set_phase, mark=mark)
    assert found(source, ["DEV202"]) == expected_findings(source)


HEAD = """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, ids):
        super().__init__()
        self.ids = torch.tensor(ids).cuda()
"""


@pytest.mark.parametrize("setup, reported", [
    ("from torch.utils.cpp_extension import BuildExtension, CUDAExtension\nsetup(ext_modules=[CUDAExtension('nms', "
     "['nms.cu'])], cmdclass={'build_ext': BuildExtension})\n", False),
    ("from torch.utils.cpp_extension import CppExtension, CUDAExtension\next = CUDAExtension if cuda else CppExtension"
     "\n", True),
    ("from setuptools import setup\nsetup(name='head')\n", True),
])
def test_a_project_that_builds_cuda_kernels_only_is_gpu_only(tmp_path: Path, setup, reported):
    """OpenPCDet's setup.py builds its ops with `CUDAExtension` alone: it installs where nvcc is and its results go
    through kernels with no cpu implementation, so a `.cuda()` in its heads is no assumption to report."""
    files = {"setup.py": setup, "pcdet/__init__.py": "", "pcdet/head.py": HEAD}
    findings = lint_in_run(tmp_path, files, "pcdet/head.py")
    assert any(f.code in ("DEV201", "DEV204") for f in findings) is reported


NMS = """\
import torch
from . import nms_ext


def nms_gpu(boxes, scores, thresh):
    order = scores.sort(0, descending=True)[1]
    keep = torch.LongTensor(boxes.size(0))
    num = nms_ext.nms_gpu(boxes[order].contiguous(), keep, thresh)
    return order[keep[:num].cuda()].contiguous()
"""


def test_a_qualified_call_in_the_functions_own_file_is_another_functions(tmp_path: Path):
    """OpenPCDet's `nms_gpu` calls its kernel, `iou3d_nms_cuda.nms_gpu(boxes, keep, thresh)`: that call does not
    pass `keep` (a cpu tensor) as the function's own `scores`."""
    files = {"ops/__init__.py": "", "ops/nms.py": NMS,
             "ops/nms_ext.py": "def nms_gpu(boxes, keep, thresh):\n    pass\n"}
    assert [f.code for f in lint_in_run(tmp_path, files, "ops/nms.py") if f.code.startswith("DEV1")] == []
