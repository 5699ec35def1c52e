"""Host values are host, and the ways a GPU tensor reaches numpy as people write them (issue 17 item 4).

`.numpy()`, `.tolist()` and numpy's array builders give host arrays: a tensor made from one is a cpu
tensor with dimensions (not a 0-dim one that would mix with any device). A GPU tensor written into a numpy
array is converted by numpy (an array of Python objects holds it as it is); a list grown with `+=` keeps
its GPU members through a loop, as one grown with `append` does.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, REALWORLD

PRELUDE = """\
import numpy as np
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
out = model(torch.randn(8, 4, device=device))
"""

CASES = {
    "a_tensor_made_from_a_numpy_array_is_on_the_cpu": PRELUDE + """
h = out.detach().cpu().numpy()
y = torch.tensor(h) + out  # expect: DEV101
z = torch.tensor(np.exp(h)) - out  # expect: DEV101
w = torch.as_tensor(out.tolist()) * out  # expect: DEV101
""",
    "twin_made_on_the_device": PRELUDE + """
h = out.detach().cpu().numpy()
y = torch.tensor(h, device=device) + out
z = torch.tensor(np.exp(h)).to(device) - out
n = torch.tensor(out.sum().item()) * out
""",
    "writing_a_gpu_tensor_into_a_numpy_array": PRELUDE + """
scores = np.zeros((10, 2))
for i in range(10):
    scores[i] = model(torch.randn(4, device=device))  # expect: DEV401
    scores[i, :] = out  # expect: DEV401
""",
    "twin_writes_host_values": PRELUDE + """
scores = np.zeros((10, 2))
tiles = np.empty((2, 2), dtype=object)
for i in range(10):
    scores[i] = model(torch.randn(4, device=device)).detach().cpu().numpy()
    tiles[0, 0] = out
""",
    "a_list_grown_with_plus_equals_keeps_its_gpu_members": PRELUDE + """
preds = []
for step in range(3):
    preds += [model(torch.randn(8, 4, device=device))]
allp = np.concatenate(preds)  # expect: DEV401
""",
    "twin_list_of_host_arrays": PRELUDE + """
preds = []
for step in range(3):
    preds += [model(torch.randn(8, 4, device=device)).detach().cpu().numpy()]
allp = np.concatenate(preds)
""",
    # dinov2's log_regression: a conversion under a test that the device is the cpu
    # yolov7's xywh2xyxy: `y = x.clone() if isinstance(x, torch.Tensor) else np.copy(x)`; given a tensor, the
    # test is true and the numpy branch is dead (joining both lost the tensor, and a true error in utils/loss.py)
    "a_type_test_the_value_answers_keeps_the_tensor": PRELUDE + """
def corners(x):
    y = x.clone() if isinstance(x, torch.Tensor) else np.copy(x)
    y[:, 1] = y[:, 0] + y[:, 1]
    return y

layer = torch.ones(8)
print(layer[corners(out)[:, 0] > 0])  # expect: DEV104
""",
    "twin_type_test_given_a_host_array_keeps_the_array": PRELUDE + """
def corners(x):
    y = x.clone() if isinstance(x, torch.Tensor) else np.copy(x)
    y[:, 1] = y[:, 0] + y[:, 1]
    return y

print(torch.tensor(corners(out.detach().cpu().numpy())) + out)  # expect: DEV101
""",
    "twin_type_test_of_an_unknown_value_decides_nothing": PRELUDE + """
import pickle
def corners(x):
    return x.clone() if isinstance(x, torch.Tensor) else np.copy(x)

layer = torch.ones(8)
print(layer[corners(pickle.load(open("boxes.pkl", "rb")))[:, 0] > 0])
""",
    # tensorboardX's make_np, copied into jukebox: a tensor passed in skips the list and scalar branches
    "type_tests_of_a_tensor_pass_over_the_branches_it_never_enters": PRELUDE + """
def host(x):
    if isinstance(x, (list, tuple)):
        return np.array(x)
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, np.ndarray):
        return x
    return x.detach().cpu().numpy()

print(host(out).mean())
""",
    "twin_the_branch_a_tensor_takes_is_checked": PRELUDE + """
def host(x):
    if isinstance(x, (list, tuple)):
        return np.array(x)
    if isinstance(x, torch.Tensor):
        return np.asarray(x)  # expect: DEV401
    return x

print(host(out).mean())
""",
    "a_conversion_where_the_device_is_known_to_be_the_cpu": """
import torch
_CPU = torch.device("cpu")
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
samples = torch.randn(3, device=device)
if device == _CPU:
    a = samples.numpy()
if device.type == "cpu":
    b = samples.numpy()
if samples.device.type == "cpu":
    c = samples.numpy()
d = samples.numpy()  # expect: DEV401
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)




@pytest.mark.skipif(REALWORLD is None, reason="../shared/realworld is not next to this checkout")
def test_real_excerpts():
    # hgraph: np.array over a list of accuracies that are cuda tensors
    assert (101, "DEV401") in found((REALWORLD / "042_NUMPY_ON_CUDA_hgraph_np_array_of_cuda_scalars.py").read_text())
    # openpose (correct): cpu arrays from `.cpu().numpy()`, numpy arrays filled and turned into tensors: clean
    assert not {code for _, code in found((REALWORLD / "004_NEGATIVE_openpose_body_cpu_numpy.py").read_text())
                if code.startswith("DEV1") or code == "DEV401"}
