"""False findings of the seventy-fifth precision survey (issue 17 item 9), and the one left from the sixty-ninth,
each beside a twin that must stay reported.

- What only a tensor has proves a value is a tensor: `h.unsqueeze(0)` of a value a call devlint cannot see gave
  (a layer of unknown kind looping over its children), or a `view` given sizes, is a tensor, so a helper's
  `isinstance(x, np.ndarray)` branch is not taken for it (OpenPCDet's `rotate_points_along_z` under its focal sparse convolution: a false
  DEV104 error from the `torch.from_numpy` branch).
- `torch.cuda.set_device(rank)` makes plain 'cuda' the rank's GPU: `.cuda()` after it is where
  `f"cuda:{rank}"` is, whatever index one caller's walk gave `rank` (BigVGAN's DDP worker, two false DEV102);
  and what follows an unguarded selection of a GPU runs with it or not at all: the selection is reported
  (DEV203), not every use after it, also where a helper of another module selects it (BigVGAN's validation
  closure, EDM's `dist.init()`: DEV201 warnings).
- A file that starts NVIDIA's management library (`pynvml.nvmlInit()`, a GPU-memory benchmark) runs with a GPU,
  before that call too (LTSF-Linear's Pyraformer benchmark: two DEV203).
- A dataset whose `__getitem__` returns a list (`[torch.tensor(idx), self.X[idx]]`) is collated part by part, as
  a tuple is: the part of a dataset built on the GPU is there (PyPOTS's GRU-D dataset, read in this stop's
  regression run: a false DEV102).
- An input left on the cpu on the path where a test of the module itself says so (`if not
  model.params.unconditional: cond = cond.to(device)`) is one that module does not read there (diffwave's
  inference, a false DEV102 error).
- A discarded `x.to(cpu)` whose next statement is `x = x.cpu()...` harms nothing: the next line makes the move
  (Graph-WaveNet's test script, a false DEV103 error).
- A module that builds an extension from CUDA sources at its top level (`fused = load(..., sources=[...
  "kernel.cu"])`) needs a CUDA toolkit to be imported: so does every module that imports it, however
  indirectly (stylegan2's scripts import `model`, which imports `op`: eight DEV201/DEV202 warnings).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, lint_in_run

ARRAY_OR_TENSOR = """
import numpy as np
import torch
from torch import nn
import spconv


def as_tensor(x):
    if isinstance(x, np.ndarray):
        return torch.from_numpy(x).float()
    return x


def rotate(points, angle):
    angle = as_tensor(angle)
    rot = torch.stack((torch.cos(angle), torch.sin(angle)), dim=1)
    return torch.matmul(points, rot){mark}


class Chain(spconv.SparseSequential):
    def forward(self, x, batch=None):
        for child in self._modules.values():
            x, batch = child(x, batch)
        return x, batch


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = spconv.SubMConv3d(3, 3)
        self.stage = Chain(spconv.SubMConv3d(3, 3))
        self.offset = torch.zeros(2).cuda()

    def forward(self, batch):
        x = self.stem(batch["points"])
        x, batch = self.stage(x, batch)
        return rotate(x + self.offset, {angle})
"""


@pytest.mark.parametrize("angle, mark", [
    ('-batch["angle"][0].unsqueeze(0)', ""),
    ('batch["angle"].permute(1, 0)', ""),
    ('batch["angle"].view(-1, 1)', ""),  # numpy's `view` takes a dtype, not sizes (OpenPCDet's PointRCNN head)
    # an array has `.reshape` too: it may still be one
    ('batch["angle"].reshape(-1)', "  # expect: DEV104"),
    # nothing says the chain's output is a tensor: it may be the array the helper converts on the cpu
    ('batch["angle"]', "  # expect: DEV104"),
])
def test_a_tensor_only_method_proves_a_tensor_for_a_helpers_type_test(angle, mark):
    source = ARRAY_OR_TENSOR.format(angle=angle, mark=mark)
    assert found(source, codes={"DEV104"}) == expected_findings(source)


RANK_WORKER = """
import torch
from torch import nn


