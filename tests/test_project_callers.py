"""A function its own file never calls takes, from the run's other files, what every caller passes it.

Each case is the shape of a real false finding read on unseen code, with twins where a caller hides or disagrees
(the parameter then stays symbolic, and the finding stays).
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from devlint.static.analysis.callers import Passed, evident
from devlint.static.project.call_sites import is_test_path, run_call_sites
from tests.lint_helpers import lint_in_run
from devlint.core.devices import CPU, cuda


def run(root: Path, files: dict, target: str) -> list:
    return lint_in_run(root, files, target)


def codes(findings: list) -> set:
    return {(Path(f.path).name, f.line, f.code) for f in findings}


SKELETON = """\
    import torch


    class Skeleton:
        def __init__(self, offset, device):
            self._raw = offset.clone().detach().to(device).float()

        def fk_np(self, joints_np):
            joints = torch.from_numpy(joints_np)
            offsets = self._raw.expand(joints.shape[0], -1, -1)
            norms = torch.norm(joints, dim=-1, keepdim=True) * offsets
            return offsets.numpy(), norms
"""

PROCESS = """\
    import numpy as np
    import torch
    from common.skeleton import Skeleton

    skel = Skeleton(torch.ones(4, 3), {first})
    print(skel.fk_np(np.zeros((2, 4, 3), dtype=np.float32)))
    other = Skeleton(torch.zeros(4, 3),
                     {second})  # a call over two lines
"""


def test_every_construction_site_passes_the_cpu(tmp_path):
    """motion-diffusion-model's data_loaders/humanml/common/skeleton.py: `Skeleton(offsets, chain, 'cpu')` at all
    seven construction sites (scripts/motion_process.py); its `.to(device)` keeps the offsets on the cpu, beside
    `torch.from_numpy` joints (survey 16: a false DEV101 and two false DEV401)."""
    files = {"common/__init__.py": "", "common/skeleton.py": SKELETON,
             "motion_process.py": PROCESS.format(first="'cpu'", second='torch.device("cpu")')}
    assert codes(run(tmp_path, files, "common/skeleton.py")) == set()


def test_a_site_that_passes_a_variable_leaves_the_parameter_symbolic(tmp_path):
    files = {"common/__init__.py": "", "common/skeleton.py": SKELETON,
             "motion_process.py": PROCESS.format(first="'cpu'", second="device")}
    found = codes(run(tmp_path, files, "common/skeleton.py"))
    assert ("skeleton.py", 11, "DEV101") in found and ("skeleton.py", 12, "DEV401") in found


def test_every_caller_on_the_gpu_says_so_with_the_callers_line(tmp_path):
    files = {"common/__init__.py": "", "common/skeleton.py": SKELETON,
             "motion_process.py": PROCESS.format(first="'cuda'", second="'cuda'")}
    findings = [f for f in run(tmp_path, files, "common/skeleton.py") if f.code == "DEV401"]
    assert findings and "cuda" in findings[0].message
    assert any("every call in the run passes it on cuda: motion_process.py:5 and 1 more" in step
               for step in findings[0].why), findings[0].why


DECODER = """\
    import torch


    class Decoder:
        def decode(self, scores, lengths):
            n = scores.size(0)
            acc = torch.zeros(n, scores.size(1))
            return scores[:n] + acc[:n].unsqueeze(1), lengths
"""

EVALUATE = """\
    import torch
    from torch import nn
    from decoder import Decoder

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


    def evaluate(model, decoder, lengths):
        scores = model(torch.randn(3, 4).to(device))
        return decoder.decode({scores}, lengths)
