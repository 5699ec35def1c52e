"""False findings of the eighth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- what an object of unknown kind returns (a decoder that may come unpickled from `torch.load`) may hold lists:
  its `decode_lengths` given to `pack_padded_sequence` is no GPU tensor (sgrvinod's Image-Captioning
  train.py); a model's output tensor is;
- a flag set to 1 and 0 in the two branches of `if torch.cuda.is_available():` says whether CUDA is there,
  as `use_cuda = torch.cuda.is_available()` does (Tianxiaomo/pytorch-YOLOv4 evaluate_on_coco.py); set to 1
  for good, it is a hardcoded GPU;
- a parameter computed into a factory's size (`torch.arange(height * width)`) is a number, not a tensor on the
  caller's device (openai/shap-e camera.py get_image_coords); one only divided by is a tensor;
- arithmetic on what a call devlint cannot see returned (`255 * grayscale_cam`, a CAM object's numpy array in
  jacobgil/pytorch-grad-cam's cam.py, met when checking these fixes) may be an array too: numpy taking it is
  not judged; the same arithmetic on a module's output is;
- a config's switch is spelled in capitals (`if cfg.NUM_GPUS:`, facebookresearch/SlowFast build.py, whose
  assert says "set NUM_GPUS to 0 to run on the cpu"): it guards what it switches, as `if args.use_cuda:` does;
- a clock read whose difference is only printed under `if False:` (a debug print switched off,
  Tianxiaomo/pytorch-YOLOv4 region_loss.py) measures nothing anyone sees: no DEV301; printed, it is one;
- missed by the survey: `torch.load(path, map_location="cuda")` puts every tensor on a GPU, so it assumes one
  (pytorch-YOLOv4 models.py's demo): a DEV201 like any hardcoded device; `map_location=device` is fine;
- missed by the survey: `nn.Embedding.from_pretrained(weights)` builds a module, on its weights' device
  (graykode/nlp-tutorial's Transformer: a cpu LongTensor given to it in forward).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

UNPICKLED = """
import sys
import torch
from torch.nn.utils.rnn import pack_padded_sequence

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
decoder = torch.load(sys.argv[1], map_location=device)["decoder"].to(device)
scores, decode_lengths = decoder(torch.rand(3, 6, 8).to(device), torch.tensor([4, 6, 3]).to(device))
packed = pack_padded_sequence(scores, {lengths}, batch_first=True){mark}
"""

FLAG = """
import torch
from torch import nn

def detect(model, img, use_cuda=1):
    if use_cuda:
        img = img.cuda(){mark}
    return model(img)

def evaluate(model):
    {choice}
    if use_cuda:
        model.cuda(){mark}
    return detect(model, torch.rand(1, 8), use_cuda)

evaluate(nn.Linear(8, 2))
"""

SIZES = """
import torch

def image_coords(width, height):
    idx = torch.arange({size})
    return torch.stack([idx % width, torch.div(idx, width, rounding_mode="trunc")], dim=1){mark}
"""

INFERRED = """
import numpy as np
import torch
from torch import nn
from cams import GradCAM

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Conv2d(3, 1, 3).to(device)
cam = GradCAM(model=model)
x = torch.rand(1, 3, 8, 8).to(device)
heat = {call}[0, :]
image = np.uint8(255 * heat){mark}
"""

CONFIG_SWITCH = """
import torch
from torch import nn
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def build_model(cfg):
    model = nn.Linear(8, 2)
    if cfg.{switch}:
        model = model.cuda(device=torch.cuda.current_device()){mark}
    return model
"""

SWITCHED_OFF = """
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(64, 64).to(device)

def loss_fn(x):
    t0 = time.time()
    loss = model(x).relu().sum()
    t1 = time.time(){mark}
    if {debug}:
        print("loss: %f" % (t1 - t0))
    return loss
"""

MAP_LOCATION = """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
model.load_state_dict(torch.load("weights.pt", map_location={where})){mark}
"""

PRETRAINED = """
import torch
from torch import nn

class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos_emb = nn.Embedding.from_pretrained(torch.rand(6, 8), freeze=True)

    def forward(self, dec_inputs):
        return self.pos_emb(torch.tensor([[5, 1, 2, 3, 4]]{device})){mark}
"""

CASES = {
    "what_an_object_of_unknown_kind_returns_may_be_a_list": UNPICKLED.format(lengths="decode_lengths", mark=""),
    "twin_its_output_tensor_is_on_its_device": UNPICKLED.format(lengths="scores.sum(-1)", mark="  # expect: DEV106"),
    "a_flag_set_in_the_branches_of_an_availability_check_is_one": FLAG.format(
        choice="if torch.cuda.is_available():\n        use_cuda = 1\n    else:\n        use_cuda = 0", mark=""),
    "a_parameter_computed_into_a_size_is_a_number": SIZES.format(size="height * width", mark=""),
    "twin_a_parameter_only_divided_by_is_a_tensor": SIZES.format(size="height * 8", mark="  # expect: DEV104"),
    "arithmetic_on_what_an_unseen_call_returned_may_be_an_array": INFERRED.format(call="cam(input_tensor=x)",
                                                                                 mark=""),
    "twin_arithmetic_on_a_module_s_output": INFERRED.format(call="model(x)", mark="  # expect: DEV401"),
    "a_config_s_switch_in_capitals_guards": CONFIG_SWITCH.format(switch="NUM_GPUS", mark=""),
    "twin_another_config_value_guards_nothing": CONFIG_SWITCH.format(switch="NUM_LAYERS",
                                                                     mark="  # expect: DEV201, DEV203"),
    "a_reading_shown_only_in_dead_code_measures_nothing": SWITCHED_OFF.format(debug="False", mark=""),
    "twin_a_reading_shown_when_debugging": SWITCHED_OFF.format(debug="DEBUG", mark="  # expect: DEV301"),
    "loading_onto_cuda_assumes_a_gpu": MAP_LOCATION.format(where='"cuda"', mark="  # expect: DEV201"),
    "twin_loading_onto_the_selected_device": MAP_LOCATION.format(where="device", mark=""),
    "a_module_built_from_pretrained_weights_is_a_module": PRETRAINED.format(device="", mark="  # expect: DEV104"),
    "twin_its_input_made_on_the_input_s_device": PRETRAINED.format(device=", device=dec_inputs.device", mark=""),
    "twin_a_flag_set_for_good_is_a_hardcoded_gpu": FLAG.format(choice="use_cuda = 1", mark="  # expect: DEV201"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
