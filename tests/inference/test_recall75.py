"""Real device bugs the seventy-fifth recall survey found missed (issue 17: bug reports from repositories nobody on
the team had used), each beside a twin.

- Audio and image writers take host data: `torchaudio.save` of a cuda tensor raises, as `soundfile.write` of one
  does (F5-TTS's trainer saves the vocoder's GPU output, DEV401).
- A module given a list spread as its inputs (`encoder(*inputs)`) is given each of its tensors (d3rlpy's probe of a
  freshly built cpu encoder with inputs made on the caller's device, DEV102).
- A row of a tensor (`corners[0, :]`) is no single element: it is not 0-dim, so it does not combine with a tensor on
  another device (torch-points3d's box corners, recall 73: a cpu row shifted by a cuda center, DEV104).
- A function whose body only returns a wall-clock read (`def current_time_millis(): return int(round(
  time.monotonic_ns() / 1_000_000))`) is that clock under another name (modyn's benchmark, recall 73: DEV301).
- A `@dataclass`'s fields hold what it is built with (`TaskOutput(probs=probs)`): a tensor a module's forward
  puts in its output object keeps its device (biome-text's classification head, `.numpy()` of the GPU
  probabilities, DEV401).
- A library told `device="cuda"` builds on the GPU (`mace_mp(model="medium", device="cuda")`): a hardcoded GPU
  where nothing checks for one (mace-mp-umap's CLI, DEV201).
- A load of a parameter the loading function does not save to is of whatever file its callers name: a function
  that saves to a parameter of the same name does not make it "a file this code wrote" (tez's `Model.save(
  model_path)` and `Model.load(model_path)`, neural_prophet's `save(m, path)` and `load(path)`: DEV202).
"""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import check_file, found

WRITER = """
import torch
import torchaudio
import soundfile
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
vocoder = nn.Conv1d(80, 1, 3, padding=1).to(device)
with torch.no_grad():
    audio = vocoder(torch.randn(1, 80, 100, device=device))[0]
{call}{mark}
"""


@pytest.mark.parametrize("call, mark", [
    ('torchaudio.save("ref.wav", audio, 24000)', "  # expect: DEV401"),
    ('soundfile.write("ref.wav", audio[0], 24000)', "  # expect: DEV401"),
    ('torchaudio.save("ref.wav", audio.cpu(), 24000)', ""),
    ('torchaudio.load("ref.wav")', ""),
])
def test_audio_writers_take_host_data(call, mark):
    source = WRITER.format(call=call, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)


LIBRARY_DEVICE = """
import torch
from mace.calculators import mace_mp

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def main():
    return mace_mp(model="medium", device={device}, default_dtype="float64"){mark}
"""


@pytest.mark.parametrize("device, mark", [
    ('"cuda"', "  # expect: DEV201"),
    ("DEVICE", ""),
    ('"cpu"', ""),
])
def test_a_library_told_to_use_cuda_assumes_a_gpu(device, mark):
    source = LIBRARY_DEVICE.format(device=device, mark=mark)
    assert found(source, ["DEV201"]) == expected_findings(source)


SAVE_LOAD = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def save(self, model_path):
        if model_path is None:
            model_path = self.model_path
        torch.save({{"state_dict": self.state_dict()}}, model_path)

    def load(self, model_path, device="cpu"):
        self.to(device)
{load}
"""


@pytest.mark.parametrize("load", [
    '        self.load_state_dict(torch.load(model_path)["state_dict"])  # expect: DEV202',
    '        self.load_state_dict(torch.load(model_path, map_location=device)["state_dict"])',
    # the function's own file: written by this code, read back on the same machine
    '        self.save(model_path)\n        torch.save(self.state_dict(), model_path)\n'
    '        self.load_state_dict(torch.load(model_path))',
    # rebound where it loads to the path the saver writes by default (ReChorus's `load_model`, read in this stop's
    # regression run): the same file, not any file a caller names
    '        if model_path is None:\n            model_path = self.model_path\n'
    '        self.load_state_dict(torch.load(model_path))',
])
def test_a_load_of_a_callers_path_is_not_of_a_file_another_function_saved(load):
    source = SAVE_LOAD.format(load=load)
    assert found(source, ["DEV202"]) == expected_findings(source)


SPREAD = """
import torch
import torch.nn as nn


def output_size(shapes, encoder, device):
    with torch.no_grad():
        inputs = []
        for shape in shapes:
            inputs.append(torch.rand(1, *shape, device=device))
        y = encoder(*inputs){mark}
    return int(y.shape[1])


