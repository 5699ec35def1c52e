"""False findings of the seventh precision survey (issue 17 item 9), each beside a twin that must stay reported.

- `np.array_split(t, n)` only slices its argument: the pieces are tensors on t's device, nothing reaches
  numpy (autonomousvision/stylegan-t training_loop.py);
- a parameter rebound to a tensor made of itself (`bounds = torch.tensor(bounds)`, ControlNet's vendored
  mmcv voxelize.py) is data to convert: slicing the new tensor says nothing of what the caller gave;
- a device variable that only ever holds a cuda constant shows no cpu path; beside a call that needs a GPU
  (`torch.cuda.reset_peak_memory_stats()`) the file is GPU-only: one DEV204, not a warning per line
  (MONAI's MAISI inference script). Without such a call a hardcoded device is still a DEV201 (MONAI's
  jupyter_utils notebook, a true warning);
- a GPU count option (`-g/--gpus N`, "number of gpus per node") is no cpu option: a DDP training script that
  has one is still GPU-only (MONAI's 2d_ldm train_autoencoder.py); a `--device` option is one.

- a module's forward that sends an input to a device itself (`samples.to(dtype=..., device=self.device)`)
  takes that input from anywhere: the call is not judged on it; and a module that holds a scikit-learn (or
  cuML) estimator owns no parameters (dinov2's eval/log_regression.py LogRegModule, met when checking the
  fixes above on dinov2).

- a thrown-away `x.to(device)` of a tensor already on `device` (LAVIS's multimodal_search.py, nanotron's
  decode.py) is a no-op: nothing is lost; thrown away after a dtype change too, or before the tensor is
  there, it is still a DEV103.

- missed by the survey: what a torchvision transform that turns an image into a tensor gives (`ToTensor()`,
  a `Compose` holding one, `TF.to_tensor`) is a cpu tensor (LAVIS's clip_models/model.py zero_shot_predict
  feeds such an image to a model the README puts on cuda); a Compose of tensor-only steps keeps its input.

- a measurement rounded to whole seconds (`timedelta(seconds=int(total))`, `int(time.time() - t0)`) is the
  length of a run, not a benchmark: the GPU work still queued when it ends changes nothing there (LAVIS's
  blip2.py evaluation time); the same reading printed in milliseconds is a DEV301, the GPU work queued by a
  comprehension's body included.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

SPLIT = """
import numpy as np
import torch

def split_batch(images, size):
    return {call}  # {mark}

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
parts = split_batch(torch.zeros(8, 3).to(device), 4)
"""

REBOUND = """
import torch

def grid(step, bounds):
    {rebind}
    step = torch.tensor(step, dtype=torch.float32)
    return (bounds[3:] - bounds[:3]) / step{mark}
"""

CONSTANT_DEVICE = """
import torch
from torch import nn

def main(path):
    device = torch.device("cuda"){mark}
    model = nn.Linear(8, 8).to(device)
    model.load_state_dict(torch.load(path, map_location=device))
    return model(torch.randn(2, 8).to(device))

if __name__ == "__main__":
    {call}
    main("a.pt")
"""

GPU_COUNT = """
import argparse
import os
import torch
import torch.distributed as dist
from torch import nn

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument({option}, default=1, type=int)
    args = parser.parse_args()
    if args.gpus > 1:
        dist.init_process_group(backend="nccl", init_method="env://")
        device = torch.device(f"cuda:{{int(os.environ['LOCAL_RANK'])}}")
    else:
        device = 0
    torch.cuda.set_device(device){mark}
    return nn.Linear(4, 4).to(device)(torch.zeros(1, 4).to(device))
"""

SELF_PLACING = """
import torch
from torch import nn
from {library} import LogisticRegression

class Scorer(nn.Module):
    def __init__(self, device=torch.device("cpu")):
        super().__init__()
        self.device = device
        self.estimator = LogisticRegression()

    def forward(self, samples, targets):
        {move}
        return {{"preds": self.estimator.predict_proba(samples), "target": targets}}

def evaluate(scorer, samples, targets, device):
    return scorer(samples.to(device), targets){mark}

evaluate(Scorer(), torch.zeros(2, 4), torch.zeros(2), torch.device("cuda" if torch.cuda.is_available() else "cpu"))
"""

DISCARDED = """
import torch
import feature_store

def load(device):
    return torch.stack([torch.zeros(4), torch.ones(4)]).to(device)

def search(device):
    feats = {load}
    feats.{move}{mark}
    return feats.sum()

