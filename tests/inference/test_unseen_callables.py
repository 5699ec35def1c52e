"""Calls of code devlint cannot see follow their inputs (issue 17 item 3).

A function imported from where devlint cannot read, or an attribute holding a callable of an unseen
class, given tensors on one device, returns (used as a tensor) a value on that device, marked in the
why-chain as inferred. It may be a number, so a host library given it is not judged; a class called
is an object, not a tensor; tensors on two devices, or a module or a device handed over, say nothing.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations


import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, lint, REALWORLD

CASES = {
    # MPRNet's training loop (realworld 109, whose loss objects the excerpt leaves out): a loss object of an
    # unseen class, named as torch names its losses, computes where its inputs are and needs them together;
    # a batch item moved with `.cuda()` (a module could be moved too) is a tensor once it is asked `.numpy()`,
    # and given beside a GPU tensor to an unseen function, it is on that GPU as they are
    "an_unseen_loss_class_and_a_moved_batch_item": """
import numpy as np
import torch
import losses
from mprnet import MPRNet, edge_map
model = MPRNet()
model.cuda()  # expect: DEV204
criterion = losses.CharbonnierLoss()
labels = torch.from_numpy(np.load("labels.npy"))
for data in loader:
    target = data[0].cuda()
    restored = model(data[1].cuda())
    stages = np.sum([criterion(restored[j], target) for j in range(3)])  # expect: DEV401
    mixed = criterion(restored[0], labels)  # expect: DEV101
    target.numpy()  # expect: DEV401
    edge_map(restored[0], target).numpy()  # expect: DEV401
    fine = criterion(restored[0].cpu(), labels)
    host = data[0].cuda().cpu().numpy()
    model.train()
""",
    "imported_function_follows_its_gpu_input": """
import torch
from geometry import box_iou
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(3, device=device)
w = torch.ones(3)
z = box_iou(x, x) + w  # expect: DEV101
""",
    "twin_moved_result_is_fine": """
import torch
from geometry import box_iou
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(3, device=device)
w = torch.ones(3)
z = box_iou(x, x).cpu() + w
""",
    # detrex's DETA assigner: the matcher's labels index a table made on the cpu
    "unseen_matcher_attribute_follows_the_forward_inputs": """
import torch
from detection import box_iou, Matcher
class Assigner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.anchor_matcher = Matcher(0.3, 0.7)
    def forward(self, anchors, boxes):
        iou = box_iou(boxes, anchors)
        labels = self.anchor_matcher(iou)
        all_inds = torch.arange(len(anchors))
        return all_inds[labels == 1]  # expect: DEV104
""",
    "twin_table_made_on_the_inputs_device": """
import torch
from detection import box_iou, Matcher
class Assigner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.anchor_matcher = Matcher(0.3, 0.7)
    def forward(self, anchors, boxes):
        iou = box_iou(boxes, anchors)
        labels = self.anchor_matcher(iou)
        all_inds = torch.arange(len(anchors), device=anchors.device)
        return all_inds[labels == 1]
""",
    # a metric may return a Python float: numpy given it is not judged
    "inferred_result_given_to_numpy_is_not_judged": """
import numpy as np
import torch
from metrics import accuracy
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(3, device=device)
scores = np.mean([accuracy(x, x) for _ in range(3)])
""",
    # MPRNet again, as its excerpt reads (realworld 109): the losses are built where the excerpt does not show,
    # or by a factory; a callable named as a loss gives a loss, a tensor where its inputs are, never a float
    "a_callable_named_as_a_loss_gives_a_tensor": """
import numpy as np
import torch
from mprnet import MPRNet
from losses import build_loss
model = MPRNet()
model.cuda()  # expect: DEV204
self_loss_fn = build_loss("edge")
for data in loader:
    target = data[0].cuda()
    restored = model(data[1].cuda())
    char = np.sum([criterion_char(restored[j], target) for j in range(3)])  # expect: DEV401
    edge = np.mean([self_loss_fn(restored[j], target) for j in range(3)])  # expect: DEV401
    total = torch.zeros(2)
    total += criterion(restored[0], target)  # expect: DEV101
