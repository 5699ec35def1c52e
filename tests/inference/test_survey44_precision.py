"""False findings of the forty-fourth and forty-fifth precision surveys (issue 17 item 9), each beside a twin that
must stay reported.

Survey 44 (NLP and speech training code, 2019-2024: 3 false errors of 6, 16 false warnings of 40 sampled):
- `if self.use_gpu > 0:` and `if self.use_gpu:` test one flag: a tensor left on the cpu where the first was false
  is not on the cpu where the second is true (ColBERT's residual codec, 2 DEV101).
- Inside `if self.use_gpu:`, the flag is true: a callee handed it (`make_mask(x.cuda(), use_gpu=self.use_gpu)`)
  takes its own `if use_gpu:` branch, not the cpu one (1 DEV101).
Survey 45 (vision and RL projects, 2021-2025: 4 false errors of 6, 12 false warnings of 40 sampled):
- A load of a file another module of the run writes (not beside it, not imported): `tools/compare.py` reading the
  chunks `pkg/codec.py` saved from `.cpu()` (ColBERT, 4 DEV202).
- An `__init__` that raises without CUDA (`if not torch.cuda.is_available(): raise NotImplementedError(...)`) makes
  an object that exists only with a GPU: its methods run with one (fairseq-style trainers, 2 DEV203).
- A module's `__init__` given a tensor (`item_pre` weights) builds the module on the cpu: analysed on its own, its
  tensor parameters are not taken to be on the device its methods run on (GraphRec-style recommenders, 3 DEV104).
- A checkpoint reloaded through the path the saving method returned (`best = self._train(3)` ...
  `torch.load(best)`), or Lightning's `checkpoint_callback.best_model_path`: the run reads back what it wrote, on
  this machine (3 DEV202).
- `forward(self, *inputs, mode)` handing `*inputs` on (`self.update_adj(*inputs)`): the tuple of the caller's
  arguments, item by item, so the callee is walked and its `.cpu()` sync seen (KGAT, 1 DEV301).
Missed there: `model.to(0)` is GPU 0 written into the code, as hardcoded as `'cuda:0'` (ATLOP's training script).
Survey 45:
- A helper handed the NCCL backend (mmcv's `init_dist(args.launcher, backend="nccl")`) sets up a group that needs
  GPUs, as `init_process_group("nccl")` does: a `distributed` flag set beside it is true only with them (ibot, 3).
- A project whose every script (each file run as `__main__`) asserts CUDA before it starts is GPU-only by its
  authors' statement: its other modules run where CUDA is (tdmpc2's replay buffer, 4 DEV201/DEV202/DEV203).
- Where `isinstance(batch, list)` holds, `batch` is no tensor: a batch moved only `if not isinstance(batch, list)`
  is not left on the cpu (ConvNeXt-V2's fine-tuning loop, 1 DEV102).
- A flag that skips every move (`if not cfg.DEBUG: x, y = x.to(device), y.to(device)`) of a device chosen at run
  time says the run is on the cpu: the flag that made `device` the cpu (YOLOP, 2 DEV102). The branch where a tensor
  stayed behind must move something itself to be a GPU path that forgot it. Also the 2017-2020 survey's NRI: `if
  x.is_cuda: h = h.cuda()` leaves h on the cpu exactly where x is on the cpu (1 DEV101).

Surveys 46 (medical, audio, 3D, scientific ML: 3 false errors of 5, 5 false warnings of 40) and 47 (code around big
models: 0 false errors of 5, 9 false warnings of 40):
- A module class mixing in `ABC` makes no parameter from it: a module with none follows its input (neuraloperator's
  embeddings, 2 DEV102); one holding members of unknown kind its caller handed it (audiocraft's AudioSeal and its
  generator) may still have a device.
- An object of a class with a `forward` and no nn.Module base, or of its subclass, that holds only what its caller
  handed it (an attack around the caller's model) is where that is, unknown here, not on the cpu where modules
  start (torchattacks' MultiAttack, 1 DEV102 the regression run showed once `*args` were handed on).
- numpy builds an array of a list of dicts without reading the tensors inside them (siren's validation losses,
  1 DEV401).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from devlint.core.values import Module
from tests.lint_helpers import found, infer, lint_in_run

CODEC = """
import torch


