"""False findings of the fifty-sixth and fifty-seventh precision surveys (issue 17 item 9), each beside a twin that
must stay reported.

Survey 57 (representation learning, multimodal and compressed models, pinned to 2695150: 1 false error of 1, 1 false
warning of 40):
- `model = models.vgg(cfg=checkpoint["cfg"])` after `optimizer = SGD(model.parameters())`: the name holds another
  model; the optimizer keeps the parameters it was built on, and its state is loaded where they are, whatever
  moves the new model after (filter-pruning-geometric-median's resume, 1 DEV108). `model = model.cuda()` and
  `model = DataParallel(model)` are the same model.

Survey 56 (reinforcement learning, robotics and recommenders, pinned to 2695150):
- `.to(**self.tpdv)` with `self.tpdv = dict(dtype=torch.float32, device=device)` (the MAPPO idiom) moves to the
  dict's device; a spread dict that may hold a device we cannot read leaves the device unknown, not kept (HARL,
  on-policy: DEV102/DEV104 errors).
- `x.numpy(force=True)` copies to the host first, from any device (imitation, 1 DEV401).
- A module's own method (`model.initial_inference(x)`, not its forward), of a class nobody can see, may hand back
  numpy in eval mode: numpy's conversions of its result are not judged; `.numpy()` of it still is (EfficientZero,
  9 DEV401).
- `alg_class: type[PPO] = resolve_callable(cfg["class_name"])`: a value nobody can see, annotated with a class of
  the project, is that class (`type[C]`) or an object of a plain class (`C`): `alg.update()` runs PPO's, whose
  `.item()` waits for the GPU inside the caller's measurement (rsl_rl's runner, 1 DEV301).
- `for key in batch.keys(): batch[key] = torch.tensor(batch[key])` rebuilds every entry of the caller's batch on the
  host: what is read from it after is that (MARL-Algorithms' COMA and QTRAN learners, 3 DEV104: cpu masks with the
  cpu batch).
- `if "data.label" not in data:` of a dict whose every key is known folds: entries under other keys are not read
  (the shape of RecBole's collector, survey 56's I). `d.update(...)`, `d.setdefault(...)`, `d.pop(...)` leave the
  keys unknown. (A key held by a variable the caller set, `self._data[name]`, is not read as that constant: a first
  version did, and the regression run showed it picking one entry of a dict of methods, `model_func[self.model_name]`,
  whose result met a correlated `type_info` branch it could not follow: ogb's evaluator, 2 false DEV401.)
- A module class whose own `cuda()` moves the members of its plain list one by one (`for c in self.critics:
  c.cuda()`) moves them with it (epymarl's per-agent critics, 5 DEV107).

Found reading the regression run's new errors (ignite's FID metric, 1 DEV102 that the last stop's final commits
brought): `if inputs.device != torch.device(self._device): inputs = inputs.to(self._device)` leaves `inputs` on
that device on both paths: where the test fails it is there already.

Found reading the final code's new errors on survey 56's repositories: `np.shape(obs)` of a tensor moved by
`.to(**self.tpdv)` (now followed) reads `obs.shape` and converts nothing (on-policy's MAT, 1 DEV401; checked on a meta
tensor, which `np.asarray` refuses).

- A `**kwargs` parameter receives the keywords no other parameter takes, and a `**dict` passed on: `create(config=
  {"device": "cpu"})` -> `Agent(**kwargs)` (or a registered `lambda **kw: Agent(**kw)`) builds the agent with that
  config (rl_games' test of its algorithm factory, 1 DEV102: the class's own default `"cuda:0"` had been judged).

A bug the surveys saw devlint miss, now DEV109: `self.w = nn.Parameter(torch.zeros(n)).to(**self.tpdv)` keeps a plain
copy on the GPU that no module registers (on-policy's PopArt and value normalizers, HARL's; Real-Time-Voice-
Cloning's similarity weight, egnn's autoencoder scale, learn2learn's policy sigma, found by the new rule).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

RESUME = """
import torch
from torch import nn, optim
from torchvision import models

use_cuda = torch.cuda.is_available()


