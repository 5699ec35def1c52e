"""A DEV104 guess answered by the run's callers.

A helper nobody in its own file calls is walked on symbolic parameters: a tensor it makes without `device=`
that meets a parameter's tensor is a guess (a warning) that a caller may pass GPU tensors (every module's
`forward` is walked so too). Where its own file or the run holds the callers, their walks run it on what they
really pass; when every call that reaches the operation gives it cpu tensors only, the guess is answered and
dropped. A caller that passes anything else (a GPU tensor, its own parameter), callers outside the run, and
tests keep it.

Real code: TimeSformer's `timesformer/datasets/utils.py:91` (`pack_pathway_output` indexes the frames with a
cpu `torch.linspace`; its callers are the datasets' `__getitem__`, on decoded cpu clips: survey 72, a false
DEV104 warning now answered).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from devlint.cli.batch import check_files
from devlint.core.findings import PLACEMENT
from devlint.static.rules import ALL_RULES
from tests.lint_helpers import lint, write_files

CODES = [rule.code for rule in ALL_RULES]

CLIP_UTILS = """\
    import torch


    def pack_pathways(frames, alpha):
        index = torch.linspace(0, frames.shape[1] - 1, frames.shape[1] // alpha).long()
        slow = torch.index_select(frames, 1, index)
        return [slow, frames]
"""

DECODER = """\
    import numpy as np
    import torch


    def decode(path, num_frames=32):
        return torch.from_numpy(np.zeros((num_frames, 8, 8, 3), np.uint8))
"""

KINETICS = """\
    import torch
    from torch.utils.data import Dataset

    from vid import clip_utils
    from vid.decoder import decode


    class Kinetics(Dataset):
        def __init__(self, paths, alpha=4):
            self.paths = paths
            self.alpha = alpha

        def __len__(self):
            return len(self.paths)

        def __getitem__(self, i):
            frames = decode(self.paths[i]).permute(3, 0, 1, 2).float() / 255.0
            return clip_utils.pack_pathways(frames, self.alpha)
"""

ON_GPU = """\
    import torch

    from vid.clip_utils import pack_pathways

    frames = torch.rand(3, 16, 8, 8, device="cuda" if torch.cuda.is_available() else "cpu")
    if torch.cuda.is_available():
        slow, fast = pack_pathways(frames.cuda(), 4)
"""

PASSED_ON = """\
    import torch

    from vid.clip_utils import pack_pathways


    def pathways(clip, alpha):
        return pack_pathways(clip, alpha)
"""


def run(root: Path, files: dict, use_cache: bool = False, jobs: int = 1) -> set:
    write_files(root, files)
    paths = [str(root / name) for name in sorted(files)]
    found = check_files(paths, CODES, jobs=jobs, use_cache=use_cache, cache_dir=root / ".cache")
    return {(Path(f.path).name, f.line, f.code, f.severity) for f in found}


TRAIN = """\
    import torch

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
"""


def project(**more: str) -> dict:
    """The helper's package, and a script that writes a GPU word (in a run that never does, a guess is an info)."""
    return {"vid/__init__.py": "", "vid/clip_utils.py": CLIP_UTILS, "vid/decoder.py": DECODER, "train.py": TRAIN,
            **more}


GUESS = ("clip_utils.py", 6, "DEV104", "warning")


def test_the_helper_alone_is_a_guess(tmp_path):
    assert run(tmp_path, project()) == {GUESS}


def test_callers_that_pass_cpu_tensors_answer_the_guess(tmp_path):
    assert run(tmp_path, project(**{"vid/kinetics.py": KINETICS})) == set()


def test_the_answer_holds_across_worker_processes(tmp_path):
    assert run(tmp_path, project(**{"vid/kinetics.py": KINETICS}), jobs=2) == set()


def test_the_answer_holds_from_the_cache(tmp_path):
    files = project(**{"vid/kinetics.py": KINETICS})
    assert run(tmp_path, files, use_cache=True) == set()
    assert run(tmp_path, files, use_cache=True) == set()  # every file from the cache, placements too


def test_no_placement_is_ever_reported(tmp_path):
    write_files(tmp_path, project(**{"vid/kinetics.py": KINETICS}))
    found = check_files([str(tmp_path / "vid" / "kinetics.py")], CODES, jobs=1, use_cache=False)
    assert all(f.code != PLACEMENT for f in found)


def test_a_caller_that_passes_a_gpu_tensor_is_an_error(tmp_path):
    found = run(tmp_path, project(**{"vid/kinetics.py": KINETICS, "run_gpu.py": ON_GPU}))
    assert ("clip_utils.py", 6, "DEV104", "error") in found


def test_a_caller_that_passes_its_own_parameter_keeps_the_guess(tmp_path):
    assert GUESS in run(tmp_path, project(**{"vid/kinetics.py": KINETICS, "vid/passed.py": PASSED_ON}))


def test_a_test_that_passes_cpu_tensors_answers_nothing(tmp_path):
    test = KINETICS.replace("class Kinetics(Dataset)", "class TestKinetics").replace("def __getitem__", "def test_item")
    assert run(tmp_path, project(**{"tests/test_kinetics.py": test})) == {GUESS}


def test_the_caller_outside_the_run_answers_nothing(tmp_path):
    write_files(tmp_path, project(**{"vid/kinetics.py": KINETICS}))
    paths = [str(tmp_path / "vid" / "clip_utils.py"), str(tmp_path / "train.py")]
    found = check_files(paths, CODES, jobs=1, use_cache=False)
    assert {(Path(f.path).name, f.line, f.code, f.severity) for f in found} == {GUESS}


EXPORT = """\
    import torch
    from torch import nn


    class NormalizedNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 1, 3)

        def forward(self, x):
            mean = torch.tensor([0.485, 0.456, 0.406])
            x = x - mean[None, :, None, None]
            return self.conv(x)


    def export(path):
        model = NormalizedNet().eval()
        sample = torch.zeros(1, 3, 64, 64)
        model(sample)
        torch.onnx.export(model, sample, path)
        {more}
"""


def test_a_forward_its_own_file_only_calls_on_the_cpu():
    """MiDaS's tf/make_onnx_model.py: the export script builds the module, never moves it, and calls it only on
    a `torch.from_numpy` sample; its normalization constants are meant to be baked into the graph (survey 72)."""
    assert lint_codes(EXPORT.format(more="")) == set()


def test_a_caller_of_the_same_file_on_the_gpu_is_an_error():
    more = "if torch.cuda.is_available():\n            model.cuda()(sample.cuda())"
    assert (12, "DEV104", "error") in lint_codes(EXPORT.format(more=more))


def test_a_forward_nobody_in_the_file_calls_is_a_guess():
    source = EXPORT.split("def export")[0] + "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
    assert lint_codes(source) == {(12, "DEV104", "warning")}


def lint_codes(source: str) -> set:
    return {(f.line, f.code, f.severity) for f in lint(textwrap.dedent(source))}