class Codec:
    def __init__(self, config, centroids):
        self.use_gpu = config.ngpus > 0
        if self.use_gpu > 0:
            self.centroids = centroids.cuda()
        else:
            self.centroids = centroids.float()

    def encode(self, embs):
        codes = []
        for batch in embs.split(4):
            if {test}:
                codes.append((self.centroids @ batch.T.cuda()).argmax(dim=0)){mark}
            else:
                codes.append((self.centroids @ batch.T.float()).argmax(dim=0))
        return torch.cat(codes)


def run():
    sample = torch.empty(16, 4)
    return Codec(object(), sample[:8].float()).encode(sample)
"""


@pytest.mark.parametrize("test, mark", [
    ("self.use_gpu", ""),
    ("self.use_gpu is True", ""),
    ("not self.use_gpu", "  # expect: DEV101, DEV201"),  # the cpu path: the `.cuda()` there is unguarded too
])
def test_one_flag_tested_two_ways(test, mark):
    source = CODEC.format(test=test, mark=mark)
    assert found(source) == expected_findings(source)


MASK = """
import torch


def make_mask(lengths, width, use_gpu=True):
    if use_gpu:
        steps = torch.arange(width).cuda() + 1
        return steps.unsqueeze(0) <= lengths.cuda().unsqueeze(-1)
    steps = torch.arange(width) + 1
    return steps.unsqueeze(0) <= lengths.unsqueeze(-1){mark}


class Packed:
    def __init__(self, lengths, use_gpu=True):
        self.use_gpu = use_gpu
        self.lengths = torch.LongTensor(lengths)

    def padded_mask(self):
        if self.use_gpu:
            return make_mask(self.lengths.cuda(), 5, use_gpu={passed})
        return make_mask(self.lengths, 5, use_gpu=self.use_gpu)


def score(lengths, ngpus):
    use_gpu = ngpus > 0
    return Packed(lengths, use_gpu=use_gpu).padded_mask()
"""


@pytest.mark.parametrize("passed, mark", [
    ("self.use_gpu", ""),
    ("False", "  # expect: DEV104"),  # told the cpu path, given a GPU tensor
])
def test_a_flag_is_known_in_its_branch(passed, mark):
    source = MASK.format(passed=passed, mark=mark)
    assert found(source) == expected_findings(source)


EPOCH = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def run_epoch(net, loader, device):
    for batch, target in loader:
        if {test}:
            batch = batch.to(device, non_blocking=True)
        else:
            target = target.to(device)
        target = target.to(device, non_blocking=True)
        loss = nn.functional.cross_entropy(net(batch), target){mark}
        loss.backward()


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = nn.Linear(16, 3)
    net.to(device)
    data = TensorDataset(torch.randn(64, 16), torch.randint(0, 3, (64,)))
    run_epoch(net, DataLoader(data, batch_size=8), device)
"""


@pytest.mark.parametrize("test, mark", [
    ("not isinstance(batch, list)", ""),
    ("not isinstance(batch, (list, tuple))", ""),
    # a tensor either way, left on the cpu where the test fails, on a path that moves its sibling
    ("batch.dim() > 1", "  # expect: DEV102"),
])
def test_no_tensor_where_a_type_test_says_list(test, mark):
    source = EPOCH.format(test=test, mark=mark)
    assert found(source) == expected_findings(source)


SKIPPED = """
import torch.nn as nn


def fit(cfg, loader, net, device):
    for x, y in loader:
        if not cfg.DEBUG:
            x = x.to(device, non_blocking=True)
            {moved}
        out = net(x){mark}
        nn.functional.mse_loss(out, y).backward()


def main(cfg):
    device = torch.device("cuda:0" if torch.cuda.is_available() and not cfg.DEBUG else "cpu")
    net = nn.Linear(4, 2).to(device)
    loader = DataLoader(TensorDataset(torch.randn(20, 4), torch.randn(20, 2)), batch_size=5)
    fit(cfg, loader, net, device)


import torch
from torch.utils.data import DataLoader, TensorDataset
"""