""",
    "twin_losses_brought_to_the_host_and_other_names_stay_inferred": """
import numpy as np
import torch
from mprnet import MPRNet
from losses import get_loss
model = MPRNet()
model.cuda()  # expect: DEV204
for data in loader:
    target = data[0].cuda()
    restored = model(data[1].cuda())
    char = np.sum([criterion_char(restored[j], target).item() for j in range(3)])
    other = np.sum([get_loss(restored[j], target) for j in range(3)])
    scores = np.mean([accuracy_fn(restored[j], target) for j in range(3)])
    total = torch.zeros(())
    total += criterion(restored[0], target).cpu()
    total = total + criterion(restored[0].cpu(), target.cpu())
""",
    "a_class_called_builds_an_object_not_a_tensor": """
import torch
from plugins import Precision
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(3, device=device)
p = Precision(x)
p.to("cpu")
w = torch.ones(3)
""",
    "inputs_on_two_devices_say_nothing": """
import torch
from geometry import blend
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(3, device=device)
w = torch.ones(3)
z = blend(x, w) + w
""",
    # a loss handed over by the caller, or imported from where devlint cannot see, computes with both inputs as
    # torch's losses do: given a GPU output and cpu labels, it crashes (another unseen function may move them; a CTC
    # loss's lengths may be on the cpu)
    "a_loss_given_tensors_on_two_devices": """
import numpy as np
import torch
from metrics import loss_fn


def validate(model, loader, criterion, device):
    model.to(device)
    for images, labels in loader:
        out = model(images.to(device))
        loss = criterion(out, torch.from_numpy(np.asarray(labels)))  # expect: DEV101
        other = loss_fn(out, torch.from_numpy(np.asarray(labels)))  # expect: DEV101
        fine = criterion(out, torch.from_numpy(np.asarray(labels)).to(device))
        score = accuracy(out, torch.from_numpy(np.asarray(labels)))
        sizes = torch.IntTensor([out.size(1)] * out.size(0))
        ctc = criterion(out.log_softmax(2), labels, sizes, sizes)
""",
    "a_module_handed_over_may_be_moved_there": """
import torch
from engine import run
model = torch.nn.Linear(3, 3)
x = torch.randn(3)
y = run(model, x)
z = y + torch.randn(3, device="cuda" if torch.cuda.is_available() else "cpu")
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


def test_the_why_chain_says_the_device_is_inferred():
    (finding,) = [f for f in lint(CASES["imported_function_follows_its_gpu_input"]) if f.code == "DEV101"]
    assert any("`box_iou(...)` follows its inputs (inferred)" in line for line in finding.why)




@pytest.mark.skipif(REALWORLD is None, reason="../shared/realworld is not next to this checkout")
@pytest.mark.parametrize("excerpt, line, code", [
    # detrex DETA: `torch.arange(len(anchors))` indexed with a mask from `self.anchor_matcher(iou)`
    ("145_MIXED_detrex_deta_arange_cpu_cuda_mask.py", 74, "DEV104"),
    # openpose: `self.model(data).numpy()` where data was moved to the GPU when one is there
    ("003_NUMPY_ON_CUDA_openpose_hand_output_numpy.py", 51, "DEV401"),
    # MPRNet: `np.sum([criterion_char(restored[j], target) ...])`, the loss objects left out of the excerpt
    ("109_NUMPY_ON_CUDA_mprnet_np_sum_cuda_losses.py", 86, "DEV401"),
])
def test_real_excerpt(excerpt, line, code):
    source = (REALWORLD / excerpt).read_text()
    assert (line, code) in found(source)


def test_the_fix_names_a_compound_operand_in_parentheses():
    source = CASES["unseen_matcher_attribute_follows_the_forward_inputs"]
    (finding,) = [f for f in lint(source) if f.code == "DEV104"]
    assert "`device=(labels == 1).device`" in finding.fix
