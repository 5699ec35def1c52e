"""The mechanisms that make the inference general (issue 8): symbolic devices, kinds from
evidence, devices through helpers and containers, standalone functions, numpy sinks, timing
helpers, paths that disagree, optimizer state, guards, GPU intent.

Each case is a snippet whose `# expect:` markers are exactly what devlint must report (none:
it must stay silent). Bad and correct variants sit side by side."""

from __future__ import annotations

import pytest

from devlint.core.values import Module, Tensor
from tests.conftest import expected_findings
from tests.lint_helpers import found, infer, lint

SELECT_MPS = """
import torch
from torch import nn
if torch.cuda.is_available():
    device = torch.device("cuda")
elif torch.backends.mps.is_available():
    device = torch.device("mps")
else:
    device = torch.device("cpu")
"""

CASES = {
    # 1. symbolic devices: a third mps branch, args, a config, an object, a parameter
    "mps_branch_is_the_selected_device": SELECT_MPS + """
model = nn.Linear(4, 2).to(device)
x = torch.randn(3, 4)
y = model(x)  # expect: DEV102
z = model(x.to(device))
""",
    "device_option_on_args": """
import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
args = parser.parse_args()
weights = torch.ones(3).to(args.device)
bias = torch.zeros(3)
out = weights + bias  # expect: DEV101
ok = weights + torch.zeros(3, device=args.device)
""",
    "device_only_cpu_never_conflicts": """
import torch
device = "cpu"
a = torch.ones(3).to(device)
b = a + torch.zeros(3)
""",
    "device_in_a_config_dict": """
import torch
cfg = {"device": "cuda" if torch.cuda.is_available() else "cpu", "lr": 0.1}
w = torch.randn(3, device=cfg["device"])
b = w * torch.ones(3)  # expect: DEV101
""",
    "device_held_by_an_object": """
import torch
from torch import nn

class Trainer:
    def __init__(self, model, device):
        self.device = device
        self.model = model.to(device)

    def step(self, x):
        mask = torch.ones(x.shape[0])
        out = self.model(x.to(self.device))
        return out * mask  # expect: DEV101
""",
    "same_symbolic_device_never_conflicts": """
import torch
def scale(x, device):
    a = torch.ones(3, device=device)
    b = x.to(device)
    return a * b
""",
    "args_cuda_flag_selects": """
import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--no-cuda", action="store_true")
args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()
device = torch.device("cuda" if args.cuda else "cpu")
a = torch.randn(2).to(device)
b = a + torch.randn(2)  # expect: DEV101
""",
    # 2. kinds from evidence
    "imported_class_moved_is_a_module_on_cpu_until_moved": """
import torch
from mypkg.models import Net
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net(10)
model.to(device)
model.train()
x = torch.randn(4, 10)
out = model(x)  # expect: DEV102
""",
    "imported_factory_may_move_inside": """
import torch
from mypkg.models import build_model
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = build_model()
x = torch.randn(4, 10)
out = model(x)
""",
    "numpy_of_a_moved_modules_output": """
import torch
from mypkg.models import Net
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Net().to(device)
model.eval()
pred = model(torch.randn(2, 3).to(device))
arr = pred.detach().numpy()  # expect: DEV401
ok = pred.detach().cpu().numpy()
""",
    # 3. through helpers and containers
    "helper_return_keeps_cpu": """
import torch
def make_mask(n):
    return torch.ones(n).bool()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(5).to(device)
y = x[make_mask(5)]
z = x + make_mask(5).float()  # expect: DEV101
""",
    "appended_cpu_tensors_stacked": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
parts = []
for i in range(3):
    parts.append(torch.full((2,), float(i)))
stacked = torch.stack(parts)
w = torch.randn(3, 2, device=device)
out = w * stacked  # expect: DEV101
""",
    # 4. standalone functions and module inputs
    "standalone_loss_builds_its_weights_on_cpu": """
import torch
import torch.nn.functional as F
def weighted_loss(logits, labels):
    weights = torch.tensor([1.0, 2.0, 0.5])
    return F.cross_entropy(logits, labels, weight=weights * labels.float().mean())  # expect: DEV104
""",
    "standalone_loss_follows_its_inputs": """
import torch
import torch.nn.functional as F
def weighted_loss(logits, labels):
    weights = torch.tensor([1.0, 2.0, 0.5], device=labels.device)
    return F.cross_entropy(logits, labels, weight=weights * labels.float().mean())
""",
    "dataset_getitem_runs_on_cpu": """
import torch
from torch.utils.data import Dataset
class Pairs(Dataset):
    def __getitem__(self, i):
        x = torch.randn(3)
        return x, x * torch.ones(3)
""",
    "rnn_initial_state_in_forward": """
import torch
from torch import nn
class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 16, batch_first=True)
    def forward(self, x):
        h0 = torch.zeros(1, x.size(0), 16)
        out, _ = self.rnn(x, h0)  # expect: DEV104
        return out