def worker(rank):
    torch.cuda.set_device({selected})
    device = torch.device(f"cuda:{{rank}}")
    net = nn.Linear(4, 4).to(device)
    helper = nn.Linear(4, 4).cuda()
    return helper(net(torch.randn(2, 4).to(device))){mark}


def main():
    if torch.cuda.is_available():
        worker(0)
"""


@pytest.mark.parametrize("selected, mark", [
    ("rank", ""),
    # GPU 0 selected, whatever the rank: the input is on the rank's GPU
    ("0", "  # expect: DEV102"),
])
def test_plain_cuda_after_set_device_of_a_rank_is_the_ranks_gpu(selected, mark):
    source = RANK_WORKER.format(selected=selected, mark=mark)
    assert found(source, codes={"DEV102"}) == expected_findings(source)


SELECTED_FIRST = """
import torch


def train(rank):
{select}    model = torch.nn.Linear(4, 4).to(torch.device(f"cuda:{{rank}}"))

    def validate():
        return torch.hann_window(4).cuda(){mark}

    return model, validate()


def main():
    if torch.cuda.is_available():
        torch.cuda.manual_seed(0)
    train(0)
"""


@pytest.mark.parametrize("select, mark", [
    ("    torch.cuda.set_device(rank)  # expect: DEV203\n", ""),
    ("", "  # expect: DEV201"),
])
def test_what_follows_an_unguarded_gpu_selection_runs_with_the_gpu(select, mark):
    source = SELECTED_FIRST.format(select=select, mark=mark)
    assert found(source, codes={"DEV201", "DEV203"}) == expected_findings(source)


DIST_HELPER = """
import os
import torch


def init():
    torch.distributed.init_process_group(backend="gloo" if os.name == "nt" else "nccl")
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))


def ready():
    return torch.cuda.is_available()
"""

SAMPLER = """
import torch
from tools import dist


def main(seeds, device=torch.device("cuda")):
    {init}
    net = torch.nn.Linear(4, 4).to(device)
    return [net(torch.randn(1, 4, device=device)) for _ in seeds]


if __name__ == "__main__":
    main([0, 1])
"""


@pytest.mark.parametrize("init, reported", [("dist.init()", set()), ("dist.ready()", {6})])
def test_a_helper_of_another_module_that_selects_a_gpu_guards_its_caller(tmp_path: Path, init, reported):
    files = {"tools/__init__.py": "", "tools/dist.py": DIST_HELPER, "sample.py": SAMPLER.replace("{init}", init)}
    findings = lint_in_run(tmp_path, files, "sample.py")
    assert {f.line for f in findings if f.code == "DEV201"} == reported


CONDITIONED = """
import numpy as np
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, params):
        super().__init__()
        self.params = params
        self.body = nn.Linear(8, 8)
        self.cond_proj = None if params.unconditional else nn.Linear(8, 8)

    def forward(self, x, cond=None):
        if self.cond_proj is not None:
            x = x + self.cond_proj(cond)
        return self.body(x)


def predict(cond, params, use_cond, device=torch.device("cuda")):
    model = Net(params).to(device)
    if {test}:
        cond = cond.to(device)
    return model(torch.randn(1, 8, device=device), cond){mark}


def main(path, params, flags):
    return predict(torch.from_numpy(np.load(path)), params, flags.cond)
"""


@pytest.mark.parametrize("test, mark", [
    ("not model.params.unconditional", ""),
    # a switch of the caller's: the model may well read the input it left on the cpu
    ("use_cond", "  # expect: DEV102"),
])
def test_an_input_moved_as_a_test_of_the_module_asks_is_not_judged_at_the_call(test, mark):
    source = CONDITIONED.format(test=test, mark=mark)
    assert found(source, codes={"DEV102"}) == expected_findings(source)


MOVED_NEXT = """
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
w = torch.nn.Parameter(torch.randn(5, 5).to(device))


