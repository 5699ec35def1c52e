"""Real device bugs the sixty-sixth survey found missed (issue 17: real bug reports from repositories nobody on
the team had used), each beside a correct twin that must stay silent.

- A value of unknown kind sent to a device (`lengths = lengths.to(device)` of a loader's item, `labels.to(
  self.device)` of a parameter) is a tensor there when it is handed where a tensor goes: `pack_padded_sequence`'s
  lengths (sentiment_graphs, DEV106), sklearn's metrics (robustness-gym, DEV401).
- A call asked for torch tensors (`tokenizer(texts, return_tensors="pt")`) returns a mapping of cpu tensors,
  which its `.to(device)` moves in place (lmppl: labels taken from the tokenizer's output meet the model's
  logits on the GPU, DEV101).
- A model zoo's builder (`torchvision.models.resnet18()`, `timm.create_model(name)`) makes a module on the cpu,
  so a model moved under an availability check is on the selected device, and running it is GPU work to a timer
  even where its input's device is unknown (pytorch-benchmark, DEV301).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

LENGTHS = """
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def run(loader):
    rnn = nn.LSTM(8, 8, batch_first=True).to(device)
    for x, lengths in loader:
        x = x.to(device)
        lengths = {moved}
        packed = pack_padded_sequence(x, lengths, batch_first=True){mark}
        rnn(packed)
"""


@pytest.mark.parametrize("moved, mark", [
    ("lengths.to(device)", "  # expect: DEV106"),
    ("lengths.cuda()", "  # expect: DEV106"),
    ("lengths.to('cpu')", ""),
    ("lengths", ""),
])
def test_lengths_of_unknown_kind_sent_to_the_gpu_are_a_gpu_tensor(moved, mark):
    source = LENGTHS.format(moved=moved, mark=mark)
    assert found(source, ["DEV106"]) == expected_findings(source)


METRIC = """
import torch
from sklearn.metrics import accuracy_score


def accuracy(predictions, labels):
    return accuracy_score(y_true=labels, y_pred=predictions){mark}


class Evaluator:
    def __init__(self):
        self.device = "cuda:0" if torch.cuda.is_available() else "cpu"

    def evaluate(self, predictions, labels):
        pred = predictions["pred"]{move}
        target = labels{move}
        return accuracy(pred, target)
"""


@pytest.mark.parametrize("move, mark", [
    (".to(self.device)", "  # expect: DEV401"),
    (".to(self.device).cpu()", ""),
    ("", ""),
])
def test_values_sent_to_the_gpu_are_tensors_to_a_host_library(move, mark):
    source = METRIC.format(move=move, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)


TOKENIZED = """
import torch
import transformers

device = "cuda" if torch.cuda.is_available() else "cpu"
tokenizer = transformers.AutoTokenizer.from_pretrained("gpt2")
model = transformers.AutoModelForCausalLM.from_pretrained("gpt2").to(device)
loss_fn = torch.nn.CrossEntropyLoss()


def score(texts):
    inputs = tokenizer(texts, padding=True, return_tensors="pt")
    {moved}
    logits = model(**inputs)["logits"]
    labels = inputs["input_ids"][:, 1:].reshape(-1)
    return loss_fn(logits[:, :-1].reshape(-1, logits.size(-1)), labels){mark}


print(score(["a b c"]))
"""


@pytest.mark.parametrize("moved, mark", [
    ("inputs = inputs.to(device)", ""),
    ("inputs.to(device)", ""),
    ("inputs = {k: v.to(device) for k, v in inputs.items()}", ""),
    # only the model's copy moved: the labels stay on the cpu
    ("logits = model(**{k: v.to(device) for k, v in inputs.items()})", "  # expect: DEV101"),
])
def test_a_tokenizers_tensors_are_made_on_the_cpu(moved, mark):
    source = TOKENIZED.format(moved=moved, mark=mark)
    if "logits = model(**{" in moved:
        source = source.replace('    logits = model(**inputs)["logits"]\n', "", 1)
    assert found(source, ["DEV101", "DEV102"]) == expected_findings(source)


def test_a_model_given_a_tokenizers_unmoved_output_is_reported():
    source = """
