"""False findings of the thirtieth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- A shape as a tensor (`torch.onnx.operators.shape_as_tensor(x)`, `torch._shape_as_tensor`) lives on the host,
  whatever its input's device (1 false DEV104 in ByteTrack's deep_sort); a slice of the input itself does not.
- The user's GPU option read as its first id (`opt.gpus[0] >= 0`, `int(opt.gpus[0]) >= 0`, -1 for the cpu) chooses
  the device, as `opt.gpu >= 0` does (4 false DEV201 in ByteTrack's trackers); an unconditional 'cuda' does not.
- An option set on one path (`if args.trt: args.device = "gpu"`) is still the user's option after the `if`: the
  join keeps both values, not the one path's constant (1 false DEV201 in ByteTrack's demo); and `"gpu"` is how such
  an option names CUDA (`if args.device == "gpu": model.cuda()`, YOLOX's demo, found by the regression run).
- A load from a path named once (`pred_fn = os.path.join(root, ".saved_pred_" + run_id + ".pth")`) reads what the
  file saves to a path of the same string parts: written by this code (2 false DEV202 in self-critical.pytorch's
  cache of predictions). A name for another file is still a checkpoint from elsewhere.
- torch2trt needs a GPU, as TensorRT does: code after its import runs with one, and its engine's weights load
  where they were saved (1 false DEV202 in ByteTrack's demo). A library that runs anywhere proves nothing.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import file_found, found, write_files

SHAPE = """
import torch
import torch.nn as nn
from torch.onnx import operators


def clamp_count(scores, limit):
    n = {count}
    cap = torch.tensor([limit], dtype=n.dtype)
    return torch.min(torch.cat((cap, n), 0)){mark}


class TopK(nn.Module):
    def __init__(self, limit=5):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.limit = limit

    def forward(self, x):
        scores = self.proj(x)
        return scores.topk(int(clamp_count(scores, self.limit)), dim=1)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(TopK().to(device)(torch.randn(2, 8, device=device)))
"""

GPUS = """
import torch
import torch.nn as nn


class Tracker:
    def __init__(self, opt):
        self.opt = opt
        {choice}
        self.model = nn.Linear(4, 2).to(opt.device)

    def update(self, feats):
        with torch.no_grad():
            return self.model(feats.to(self.opt.device)).cpu().numpy()
"""

IF_ELSE = """if {test}:
            opt.device = torch.device("cuda")
        else:
            opt.device = torch.device("cpu")"""

OPTION = """
import argparse

import torch
import torch.nn as nn


def main(args):
    if args.trt:
        args.device = "gpu"
    args.device = torch.device({device}){mark}
    model = nn.Linear(4, 2).to(args.device)
    print(model(torch.zeros(1, 4, device=args.device)))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="gpu", type=str)
    p.add_argument("--trt", action="store_true")
    main(p.parse_args())
"""

WORDED = """
import argparse

import torch.nn as nn


def main(args):
    model = nn.Linear(2, 2)
    if args.device == {word}:
        model.cuda(){mark}
    return model.eval()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu", type=str, help="cpu or gpu")
    main(parser.parse_args())
"""

CACHE = """
import os

import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def evaluate(model, batches, run_id):
    preds = [{{"image_id": i, "score": model(x.to(device)).max().item()}} for i, x in enumerate(batches)]
    torch.save(preds, os.path.join("/tmp", ".saved_pred_" + run_id + ".pth"))
    return preds


def main(run_id):
    pred_fn = os.path.join("/tmp", {name} + run_id + ".pth")
    if os.path.isfile(pred_fn):
        return torch.load(pred_fn){mark}
    return evaluate(nn.Linear(4, 1).to(device), [torch.zeros(2, 4)], run_id)
"""

ENGINE = """
import torch
import torch.nn as nn


class Predictor:
    def __init__(self, model, trt_file=None, device=torch.device("cpu")):
        self.device = device
        self.model = model
        if trt_file is not None:
            from {library} import TRTModule

            engine = TRTModule()
            engine.load_state_dict(torch.load(trt_file)){mark}
            self.model = engine

    def __call__(self, x):
        return self.model(x.to(self.device))
"""

CASES = {
    "the_option_says_gpu": WORDED.format(word='"gpu"', mark=""),
    "the_option_says_something_else": WORDED.format(word='"fast"', mark="  # expect: DEV201"),
    "a_path_named_once_for_what_the_file_saves": CACHE.format(name='".saved_pred_"', mark=""),
    "a_path_named_once_for_another_file": CACHE.format(name='"model_"', mark="  # expect: DEV202"),
    "weights_of_a_tensorrt_engine": ENGINE.format(library="torch2trt", mark=""),
    "weights_of_a_module_that_runs_anywhere": ENGINE.format(library="portable_modules", mark="  # expect: DEV202"),
    "a_shape_as_a_tensor": SHAPE.format(count="operators.shape_as_tensor(scores)[1].unsqueeze(0)", mark=""),
    "a_shape_as_a_tensor_by_torch": SHAPE.format(count="torch._shape_as_tensor(scores)[1].unsqueeze(0)", mark=""),
    "a_slice_of_the_input": SHAPE.format(count="scores[0, :1].long()", mark="  # expect: DEV104"),
    "the_first_gpu_id": GPUS.format(choice=IF_ELSE.format(test="opt.gpus[0] >= 0")),
    "the_first_gpu_id_as_a_number": GPUS.format(choice=IF_ELSE.format(test="int(opt.gpus[0]) >= 0")),
    "an_unconditional_gpu": GPUS.format(choice='opt.device = torch.device("cuda")  # expect: DEV201'),
    "an_option_set_on_one_path": OPTION.format(device='"cuda" if args.device == "gpu" else "cpu"', mark=""),
    "a_device_set_whatever_the_option": OPTION.format(device='"cuda"', mark="  # expect: DEV201"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


EVAL_UTILS = """
import os

import torch


def eval_split(model, loader, split, run_id, device="cuda"):
    model.to(device)
    model.eval()
    predictions = [{{"image_id": i, "score": float(model(x).max().item())}} for i, x in enumerate(loader)]
    torch.save({saved}, os.path.join("eval_results/", ".saved_pred_" + run_id + "_" + split + ".pth"))
    return predictions
"""

EVAL_SCRIPT = """
import os

import torch

from pkg.utils import eval_utils

pred_fn = os.path.join("eval_results/", {name} + RUN_ID + "_" + SPLIT + ".pth")
if os.path.isfile(pred_fn):
    predictions = torch.load(pred_fn)
else:
    predictions = eval_utils.eval_split(MODEL, LOADER, SPLIT, RUN_ID)
"""


@pytest.mark.parametrize("name, saved, expected", [
    ('".saved_pred_"', "predictions", set()),
    ('".model_"', "predictions", {(10, "DEV202")}),
    ('".saved_pred_"', '{"model": model, "predictions": predictions}', {(10, "DEV202")}),
])
def test_a_file_an_imported_module_of_the_project_saves(tmp_path, name, saved, expected):
    """self-critical.pytorch's `tools/eval.py` reads back the predictions `captioning/utils/eval_utils.py` caches
    (2 false DEV202): a module the script imports, not a script beside it. A name for another file stays reported,
    and so does a file that holds a whole module (a checkpoint, on the module's device: the SRGAN tutorial's)."""
    files = {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/utils/__init__.py": "",
             "pkg/utils/eval_utils.py": EVAL_UTILS.format(saved=saved), "tools/eval.py": EVAL_SCRIPT.format(name=name)}
    write_files(tmp_path, files)
    assert file_found(tmp_path / "tools" / "eval.py") == expected