def run(resume_path):
    model = models.resnet18()
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    if resume_path:
        checkpoint = torch.load(resume_path, map_location="cpu")
        {rebind}
        model.load_state_dict(checkpoint["state_dict"])
        optimizer.load_state_dict(checkpoint["optimizer"]){mark}
        if use_cuda:
            model = model.cuda()
    return model, optimizer
"""


@pytest.mark.parametrize("rebind, mark", [
    # another model: the optimizer's state goes to the parameters it was built on, which nothing moves
    ("model = models.vgg16()", ""),
    # the same model, cast: still the optimizer's, its state loaded on the cpu, then moved
    ("model = model.float()", "  # expect: DEV108"),
    ("pass", "  # expect: DEV108"),
])
def test_an_optimizer_keeps_the_model_it_was_built_on(rebind, mark):
    source = RESUME.format(rebind=rebind, mark=mark)
    assert found(source) == expected_findings(source)


SPREAD_MOVE = """
import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self, device=torch.device("cpu")):
        super().__init__()
        self.tpdv = dict(dtype=torch.float32, device=device)
        self.body = nn.Linear(4, 1)
        self.to(device)

    def value(self, obs):
        obs = obs.to(**{spread})
        return self.body(obs){mark}


def run():
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    critic = Critic(device=dev)
    return critic.value(torch.zeros(2, 4))


run()
"""


@pytest.mark.parametrize("spread, mark", [
    ("self.tpdv", ""),  # moved to `device` with its dtype
    ("options", ""),  # a dict nobody can read: where it goes is unknown
    ("dict(dtype=torch.float32)", "  # expect: DEV104"),  # a dtype alone: it stays on the cpu
])
def test_a_spread_dict_names_the_device_of_a_move(spread, mark):
    source = SPREAD_MOVE.format(spread=spread, mark=mark).replace("    def value(self, obs):",
                                                                   "    def value(self, obs, options=None):")
    assert found(source) == expected_findings(source)


FORCED = """
import torch


def log_prob_of(actions, device):
    acts = torch.as_tensor(actions, device=device)
    return acts.{call}{mark}


log_prob_of([1.0], torch.device("cuda" if torch.cuda.is_available() else "cpu"))
"""


@pytest.mark.parametrize("call, mark", [
    ("numpy(force=True)", ""),  # detached and copied to the host first
    ("numpy(force=False)", "  # expect: DEV401"),
    ("numpy()", "  # expect: DEV401"),
])
def test_numpy_with_force_copies_to_the_host(call, mark):
    source = FORCED.format(call=call, mark=mark)
    assert found(source) == expected_findings(source)


MODEL_API = """
import numpy as np
import torch


class Worker:
    def __init__(self, config):
        self.config = config
        self.model = config.get_network()
        self.model.to(config.device)
        self.model.eval()

    def targets(self, batches):
        outputs = []
        with torch.no_grad():
            for b in batches:
                x = torch.from_numpy(b).to(self.config.device).float()
                outputs.append(self.model.{call})
        return {convert}{mark}
"""


@pytest.mark.parametrize("call, convert, mark", [
    # the model's own API: it may hand back numpy (EfficientZero's inference in eval mode), and so may a field of
    # what it gives
    ("initial_inference(x)", "np.concatenate(outputs)", ""),
    ("initial_inference(x).value", "np.concatenate(outputs)", ""),
    # `.numpy()` says it is a tensor
    ("initial_inference(x)", "outputs[0].numpy()", "  # expect: DEV401"),
    # its forward gives tensors
    ("forward(x)", "np.concatenate(outputs)", "  # expect: DEV401"),
])
def test_a_model_method_may_return_numpy(call, convert, mark):
    source = MODEL_API.format(call=call, convert=convert, mark=mark)
    assert found(source) == expected_findings(source)


OWN_CUDA = """
import torch as th
import torch.nn as nn


class PerAgentCritic(nn.Module):
    def __init__(self, n_agents, n_in, n_actions):
        super().__init__()
        self.critics = [nn.Linear(n_in, n_actions) for _ in range(n_agents)]

    def forward(self, obs):
        return th.stack([self.critics[i](obs[:, i]) for i in range(len(self.critics))], dim=1){mark}
{override}

def step(critic, obs, use_cuda):
    if use_cuda:
        critic.cuda()
        obs = obs.cuda()
    return critic(obs)