search(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
"""

TRANSFORMED = """
import torch
from PIL import Image
from torchvision import models, transforms
import torchvision.transforms.functional as TF

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = models.resnet18().to(device).eval()
preprocess = transforms.Compose([transforms.Resize(256), {steps}, transforms.Normalize([0.5] * 3, [0.2] * 3)])

def predict(path):
    image = preprocess({given}).unsqueeze(0){move}
    return model(image){mark}

def predict_plain(path):
    return model(TF.to_tensor(Image.open(path)).unsqueeze(0){move}){mark}
"""

LAUNCHED = """
import argparse
import torch
import torch.distributed as dist

def validate(args):
    if args.multi_gpu:
        dist.init_process_group(backend="nccl", init_method="env://")
        device = torch.device(f"cuda:{{args.local_rank}}")
        torch.cuda.set_device(device)
    else:
        device = torch.device("cuda"){mark}
    return torch.nn.Linear(4, 4).to(device)

parser = argparse.ArgumentParser()
parser.add_argument("--multi_gpu", action="store_true")
parser.add_argument({option}, type=int, default=0)
validate(parser.parse_args())
"""

TIMED = """
import datetime
import time
import torch

def evaluate(model, batches, device):
    start = time.time()
    scores = [model(batch.to(device)) for batch in batches]
    total = time.time() - start{mark}
    print({shown})
    return scores

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
evaluate(torch.nn.Linear(4, 2).to(device), [torch.zeros(3, 4)] * 5, device)
"""

CASES = {
    "numpy_s_split_keeps_tensors_where_they_are": SPLIT.format(call="np.array_split(images, size, 0)", mark=""),
    "twin_numpy_s_stack_converts": SPLIT.format(call="np.stack(images)", mark="expect: DEV401"),
    "a_parameter_rebound_to_a_tensor_of_itself_is_converted_data": REBOUND.format(
        rebind="bounds = torch.tensor(bounds, dtype=torch.float32)", mark=""),
    "twin_a_tensor_parameter_sliced_as_given": REBOUND.format(rebind="pass", mark="  # expect: DEV104"),
    "a_constant_device_beside_a_gpu_only_call_is_one_gpu_only_file": CONSTANT_DEVICE.format(
        call="torch.cuda.reset_peak_memory_stats()", mark="  # expect: DEV204"),
    "twin_a_constant_device_alone_is_a_hardcoded_gpu": CONSTANT_DEVICE.format(call="pass", mark="  # expect: DEV201"),
    # (trlx's summarize_rlhf scripts: `rw_device = torch.device("cuda:{}".format(1))`, survey 72: a GPU written as a
    # number is as hardcoded as "cuda")
    "a_formatted_constant_device_beside_a_gpu_only_call_is_one_gpu_only_file": CONSTANT_DEVICE.format(
        call="torch.cuda.reset_peak_memory_stats()", mark="  # expect: DEV204").replace(
        'torch.device("cuda")', 'torch.device("cuda:{}".format(1))'),
    "a_percent_formatted_constant_device_beside_a_gpu_only_call_is_one_gpu_only_file": CONSTANT_DEVICE.format(
        call="torch.cuda.reset_peak_memory_stats()", mark="  # expect: DEV204").replace(
        'torch.device("cuda")', 'torch.device("cuda:%d" % 1)'),
    "a_forward_that_moves_its_input_takes_it_from_anywhere": SELF_PLACING.format(
        library="some_layers", move="samples = samples.to(dtype=torch.float64, device=self.device)", mark=""),
    "a_module_holding_an_estimator_owns_no_parameters": SELF_PLACING.format(
        library="cuml.linear_model", move="pass", mark=""),
    # (a layer is called, `self.estimator(samples)`: one only asked for methods is a helper, survey 28)
    "twin_a_module_holding_an_unknown_layer_is_on_the_cpu": SELF_PLACING.replace(
        ".predict_proba(samples)", "(samples)").format(library="some_layers", move="pass", mark="  # expect: DEV102"),
    "a_thrown_away_move_to_where_the_tensor_is_loses_nothing": DISCARDED.format(
        load="load(device)", move="to(device)", mark=""),
    "a_thrown_away_move_of_an_unknown_value_already_moved": DISCARDED.format(
        load="feature_store.fetch().to(device)", move="to(device)", mark=""),
    "twin_a_thrown_away_move_of_a_cpu_tensor": DISCARDED.format(
        load="torch.zeros(2, 4)", move="to(device)", mark="  # expect: DEV103"),
    "twin_a_thrown_away_dtype_change": DISCARDED.format(
        load="load(device)", move="to(device, torch.float16)", mark="  # expect: DEV103"),
    "a_transformed_image_is_on_the_cpu": TRANSFORMED.format(
        steps="transforms.ToTensor()", given="Image.open(path)", move="", mark="  # expect: DEV102"),
    "twin_a_transformed_image_moved_to_the_model": TRANSFORMED.format(
        steps="transforms.ToTensor()", given="Image.open(path)", move=".to(device)", mark=""),
    "a_compose_of_tensor_steps_keeps_its_input": TRANSFORMED.format(
        steps="transforms.CenterCrop(224)", given="torch.rand(3, 256, 256, device=device)", move="",
        mark="").replace("TF.to_tensor(Image.open(path))", "torch.rand(3, 8, 8, device=device)"),
    "a_launcher_s_local_rank_is_no_cpu_option": LAUNCHED.format(option='"--local_rank"', mark="  # expect: DEV204"),
    "twin_a_no_cuda_option_is_one": LAUNCHED.format(option='"--no_cuda"', mark="  # expect: DEV201"),
    "a_run_s_length_in_whole_seconds_is_no_benchmark": TIMED.format(
        mark="", shown="datetime.timedelta(seconds=int(total))"),
    "twin_the_same_reading_in_milliseconds": TIMED.format(mark="  # expect: DEV301", shown='f"{total * 1000:.1f} ms"'),
    "a_gpu_count_option_is_no_cpu_option": GPU_COUNT.format(option='"-g", "--gpus"', mark="  # expect: DEV204"),
    "twin_a_device_option_is_one": GPU_COUNT.format(option='"-g", "--gpus", "--device"', mark="  # expect: DEV203"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
