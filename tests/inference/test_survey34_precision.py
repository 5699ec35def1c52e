"""False findings of the thirty-fourth and thirty-fifth precision surveys (issue 17 item 9), each beside a twin that
must stay reported.

Survey 34 (research code of 2021-2025, 3 false errors and 4 false warnings of 13 and 40 read):
- A model zoo's entry taken by name (`zoo.__dict__[name](args)`) from a project module that makes CUDA the default
  tensor type is built where that default puts it, not on the cpu (LLaMA-Adapter, 1 false DEV102); a script's own
  folder comes first when its imports are resolved, as on `sys.path` (its `llama/`, not the root's).
- `SimpleNamespace(device="cpu")` holds its keywords as attributes (open_clip's test, 1 false DEV101).
- A pipeline of a library base moved with `.to("cuda")` is still that object: calling it runs its own `__call__`
  (AnimateDiff's, which returns a host copy: 1 false DEV401).
- `len(torch.cuda.default_generators)` counts the GPUs: `> 0` is a guard (1 false DEV203).
- A function that returns 2 or 4 things by a flag: `a, b, c, d = f(...)` takes the 4, item by item (Point-BERT's
  encoder, 1 false DEV104); tuples of one length join item by item.
- `torch.multinomial`'s count is a number, not an operand (PoinTr, 1 false DEV104).
- A flag set True where an NCCL group is started and False on the other path is true only with GPUs (a check from
  there on). (Point-BERT's flag is an option set in another module and read in a callee: not reached. Handing the
  options a caller set on its `args` to its callees was tried and dropped, as last stop: moco-v3's, simsiam's and
  EfficientNet's `args.gpu = gpu` then gave 6 false DEV102 on the regression run.)
Survey 35 (smaller training code as people write it, 8 false warnings of 22):
- Building a `torch.distributions` object validates its arguments on the host: a sync (1 false DEV301).
- A clock read around a call of a function that runs a whole training loop times that loop, as an inline one does
  (1 false DEV301).
(Left: an HF-style device map built from `range(torch.cuda.device_count())` through a helper, 2 DEV201; a load after
an unconditional GPU use, 2 DEV202, which realworld 047 shows to be a real bug once the GPU use is fixed; DataLoader
batches of a caller in another module, passed through a variable, 2 DEV104.)

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import file_found, found, write_files

# a caller that unpacks 2 or 4 things, as its flag says
PAIR = """
class Pair(nn.Module):
    def __init__(self, keep):
        super().__init__()
        self.query, self.key, self.keep = Encoder(), Encoder(), keep

    def forward(self, x):
        if self.keep:
            q, rest = self.query(x, keep_tokens=self.keep)
        else:
            q, seen, unseen, hidden = self.query(x, keep_tokens=self.keep)
        k, _ = self.key(x, keep_tokens=True)
        return (q * k).sum(-1){mark}
"""

FLAG_BESIDE_A_GROUP = """
import torch
import torch.distributed as dist


def start_group(backend="{backend}"):
    dist.init_process_group(backend=backend)


def fit(model, launch):
    if launch == "none":
        multi = False
    else:
        multi = True
        start_group()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    for _ in range(3):
        model.to(device)(torch.randn(2, 4, device=device)).sum().backward()
        if multi:
            torch.cuda.synchronize(){mark}
"""

CASES = {
    "a_test_namespace_holds_the_cpu": """
from types import SimpleNamespace

import torch


def score(encoder, table, rows, settings):
    device = torch.device(settings.device)
    return encoder(rows.to(device)) @ table


def test_score():
    settings = SimpleNamespace(device="cpu", batch=4)
    assert score(torch.nn.Identity(), torch.eye(3), torch.eye(3), settings).shape == (3, 3)
""",
    "twin_a_test_namespace_holds_a_gpu": """
from types import SimpleNamespace

import torch


def score(encoder, table, rows, settings):
    device = torch.device(settings.device)
    return encoder(rows.to(device)) @ table  # expect: DEV101


def test_score():
    settings = SimpleNamespace(device="cuda", batch=4)  # expect: DEV201
    assert score(torch.nn.Identity(), torch.eye(3), torch.eye(3), settings).shape == (3, 3)