def create(shape, device):
    encoder = nn.Sequential(nn.Linear(shape[0], 64), nn.ReLU()){moved}
    return nn.Sequential(encoder, nn.Linear(output_size([shape], encoder, device), 2))


device = "cuda:0" if torch.cuda.is_available() else "cpu"
q = create((4,), device)
"""


@pytest.mark.parametrize("moved, mark", [("", "  # expect: DEV102"), (".to(device)", "")])
def test_a_list_spread_as_a_modules_inputs_is_judged_member_by_member(moved, mark):
    source = SPREAD.format(moved=moved, mark=mark)
    assert found(source, ["DEV102"]) == expected_findings(source)


ROW = """
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def box_corners(size, center):
    corners = torch.tensor([[-1.0, 1.0], [-2.0, 2.0], [-3.0, 3.0]]){moved}
    corners[0, :] = {row} + center[0]{mark}
    return corners.T


print(box_corners(torch.rand(3, device=device), torch.randn(3, device=device)))
"""


@pytest.mark.parametrize("row, moved, mark", [
    ("corners[0, :]", "", "  # expect: DEV104"),
    ("corners[0, :]", ".to(center.device)", ""),
    ("corners[0, 1]", "", ""),  # one element of a cpu tensor: 0-dim, it combines with any device
])
def test_a_row_of_a_cpu_tensor_is_no_element(row, moved, mark):
    source = ROW.format(row=row, moved=moved, mark=mark)
    assert found(source, ["DEV104", "DEV101"]) == expected_findings(source)


CLOCK_WRAPPER = """
import time
import torch
from torch import nn


def current_time_millis():
    \"\"\"Milliseconds on a monotonic clock.\"\"\"
    return int(round(time.monotonic_ns() / 1_000_000))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(64, 64).to(device)


def bench(x):
    start = current_time_millis()
    y = model(x){sync}
    elapsed = current_time_millis() - start{mark}
    print("forward ms", elapsed)
    return y


bench(torch.randn(8, 64, device=device))
"""


@pytest.mark.parametrize("sync, mark", [
    ("", "  # expect: DEV301"),
    ("\n    torch.cuda.synchronize()", ""),
])
def test_a_function_that_returns_a_clock_read_is_a_clock(sync, mark):
    source = CLOCK_WRAPPER.format(sync=sync, mark=mark)
    assert found(source, ["DEV301"]) == expected_findings(source)


OUTPUT_OBJECT = """
from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass
class TaskOutput:
    probs: torch.Tensor
    loss: float = 0.0


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 3)

    def forward(self, x):
        return TaskOutput({given})

    def decode(self, output):
        return output.probs.data{host}.numpy().argmax(-1){mark}


device = "cuda" if torch.cuda.is_available() else "cpu"
head = Head().to(device)
labels = head.decode(head(torch.randn(2, 8, device=device)))
"""


@pytest.mark.parametrize("given, host, mark", [
    ("probs=torch.softmax(self.lin(x), dim=-1)", "", "  # expect: DEV401"),
    ("torch.softmax(self.lin(x), dim=-1)", "", "  # expect: DEV401"),  # by position
    ("probs=torch.softmax(self.lin(x), dim=-1)", ".cpu()", ""),
])
def test_a_dataclass_keeps_the_tensors_it_is_built_with(given, host, mark):
    source = OUTPUT_OBJECT.format(given=given, host=host, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)


IN_TESTS = """
import torch
from mace.calculators import mace_mp
from lightning.pytorch.strategies import SingleDeviceStrategy

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


class CustomCheckpointIO:
    def save_checkpoint(self, checkpoint, path):
        torch.save(checkpoint, path)

    def load_checkpoint(self, path):
        return torch.load(path)


def test_strategy_device():
    strategy = SingleDeviceStrategy(device=torch.device("cuda"))
    assert strategy.root_device.type == "cuda"
"""


def test_a_test_modules_helpers_and_tests_name_devices_without_using_them(tmp_path):
    """Lightning's tests, read in this stop's regression run: a checkpoint helper of a test module reads what its
    tests wrote; a test builds a strategy object around a cuda device it never uses."""
    test_file = tmp_path / "tests" / "test_checkpoint_io.py"
    test_file.parent.mkdir()
    test_file.write_text(IN_TESTS)
    assert {f.code for f in check_file(test_file)} & {"DEV201", "DEV202"} == set()
    plain = tmp_path / "checkpoint_io.py"
    plain.write_text(IN_TESTS.replace("def test_strategy_device", "def strategy_device"))
    assert {f.code for f in check_file(plain)} >= {"DEV201", "DEV202"}
