"""Real device bugs the seventy-third recall survey found missed (issue 17: bug reports from repositories nobody on
the team had used), each beside a twin.

- `torch.jit.load(path)` restores a TorchScript archive's tensors where they were saved, as `torch.load` does
  (MONAILabel's epistemic scoring, DEV202).
- `total = total + time.time() - t0` ends a measurement as `total += time.time() - t0` does (modyn's stopwatch,
  DEV301).
- a Hugging Face model built from the hub (`AutoModelForCausalLM.from_pretrained(name)`) is a module on the cpu,
  moved in place by `.to(...)`; placed where it is built (`device_map=`, a quantization), it is left unknown
  (lmppl's perplexity scorer: the labels taken from the tokenizer's cpu tensors meet the model's logits, DEV101).
- a class kept on the parsed options (`opt.model_class = AEN`) is called from there (ABSA-PyTorch's train.py, the
  lengths its model hands to `np.argsort`, DEV401).
"""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

SCRIPTED = """
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def load_model(model_file):
    model = torch.jit.load(model_file{map_location}){mark}
    return model.to(device).eval()
"""


@pytest.mark.parametrize("map_location, mark", [
    ("", "  # expect: DEV202"),
    (", map_location=device", ""),
    (", map_location='cpu'", ""),
])
def test_a_torchscript_archive_is_a_checkpoint_too(map_location, mark):
    source = SCRIPTED.format(map_location=map_location, mark=mark)
    assert found(source, ["DEV202"]) == expected_findings(source)


STOPWATCH = """
import time
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(64, 64).to(device)


def bench(batches):
    total = 0.0
    for x in batches:
        t0 = time.time()
        y = model(x){sync}
        total = {interval}{mark}
    print("forward s", total)
"""


@pytest.mark.parametrize("sync, interval, mark", [
    ("", "total + time.time() - t0", "  # expect: DEV301"),
    ("", "time.time() - t0 + total", "  # expect: DEV301"),
    ("\n        torch.cuda.synchronize()", "total + time.time() - t0", ""),
])
def test_a_running_total_that_adds_the_clock_ends_a_measurement(sync, interval, mark):
    source = STOPWATCH.format(sync=sync, interval=interval, mark=mark)
    assert found(source, ["DEV301"]) == expected_findings(source)


def test_a_torchscript_archive_this_file_wrote_loads_where_it_was_saved():
    """detectron2's `reload_script_model`: `torch.jit.save(module, buffer)` then `torch.jit.load(buffer)` reads back
    what this process wrote (read in the regression run, two warnings)."""
    source = """
import io
import torch


def reload_script_model(module):
    buffer = io.BytesIO()
    torch.jit.save(module, buffer)
    buffer.seek(0)
    return torch.jit.load(buffer)


def reload_from(path, module):
    torch.jit.save(module, path)
    return torch.jit.load(path)
"""
    assert found(source, ["DEV202"]) == set()


BEST = """
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def fit(model, X, epochs=3):
    X = X.to(device)
    best_loss = float("inf")
    for _ in range(epochs):
        loss = torch.mean(torch.abs(model(X) - X)){item}
        if loss < best_loss:
            best_loss = loss
    if np.equal(best_loss, float("inf")):{mark}
        raise ValueError("training diverged")
"""


@pytest.mark.parametrize("item, mark", [
    ("", "  # expect: DEV401"),
    (".item()", ""),
])
def test_a_running_best_that_starts_as_a_float_becomes_the_tensor(item, mark):
    """PyPOTS' imputers: `best_loss = float("inf")`, replaced by the cuda validation loss, then handed to numpy."""
    source = BEST.format(item=item, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)



SCORER = """
import torch
import transformers


class Scorer:
    def __init__(self, name="gpt2"):
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(name)
        self.model = transformers.AutoModelForCausalLM.from_pretrained(name{placing})
        if torch.cuda.is_available():
            self.model.to("cuda")
        self.device = self.model.device
        self.loss_fct = torch.nn.CrossEntropyLoss(reduction="none")

    @torch.no_grad()
    def nll(self, texts):
        encoded = self.tokenizer(texts, return_tensors="pt", padding=True)
        logits = self.model(**{{k: v.to(self.device) for k, v in encoded.items()}})["logits"]
        label = encoded["input_ids"]{move}
        return self.loss_fct(logits[:, :-1].flatten(0, 1), label[:, 1:].flatten()){mark}
"""


@pytest.mark.parametrize("placing, move, mark", [
    ("", "", "  # expect: DEV101"),
    ("", ".to(self.device)", ""),
    (", device_map='auto'", "", ""),  # accelerate's hooks place it, and move what it is given
    (", load_in_8bit=True", "", ""),
])
def test_a_hub_model_is_a_module_on_the_cpu_until_moved(placing, move, mark):
    """lmppl's ppl_recurrent_lm.py: `output = self.model(**{k: v.to(self.device) ...})`, then
    `label = model_inputs['input_ids']` stays on the cpu for the loss."""
    source = SCORER.format(placing=placing, move=move, mark=mark)
    assert found(source) == expected_findings(source)