""",
    "init_builds_on_the_cpu": """
import torch
from torch import nn
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 3)
        self.warm_up()
    def warm_up(self):
        self.body(torch.zeros(1, 3))
    def forward(self, x):
        return self.body(x)
""",
    # 8. paths that disagree
    "paths_disagree_on_a_flag": """
import argparse
import torch
from torch import nn
parser = argparse.ArgumentParser()
parser.add_argument("--fast", action="store_true")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 1).to(device)
x, y = torch.randn(8, 4), torch.randn(8, 1)
if args.fast:
    x = x.to(device)
else:
    x, y = x.to(device), y.to(device)
loss = nn.functional.mse_loss(model(x), y)  # expect: DEV101
""",
    "paths_agree_on_a_flag": """
import argparse
import torch
from torch import nn
parser = argparse.ArgumentParser()
parser.add_argument("--fast", action="store_true")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 1).to(device)
x, y = torch.randn(8, 4), torch.randn(8, 1)
if args.fast:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
else:
    x, y = x.to(device), y.to(device)
loss = nn.functional.mse_loss(model(x), y)
""",
    "a_known_string_decides_the_branch": """
import torch
def act(net, state, device="cpu"):
    if device not in ["cpu"]:
        state = state.cuda(device)
    return net(state)
net = torch.nn.Linear(2, 2)
act(net, torch.zeros(1, 2))
""",
    # 9. optimizer state
    "optimizer_state_loaded_before_the_move": """
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 2)
optimizer = torch.optim.Adam(model.parameters())
optimizer.load_state_dict(torch.load("opt.pt", map_location="cpu"))  # expect: DEV108
model.to(device)
""",
    "optimizer_built_before_the_move": """
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 2)
optimizer = torch.optim.Adam(model.parameters())
model.to(device)
optimizer.load_state_dict(torch.load("opt.pt", map_location=device))
""",
    # 10. guards as users write them
    "guards_written_by_hand": """
import torch
def sync(x, device):
    if x.is_cuda:
        torch.cuda.synchronize()
    if device.type != "cpu":
        torch.cuda.empty_cache()
    if torch.backends.mps.is_available():
        torch.mps.synchronize()
""",
    # 7. timing
    "timer_class_without_sync": """
import time
import torch
class Timer:
    def start(self):
        self.t0 = time.perf_counter()
    def stop(self):
        return time.perf_counter() - self.t0  # expect: DEV301
if torch.cuda.is_available():
    x = torch.randn(256, 256, device="cuda")
    timer = Timer()
    timer.start()
    y = x @ x
    print(timer.stop())
""",
    "timer_class_with_sync": """
import time
import torch
class Timer:
    def start(self):
        torch.cuda.synchronize()
        self.t0 = time.perf_counter()
    def stop(self):
        torch.cuda.synchronize()
        return time.perf_counter() - self.t0
if torch.cuda.is_available():
    x = torch.randn(256, 256, device="cuda")
    timer = Timer()
    timer.start()
    y = x @ x
    print(timer.stop())
""",
    "unknown_calls_do_not_synchronize": """