""",
    "a_pipeline_moved_to_the_gpu_runs_its_own_call": """
import torch
from diffusers import DiffusionPipeline


class Animate(DiffusionPipeline):
    @torch.no_grad()
    def __call__(self, prompt, first=None, frames=8):
        noise = torch.randn(frames, 4, 8, 8, device=self.device)
        return (noise.clamp(-1, 1) / 2 + 0.5).cpu()


def main():
    pipe = Animate().to("cuda")  # expect: DEV201
    video = pipe("a cat", first=torch.rand(1, 4, 8, 8).cuda(), frames=4)  # expect: DEV201
    return video.numpy()
""",
    "twin_a_pipeline_whose_call_returns_gpu_frames": """
import torch
from diffusers import DiffusionPipeline


class Animate(DiffusionPipeline):
    @torch.no_grad()
    def __call__(self, prompt, first=None, frames=8):
        noise = torch.randn(frames, 4, 8, 8, device="cuda")  # expect: DEV204
        return noise.clamp(-1, 1) / 2 + 0.5


def main():
    pipe = Animate().to("cuda")
    video = pipe("a cat", first=torch.rand(1, 4, 8, 8).cuda(), frames=4)
    return video.numpy()  # expect: DEV401
""",
    "the_default_generators_count_the_gpus": """
import torch


def reseed(table, key):
    if len(torch.cuda.default_generators) > 0:
        table[key] = torch.cuda.default_generators[torch.cuda.current_device()].seed()
    else:
        table[key] = torch.seed()
""",
    "twin_no_count_asked": """
import torch


def reseed(table, key, cpu_fallback=False):
    if cpu_fallback:
        table[key] = torch.seed()
    else:
        table[key] = torch.cuda.default_generators[torch.cuda.current_device()].seed()  # expect: DEV204
""",
    "an_encoder_returning_two_or_four_things": """
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, keep_tokens=False, drop=0.0):
        if drop == 0:
            hidden = torch.zeros(x.shape[:2]).bool()
        else:
            hidden = torch.rand(x.shape[:2], device=x.device) < drop
        if keep_tokens:
            return self.proj(x[:, 0]), x[:, 1:]
        return self.proj(x[:, 0]), x[~hidden], x[hidden], hidden

""" + PAIR.format(mark=""),
    "twin_the_four_things_lead_with_a_cpu_tensor": """
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, keep_tokens=False):
        if keep_tokens:
            return self.proj(x[:, 0]), x[:, 1:]
        return torch.zeros(x.size(0), 8), x, x, x

""" + PAIR.format(mark="  # expect: DEV104"),
    "a_flag_set_beside_an_nccl_group": FLAG_BESIDE_A_GROUP.format(backend="nccl", mark=""),
    "twin_a_flag_set_beside_a_gloo_group": FLAG_BESIDE_A_GROUP.format(backend="gloo", mark="  # expect: DEV203"),
    "a_sample_count_is_a_number": """
import torch


def subsample(points, count):
    order = torch.multinomial(torch.rand(points.shape[:2]), count).to(points.device)
    return torch.gather(points, 1, order.unsqueeze(-1).expand(-1, -1, points.size(-1)))
""",
    "twin_the_weights_mix_the_devices": """
import torch


def subsample(points, count):
    order = torch.multinomial(torch.rand(points.shape[:2]) * points.norm(dim=-1), count)  # expect: DEV104
    return torch.gather(points, 1, order.unsqueeze(-1).expand(-1, -1, points.size(-1)))
""",
}

SAMPLER = """
import time

import torch
import torch.nn.functional as F


def report(step, start):
    print(f"{{step}} steps, {{(step + 1) / (time.time() - start):.1f}} steps/s"){mark}


def generate(head, steps):
    start = time.time()
    state = torch.zeros(1, 8).cuda()
    for step in range(steps):
        probs = F.softmax(head(state), dim=-1)
        pick = torch.distributions.Categorical(probs{options}).sample()
        state = state + pick.float().unsqueeze(-1) / 32
        if step % 50 == 0:
            report(step, start)
    return state