"""

CUDA_OVERRIDE = """
    def cuda(self):
        for c in self.critics:
            c.cuda()
        return self
"""


@pytest.mark.parametrize("override, mark", [
    (CUDA_OVERRIDE, ""),  # its own cuda() moves each critic
    ("", "  # expect: DEV107"),
])
def test_an_own_cuda_that_moves_list_members_registers_them(override, mark):
    source = OWN_CUDA.format(override=override, mark=mark)
    assert found(source) == expected_findings(source)


ANNOTATED = """
import time

import torch
import torch.nn as nn
from registry import resolve_callable


class PPO:
    @classmethod
    def construct(cls, device):
        return cls(device)

    def __init__(self, device):
        self.net = nn.Linear(8, 1).to(device)
        self.device = device

    def update(self):
        loss = self.net(torch.randn(32, 8, device=self.device)).pow(2).mean()
        loss.backward()
        return loss.item()


def learn(name):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    {made}
    obs = torch.randn(16, 8, device=device)
    start = time.time()
    alg.net(obs)
    stats = alg.update()
    took = time.time() - start{mark}
    return stats, took
"""


@pytest.mark.parametrize("made, mark", [
    ("alg_class: type[PPO] = resolve_callable(name)\n    alg = alg_class.construct(device)", ""),
    ("alg: PPO = resolve_callable(name)(device)", ""),
    # nothing says what it is: its update may leave GPU work queued
    ("alg = resolve_callable(name)(device)", "  # expect: DEV301"),
    ("alg: typing.Any = resolve_callable(name)(device)", "  # expect: DEV301"),
])
def test_an_annotation_names_the_class_of_an_unseen_value(made, mark):
    source = ANNOTATED.format(made=made, mark=mark)
    assert found(source) == expected_findings(source)


EVERY_KEY = """
import torch
import torch.nn as nn


class Learner:
    def __init__(self, n_agents, use_cuda):
        self.n_agents = n_agents
        self.use_cuda = use_cuda
        self.critic = nn.Linear(4, 1)
        if use_cuda:
            self.critic.cuda()

    def learn(self, batch, names):
        for key in {over}:
            {store}
        inputs = self._inputs(batch)
        if self.use_cuda:
            inputs = inputs.cuda()
        return self.critic(inputs)

    def _inputs(self, batch):
        onehot = batch["onehot"][:, 0]
        onehot = onehot.view((onehot.shape[0], 1, -1)).repeat(1, self.n_agents, 1)
        mask = 1 - torch.eye(self.n_agents)
        return onehot * mask.unsqueeze(0){mark}
"""

CONVERT = "batch[key] = torch.tensor(batch[key], dtype=torch.float32)"
BY_KIND = ("if key == 'u':\n                batch[key] = torch.tensor(batch[key], dtype=torch.long)\n"
           "            else:\n                batch[key] = torch.tensor(batch[key], dtype=torch.float32)")


@pytest.mark.parametrize("over, store, mark", [
    ("batch.keys()", CONVERT, ""),
    ("batch", BY_KIND, ""),
    ("list(batch)", CONVERT, ""),
    # some other keys: the rest of the batch is where the caller's was
    ("names", CONVERT, "  # expect: DEV104"),
    # each entry sent to the GPU: the walk keeps what it knew of the batch (Nystromformer's partition_inputs,
    # whose rewrite a first version took, lost the `.item()` that ends its caller's measurement)
    ("batch.keys()", "batch[key] = batch[key].cuda()  # expect: DEV201", "  # expect: DEV104"),
])
def test_a_loop_over_the_keys_rewrites_every_entry(over, store, mark):
    source = EVERY_KEY.format(over=over, store=store, mark=mark)
    assert found(source) == expected_findings(source)


NEW_PARAMETER = """
import torch
import torch.nn as nn


class ValueNorm(nn.Module):
    def __init__(self, n, device=torch.device("cpu")):
        super().__init__()
        self.tpdv = dict(dtype=torch.float32, device=device)
        {line}{mark}

    def forward(self, x):
        return x