@pytest.mark.parametrize("moved, mark", [
    ("y = y.to(device)", ""),
    ("y = y.to(device)\n        else:\n            y = y.to(device)", "  # expect: DEV102"),  # a GPU path forgot x
])
def test_a_flag_that_skips_every_move(moved, mark):
    source = SKIPPED.format(moved=moved, mark=mark)
    assert found(source) == expected_findings(source)


PLACED = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphGRU(nn.Module):

    def __init__(self, n):
        super().__init__()
        self.msg = nn.Linear(2 * n, n)
        self.gate_h = nn.Linear(n, n, bias=False)
        self.gate_x = nn.Linear(n, n)

    def step(self, x, recv, send, h):
        pair = torch.cat([send.matmul(h), recv.matmul(h)], dim=-1)
        acc = torch.zeros(pair.size(0), pair.size(1), h.size(-1))
        if x.is_cuda:
            acc = acc.cuda()
        acc += torch.tanh(self.msg(pair))
        agg = acc.transpose(-2, -1).matmul(recv).transpose(-2, -1)
        z = F.sigmoid(self.gate_x(x) + self.gate_h(agg))
        h = (1 - z) * x + z * h{mark}
        return x + h, h

    def forward(self, seq, recv, send, every=2):
        h = torch.zeros(seq.size(0), seq.size(2), seq.size(3))
        if {test}:
            h = h.cuda()
        preds = []
        for t in range(seq.size(1) - 1):
            if t % every == 0:
                x = seq[:, t]
            else:
                x = preds[t - 1]  # feed back the previous prediction
            pred, h = self.step(x, recv, send, h)
            preds.append(pred)
        return torch.stack(preds, dim=1)
"""


@pytest.mark.parametrize("test, mark", [
    ("seq.is_cuda", ""),  # h is on the cpu exactly where the sequence is
    ("seq.dim() > 3", "  # expect: DEV101"),  # a test of the shape: h stays behind
])
def test_a_placement_test_is_no_path_left_behind(test, mark):
    source = PLACED.format(test=test, mark=mark)
    assert {f for f in found(source) if f[1] != "DEV204"} == expected_findings(source)


CHUNKS = {
    "pkg/__init__.py": "",
    "pkg/codec.py": """
        import os
        import torch


        def write_chunk(index_dir, i, embs, centroids):
            if torch.cuda.is_available():
                embs, centroids = embs.cuda(), centroids.cuda()
            codes = (centroids @ embs.T).argmax(dim=0)
            torch.save(codes.cpu(), os.path.join(index_dir, f"{i}.codes.pt"))
        """,
    "tools/compare.py": """
        import os
        import torch


        def main(index, n):
            return torch.cat([torch.load(os.path.join(index, f"{i}.{kind}.pt")) for i in range(n)])
        """,
}


@pytest.mark.parametrize("kind, reported", [
    ("codes", False),  # the run's own pipeline wrote them, from the cpu
    ("residuals", True),  # nothing of the run writes those
])
def test_a_load_of_what_another_module_of_the_run_saves(tmp_path, kind, reported):
    files = dict(CHUNKS)
    files["tools/compare.py"] = files["tools/compare.py"].replace("{kind}", kind)
    codes = {f.code for f in lint_in_run(tmp_path, files, "tools/compare.py")}
    assert ("DEV202" in codes) == reported


TRAINER = """
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, fp16=False):
        if not torch.cuda.is_available():
            {without}
        self.fp16 = fp16
        self.model = model.cuda(){hardcoded}

    def build_optimizer(self):
        if torch.cuda.get_device_capability(0)[0] >= 7 and not self.fp16:{mark}
            print("this GPU could train faster with fp16")
        return torch.optim.SGD(self.model.parameters(), lr=0.1)
"""


@pytest.mark.parametrize("without, hardcoded, mark", [
    ("raise NotImplementedError('Training on CPU is not supported')", "", ""),
    ("print('training on the cpu')", "  # expect: DEV201", "  # expect: DEV203"),
])
def test_an_init_that_raises_without_cuda(without, hardcoded, mark):
    source = TRAINER.format(without=without, hardcoded=hardcoded, mark=mark)
    assert found(source) == expected_findings(source)


PRETRAINED = """
import numpy as np
import torch
import torch.nn as nn


