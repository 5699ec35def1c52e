"""Cpu tables and modules that meet GPU tensors, as real code builds them (issue 17, the MIXED misses of the
development set): a buffer registered from a value devlint cannot see, numpy arrays that stay arrays, torch
and nn brought by a star import, a library function whose only caller is its own self-test, numpy settings
beside tensor data, and a model zoo's entry taken by name.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations


import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, REALWORLD

CASES = {
    # DDECC: the parity-check matrix is a buffer made from the caller's code object; what is computed with
    # it is on the module's device, and indexes a schedule that a plain attribute left on the cpu
    "a_buffer_from_an_unseen_value_follows_the_module": """
import torch
class Decoder(torch.nn.Module):
    def __init__(self, code, steps):
        super().__init__()
        self.register_buffer("parity", code.matrix.t().float())
        self.noise = torch.linspace(0.1, 0.5, steps)  # expect: DEV105
    def step(self, y):
        count = (torch.matmul(y, self.parity) % 2).long().sum(-1)
        return y * self.noise[count]
""",
    "twin_the_schedule_is_a_buffer_too": """
import torch
class Decoder(torch.nn.Module):
    def __init__(self, code, steps):
        super().__init__()
        self.register_buffer("parity", code.matrix.t().float())
        self.register_buffer("noise", torch.linspace(0.1, 0.5, steps))
    def step(self, y):
        count = (torch.matmul(y, self.parity) % 2).long().sum(-1)
        return y * self.noise[count]
""",
    "twin_a_buffer_of_none_is_not_a_tensor": """
import torch
class Decoder(torch.nn.Module):
    def __init__(self, steps):
        super().__init__()
        self.register_buffer("mask", None)
        self.noise = torch.linspace(0.1, 0.5, steps)
    def step(self, y):
        return y * self.noise[self.mask]
""",
    # PriorGrad: a noise schedule made with numpy, cast with `.astype`, is a table with dimensions
    "an_array_method_keeps_a_numpy_table": """
import numpy as np
import torch
class Diffusion(torch.nn.Module):
    def __init__(self, steps):
        super().__init__()
        beta = np.linspace(1e-4, 0.05, steps)
        level = np.cumprod(1 - beta)
        self.level = torch.tensor(level.astype(np.float32))  # expect: DEV105
    def forward(self, tokens):
        t = torch.randint(0, 10, [tokens.shape[0]], device=tokens.device)
        return self.level[t]
""",
    "twin_a_numpy_number_is_0_dim": """
import numpy as np
import torch
class Diffusion(torch.nn.Module):
    def __init__(self, steps):
        super().__init__()
        beta = np.linspace(1e-4, 0.05, steps)
        self.total = torch.tensor(np.sum(beta).item())
    def forward(self, tokens):
        return tokens * self.total
""",
    "twin_the_table_indexed_on_its_own_device": """
import numpy as np
import torch
class Diffusion(torch.nn.Module):
    def __init__(self, steps):
        super().__init__()
        self.level = torch.tensor(np.cumprod(1 - np.linspace(1e-4, 0.05, steps)).astype(np.float32))
    def forward(self, tokens):
        t = torch.randint(0, 10, [tokens.shape[0]])
        return self.level[t].to(tokens.device)
""",
    # a project's `from modules.common import *` is where torch, nn and F come from
    "torch_and_nn_from_a_star_import": """
from modules.common import *
class Diffusion(nn.Module):
    def __init__(self, steps):
        super().__init__()
        self.level = torch.linspace(0.1, 0.5, steps)  # expect: DEV105
    def forward(self, tokens):
        t = torch.randint(0, 10, [3], device=tokens.device)
        return self.level[t]
""",
    "twin_a_star_import_with_a_buffer": """
from modules.common import *
class Diffusion(nn.Module):
    def __init__(self, steps):
        super().__init__()
        self.register_buffer("level", torch.linspace(0.1, 0.5, steps))
    def forward(self, tokens):
        t = torch.randint(0, 10, [3], device=tokens.device)
        return self.level[t]
""",
    # Class-balanced loss: class weights computed with numpy (the class counts are settings, the labels
    # data), made a cpu tensor and multiplied with the labels' one-hot; the file's self-test calls it
    # with cpu tensors, its users with theirs
    "a_library_function_beside_its_self_test": """
import numpy as np
import torch
import torch.nn.functional as F
def balanced(labels, counts, n_classes, beta):
    w = (1.0 - beta) / np.array(1.0 - np.power(beta, counts))
    w = w / np.sum(w) * n_classes
    one_hot = F.one_hot(labels, n_classes).float()
    w = torch.tensor(w).float().unsqueeze(0)
    return w.repeat(one_hot.shape[0], 1) * one_hot  # expect: DEV104