import torch
import transformers

device = "cuda" if torch.cuda.is_available() else "cpu"
tokenizer = transformers.AutoTokenizer.from_pretrained("bert-base-uncased")
model = transformers.AutoModel.from_pretrained("bert-base-uncased").to(device)
encoded = tokenizer(["hello"], return_tensors="pt")
print(model(**encoded))  # expect: DEV102
"""
    assert found(source, ["DEV102"]) == expected_findings(source)


ZOO = """
from time import time

import torch
{imports}


def measure(model, x):
    t0 = time()
    y = model(x)
    t1 = time(){mark}
    return t1 - t0


def main(batch):
    model = {built}
    if torch.cuda.is_available():
        model = model.cuda()
    measure(model, batch)
"""


@pytest.mark.parametrize("imports, built, mark", [
    ("from torchvision.models import resnet18", "resnet18()", "  # expect: DEV301"),
    ("import torchvision", "torchvision.models.resnet18(weights=None)", "  # expect: DEV301"),
    ("import timm", 'timm.create_model("resnet18")', "  # expect: DEV301"),
    # a builder nobody can see may put the model anywhere: its run is not known to be GPU work
    ("from zoo import build", "build()", ""),
])
def test_a_model_zoos_builder_makes_a_module_on_the_cpu(imports, built, mark):
    # (the timer around a GPU model's run: the input's device is unknown, the model's is not)
    source = ZOO.format(imports=imports, built=built, mark=mark)
    assert found(source, ["DEV301"]) == expected_findings(source)


def test_a_zoo_model_never_moved_meets_gpu_input():
    source = """
import torch
from torchvision import models

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = models.resnet50()
images = torch.randn(2, 3, 224, 224).to(device)
print(net(images))  # expect: DEV102
moved = models.resnet50().to(device)
print(moved(images))
"""
    assert found(source, ["DEV102"]) == expected_findings(source)


@pytest.mark.parametrize("read, mark", [
    ("y.numpy()", "  # expect: DEV401"),
    ("y.cpu().numpy()", ""),
    ("y.tolist()", ""),  # (read on the host by torch itself, from any device)
])
def test_a_value_sent_to_the_gpu_then_asked_for_numpy_is_a_gpu_tensor(read, mark):
    source = f"""
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def evaluate(loader):
    for x, y in loader:
        y = y.to(device)
        print({read}){mark}
"""
    assert found(source, ["DEV401"]) == expected_findings(source)


def test_a_mappings_dtype_change_keeps_it_where_it_was():
    # (found reading the regression run: `.to(dtype=...)` of a dict-like value raised inside devlint)
    source = """
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = torch.nn.Linear(4, 4).to(device)
batch = {"x": torch.ones(2, 4)}
half = batch.to(dtype=torch.float16)
print(net(half["x"]))  # expect: DEV102
"""
    assert found(source) == expected_findings(source)


def test_a_member_of_a_moved_module_of_unknown_class_is_no_value_sent_away():
    # (the shape of tianshou's `np.isclose(actor.max_action, 1.0)`, found reading the regression run: a member of
    # a moved module is a setting here, not a value the code sent to the device; the real file is checked by hand)
    source = """
import numpy as np
import torch
from torch import nn
from nets import wrapped


class Actor(nn.Module):
    def __init__(self, max_action=1.0):
        super().__init__()
        self.max_action = max_action


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
actor = wrapped(Actor)(max_action=2.0)
actor.eval()
actor = actor.to(device)
print(np.isclose(actor.max_action, 1.0))
moved = actor.scale.to(device)
print(np.isclose(moved, 1.0))  # expect: DEV401
"""
    assert found(source, ["DEV401"]) == expected_findings(source)
