"""What a module learns from the project around it: the default device its importer sets, the constants a
config module gives it. Each case is a real false finding of survey 17, beside a twin that stays reported."""

from __future__ import annotations

from pathlib import Path

from tests.lint_helpers import lint_in_run


def run(root: Path, files: dict, target: str) -> set:
    return {(Path(f.path).name, f.line, f.code) for f in lint_in_run(root, files, target)}


HELPERS = """\
    import torch


    def make_dirs(n, rot):
        grid = torch.stack(torch.meshgrid(torch.linspace(0, 1, n), torch.linspace(0, 1, n), indexing='ij'), -1)
        return torch.sum(grid[..., None, :] * rot[:2, :2], -1)
"""

ENTRY = """\
    import numpy as np
    import torch
    from {module} import make_dirs


    def train(device):
        poses = np.random.rand(3, 3, 4)
        for i in range(3):
            print(make_dirs(5, torch.Tensor(poses[i]).to(device)).sum())


    if __name__ == '__main__':
        {switch}
        train(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
"""


def test_an_importer_that_makes_cuda_the_default_puts_the_helpers_factories_there(tmp_path):
    """yenchenlin/nerf-pytorch: run_nerf.py runs `torch.set_default_tensor_type('torch.cuda.FloatTensor')` before
    training; run_nerf_helpers.py's `torch.linspace` then makes cuda tensors (two false DEV104)."""
    files = {"helpers.py": HELPERS,
             "run.py": ENTRY.format(module="helpers", switch="torch.set_default_tensor_type('torch.cuda.FloatTensor')")}
    assert ("helpers.py", 6, "DEV104") not in run(tmp_path, files, "helpers.py")


def test_an_importer_that_keeps_the_cpu_default_leaves_the_factories_on_the_cpu(tmp_path):
    files = {"helpers.py": HELPERS, "run.py": ENTRY.format(module="helpers", switch="pass"),
             "other.py": "import torch\ntorch.set_default_tensor_type('torch.cuda.FloatTensor')\n"}
    assert ("helpers.py", 6, "DEV104") in run(tmp_path, files, "helpers.py")  # other.py imports no helpers


CONFIG = """\
    import os

    root = '/data/pretrained'
    res152_path = os.path.join(root, 'ResNet', '{name}')
"""

MODEL = """\
    import torch
    from torch import nn
    from torchvision import models
    from config import res152_path


    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            net = models.resnet152()
            net.load_state_dict(torch.load(res152_path))
            self.body = net


    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Backbone().to(device)
"""


def test_released_weights_named_in_a_config_module(tmp_path):
    """ZijunDeng/pytorch-semantic-segmentation: models/config.py names torchvision's release files
    (`resnet152-b121ed2d.pth`), which the models load without `map_location` (7 false DEV202)."""
    files = {"config.py": CONFIG.format(name="resnet152-b121ed2d.pth"), "model.py": MODEL}
    assert run(tmp_path, files, "model.py") == set()


def test_own_weights_named_in_a_config_module(tmp_path):
    files = {"config.py": CONFIG.format(name="resnet152_finetuned.pth"), "model.py": MODEL}
    assert run(tmp_path, files, "model.py") == {("model.py", 11, "DEV202")}