if __name__ == "__main__":
    print(balanced(torch.randint(0, 5, (10,)), [2, 3, 1, 2, 2], 5, 0.99))
""",
    "twin_weights_made_on_the_labels_device": """
import numpy as np
import torch
import torch.nn.functional as F
def balanced(labels, counts, n_classes, beta):
    w = (1.0 - beta) / np.array(1.0 - np.power(beta, counts))
    w = w / np.sum(w) * n_classes
    one_hot = F.one_hot(labels, n_classes).float()
    w = torch.tensor(w, device=labels.device).float().unsqueeze(0)
    return w.repeat(one_hot.shape[0], 1) * one_hot
if __name__ == "__main__":
    print(balanced(torch.randint(0, 5, (10,)), [2, 3, 1, 2, 2], 5, 0.99))
""",
    "twin_a_function_of_host_inputs_only": """
import numpy as np
import torch
def weights(counts, beta):
    w = (1.0 - beta) / np.array(1.0 - np.power(beta, counts))
    return torch.tensor(w).float() * torch.ones(len(counts))
""",
    # a tutorial script calls its functions at the top level with its own cpu data: those are its calls
    "twin_a_script_calls_at_its_top_level": """
import torch
def step(category, hidden_size):
    hidden = torch.zeros(1, hidden_size)
    return torch.cat((category, hidden), 1)
print(step(torch.zeros(1, 3), 5))
""",
    "twin_a_helper_called_by_other_code_too": """
import torch
def scale(x):
    return x * torch.ones(3)
def run(x):
    return scale(x)
if __name__ == "__main__":
    print(scale(torch.ones(3)))
""",
    # diffusers' diffusion_policy example: the statistics stay on the cpu, the observation goes to the policy's
    # device; the normalisation crashes, and the encoder given its result is not judged again
    "a_module_given_what_a_crash_made_is_not_judged_again": """
import torch
class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.ReLU())
    def forward(self, x):
        return self.net(x)
class Policy:
    def __init__(self, device="cpu"):
        self.device = device
        self.stats = {"min": torch.zeros(5), "max": torch.ones(5)}
        self.encoder = Encoder().to(device)
        self.head = torch.nn.Linear(8, 2).to(device)
    def normalize(self, data, stats):
        return (data - stats["min"]) / (stats["max"] - stats["min"])  # expect: DEV104
    def predict(self, obs: torch.Tensor):
        obs = obs.to(self.device)
        return self.head(self.encoder(self.normalize(obs, self.stats)))
if __name__ == "__main__":
    print(Policy().predict(torch.zeros(1, 5)))
""",
    # pytorch/examples' idiom: `models.__dict__[arch](...)` builds the model on the cpu
    "a_model_zoo_entry_taken_by_name": """
import torch
import models
def load(arch):
    model = models.__dict__[arch](num_classes=10)
    model.eval()
    return model
def infer(model, image, device):
    return model(torch.from_numpy(image).float().to(device))  # expect: DEV102
def main(args):
    infer(load(args.arch), args.image, args.device)
""",
    "twin_the_zoo_model_moved": """
import torch
import models
def load(arch, device):
    model = models.__dict__[arch](num_classes=10)
    model.eval()
    return model.to(device)
def infer(model, image, device):
    return model(torch.from_numpy(image).float().to(device))
def main(args):
    infer(load(args.arch, args.device), args.image, args.device)
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)




@pytest.mark.skipif(REALWORLD is None, reason="../shared/realworld is not next to this checkout")
@pytest.mark.parametrize("excerpt, line, code", [
    # DDECC: `self.betas_bar[t]`, t computed with the buffer `pc_matrix` registered from `args.code`
    ("139_MIXED_ddecc_cpu_betas_cuda_index.py", 33, "DEV105"),
    # PriorGrad: `torch.tensor(noise_level.astype(np.float32))`, torch and nn from `modules.operations import *`
    ("149_MIXED_priorgrad_cuda_index_cpu_noise_level.py", 55, "DEV105"),
    # Class-balanced loss: numpy class weights times the labels' one-hot, beside the file's self-test
    ("067_MIXED_class_balanced_loss_cpu_weights.py", 84, "DEV104"),
    # Fast human pose demo: `models.__dict__[arch](...)` never moved, given an input on `args.device`
    ("011_MIXED_pose_demo_model_not_moved.py", 56, "DEV102"),
])
def test_real_excerpt(excerpt, line, code):
    source = (REALWORLD / excerpt).read_text()
    assert (line, code) in found(source)