norm = ValueNorm(3, device=torch.device("cuda" if torch.cuda.is_available() else "cpu"))
"""


@pytest.mark.parametrize("line, mark", [
    ("self.mean = nn.Parameter(torch.zeros(n), requires_grad=False).to(**self.tpdv)", "  # expect: DEV109"),
    ("self.mean = nn.Parameter(torch.zeros(n)).to(device)", "  # expect: DEV109"),
    # the data moved, then made a parameter: registered
    ("self.mean = nn.Parameter(torch.zeros(n).to(device))", ""),
    # already where it goes: `.to()` gives the parameter itself
    ("self.mean = nn.Parameter(torch.zeros(n, device=device)).to(device)", ""),
    # a copy used at once, or held by a name: nothing to register
    ("self.scale = 2 * nn.Parameter(torch.zeros(n)).to(device)", ""),
    ("mean = nn.Parameter(torch.zeros(n)).to(device)", ""),
])
def test_a_new_parameter_moved_is_a_plain_tensor(line, mark):
    source = NEW_PARAMETER.format(line=line, mark=mark)
    assert found(source) == expected_findings(source)


KEYED_STORE = """
import torch


def collect(scores, labels, extra):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = {{"rec.score": scores.clone()}}
    {before}
    if "data.label" not in data:
        data["data.label"] = labels.to(device)
    else:
        data["data.label"] = torch.cat((data["data.label"], labels.to(device))){mark}
    return data


collect(torch.zeros(3), torch.zeros(3), {{"x": torch.zeros(1)}})
"""


@pytest.mark.parametrize("before, mark", [
    ("pass", ""),  # every key known: the entry is made, the else branch never runs
    # keys written by update: `"data.label" not in data` is not known, and the entries are read as one
    ("data.update(extra)", "  # expect: DEV104"),
])
def test_a_dict_of_known_keys_answers_in(before, mark):
    source = KEYED_STORE.format(before=before, mark=mark)
    assert found(source) == expected_findings(source)


DEVICE_TEST = """
import torch


class Metric:
    def __init__(self, extractor, device="cpu"):
        self._device = torch.device(device)
        self._extractor = extractor.to(device)

    def extract(self, inputs):
        inputs = inputs.detach()
        if inputs.device != torch.device(self._device):
            inputs = {then}
        return self._extractor(inputs){mark}


metric = Metric(torch.nn.Linear(10, 4), device="cuda")  # expect: DEV201
metric.extract(torch.rand(10, 10))
"""


@pytest.mark.parametrize("then, mark", [
    ("inputs.to(self._device)", ""),  # where the test fails, inputs is on that device already
    ("inputs.float()", "  # expect: DEV102"),  # where it holds, inputs stays on the cpu
])
def test_a_device_test_places_its_tensor_where_it_fails(then, mark):
    source = DEVICE_TEST.format(then=then, mark=mark)
    assert found(source) == expected_findings(source)



SHAPE_OF = """
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
obs = torch.zeros(4, 3).to(device)
size = {call}{mark}
"""


@pytest.mark.parametrize("call, mark", [
    ("np.shape(obs)[0]", ""),
    ("np.ndim(obs)", ""),
    ("np.asarray(obs).shape[0]", "  # expect: DEV401"),
])
def test_numpy_shape_reads_the_tensor_shape(call, mark):
    source = SHAPE_OF.format(call=call, mark=mark)
    assert found(source) == expected_findings(source)


FORWARDED = """
import torch
import torch.nn as nn


class Agent:
    def __init__(self, config):
        self.device = config.get("device", "cuda:0")
        self.model = nn.Linear(4, 2)
        self.model.to(self.device)


def create(**kwargs):
    {body}


def test_forward_shape():
    agent = create(config={{"device": {device}}})
    obs = torch.randn(5, 4)
    assert agent.model(obs).shape == (5, 2){mark}
"""


@pytest.mark.parametrize("body, device, mark", [
    ("return Agent(**kwargs)", '"cpu"', ""),
    ("builder = lambda **kw: Agent(**kw)\n    return builder(**kwargs)", '"cpu"', ""),
    # the config forwarded names the device chosen at run time: the cpu input does not go with it
    ("return Agent(**kwargs)", '"cuda" if torch.cuda.is_available() else "cpu"', "  # expect: DEV102"),
])
def test_keywords_are_forwarded_through_kwargs(body, device, mark):
    source = FORWARDED.format(body=body, device=device, mark=mark)
    assert found(source) == expected_findings(source)