@pytest.mark.parametrize("path, model", [
    ("transformers.AutoModelForCausalLM.from_pretrained", True),
    ("transformers.BertModel.from_pretrained", True),
    ("transformers.AutoModel.from_config", True),
    ("transformers.AutoTokenizer.from_pretrained", False),
    ("transformers.GPT2TokenizerFast.from_pretrained", False),
    ("transformers.AutoConfig.from_pretrained", False),
    ("transformers.AutoImageProcessor.from_pretrained", False),
    ("transformers.models.bert.BertModel.from_pretrained", False),  # (a submodule's path: not read as a class)
    ("diffusers.StableDiffusionPipeline.from_pretrained", False),
    ("transformers.pipeline", False),
])
def test_which_hub_constructors_build_a_model(path, model):
    from devlint.static.semantics.opaque import is_hub_model

    assert is_hub_model(path) is model


OPTIONS_CLASS = """
import argparse
import numpy as np
import torch
from torch import nn


class SqueezeEmbedding(nn.Module):
    def forward(self, x, x_len):
        order = {sort}(-x_len){mark}
        return x[torch.as_tensor(order, device=x.device)]


class AEN(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.embed, self.squeeze = nn.Embedding(50, 8), SqueezeEmbedding()

    def forward(self, inputs):
        lengths = torch.sum(inputs[0] != 0, dim=-1)
        return self.squeeze(self.embed(inputs[0]), lengths)


opt = argparse.ArgumentParser().parse_args()
opt.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
opt.model_class = AEN
model = opt.model_class(opt).to(opt.device)
print(model([torch.randint(0, 50, (4, 6)).to(opt.device)]).shape)
"""


@pytest.mark.parametrize("sort, mark", [("np.argsort", "  # expect: DEV401"), ("torch.argsort", "")])
def test_a_class_kept_on_the_options_is_called_from_there(sort, mark):
    """ABSA-PyTorch's train.py: `opt.model_class = model_classes[opt.model_name]`, then
    `opt.model_class(bert, opt).to(opt.device)`: the class is called where the options hold it."""
    source = OPTIONS_CLASS.format(sort=sort, mark=mark)
    assert found(source) == expected_findings(source)


FALLBACK = """
import torch
from transformers import AutoModel, AutoTokenizer


class SentenceTransformer(torch.nn.Module):
    def __init__(self, name):
        super().__init__()
        self.tokenizer = AutoTokenizer.from_pretrained(name)
        self.model = AutoModel.from_pretrained(name)

    def forward(self, input_ids, attention_mask):
        return self.model(input_ids=input_ids, attention_mask=attention_mask)[0]{mark}

    @property
    def device(self):
        return next(iter(self.model.parameters())).device

    @torch.no_grad()
    def encode(self, text):
        token = self.tokenizer(text, padding=True, return_tensors="pt")
        try:
            return self(input_ids=token.input_ids.to(self.device), attention_mask=token.attention_mask.to(self.device))
        except RuntimeError:
            previous = self.device
            self.model = self.model.to("cpu")
            emb = self(input_ids=token.input_ids.to({target}), attention_mask=token.attention_mask.to({target}))
            self.model = self.model.to(previous)
            return emb
"""


@pytest.mark.parametrize("target, mark", [("self.device", "")])
def test_a_device_property_reads_where_the_member_went(target, mark):
    """pyg's llm/models/sentence_transformer.py: on an out-of-memory error the hub model goes to the cpu, and the
    `device` property (`next(iter(self.model.parameters())).device`) follows it there."""
    source = FALLBACK.format(target=target, mark=mark)
    assert found(source) == expected_findings(source)


def test_a_wrapper_whose_member_went_elsewhere_is_on_neither(tmp_path):
    """pyg's SentenceTransformer, moved to a device by its test, then its hub model alone sent to the cpu by the
    out-of-memory fallback: calling the wrapper with cpu inputs is right (the model is where they are)."""
    from tests.lint_helpers import lint_in_run

    user = ("import torch\nfrom pkg.st import SentenceTransformer\n\n\ndef test_encode(device):\n"
            "    model = SentenceTransformer('bert').to(device)\n    assert model.encode(['a']).device == device\n")
    files = {"pkg/__init__.py": "", "pkg/st.py": FALLBACK.format(target="self.device", mark=""),
             "test/test_st.py": user}
    assert [(f.path, f.line, f.code) for f in lint_in_run(tmp_path, files, "test/test_st.py")] == []