generate(torch.nn.Linear(8, 32).cuda(), 200)
"""


@pytest.mark.parametrize("options, mark", [("", ""), (", validate_args=False", "  # expect: DEV301")])
def test_a_distribution_checks_its_arguments_on_the_host(options, mark):
    """Survey 35 (WaveRNN's sampler, 1 false DEV301): `Categorical(probs)` checks that `probs` is a simplex, a
    Python bool read from the GPU, so every step waits; without that check the rate times only the launches."""
    source = SAMPLER.format(options=options, mark=mark)
    assert without_gpu_only_note(found(source)) == expected_findings(source)


def without_gpu_only_note(findings: set) -> set:
    """(These scripts are GPU-only: DEV204, which is not what they are about.)"""
    return {(line, code) for line, code in findings if code != "DEV204"}


EPOCHS = """
import time

import torch
import torch.nn.functional as F


def run_epoch(model, batches, opt):
    {body}


def main(batches, epochs=3):
    model = torch.nn.Linear(16, 1).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        start = time.time()
        run_epoch(model, batches, opt)
        print(epoch, time.time() - start){mark}
"""

TRAINING = """for x, y in batches:
        loss = F.mse_loss(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()"""
ONE_STEP = """x, y = batches[0]
    return model(x.cuda())"""


@pytest.mark.parametrize("body, mark", [(TRAINING, ""), (ONE_STEP, "  # expect: DEV301")])
def test_a_clock_around_a_function_that_trains(body, mark):
    """Survey 35 (GraphRNN-like epochs, 1 false DEV301): a function that runs a whole training loop inside the
    caller's measurement is that loop, timed as an inline one is (its last queued step is noise). One that only
    launches a forward times the launch."""
    source = EPOCHS.format(body=body, mark=mark)
    assert without_gpu_only_note(found(source)) == expected_findings(source)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


ZOO = """
import functools

import torch
from torch import nn


class Chat(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.embed = nn.Embedding(100, width)

    def forward(self, tokens):
        return self.embed(tokens)


def build(args, width):
    torch.set_default_tensor_type({tensor_type})
    model = Chat(width)
    torch.set_default_tensor_type(torch.FloatTensor)
    return model


chat_small = functools.partial(build, width=16)
"""

DEMO = """
import torch

import zoo


def main(args):
    model = zoo.__dict__[args.name](args)
    model.eval()
    tokens = torch.zeros(2, 8, dtype=torch.long).cuda()
    return model(tokens[:, :4])
"""


@pytest.mark.parametrize("own, root, expected", [
    ("torch.cuda.HalfTensor", "torch.FloatTensor", {(10, "DEV204")}),
    ("torch.FloatTensor", "torch.cuda.HalfTensor", {(10, "DEV204"), (11, "DEV102")}),
])
def test_a_zoo_that_builds_under_a_cuda_default(tmp_path, own, root, expected):
    """Survey 34 (LLaMA-Adapter's chat demo, 1 false DEV102): the demo's own `zoo.py` (beside it, first on `sys.path`
    as Python runs the script) builds its models while CUDA is the default tensor type, so the entry it takes by
    name is on the GPU; where the demo's own zoo builds on the cpu (a zoo at the root does not count), the model
    is on the cpu, given GPU tokens."""
    write_files(tmp_path, {"pyproject.toml": "", "zoo.py": ZOO.format(tensor_type=root),
                           "demo/zoo.py": ZOO.format(tensor_type=own), "demo/chat.py": DEMO})
    assert file_found(tmp_path / "demo" / "chat.py") == expected


def test_a_package_module_imports_from_the_roots(tmp_path):
    """A module of a package is no script: its folder is no search path, so `import zoo` there is the root's."""
    write_files(tmp_path, {"pyproject.toml": "", "zoo.py": ZOO.format(tensor_type="torch.FloatTensor"),
                           "app/__init__.py": "", "app/zoo.py": ZOO.format(tensor_type="torch.cuda.HalfTensor"),
                           "app/chat.py": DEMO})
    assert file_found(tmp_path / "app" / "chat.py") == {(10, "DEV204"), (11, "DEV102")}