import time
import torch
from mylib import run_model
if torch.cuda.is_available():
    x = torch.randn(64, 64, device="cuda")
    start = time.time()
    y = run_model(x)
    elapsed = time.time() - start  # expect: DEV301
    print(elapsed)
""",
    "mps_only_sync_does_not_sync_cuda": """
import time
import torch
def sync(device):
    if device.type == "mps":
        torch.mps.synchronize()
if torch.cuda.is_available():
    device = torch.device("cuda")
    x = torch.randn(64, 64, device=device)
    start = time.perf_counter()
    y = x @ x
    sync(device)
    elapsed = time.perf_counter() - start  # expect: DEV301
    print(elapsed)
""",
    "a_non_blocking_copy_does_not_wait": """
import time
import torch
if torch.cuda.is_available():
    model = torch.nn.Linear(8, 8).cuda()
    warm = model(torch.randn(4, 8, device="cuda"))
    t0 = time.perf_counter()
    x = torch.randn(4, 8).pin_memory().to("cuda", non_blocking=True)
    y = model(x)
    t1 = time.perf_counter()  # expect: DEV301
    print(t1 - t0)
""",
    "first_iteration_of_a_running_sum": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
total = torch.zeros(4)
for step in range(3):
    x = torch.randn(4).to(device)
    total = total + x  # expect: DEV101
""",
    "running_sum_made_on_the_device": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
total = torch.zeros(4, device=device)
for step in range(3):
    x = torch.randn(4).to(device)
    total = total + x
""",
    "one_crash_is_reported_once": """
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = nn.Linear(3, 3).to(device)
images = torch.rand(2, 3, device=device)
mean, std = torch.tensor([0.4, 0.4, 0.4]), torch.tensor([0.2, 0.2, 0.2])
normalized = (images - mean) / std  # expect: DEV101
out = net(normalized)
""",
    "star_arguments_of_a_known_tuple_are_bound": """
import torch
from torch import nn
rnn = nn.GRUCell(3, 3)
def example():
    return torch.randn(1, 3), torch.zeros(1, 3)
def step(x, h):
    return rnn(x, h)
step(*example())
""",
    "a_loss_subclass_without_parameters_has_no_device": """
import torch
from torch import nn
class MaskedLoss(nn.CrossEntropyLoss):
    def forward(self, pred, label):
        return super().forward(pred, label)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loss = MaskedLoss()
pred = torch.randn(4, 3).to(device)
l = loss(pred, torch.tensor([0, 1, 2, 0]).to(device))
""",
    "timer_object_used_in_a_loop": """
import time
import torch
class Timer:
    def start(self):
        self.t0 = time.perf_counter()
    def stop(self):
        return time.perf_counter() - self.t0  # expect: DEV301
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
mlp = torch.nn.Linear(8, 8).to(device)
x = torch.randn(4, 8, device=device)
timer = Timer()
for _ in range(5):
    timer.start()
    y = mlp(x)
    timer.stop()
""",
    "dict_batch_moved_key_by_key": """
import torch
from torch.utils.data import DataLoader
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
mean = torch.zeros(3, device=device)
for batch in DataLoader(dataset):
    for k, v in batch.items():
        batch[k] = batch[k].to(device)
    x = batch["image"] - mean
""",
    "a_configurator_may_set_the_device": """
import torch
device = 'cuda'
exec(open('configurator.py').read())
model = torch.nn.Linear(2, 2).to(device)
x = torch.randn(3, 2, device=device)
""",
    "a_hardcoded_device_without_a_configurator": """
import torch
device = 'cuda'  # expect: DEV201
dtype = 'bfloat16' if torch.cuda.is_available() else 'float32'
model = torch.nn.Linear(2, 2).to(device)
x = torch.randn(3, 2, device=device)
""",
    "code_after_importing_tensorrt_has_a_gpu": """
import torch
def build(engine_path, device):
    if engine_path.endswith(".engine"):
        import tensorrt as trt
        if device.type == "cpu":
            device = torch.device("cuda:0")
        return trt.Runtime(trt.Logger()), device
    return None, device
