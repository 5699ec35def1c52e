"""Mechanisms found by running devlint on real public code it had not seen (pyg's examples,
huggingface/accelerate, DETR, DINO, MAE...): each false positive or miss there became a general
rule, checked here on a small snippet written for it.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

CASES = {
    # pytorch_ssim (copied into stable-dreamfusion and many more): the cached window is reused only where
    # `self.window.data.type() == img.data.type()`, a type string that names the device
    "a_tensor_reused_only_where_it_is_on_the_inputs_device": """
import torch
import torch.nn.functional as F
class Blur(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.channel = 1
        self.window = torch.ones(1, 1, 3, 3) / 9.0
    def forward(self, img):
        channel = img.size(1)
        if channel == self.channel and self.window.data.type() == img.data.type():
            window = self.window
        else:
            window = (torch.ones(channel, 1, 3, 3) / 9.0).type_as(img)
            self.window, self.channel = window, channel
        return F.conv2d(img, window, padding=1, groups=channel)
""",
    "twin_a_cached_tensor_reused_without_a_test": """
import torch
import torch.nn.functional as F
class Blur(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.window = torch.ones(1, 1, 3, 3) / 9.0  # expect: DEV105
    def forward(self, img):
        return F.conv2d(img, self.window, padding=1)
""",
    "a_move_where_the_devices_differ": """
import torch
def align(a, b):
    if a.device != b.device:
        a = a.to(b.device)
    return a + b
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
c = align(torch.zeros(3), torch.ones(3, device=device))
""",
    # diffusers' latent_consistency scheduler: `self.timesteps[i]` (one element) or an `int` timestep indexes a
    # cpu table: one element either way, 0-dim, fine with the GPU sample
    "an_index_that_is_a_timestep_element_or_an_int": """
import numpy as np
import torch
class Scheduler:
    def __init__(self):
        self.alphas_cumprod = torch.cumprod(1.0 - torch.linspace(1e-4, 0.02, 1000), dim=0)
        self.timesteps = torch.from_numpy(np.arange(0, 1000)[::-1].copy())
    def step(self, model_output: torch.Tensor, timeindex: int, timestep: int, sample: torch.Tensor):
        if timeindex + 1 < len(self.timesteps):
            prev_timestep = self.timesteps[timeindex + 1]
        else:
            prev_timestep = timestep
        alpha_prod_t_prev = self.alphas_cumprod[prev_timestep]
        return alpha_prod_t_prev.sqrt() * sample + (1 - alpha_prod_t_prev).sqrt() * model_output
""",
    # dinov2 / MiniGPT-4: a helper that sets up NCCL (or asserts a GPU) leaves its caller on a path with a GPU
    "a_helper_that_sets_up_nccl_guards_its_caller": """
import torch
import torch.distributed as dist
def setup(rank):
    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(rank)
def main(rank):
    setup(rank)
    return torch.zeros(3, device="cuda")
""",
    "twin_a_helper_that_sets_up_gloo_guards_nothing": """
import torch
import torch.distributed as dist
def setup():
    dist.init_process_group(backend="gloo")
def main():
    setup()
    return torch.zeros(3, device="cuda")  # expect: DEV204
""",
    # efficientdet's soft-NMS: a 0-dim index (argmax with no dim) selects from any device; the cuda mask after
    # it does not
    "a_zero_dim_index_selects_from_any_device": """
import torch
def greedy_order(scores):
    idxs = torch.arange(scores.numel())
    out = torch.zeros(scores.numel(), dtype=torch.int64, device=scores.device)
    count = 0
    while scores.numel() > 0:
        top = torch.argmax(scores)
        out[count] = idxs[top]
        count += 1
        keep = scores < scores[top]
        scores = scores[keep]
        idxs = idxs[keep]  # expect: DEV104
    return out[:count]
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
order = greedy_order(torch.rand(5, device=device))
""",
    # second precision survey (stable-dreamfusion): `if not x.is_cuda: x = x.cuda()` of a tensor asks where it
    # is: a CUDA extension's wrapper assumes the GPU throughout (one DEV204), it is no switch for the GPU
    "a_placement_test_is_no_gpu_switch": """
import torch
from torch.autograd import Function
class NearFar(Function):
    @staticmethod
    def forward(ctx, rays_o, rays_d, grid):
        if not rays_o.is_cuda: rays_o = rays_o.cuda()  # expect: DEV204
        if not rays_d.is_cuda: rays_d = rays_d.cuda()
        if not grid.is_cuda: grid = grid.cuda()
        return torch.empty(rays_o.shape[0], dtype=rays_o.dtype, device=rays_o.device)
""",
    # stable-dreamfusion's Zero123: a module class that overrides __call__ returns what that returns
    "a_module_with_its_own_call": """
import matplotlib.pyplot as plt
import torch
from torch import nn
class Sampler(nn.Module):
    def __init__(self, device):
        super().__init__()
        self.device = device
        self.net = nn.Linear(4, 4).to(device)
    def __call__(self, x):
        return self.net(x.to(self.device)).cpu().numpy()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
outputs = Sampler(device)(torch.rand(2, 4, device=device))
plt.imshow(outputs[0:1])
""",
    # stable-dreamfusion's provider: a DataLoader's batches are where its collate_fn puts them
    "a_collate_fn_that_builds_on_the_device": """
import torch
from torch.utils.data import DataLoader
class Rays:
    def __init__(self, device):
        self.device = device
    def collate(self, index):
        return torch.rand(len(index), 3, device=self.device)
    def loader(self):
        return DataLoader(list(range(8)), batch_size=2, collate_fn=self.collate)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = torch.nn.Linear(3, 3).to(device)
for batch in Rays(device).loader():
    out = net(batch)
""",
    "twin_a_collate_fn_that_pads_on_the_cpu": """
import torch
from torch.utils.data import DataLoader
def pad(items):
    return torch.zeros(len(items), 3)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = torch.nn.Linear(3, 3).to(device)
for batch in DataLoader(list(range(8)), batch_size=2, collate_fn=pad):
    out = net(batch)  # expect: DEV102
""",
    # issue 17 item 5: a `device="cuda"` default assumes a GPU whenever a caller passes none, also in a function
    # nobody in the file calls (timm's RandomErasing, torch's PagedAttention)
    "a_cuda_default_assumes_a_gpu": """
import torch
def sample(n, device="cuda"):  # expect: DEV201
    return torch.randn(n, device=device)
def sample_anywhere(n, device=None):
    return torch.randn(n, device=device)
def set_schedule(n, device=torch.device("cuda"), phase="train"):  # expect: DEV201
    return torch.linspace(0, 1, n, device=device)
def set_schedule_anywhere(n, device=torch.device("cpu")):
    return torch.linspace(0, 1, n, device=device)
""",
    # Real-Time-Voice-Cloning: a fresh GRUCell given another module's parameters through `.data` is there
    "parameters_replaced_through_data": """
import torch
import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 8)
        self.inp = nn.Linear(8, 8)
    def as_cell(self):
        cell = nn.GRUCell(8, 8)
        cell.weight_ih.data = self.gru.weight_ih_l0.data
        cell.weight_hh.data = self.gru.weight_hh_l0.data
        return cell
    def step(self, x, h):
        return self.as_cell()(self.inp(x), h)
dev = "cuda" if torch.cuda.is_available() else "cpu"
net = Net().to(dev)
out = net.step(torch.randn(2, 8, device=dev), torch.zeros(2, 8, device=dev))
""",
    # audiocraft's rope: torch.polar(abs, angle) is element-wise over its tensors, no factory
    "polar_follows_its_inputs": """
import torch
import torch.nn as nn
class Rope(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("freqs", 1.0 / 10000 ** (torch.arange(0, dim, 2) / dim))
    def forward(self, x):
        t = torch.arange(x.shape[1], device=self.freqs.device, dtype=torch.float32)
        angles = torch.outer(t, self.freqs)
        rotation = torch.polar(torch.ones_like(angles), angles)
        return torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2)) * rotation