class Recommender(nn.Module):
    def __init__(self, n_items, n_other, dim, item_pre=None):
        super().__init__()
        self.embed = nn.Embedding(n_items + n_other, dim)
        if item_pre is not None:
            rest = nn.Parameter(torch.Tensor(n_other, dim))
            nn.init.xavier_uniform_(rest)
            self.embed.weight = nn.Parameter(torch.cat([item_pre, rest], dim=0)){mark}

    def forward(self, ids):
        return self.embed(ids)
{caller}"""


@pytest.mark.parametrize("caller, mark", [
    ("", ""),  # nobody here builds it: its weights are given as the module is, on the cpu
    ("\n\ndef main():\n    if torch.cuda.is_available():\n"
     "        Recommender(10, 5, 4, item_pre=torch.tensor(np.ones((10, 4))).cuda())\n", "  # expect: DEV104"),
])
def test_a_module_is_built_from_host_tensors(caller, mark):
    source = PRETRAINED.format(caller=caller, mark=mark)
    assert found(source) == expected_findings(source)


RELOADED = """
import os
import torch
import torch.nn as nn


class Runner:
    def __init__(self):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = nn.Linear(4, 2).to(self.device)

    def _train(self, epochs, given):
        best_path = None
        for epoch in range(epochs):
            self.model(torch.randn(8, 4, device=self.device)).sum().backward()
            best_path = os.path.join("state", "model_epoch{{}}.pt".format(epoch))
            torch.save(self.model.state_dict(), best_path)
        return {returned}

    def run(self, given):
        best_model_path = self._train(3, given)
        self.model.load_state_dict(torch.load(best_model_path)){mark}

    def evaluate(self, trainer):
        return torch.load(trainer.checkpoint_callback.{attribute}){other}
"""


@pytest.mark.parametrize("returned, attribute, mark, other", [
    ("best_path", "best_model_path", "", ""),
    ("given", "dirpath", "  # expect: DEV202", "  # expect: DEV202"),  # a path it was handed; a folder
])
def test_a_checkpoint_this_run_wrote(returned, attribute, mark, other):
    source = RELOADED.format(returned=returned, attribute=attribute, mark=mark, other=other)
    assert found(source) == expected_findings(source)


WRITTEN = """
import torch
import torch.nn as nn


def main(args):
    model = nn.Linear(4, 2)
    model.to({device}){mark}
    return model(torch.randn(3, 4).to({device})){mark}


def probe():
    return torch.cuda.is_available()
"""


@pytest.mark.parametrize("device, mark", [
    ("0", "  # expect: DEV201"),
    ("args.gpu", ""),  # the user's option
])
def test_an_integer_device_written_in_the_call(device, mark):
    source = WRITTEN.format(device=device, mark=mark)
    assert found(source) == expected_findings(source)


GPU_ONLY = {
    "buffer.py": """
        import torch


        class Buffer:
            def __init__(self, capacity):
                self.device = torch.device("cuda:0")
                free, _ = torch.cuda.mem_get_info()
                self.capacity = min(capacity, free // 1024)

            def load(self, path):
                return torch.load(path, weights_only=False)
        """,
    "train.py": """
        import sys
        import torch

        from buffer import Buffer


        def train(capacity):
            assert torch.cuda.is_available()
            Buffer(capacity).load(sys.argv[1])


        if __name__ == "__main__":
            train(100)
        """,
    "evaluate.py": """
        import torch

        from buffer import Buffer


        def evaluate():
            if not torch.cuda.is_available():
                raise RuntimeError("evaluation needs a GPU")
            return Buffer(10)


        if __name__ == "__main__":
            evaluate()
        """,
    "envs/walker.py": """
        import numpy as np


        def step(state):
            return np.clip(state + 1, 0, 10)


        if __name__ == "__main__":  # an environment's own demo: no device code, no CUDA check needed
            print(step(np.zeros(3)))
        """,
}


@pytest.mark.parametrize("demands, reported", [
    ("raise RuntimeError('evaluation needs a GPU')", False),
    ("print('evaluating on the cpu')", True),  # one script runs without CUDA: the buffer's assumptions show
])
def test_a_project_whose_every_script_demands_cuda(tmp_path, demands, reported):
    files = dict(GPU_ONLY)
    files["evaluate.py"] = files["evaluate.py"].replace("raise RuntimeError(\"evaluation needs a GPU\")", demands)
    codes = {f.code for f in lint_in_run(tmp_path, files, "buffer.py")}
    assert bool(codes & {"DEV201", "DEV202", "DEV203"}) == reported, codes


GAN = """
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, args):
        self.G = nn.Linear(100, 4)
        self.check_cuda(args.cuda == "True")

    def variable(self, arg):
        if self.cuda:
            return arg.cuda(self.cuda_index)
        else:
            return arg

    def check_cuda(self, cuda_flag=False):
        if cuda_flag:
            self.cuda_index = 0
            self.cuda = True
            self.G.cuda(self.cuda_index)
        else:
            self.cuda = False

    def train(self):
        z = self.variable(torch.randn(64, 100))
        fake = self.G(z)
        z = self.variable(torch.randn(8, 100))
        return fake, self.G({second}){mark}