""",
    "a_tpu_program_loads_what_xla_saved": """
import torch
import torch_xla.core.xla_model as xm
def restore(path, model):
    model.load_state_dict(torch.load(path))
""",
    "a_cuda_program_loads_without_map_location": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
def restore(path, model):
    model.load_state_dict(torch.load(path))  # expect: DEV202
""",
    "module_dict_members_are_submodules": """
import torch
from torch import nn
class GPT(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(10, n), wpe=nn.Embedding(10, n)))
    def forward(self, idx):
        pos = torch.arange(0, idx.size(1), dtype=torch.long)
        return self.transformer.wte(idx) + self.transformer.wpe(pos)  # expect: DEV104
""",
    "data_parallel_function_gathers_where_the_module_is": """
import torch
from torch import nn
class D(nn.Module):
    def __init__(self, ngpu):
        super().__init__()
        self.ngpu = ngpu
        self.main = nn.Linear(4, 1)
    def forward(self, x):
        if x.is_cuda and self.ngpu > 1:
            return nn.parallel.data_parallel(self.main, x, range(self.ngpu))
        return self.main(x)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = D(2).to(device)
x = torch.randn(3, 4).to(device)
loss = nn.functional.mse_loss(net(x), torch.zeros(3, 1))  # expect: DEV101
""",
    "a_batch_member_left_on_the_host_fed_as_data": """
import torch
from mypkg import get_loader, Encoder, Decoder
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
encoder = Encoder().to(device)
decoder = Decoder().to(device)
for i, (images, captions, lengths) in enumerate(get_loader()):
    captions = captions.to(device)
    features = encoder(images)  # expect: DEV102
    outputs = decoder(features, captions, lengths)
""",
    "a_value_given_to_a_torch_loss_is_a_tensor": """
import torch
from torch import nn
from mydata import batches
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
criterion = nn.CrossEntropyLoss().to(device)
model = nn.Linear(4, 3).to(device)
for x, y in batches():
    x = x.to(device)
    y.to(device)  # expect: DEV103
    loss = criterion(model(x), y)
""",
    "a_batch_object_moved_in_place_is_not_judged": """
import torch
from mylib import tokenizer, model
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
inputs = tokenizer("hello")
inputs.to(device)
out = model(**inputs)
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


def test_mps_branch_gives_the_selected_device_not_unknown():
    names, _ = infer(SELECT_MPS)
    assert names["device"].device is not None and names["device"].device.kind == "selected"


def test_an_imported_class_moved_somewhere_is_a_module_created_on_the_cpu():
    names, _ = infer("""
        import torch
        from mypkg import Net
        model = Net()
        model.cuda()
        model.eval()
        """)
    model = names["model"]
    assert isinstance(model, Module) and model.where is not None


def test_a_lowercase_factory_alone_is_no_evidence():
    names, _ = infer("""
        from mypkg import build
        model = build()
        model.eval()
        """)
    assert not isinstance(names["model"], Module) or names["model"].where is None


def test_paths_disagree_name_the_condition():
    source = CASES["paths_disagree_on_a_flag"]
    (finding,) = [f for f in lint(source) if f.code == "DEV101"]
    assert "when `args.fast` is true" in finding.message
    assert any("line 10" in why for why in finding.why)  # where y stayed on the cpu


def test_the_tensor_left_on_the_cpu_on_one_path_remembers_that_path():
    names, _ = infer("""
        import torch
        flag = input()
        x = torch.zeros(2)
        if flag:
            x = x.cuda()
        """)
    x = names["x"]
    assert isinstance(x, Tensor) and x.where is None and x.cpu_path is not None
    assert x.cpu_path[1] == "false"


def test_symbolic_device_names_the_variable_in_the_message():
    source = CASES["device_option_on_args"]
    (finding,) = [f for f in lint(source) if f.code == "DEV101"]
    assert "whenever `args.device` is a GPU" in finding.message


def test_device_constructor_is_no_gpu_use():
    assert found("import torch\nd = torch.device('cuda', 1)\n") == set()
