"""False findings of the ninth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- a module's `forward` that sends an argument to a device through a helper function (`roi_indices =
  at.totensor(roi_indices)`, whose `tensor = data.detach()` ... `tensor.cuda()` moves it) takes that argument on
  any device, as one that moves it inline does (chenyuntc/simple-faster-rcnn-pytorch trainer.py, its head in
  model/faster_rcnn_vgg16.py); a helper that only computes on it does not;
- `if lengths.is_cuda:` of a tensor known to be on cuda (a caller moved it there) runs only its branch: the
  "is_cuda is false" path cannot go with a cuda `lengths` (spro/practical-pytorch masked_cross_entropy.py);
  `if not lengths.is_cuda:` leaves the cpu tensor where it was;
- a `forward` that uses a tensor argument only as slice bounds (`feat[:, :, box[1]:box[3]]`, each bound read
  as a Python int), itself or through a method of its class it hands the box to, takes it on any device
  (xinntao/BasicSR inference_dfdnet.py: DFDNet's `swap_feat` crops the VGG features by the cpu part
  locations); one that computes with the box does not;
- left over from survey 8: a call with more positional arguments than the function takes raises TypeError, its
  body never runs: no argument is bound to a parameter it was not meant for (Tianxiaomo/pytorch-YOLOv4's
  evaluate_on_coco.py passes six to the five-parameter `do_detect`, the flag landing on `0.4`); given the five,
  the body runs with them;
- a cuda result copied into a cpu buffer (`feats[a:b, :] = out`) waits for the GPU: a clock read after it
  measures the work (layumi/Person_reID_baseline_pytorch test_MSMT.py); kept on the GPU, it does not.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, lint
from tests.lint_helpers import check_file, write_files

HELPER_MOVES = """
import torch
from torch import nn


def to_gpu(t):
    {helper}


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 2)

    def forward(self, feats, index):
        index = to_gpu(index).float()
        return self.fc(torch.cat([index[:, None], feats], dim=1))


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = Head()

    def forward(self, feats):
        index = torch.zeros(len(feats))
        return self.head(feats, index){mark}
"""

IS_CUDA = """
import torch


def make_mask(lengths, width):
    steps = torch.arange(width)
    if {test}:
        steps = steps.cuda()
    return steps < lengths.unsqueeze(1){mark}


def masked(lengths, width):
    lengths = torch.LongTensor(lengths).cuda()  # expect: DEV204
    return make_mask(lengths, width)
"""

HOST_BUFFER = """
import time
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def extract(model, batches, dim):
    feats = torch.zeros(len(batches) * 4, dim)
    for i, x in enumerate(batches):
        out = model(x.to(device))
        {store}
    return feats


model = nn.Linear(16, 8).to(device)
since = time.time()
feats = extract(model, [torch.randn(4, 16) for _ in range(3)], 8)
elapsed = time.time() - since{mark}
print(elapsed)
"""

SLICE_BOUNDS = """
import numpy as np
import torch
from torch import nn


class PatchNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)

    def crop(self, out, location):
        return out[:, :, location[1]:location[3], location[0]:location[2]]

    def forward(self, x, parts):
        out = self.conv(x)
        crops = []
        for i in range(len(parts)):
            location = (parts[i][0] // 2).int()
            crops.append({use})
        return crops


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = PatchNet().to(device)
parts = [torch.from_numpy(np.array([[1, 1, 4, 4]])), torch.from_numpy(np.array([[4, 4, 7, 7]]))]
print(net(torch.randn(1, 3, 8, 8).to(device), parts)){mark}
"""

TOO_MANY = """
import torch
from torch import nn


def detect(model, img, conf, nms, use_cuda=1):
    if use_cuda:
        img = img.cuda(){hardcoded}
    return model(img){mark}


def evaluate(model):
    if torch.cuda.is_available():
        use_cuda = 1
    else:
        use_cuda = 0
    return detect(model, torch.rand(1, 8), 0.5, 0.4, {arguments})


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
evaluate(nn.Linear(8, 2).to(device))
"""

CASES = {
    "a_forward_that_moves_its_input_through_a_helper": HELPER_MOVES.format(
        helper="tensor = t.detach()\n    tensor = tensor.cuda()  # expect: DEV204\n    return tensor", mark=""),
    "twin_a_helper_that_only_computes_on_it": HELPER_MOVES.format(
        helper="return t.detach() * 2", mark="  # expect: DEV104"),
    "is_cuda_of_a_tensor_known_on_cuda_takes_its_branch": IS_CUDA.format(test="lengths.is_cuda", mark=""),
    "twin_not_is_cuda_leaves_the_cpu_tensor": IS_CUDA.format(test="not lengths.is_cuda", mark="  # expect: DEV104"),
    "a_tensor_used_only_as_slice_bounds_in_forward": SLICE_BOUNDS.format(use="self.crop(out, location)", mark=""),
    "twin_a_box_computed_with_the_features": SLICE_BOUNDS.format(use="out * location.float().mean()",
                                                                  mark="  # expect: DEV102"),
    "a_call_with_too_many_arguments_never_runs_the_body": TOO_MANY.format(arguments="0.6, use_cuda", hardcoded="",
                                                                          mark=""),
    "twin_the_flag_in_its_place": TOO_MANY.format(arguments="use_cuda", hardcoded="", mark=""),
    "twin_a_flag_that_is_always_set": TOO_MANY.format(arguments="1", hardcoded="  # expect: DEV201",
                                                     mark="  # expect: DEV102"),
    "a_copy_into_a_cpu_buffer_waits_for_the_gpu": HOST_BUFFER.format(
        store="feats[i * 4:(i + 1) * 4, :] = out", mark=""),
    "twin_a_result_kept_on_the_gpu": HOST_BUFFER.format(store="feats = out", mark="  # expect: DEV301"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


HEAD = """\
    import torch
    from torch import nn
    from utils import array_tool as at


    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(5, 2)

        def forward(self, feats, index):
            index = at.{helper}(index).float()
            return self.fc(torch.cat([index[:, None], feats], dim=1))
"""

ARRAY_TOOL = """\
    import numpy as np
    import torch


    def totensor(data, cuda=True):
        if isinstance(data, np.ndarray):
            tensor = torch.from_numpy(data)
        if isinstance(data, torch.Tensor):
            tensor = data.detach()
        if cuda:
            tensor = tensor.cuda()
        return tensor


    def scaled(data):
        return data.detach() * 2
"""

TRAINER = """\
    import torch
    from torch import nn
    from model.head import Head


    class Trainer(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = Head()

        def forward(self, feats):
            index = torch.zeros(len(feats))
            return self.head(feats, index)
"""


@pytest.mark.parametrize("helper, expected", [("totensor", set()), ("scaled", {(13, "DEV104")})])
def test_a_helper_in_another_module_that_moves_the_input(tmp_path, helper, expected):
    """The head and its helper each in a module of their own, as in simple-faster-rcnn-pytorch."""
    write_files(tmp_path, {"utils/__init__.py": "", "utils/array_tool.py": ARRAY_TOOL, "model/__init__.py": "",
                     "model/head.py": HEAD.format(helper=helper), "trainer.py": TRAINER})
    assert {(f.line, f.code) for f in check_file(tmp_path / "trainer.py")} == expected


AFTER_THE_CHECK = """
import torch


def make_mask(lengths, width):
    steps = torch.arange(width)
    if lengths.is_cuda:
        steps = steps.cuda()
    return steps < lengths.unsqueeze(1)


def masked(lengths, width):
    lengths = torch.LongTensor(lengths).cuda()
    mask = make_mask(lengths, width)
    return mask.float().cuda()
"""


def test_what_follows_a_known_is_cuda_check_learnt_nothing_of_cuda():
    """The branch of `if lengths.is_cuda:` runs with a GPU, but the caller's `.cuda()` after the call is as
    unguarded as its first one: both are the file's GPU assumptions (spro/practical-pytorch's batched
    seq2seq notebook, which imports masked_cross_entropy.py: its one DEV204 must stay one)."""
    [finding] = lint(AFTER_THE_CHECK)
    assert finding.code == "DEV204" and "2 lines: 13, 15" in finding.message