"""


@pytest.mark.parametrize("second, mark", [
    ("z", ""),  # what the flag told one call is not what it tells the next: both take its branch
    ("torch.randn(8, 100)", "  # expect: DEV102"),
])
def test_a_flag_known_in_a_method_is_not_known_after_it(second, mark):
    source = GAN.format(second=second, mark=mark)
    assert {f for f in found(source) if f[1] != "DEV204"} == expected_findings(source)


SPREAD = """
import time
import torch
import torch.nn as nn


class Graph(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.emb = nn.Embedding(n, 8)
        self.register_buffer("adj", torch.zeros(n, n))

    def update_adj(self, heads, tails):
        scores = (self.emb(heads) * self.emb(tails)).sum(-1)
        adj = torch.zeros(self.adj.shape, device=scores.device)
        adj[heads, tails] = scores
        self.adj.data = torch.softmax(adj{host}, dim=1).to(self.adj.device)

    def forward(self, *inputs, mode):
        if mode == "update":
            return self.update_adj(*inputs)
        return self.emb(inputs[0])


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Graph(10).to(device)
    h, t = torch.arange(10, device=device), torch.arange(10, device=device).flip(0)
    start = time.time()
    model(h, t, mode="update")
    print("update took", time.time() - start){mark}
"""


@pytest.mark.parametrize("host, mark", [
    (".cpu()", ""),  # the softmax runs on the host: the GPU work is done when the clock is read
    ("", "  # expect: DEV301"),
])
def test_star_arguments_handed_on(host, mark):
    source = SPREAD.format(host=host, mark=mark)
    assert found(source) == expected_findings(source)


ENCODING = """
from abc import ABC, abstractmethod

import torch
from torch import nn


class Encoding(nn.Module, ABC):
    @abstractmethod
    def out_dim(self):
        ...


class Fourier(Encoding):
    def __init__(self, n_freqs):
        super().__init__()
        self.n_freqs = n_freqs{weights}

    def out_dim(self):
        return 2 * self.n_freqs

    def forward(self, x):
        k = torch.arange(self.n_freqs, device=x.device)
        return torch.cat([(x[..., None] * k).sin(), (x[..., None] * k).cos()], dim=-1)


def check(device):
    feat = Fourier(4)
    return feat(torch.linspace(0, 1, 8).to(device)).shape{mark}
"""


@pytest.mark.parametrize("weights, mark", [
    ("", ""),  # nothing of it lives on a device: it computes where its input is
    ("\n        self.scale = nn.Linear(1, 1)", "  # expect: DEV102"),
])
def test_a_module_with_no_parameters_follows_its_input(weights, mark):
    source = ENCODING.format(weights=weights, mark=mark)
    assert found(source) == expected_findings(source)


DICTS = """
import numpy as np
import torch


def mse_loss(pred, target):
    return {returned}


def validate(model, val_loader):
    vals = []
    for x, y in val_loader:
        vals.append(mse_loss(model(x.cuda()), y.cuda()))
    print(np.mean(vals)){mark}


def main(loader):
    if torch.cuda.is_available():
        validate(torch.nn.Linear(3, 1).cuda(), loader)
"""


@pytest.mark.parametrize("returned, mark", [
    ('{"mse": ((pred - target) ** 2).mean()}', ""),  # an array of dict objects: no tensor converted
    ("((pred - target) ** 2).mean()", "  # expect: DEV401"),
])
def test_numpy_reads_no_tensor_inside_a_dict(returned, mark):
    source = DICTS.format(returned=returned, mark=mark)
    assert found(source) == expected_findings(source)



LAUNCHER = """
import argparse

import torch
import torch.nn as nn
from mmcv.parallel import MMDataParallel, MMDistributedDataParallel
from mmcv.runner import init_dist, load_checkpoint


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--launcher", choices=["none", "pytorch", "slurm"], default="none")
    parser.add_argument("--local_rank", type=int, default=0)
    args = parser.parse_args()
    if args.launcher == "none":
        distributed = False
    else:
        distributed = True
        init_dist(args.launcher, backend={backend})
    model = nn.Linear(8, 2)
    load_checkpoint(model, "model.pth", map_location="cpu")
    if not distributed:
        model = MMDataParallel(model, device_ids=[0])
    else:
        model = MMDistributedDataParallel(model.cuda(), device_ids=[torch.cuda.current_device()]){mark}
    return model


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("backend, mark", [
    ('"nccl"', ""),
    ('"gloo"', "  # expect: DEV201, DEV203"),  # a cpu backend: the branch may run without a GPU
])
def test_a_launcher_given_the_nccl_backend(backend, mark):
    source = LAUNCHER.format(backend=backend, mark=mark)
    assert {f for f in found(source) if f[1] != "DEV204"} == expected_findings(source)


ATTACK = """
import torch
import torch.nn as nn


class Attack(object):
    def __init__(self, model):
        self.model = model{own}

    def forward(self, images):
        raise NotImplementedError

    def __call__(self, images, *args):
        return self.forward(images, *args)


class PGD(Attack):
    def forward(self, images):
        return images + 0.01 * torch.sign(self.model(images))


class Multi(Attack):
    def __init__(self, attacks):
        super().__init__(attacks[0].model)
        self.attacks = attacks

    def forward(self, images):
        for attack in self.attacks:
            images = attack(images){mark}
        return images


def main(device):
    model = nn.Linear(4, 4).to(device)
    return Multi([PGD(model), PGD(model)])(torch.randn(2, 4).to(device))
"""



@pytest.mark.parametrize("own, where", [
    ("", None),  # it holds the caller's model only: where that model is
    ("\n        self.proj = nn.Linear(4, 4)", "cpu"),  # a layer of its own, made on the cpu
])
def test_an_object_around_the_callers_model(own, where):
    source = ATTACK.format(own=own, mark="") + (
        "\n\nfrom zoo import load_model\n\nattack = PGD(load_model('resnet'))\n")  # a model nobody here sees
    attack = infer(source)[0]["attack"]
    assert isinstance(attack, Module) and (attack.where.kind if attack.where else None) == where


SEAL = """
from abc import ABC

import torch.nn as nn
from zoo import make_generator


class Watermarker(ABC, nn.Module):
    pass


class Seal(Watermarker):
    def __init__(self, generator):
        super().__init__()
        self.generator = generator


seal = Seal({given})
"""


@pytest.mark.parametrize("given, stateless", [
    ("make_generator()", False),  # handed a member of unknown kind, maybe a layer: it may have a device
    ("16", True),
])
def test_an_abc_mixin_module_holding_what_it_was_handed(given, stateless):
    seal = infer(SEAL.format(given=given))[0]["seal"]
    assert isinstance(seal, Module) and seal.stateless is stateless


OPTION = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--dist-backend", default="nccl")
parser.add_argument("--resume", default="")
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
checkpoint = torch.load(args.resume)  # expect: DEV202
"""


def test_an_options_nccl_default_sets_up_nothing():
    # (the regression run: ImageNet-style scripts whose `--dist-backend` defaults to "nccl" lost their findings)
    assert found(OPTION) == expected_findings(OPTION)


def test_a_plain_list_of_objects_with_no_module_base():
    # a plain list is where objects with no nn.Module base up their chain belong (nn.ModuleList refuses them)
    assert not {f for f in found(ATTACK.format(own="", mark="")) if f[1] == "DEV107"}