""",
    # Real-Time-Voice-Cloning: a loss module has no device, whatever `.to()` it was given
    "a_loss_member_has_no_device": """
import torch
import torch.nn as nn
class Encoder(nn.Module):
    def __init__(self, device, loss_device):
        super().__init__()
        self.net = nn.Linear(8, 4).to(device)
        self.loss_fn = nn.CrossEntropyLoss().to(loss_device)
    def loss(self, logits, target):
        return self.loss_fn(logits, target)
def main():
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    enc = Encoder(dev, torch.device("cpu"))
    logits = enc.net(torch.randn(3, 8, device=dev)).cpu()
    return enc.loss(logits, torch.tensor([0, 1, 2]))
""",
    # audiocraft's conditioners: a submodule moved on its own while its owner is built is where it was moved
    "a_submodule_moved_while_the_module_is_built": """
import torch
import torch.nn as nn
class Extractor(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("bank", torch.randn(n, n))
    def forward(self, wav):
        return wav @ self.bank
class Stem(nn.Module):
    def __init__(self, n, device):
        super().__init__()
        self.device = device
        self.n = n
        self.extract = Extractor(n).to(device)
        self.out_len = self.extract(torch.zeros((1, n), device=device)).shape[1]
def build(cfg):
    return Stem(8, device=cfg.device)
""",
    # stable-baselines3's tests: a class handed in and called with a device builds an object, not a tensor
    "a_class_parameter_called_with_a_device": """
import torch
def fill(buffer_cls, device):
    buffer = buffer_cls(10, device=device)
    for _ in range(10):
        buffer.add(torch.zeros(1))
""",
    # yolov7: the else branch of `isinstance(x, torch.Tensor)` holds no tensor
    "the_else_branch_of_an_isinstance_test_holds_no_tensor": """
import numpy as np
import torch
def xyxy(x):
    y = x.clone() if isinstance(x, torch.Tensor) else np.copy(x)
    return y
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
boxes = xyxy(torch.randn(4, 4, device=device))
""",
    # audiocraft's diffusion: a 0-dim cpu tensor never decides where a result is
    "a_zero_dim_cpu_operand_never_places_the_result": """
import torch
from setup import choose_device
device = "cuda" if torch.cuda.is_available() else "cpu"
betas = torch.linspace(1e-4, 0.02, 100)
noise = torch.randn(3).to(choose_device())
scaled = noise * (1 - betas[3])
y = scaled + torch.ones(3, device=device)
""",
    # precision survey of 10 fresh repositories (issue 17 item 9), one case per false-positive mechanism:
    # mamba: a device handed to layers through `**factory_kwargs` (a dict of the constructor's parameters)
    "device_through_factory_kwargs": """
import torch
import torch.nn as nn
class Block(nn.Module):
    def __init__(self, dim, device=None, dtype=None):
        super().__init__()
        factory_kwargs = {"device": device, "dtype": dtype}
        self.proj = nn.Linear(dim, dim, **factory_kwargs)
    def forward(self, x):
        return self.proj(x)
device = "cuda" if torch.cuda.is_available() else "cpu"
model = Block(16, device=device)
y = model(torch.randn(2, 16, device=device))
cfg = {"dim": 16, "device": device}
model2 = Block(**cfg)
y2 = model2(torch.randn(2, 16, device=device))
""",
    "twin_factory_kwargs_without_the_device": """
import torch
import torch.nn as nn
device = "cuda" if torch.cuda.is_available() else "cpu"
fc = nn.Linear(3, 3, **{"dtype": torch.float32})
y = fc(torch.randn(2, 3, device=device))  # expect: DEV102
""",
    # a module whose member we cannot place (built by a factory we cannot see) is not known to be on the cpu
    "a_member_of_unknown_device_leaves_the_module_unplaced": """
import torch
import torch.nn as nn
from layers import build_norm
class Net(nn.Module):
    def __init__(self, device=None):
        super().__init__()
        self.fc = nn.Linear(4, 4, **build_norm(device))
    def forward(self, x):
        return self.fc(x)
net = Net(device="cuda" if torch.cuda.is_available() else "cpu")
y = net(torch.randn(2, 4, device="cuda" if torch.cuda.is_available() else "cpu"))
""",
    # mamba's Triton kernels: a file that imports triton runs with a GPU or not at all
    "a_triton_module_runs_with_a_gpu": """
import torch
import triton
def alloc(size):
    return torch.empty(size, device="cuda", dtype=torch.int8)
def sms(x):
    return torch.cuda.get_device_properties(x.device).multi_processor_count
""",
    # Real-Time-Voice-Cloning: `if idx.is_cuda:` of a tensor on the selected device is the availability check
    "is_cuda_of_a_tensor_on_the_selected_device": """
import torch
def to_one_hot(idx, n):
    out = torch.zeros(idx.size() + (n,))
    if idx.is_cuda:
        out = out.cuda()
    out.scatter_(len(idx.size()), idx.unsqueeze(-1), 1.0)
    return out
dev = "cuda" if torch.cuda.is_available() else "cpu"
logits = torch.randn(2, 4, device=dev)
picked = (logits * to_one_hot(logits.argmax(dim=-1), 4)).sum(-1)
""",
    # audiocraft: `betas[-1 - idx]` with idx from `range(...)` is one element, 0-dim: it mixes with any device
    "a_loop_index_takes_one_element": """
import torch
device = "cuda" if torch.cuda.is_available() else "cpu"
betas = torch.linspace(1e-4, 0.02, 100)
x = torch.randn(3, device=device)
for idx in range(10):
    alpha = 1 - betas[-1 - idx]
    x = x / alpha.sqrt()
""",
    # yolov7: an empty module container filled with modules loaded onto the device is there
    "a_container_filled_with_loaded_modules": """
import torch
import torch.nn as nn
class Group(nn.ModuleList):
    pass
def load(paths, map_location=None):
    group = Group()
    for p in paths:
        group.append(torch.load(p, map_location=map_location)["model"].float().eval())
    return group[-1]
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = load(["a.pt"], map_location=device)
out = model(torch.zeros(1, 3, 8, 8).to(device))
""",
    # the body of a one-line suite is walked like any other (`if flag: b = torch.zeros(3)` was skipped)
    "one_line_suites_are_walked": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
a = torch.randn(3, device=device)
flag = True
if flag: b = torch.zeros(3)
else: b = torch.ones(3)
c = a + b  # expect: DEV101
for i in range(3): d = torch.ones(3); e = d * a  # expect: DEV101
""",
    "one_line_suites_twin": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
a = torch.randn(3, device=device)
flag = True
if flag: b = torch.zeros(3, device=device)
else: b = torch.ones(3, device=device)
c = a + b
def f(x):
    if x is None: return None
    return x + a
""",
    # `table[timestep]` with `timestep: int` is one element, 0-dim: it mixes with any device (diffusers' schedulers)
    "int_annotated_index_gives_a_scalar": """
import torch
class Scheduler:
    def __init__(self):
        self.alphas_cumprod = torch.cumprod(1.0 - torch.linspace(1e-4, 0.02, 1000), dim=0)
    def step(self, model_output: torch.Tensor, timestep: int, sample: torch.Tensor):
        t = timestep
        alpha_prod_t = self.alphas_cumprod[t]
        return (sample - (1 - alpha_prod_t).sqrt() * model_output) / alpha_prod_t.sqrt()
""",
    "tensor_index_of_a_cpu_table_is_not_a_scalar": """
import torch
class Scheduler:
    def __init__(self):
        self.alphas_cumprod = torch.cumprod(1.0 - torch.linspace(1e-4, 0.02, 1000), dim=0)
    def step(self, model_output: torch.Tensor, rows: torch.Tensor):
        return self.alphas_cumprod[:, None] * model_output  # expect: DEV104
""",
    # each instance of a class is its own object, also when its __init__'s summary is memoised (x-transformers:
    # `AutoregressiveWrapper(model)` then `model.cuda()`)
    "instances_of_one_class_are_distinct_objects": """
import torch
from torch import nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
    def forward(self, x):
        return self.lin(x)
class Wrapper(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net
    def forward(self, x):
        return self.net(x)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
first, second = Net(), Net()
wrapper = Wrapper(second)
second.to(device)
a = first(torch.randn(2, 4))
b = wrapper(torch.randn(2, 4).to(device))
c = second(torch.randn(2, 4))  # expect: DEV102
""",
    # a device from torch_xla is no GPU: no CUDA queue to wait for before reading a clock (diffusers, litgpt)
    "xla_device_work_is_no_gpu_work": """
import time
import torch
import torch_xla.core.xla_model as xm
device = xm.xla_device()
model = torch.nn.Linear(4, 4).to(device)
start = time.perf_counter()
out = model(torch.randn(2, 4).to(device))
print(time.perf_counter() - start)
cpu_mix = model(torch.randn(2, 4))  # expect: DEV102
""",
    # `cls(...)` in a classmethod builds an instance (diffusers kohya_hires_fix): `.to()` on it is in place
    "classmethod_cls_builds_a_module": """
import torch
from torch import nn
class Net(nn.Module):
    def __init__(self, width=4):
        super().__init__()
        self.lin = nn.Linear(width, width)
    @classmethod
    def from_other(cls, other):
        obj = cls(width=4)
        obj.to(torch.float16)
        return obj
""",
    # found on unseen repositories (stylegan2-ada, x-transformers, timm-style drop_path, detectron2's tests):
    # broadcast_tensors expands views where each input is: a cpu shape donor is fine
    "broadcast_tensors_mixes_nothing": """
import torch
def constant(value, shape, device):
    tensor = torch.as_tensor(value, device=device)
    tensor, _ = torch.broadcast_tensors(tensor, torch.empty(shape))
    return tensor.contiguous()
""",
    # a wrapper module holding a module moved after it was wrapped: its parameters moved with it
    "wrapper_sees_its_member_moved": """
import torch
from torch import nn
class Wrapper(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net
    def forward(self, x):
        return self.net(x)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 8)
wrapper = Wrapper(model)
model.to(device)
out = wrapper(torch.randn(4, 8).to(device))
stale = wrapper(torch.randn(4, 8))  # expect: DEV102
""",
    # torch.tensor(1 - p) of a number is 0-dim: it combines with tensors on any device
    "tensor_of_a_number_expression_is_a_scalar": """
import torch
def drop_path(x, drop_prob=0.0):
    keep_prob = torch.tensor(1 - drop_prob)
    return x.divide(keep_prob)
""",
    # `if len(boxes) == 0: return` given a caller's empty list: nothing after it runs for that call
    "early_return_on_an_empty_list": """
import torch
def pool(features, boxes):
    if len(boxes) == 0:
        return features.new_zeros(0)
    rois = torch.cat([b for b in boxes]).to(boxes[0].device)
    return features[0] * rois
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
pool(torch.randn(1, 4), [])
""",
    # "cuda:%d" % rank builds a device as f"cuda:{rank}" does (issue 17: devices built as strings)
    "percent_formatted_device_string": """
import torch
def run(rank, model):
    model.to("cuda:%d" % rank)
    return model(torch.randn(3, 4))  # expect: DEV102
""",
    # found by whole-project analysis on detectron2 (poolers.py, boxes.py): a ModuleList of poolings has no
    # parameters, so a module holding only it runs wherever its input is
    "module_list_of_stateless_layers_runs_anywhere": """
import torch
from torch import nn
class Pooler(nn.Module):
    def __init__(self, scales):
        super().__init__()
        self.levels = nn.ModuleList(nn.AvgPool2d(s) for s in scales)
    def forward(self, x):
        return self.levels[0](x)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
pooler = Pooler([2, 4])
out = pooler(torch.randn(1, 3, 8, 8).to(device))
""",
    "module_list_with_a_layer_stays_on_the_cpu": """
import torch
from torch import nn
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.levels = nn.ModuleList([nn.AvgPool2d(2), nn.Linear(4, 4)])
    def forward(self, x):
        return self.levels[1](x)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
head = Head()
out = head(torch.randn(1, 4).to(device))  # expect: DEV102
""",
    # `inter.device` of a tensor this function computed from a call we cannot see: unknown, not a device
    # the program chose (boxes.py pairwise_iou given cpu boxes by a test)
    "device_of_an_unknown_local_tensor_is_unknown": """
import torch
from helpers import intersection
def iou(area, boxes):
    inter = intersection(boxes)
    return torch.where(inter > 0, inter / area, torch.zeros(1, device=inter.device))
iou(torch.ones(3), torch.ones(3, 4))
""",
    "device_of_a_configuration_is_still_the_chosen_one": """
import torch
def train(args, model):
    model.to(args.device)
    x = torch.randn(3, 4)
    return model(x)  # expect: DEV102
""",
    # `is_numpy = isinstance(box, np.ndarray)` ... `if is_numpy: np.asarray(box)`: host data in that branch
    "isinstance_numpy_flag_narrows": """
import numpy as np
import torch
def convert(box):
    is_numpy = isinstance(box, np.ndarray)
    if is_numpy:
        arr = torch.from_numpy(np.asarray(box))
    else:
        arr = box.clone()
    return arr
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
convert(torch.ones(2, 4).to(device))
""",
    # `.to()` alone on an object of unknown class: it may move itself in place (BatchEncoding, PyG Data)
    "custom_collate_batch_moves_itself": """
import torch
from torch.utils.data import DataLoader
def main(dataset, tokenizer):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(4, 2).to(device)
    loader = DataLoader(dataset, collate_fn=lambda ex: tokenizer.pad(ex, return_tensors="pt"))
    for batch in loader:
        batch.to(device)
        out = model(**batch)
""",
    "default_collate_batch_move_thrown_away": """
import torch
from torch.utils.data import DataLoader, TensorDataset
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
loader = DataLoader(TensorDataset(torch.randn(8, 4)), batch_size=4)
for (batch,) in loader:
    batch.to(device)  # expect: DEV103
    out = model(batch)  # expect: DEV102
""",
    "built_model_moved_in_place": """
import torch
from models import build_model
def main(args):
    device = torch.device(args.device)
    model, criterion, postprocessors = build_model(args)
    model.to(device)
    return sum(p.numel() for p in model.parameters())
""",
    # a Python number from a tensor waits for the GPU, whatever spelling: `float(t)` as `t.item()`
    "timing_ends_in_float_of_a_tensor": """
import time
import torch
import torch.nn.functional as F
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(16, 4).to(device)
def evaluate(loader):
    total = 0
    for data in loader:
        data = data.to(device)
        total += float(F.cross_entropy(model(data.x), data.y))
    return total
start = time.time()
loss = evaluate(train_loader)
print(time.time() - start)
""",
    "timing_ends_in_float_of_a_cpu_value": """
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
w = torch.randn(64, 64, device=device)
steps = torch.zeros(())
start = time.time()
w = w @ w
count = float(steps)
print(time.time() - start)  # expect: DEV301
""",
    # (`getattr(torch, device_type)` as the backend module: fixtures/timing/ok_synchronize_through_backend_module.py)
    # torch.mps.synchronize() waits for mps alone
    "mps_synchronize_leaves_cuda_running": """
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(64, 64, device=device)
start = time.time()
y = x @ x
torch.mps.synchronize()
print(time.time() - start)  # expect: DEV301
""",
    # a device read from a configuration parameter (`args.device`, `cfg.device`) is the chosen device
    "device_of_a_configuration_parameter": """
import torch
def main(args):
    device = torch.device(args.device)
    model = torch.nn.Linear(16, 4).to(device)
    x = torch.randn(8, 16)
    return model(x)  # expect: DEV102
""",
    "device_of_a_configuration_parameter_used_right": """
import torch
def main(args):
    device = torch.device(args.device)
    model = torch.nn.Linear(16, 4).to(device)
    x = torch.randn(8, 16, device=device)
    return model(x)
""",
    "device_of_a_tensor_parameter_is_its_own": """
import torch
def scale(x):
    layer = torch.nn.Linear(3, 3).to(x.device)
    return layer(x) + torch.zeros(3, device=x.device)
""",
    # the output of a module whose forward cannot be followed to the end still lives on its device
    "timing_ends_in_int_of_a_module_output": """
import time
import torch
from torch_geometric.nn import GINConv, global_add_pool
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
class GIN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = GINConv(torch.nn.Linear(4, 4))
    def forward(self, x, edge_index, batch):
        return global_add_pool(self.conv(x, edge_index), batch)
model = GIN().to(device)
@torch.no_grad()
def test(loader):
    correct = 0
    for data in loader:
        data = data.to(device)
        pred = model(data.x, data.edge_index, data.batch).argmax(dim=-1)
        correct += int((pred == data.y).sum())
    return correct
start = time.time()
acc = test(test_loader)
print(time.time() - start)
""",
    "timing_ends_in_float_of_a_functional_loss": """
import time
import torch
import torch.nn.functional as F
from torch_geometric.nn import GINConv
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = GINConv(torch.nn.Linear(4, 4)).to(device)
def train(loader):
    total = 0
    for data in loader:
        data = data.to(device)
        loss = F.cross_entropy(data.out, data.y)
        total += float(loss)
    return total
start = time.time()
loss = train(train_loader)
print(time.time() - start)
""",
    # a layer of an imported class, held by a module of this file, may own parameters: the module has a device
    "module_holding_an_imported_layer_left_on_the_cpu": """
import torch
from torch_geometric.nn import GINConv
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = GINConv(torch.nn.Linear(4, 4))
    def forward(self, x, edge_index):
        return self.conv(x, edge_index)
model = Net()
x = torch.randn(3, 4, device=device)
out = model(x, edge_index)  # expect: DEV102
""",
    # rebinding a name makes a new object: what was known of the old one's attributes goes
    "attribute_facts_go_with_a_rebound_name": """
import torch
from torch_geometric.datasets import Entities
data = Entities("data", "AIFB")[0]
data.x = torch.randn(data.num_nodes, 16)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = data.to(device)
model = torch.nn.Linear(16, 4).to(device)
out = model(data.x)
""",
    "attribute_set_after_the_move_stays_on_the_cpu": """
import torch
from torch_geometric.datasets import Entities
data = Entities("data", "AIFB")[0]
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = data.to(device)
data.x = torch.randn(data.num_nodes, 16)
model = torch.nn.Linear(16, 4).to(device)
out = model(data.x)  # expect: DEV102
""",
    # a 0-dim cpu tensor combines with any device, on one path of a branch as anywhere
    "zero_dim_cpu_tensor_on_one_path": """
import torch
def loss_fn(nll_loss, logits_fake, use_disc):
    g_loss = -torch.mean(logits_fake)
    if use_disc:
        d_weight = torch.norm(g_loss) / (torch.norm(nll_loss) + 1e-4)
    else:
        d_weight = torch.tensor(0.0)
    return nll_loss + d_weight * g_loss
""",
    "vector_cpu_tensor_on_one_path": """
import torch
def loss_fn(nll_loss, logits_fake, use_disc):
    g_loss = -torch.mean(logits_fake)
    if use_disc:
        d_weight = torch.norm(g_loss) / (torch.norm(nll_loss) + 1e-4)
    else:
        d_weight = torch.zeros(3)
    return nll_loss + d_weight * g_loss  # expect: DEV104
""",
    # where a flag says CUDA is off, the selected device is the cpu
    "selected_device_is_the_cpu_where_the_flag_is_off": """
import torch
def extract(model, loader, use_cuda=True):
    features = None
    for samples, index in loader:
        samples, index = samples.cuda(non_blocking=True), index.cuda(non_blocking=True)  # expect: DEV201
        feats = model(samples)
        if features is None:
            features = torch.zeros(len(loader.dataset), feats.shape[-1])
            if use_cuda:
                features = features.cuda(non_blocking=True)
        if use_cuda:
            features.index_copy_(0, index, feats)
        else:
            features.index_copy_(0, index.cpu(), feats.cpu())
    return features
""",
    "cpu_operand_where_the_flag_is_on": """
import torch
def extract(model, loader, use_cuda=True):
    features = None
    for samples, index in loader:
        samples, index = samples.cuda(non_blocking=True), index.cuda(non_blocking=True)  # expect: DEV201
        feats = model(samples)
        if features is None:
            features = torch.zeros(len(loader.dataset), feats.shape[-1])
            if use_cuda:
                features = features.cuda(non_blocking=True)
        if use_cuda:
            features.index_copy_(0, index, feats.cpu())  # expect: DEV101
        else:
            features.index_copy_(0, index.cpu(), feats.cpu())
    return features
""",
    # a value the code uses as only a module can be (`.eval()`, `.parameters()`) is no host batch
    "unpacked_loader_result_used_as_a_module": """
import numpy as np
import torch
import clip
model, preprocess = clip.load("ViT-B/32")
model.cuda().eval()  # expect: DEV204
print(sum(p.numel() for p in model.parameters()))
image_input = torch.tensor(np.zeros((1, 3, 224, 224), dtype=np.float32)).cuda()
with torch.no_grad():
    image_features = model.encode_image(image_input).float()
""",
    "unpacked_batch_half_moved": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
for batch in loader:
    x, y = batch
    x = x.to(device)
    loss = torch.nn.functional.cross_entropy(model(x), y)  # expect: DEV101
""",
    # a device-kind parameter compared with "cuda" is a check made by hand, as `args.device == "cuda"` is
    "device_type_parameter_compared_with_cuda_guards": """
import torch
def compute_init(device_type="cuda"):
    if device_type == "cuda":
        torch.cuda.set_device(0)
        return torch.device("cuda", 0)
    return torch.device(device_type)
""",
    "device_type_parameter_compared_with_cpu_does_not": """
import torch
def compute_init(device_type="cuda"):
    if device_type != "mps":
        torch.cuda.set_device(0)  # expect: DEV204
    return torch.device(device_type)
""",
    # a method of a module sent to a device, given data left on the cpu, computes as a call of it does
    "method_of_a_moved_module_given_cpu_data": """
import torch
from models import VAE
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
vae = VAE(latent_dim=8)
vae.to(device)
vae.eval()
x = torch.randn(8, 3, 64, 64)
z = vae.encode(x)  # expect: DEV102
""",
    "method_of_a_module_left_on_the_cpu_is_not_judged": """
import torch
from models import Wrapper
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
wrapper = Wrapper()
wrapper.eval()
schema = wrapper.outputs_schema(torch.randn(3, device=device))
""",
    # a running sum started as a Python number is the tensor it accumulates
    "running_sum_of_gpu_errors_plotted": """
import torch
import matplotlib.pyplot as plt
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
history = []
for epoch in range(3):
    total_error = 0
    for features, labels in loader:
        features, labels = features.to(device), labels.to(device)
        total_error += (features.argmax(1) != labels).sum()
    history.append(100.0 * total_error / 10)
plt.plot(history)  # expect: DEV401
""",
    "running_sum_of_python_numbers_plotted": """
import torch
import matplotlib.pyplot as plt
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
history = []
for epoch in range(3):
    total_error = 0
    for features, labels in loader:
        features, labels = features.to(device), labels.to(device)
        total_error += (features.argmax(1) != labels).sum().item()
    history.append(100.0 * total_error / 10)
plt.plot(history)
""",
    # iterating a generator of this file binds what it yields
    "generator_yields_gpu_features": """
import torch
import torch.nn as nn
def features(model, loader, device):
    for batch in loader:
        yield model(batch.to(device))
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 3).to(device)
feats = torch.cat([f for f in features(model, [torch.zeros(3)], device)], dim=0)
array = feats.numpy()  # expect: DEV401
""",
    "generator_yields_host_features": """
import torch
import torch.nn as nn
def features(model, loader, device):
    for batch in loader:
        yield model(batch.to(device)).cpu()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 3).to(device)
feats = torch.cat([f for f in features(model, [torch.zeros(3)], device)], dim=0)
array = feats.numpy()
""",
    # a module holding a member of unknown kind (a module handed in) is not placed by its other members
    "module_with_a_member_handed_in_is_not_placed": """
import torch
def run(remote, rank):
    class Hybrid(torch.nn.Module):
        def __init__(self, remote, device):
            super().__init__()
            self.remote = remote
            self.fc = torch.nn.Linear(16, 8).cuda(device)  # expect: DEV201
            self.device = device
        def forward(self, indices):
            return self.fc(self.remote(indices).cuda(self.device))  # expect: DEV201
    model = Hybrid(remote, rank)
    indices = torch.LongTensor(10).random_(0, 100)
    return model(indices)
""",
    # what a loop in __init__ sets on the module survives the loop
    "modules_appended_to_a_plain_list_in_a_loop": """
import torch
from torch import nn
class Model(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.net = nn.Linear(128, 94)
        self.criterions = []
        for w in weights:
            self.criterions.append(nn.CrossEntropyLoss(weight=torch.ones(94)))
    def forward(self, x, y):
        return self.criterions[0](self.net(x), y)  # expect: DEV107
""",
    # ... unless the module registers them by hand
    "modules_in_a_plain_list_registered_with_add_module": """
from torch import nn
class Head(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fcs = []
        for k in range(n):
            fc = nn.Conv1d(8, 8, kernel_size=1)
            self.add_module("fc{}".format(k + 1), fc)
            self.fcs.append(fc)
    def forward(self, x):
        for layer in self.fcs:
            x = layer(x)
        return x
""",
    "modules_in_a_plain_list_registered_with_setattr": """
from torch import nn
class Net(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fcs = []
        for i in range(n):
            fc = nn.Linear(10, 10)
            setattr(self, "fc%i" % i, fc)
            self.fcs.append(fc)
    def forward(self, x):
        for i in range(len(self.fcs)):
            x = self.fcs[i](x)
        return x
""",
    # in __init__ nothing has moved the module yet: `self.device` is where modules start
    "tensor_moved_to_self_device_in_init_stays_behind": """
import torch
import torch.nn as nn
import pytorch_lightning as pl
class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.priors = torch.zeros(8).to(self.device)  # expect: DEV105
    def training_step(self, batch, i):
        return self.lin(batch) + self.priors
""",
    "tensor_registered_in_init_moves": """
import torch
import torch.nn as nn
import pytorch_lightning as pl
class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.register_buffer("priors", torch.zeros(8))
    def training_step(self, batch, i):
        return self.lin(batch) + self.priors.to(self.device)
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


def test_a_python_number_from_a_tensor_names_the_tensor():
    """DEV502's message names what `float()` was given (it printed an empty expression)."""
    from tests.lint_helpers import lint

    source = """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(16, 4).to(device)
optimizer = torch.optim.Adam(model.parameters())
for x, y in loader:
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    loss.backward()
    optimizer.step()
    total = float(loss)
"""
    messages = [f.message for f in lint(source, {"DEV502"}) if f.code == "DEV502"]
    assert messages and "`float()` on `loss`" in messages[0]