def heatmap():
    adp = torch.softmax(w @ w.t(), dim=1)
    adp.to(torch.device("cpu")){mark}
{between}    adp = adp.cpu().detach().numpy()
    return adp / adp.max()
"""


@pytest.mark.parametrize("between, mark", [
    ("", ""),
    ("    print(adp.sum().item())\n", "  # expect: DEV103"),  # used where the dead line left it
])
def test_a_discarded_move_the_next_line_makes_is_harmless(between, mark):
    source = MOVED_NEXT.format(between=between, mark=mark)
    assert found(source, codes={"DEV103"}) == expected_findings(source)


KERNELS = """
import os
from torch.utils.cpp_extension import load

here = os.path.dirname(__file__)
fused = load(
    "fused",
    sources=[
        os.path.join(here, "act.cpp"),
        os.path.join(here, {kernel}),
    ],
)


def fused_act(x, bias):
    return fused.act(x, bias)
"""

MODEL = """
import torch
from torch import nn
from op import fused_act


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.bias = nn.Parameter(torch.zeros(8))

    def forward(self, z):
        return fused_act(self.lin(z), self.bias)
"""

GENERATE = """
import torch
from model import Generator

if __name__ == "__main__":
    device = "cuda"
    g = Generator().to(device)
    print(g(torch.randn(4, 8, device=device)).shape)
"""


@pytest.mark.parametrize("kernel, reported", [('"act_kernel.cu"', set()), ('"act_extra.cpp"', {6})])
def test_a_cuda_build_at_import_of_an_indirectly_imported_module_guards_the_importer(tmp_path: Path, kernel,
                                                                                     reported):
    files = {"op/__init__.py": "from .fused_act import fused_act\n",
             "op/fused_act.py": KERNELS.replace("{kernel}", kernel), "model.py": MODEL, "generate.py": GENERATE}
    findings = lint_in_run(tmp_path, files, "generate.py")
    assert {f.line for f in findings if f.code == "DEV201"} == reported


NVML = """
import torch
import pynvml

torch.cuda.set_device(0){mark}
print("Using device:", torch.cuda.get_device_name())
{init}


def bench(layer, x, device):
    layer(x.to(device))


if __name__ == "__main__":
    device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
    bench(torch.nn.Linear(8, 8).to(device), torch.randn(4, 8), device)
"""


@pytest.mark.parametrize("init, mark", [("pynvml.nvmlInit()", ""), ("pynvml.__version__", "  # expect: DEV203")])
def test_a_file_that_starts_nvml_runs_with_a_gpu(init, mark):
    source = NVML.format(init=init, mark=mark)
    assert found(source, codes={"DEV201", "DEV203"}) == expected_findings(source)


LIST_ITEMS = """
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Windows(Dataset):
    def __init__(self, X):
        self.X = X

    def __len__(self):
        return len(self.X)

    def __getitem__(self, idx):
        return [torch.tensor(idx), self.X[idx]]


model = nn.Linear(4, 2).to(device)
loader = DataLoader(Windows(torch.randn(16, 4){moved}), batch_size=4)
for indices, x in loader:
    out = model(x){mark}
"""


@pytest.mark.parametrize("item, unpacked, moved, mark", [
    ("[torch.tensor(idx), self.X[idx]]", "indices, x", ".to(device)", ""),
    ("[torch.tensor(idx), self.X[idx]]", "indices, x", "", "  # expect: DEV102"),
    # a dict with a part off the cpu: its batches are not a plain DataLoader's cpu ones
    ('{{"idx": torch.tensor(idx), "x": self.X[idx]}}', "batch", ".to(device)", ""),
])
def test_a_list_item_is_collated_part_by_part(item, unpacked, moved, mark):
    source = LIST_ITEMS.replace("[torch.tensor(idx), self.X[idx]]", item).replace("indices, x", unpacked)
    source = source.replace("model(x)", "model(x)" if unpacked != "batch" else 'model(batch["x"])')
    source = source.format(moved=moved, mark=mark)
    assert found(source, codes={"DEV102"}) == expected_findings(source)