"""


@pytest.mark.parametrize("scores, expected", [
    ('scores.to("cpu")', set()),
    ("scores.detach().cpu()", set()),
    ("scores", {("decoder.py", 8, "DEV104")}),
])
def test_a_method_every_caller_hands_cpu_tensors(tmp_path, scores, expected):
    """sgrvinod's Sequence-Labeling: `ViterbiDecoder.decode` is called only by inference.py, with
    `scores.to("cpu")` (survey 13: a false DEV104 that the same code in one file never had). A caller handing
    the model's output as it is leaves `scores` where the caller's walk knows it."""
    files = {"decoder.py": DECODER, "evaluate.py": EVALUATE.format(scores=scores)}
    assert codes(run(tmp_path, files, "decoder.py")) == expected


def test_callers_in_tests_alone_do_not_bind(tmp_path):
    files = {"decoder.py": DECODER, "tests/test_decoder.py": EVALUATE.format(scores='scores.to("cpu")')}
    assert codes(run(tmp_path, files, "decoder.py")) == {("decoder.py", 8, "DEV104")}


@pytest.mark.parametrize("extra", [
    "decode = Decoder().decode\n",  # the method taken as a value: called where the text does not show
    "class Beam(Decoder):\n    pass\n",  # (the method may also be called through a subclass: still named)
])
def test_a_method_taken_as_a_value_hides_its_callers(tmp_path, extra):
    files = {"decoder.py": DECODER, "evaluate.py": EVALUATE.format(scores='scores.to("cpu")') + extra}
    found = codes(run(tmp_path, files, "decoder.py"))
    assert found == ({("decoder.py", 8, "DEV104")} if "=" in extra else set())


def test_a_subclass_calls_the_constructor_with_what_the_text_does_not_show(tmp_path):
    files = {"common/__init__.py": "", "common/skeleton.py": SKELETON,
             "motion_process.py": PROCESS.format(first="'cpu'", second="'cpu'"),
             "other.py": "from common.skeleton import Skeleton\n\n\nclass Body(Skeleton):\n    pass\n"}
    assert ("skeleton.py", 12, "DEV401") in codes(run(tmp_path, files, "common/skeleton.py"))


def test_a_function_passed_to_map_hides_its_callers(tmp_path):
    helper = "import torch\n\n\ndef shift(x):\n    n = x.size(0)\n    return x + torch.ones(n)\n"
    user = "from helper import shift\n\nout = shift(t.cpu())\nrest = list(map(shift, batch))\n"
    assert codes(run(tmp_path, {"helper.py": helper, "user.py": user}, "helper.py")) == {("helper.py", 6, "DEV104")}
    user = "from helper import shift\n\nout = shift(t.cpu())\nrest = shift(u.cpu())  # shift(x) in a comment\n"
    assert codes(run(tmp_path, {"helper.py": helper, "user.py": user}, "helper.py")) == set()


CALLS = b'''\
from skel import Skeleton
s = Skeleton(")(", 'cpu')  # a string with parens; Skeleton in a comment
t = Skeleton(f(a, [1, 2]), "cpu",
             ")")
u = "a Skeleton in a string"
def Skeleton_maker(): pass
def documented():
    """Build one:

    >>> Skeleton(offsets, 'cpu')
    '''


def test_call_sites_are_read_through_strings_comments_and_lines(tmp_path):
    (tmp_path / "skel.py").write_text("class Skeleton:\n    pass\n")
    (tmp_path / "user.py").write_bytes(CALLS)
    checked = {str(tmp_path / "skel.py"): "skel.py", str(tmp_path / "user.py"): "user.py"}
    used: dict = {}
    sites = run_call_sites(checked, Path.read_bytes, "Skeleton", False, str(tmp_path / "skel.py"), used)
    # (a docstring's example is read as a call: it can only make the sites disagree, or agree)
    assert sites is not None and [(s.line, len(s.call.args)) for s in sites] == [(2, 2), (3, 3), (10, 2)]
    assert [cst.Module([]).code_for_node(a.value) for a in sites[1].call.args] == ["f(a, [1, 2])", '"cpu"', '")"']
    assert set(used) == {str(tmp_path / "user.py"), str(tmp_path / "skel.py")}


@pytest.mark.parametrize("unsure", [
    b"t = Skeleton(1, (2\n",  # never closed
    b"t = Skeleton(1,  # a comment in the call\n  2)\n",
    b"t = Skeleton('it\\'s', 2)\n",  # an escape: where the string ends is not sure
    b"make = Skeleton\n",  # passed on: called where the text does not show
])
def test_a_call_the_text_does_not_make_sure_of_hides_the_callers(tmp_path, unsure):
    (tmp_path / "skel.py").write_text("class Skeleton:\n    pass\n")
    (tmp_path / "user.py").write_bytes(b"from skel import Skeleton\ns = Skeleton(1, 'cpu')\n" + unsure)
    checked = {str(tmp_path / "skel.py"): "skel.py", str(tmp_path / "user.py"): "user.py"}
    assert run_call_sites(checked, Path.read_bytes, "Skeleton", False, str(tmp_path / "skel.py"), {}) is None


@pytest.mark.parametrize("text, expected", [
    ("'cpu'", (Passed.DEVICE, CPU)),
    ('torch.device("cuda:1")', (Passed.DEVICE, cuda(1))),
    ("x.cuda()", (Passed.TENSOR, cuda(None))),
    ("x.to('cpu').float()", (Passed.TENSOR, CPU)),
    ("x.to(device='cpu')", (Passed.TENSOR, CPU)),
    ("torch.from_numpy(a)", (Passed.TENSOR, CPU)),
    ("out.detach().cpu().numpy()", (Passed.HOST, None)),
    ("x.to(device)", None),
    ("x.to(torch.float16)", None),
    ("device", None),
    ("'train'", None),
])
def test_what_an_argument_is_on_its_face(text, expected):
    assert evident(cst.parse_expression(text)) == expected


def test_test_paths():
    assert is_test_path("/a/tests/helpers.py") and is_test_path("/a/test_x.py") and is_test_path("/a/x_test.py")
    assert not is_test_path("/a/testing_utils.py") and not is_test_path("/a/contest.py")


ERASER = """\
    import random

    import torch


    class RandomErasing:
        \"\"\"Erase a box.

        This variant of RandomErasing runs on one sample, in a DataLoader worker.
        \"\"\"

        def __init__(self, p=0.5, device="cuda"):
            self.p = p
            self.device = device

        def __call__(self, img):
            if random.random() < self.p:
                img[:, :2, :2] = torch.zeros((img.shape[0], 2, 2), dtype=img.dtype, device=self.device)
            return img
"""


@pytest.mark.parametrize("second, expected", [
    ('RandomErasing(0.25,\n                     device="cpu")', set()),
    ("RandomErasing(0.25)", {("random_erasing.py", 12, "DEV201")}),  # a construction that reads the default
])
def test_a_cuda_default_every_construction_overrides_is_never_read(tmp_path, second, expected):
    """VideoMAE's random_erasing.py (from timm): `device="cuda"` is only the default of `RandomErasing.__init__`;
    all three constructions (kinetics.py, ssv2.py, video_transforms.py) pass `device="cpu"`, and the class's own
    docstring names it in prose (survey 72: a false DEV201)."""
    users = f"import torch\nfrom random_erasing import RandomErasing\n\nfirst = RandomErasing(0.5, device='cpu')\n" \
            f"second = {second}\n"
    files = {"random_erasing.py": ERASER, "kinetics.py": users}
    assert {c for c in codes(run(tmp_path, files, "random_erasing.py")) if c[2] == "DEV201"} == expected
