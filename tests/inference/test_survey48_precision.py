"""False findings of the forty-eighth and forty-ninth precision surveys (issue 17 item 9), and of earlier surveys'
leftovers, each beside a twin that must stay reported.

- A small helper is followed past the walk's call depth: asteroid's `get_device(wav)` six calls down from a CLI
  test, left unknown, made `input_device` read as a device chosen at run time, so the output moved back to it
  was taken to be on the GPU when `.numpy()` read it (1 DEV401). Its twin, the output left on the model's device,
  was missed at that depth before.
- A `device="cuda"` default that every call of the run overrides (`Runner(model, device=device)` in another module)
  is never read: no hardcoded GPU there (the warning left alone by the surveys of the last stop; a constructor's
  callers are read for its `__init__` analysed on its own, as for any function).
- transformers' `model.generate(ids)` reads on the host, every step, whether all sequences have finished: a clock
  read after it times the work (DEV301 left alone by the last stop: TinyLlama's assisted decoding, accelerate's
  big-model benchmark, trlx's trainers, audiocraft's MusicGen solver on the regression run, 6 warnings).

Survey 48 (applied projects: 4 false errors of 5, 6 false warnings of 40) and survey 49 (2022-2025 research
code: 2 false errors of 9, 6 false warnings of 40):
- A batch dict whose parts were placed one by one (`{"images": images.to(device), "lengths": lengths}`) is judged
  where the walked forward uses each part, not as a whole at the call (aster, 1 DEV102).
- A dict that names modules registered as attributes (`{"bce": self.bce, "dice": self.dice}`) holds nothing
  unregistered: its element joins registered modules (xview2, 1 DEV107).
- `torch.cuda.synchronize()` completes the events a timer keeps on itself (`self.end.record()`), as it does those
  in local names (K-Planes, 1 DEV302).
- A plain tensor attribute the owner replaces before every call (`self.func.drive = x[:, i]`, an ODE function's
  input) is not the cpu placeholder `__init__` made when the method is analysed on its own (lipschitz RNN, 1 DEV105).
- `F.one_hot(t, vocab)`, `torch.topk(x, k)`, `torch.chunk(x, n)`: counts, never operands (s4's copying task, DEV104).
- `dist.get_backend() == dist.Backend.NCCL` (or `== "nccl"`) is true only with GPUs (hyena-dna, DEV201).
- `torch.set_default_tensor_type('torch.cuda.FloatTensor')` in a script reaches the modules its imports import,
  three deep (aster's builder and head, 3 DEV104).
- A test module under a conftest.py that skips its folder without CUDA runs with a GPU (xlstm, DEV201).
- A GPU index chosen at run time (`f"cuda:{args.gpu}"`, `torch.device("cuda", rank)`, `"cuda:%d" % rank`) beside
  GPU 0 written in the code crashes whenever the index is another one (AdaFace's validation scripts, missed).
- A 'cuda' literal of this file that another module's code places things on (`det.Detector(device="cuda:0")`
  built at import time) is this file's hardcoded GPU (AdaFace's face_alignment/align.py, missed).
Survey 50 (widely used training code 2018-2023, pinned to the code after the fixes above: 15 false errors of 15,
4 false warnings of 34):
- A plain object a module holds, holding the module's own submodules and parameters (`Stepper(self.emb, self.w)`),
  holds the same objects: `Module.to` moves them in place (fast_abs_rl's decoders, 8 DEV101/DEV102).
- A bare read of a tensor method's name (`model.dim`, a width) is no evidence of a tensor; a call is (XLM, 1 DEV103).
- `"prob: %.4f" % p` is a str, the value read on the host (pytorch-video-recognition's inference script, 1 DEV401).
- `torch.load(path).numpy()`: only cpu tensors convert so (ActionFormer's Ego4D feature conversion, 2 DEV202).
Survey 51 (small repositories by individuals, same code: 3 false errors of 8, 9 false warnings of 40):
- The builtin `max(acc, best)` reads `acc > best` on the host: a GPU `acc` makes it wait (tczhangzhi's
  pytorch-distributed, 2 DEV301).
- `np.random.normal(scale=0.2)` without `size` is one number: `torch.tensor` of it is 0-dim (philtabor's TD3,
  1 DEV101).
- A constructor taking only keyword parameters, given `*args` of unknown length, is followed: the sequence
  passes nothing (or the call raises), and `__init__`'s `self.cuda(rank)` moves the module (lightweight-gan, 2 DEV102).
Left alone: a model class chosen by name at run time whose instances move their own inputs (news-recommendation,
2 DEV101: the output is judged to follow the cpu batch); an `isinstance(device, int)` branch a string caller
never takes; a post-processor built by `eval()`; `str(device).__contains__('cuda')`; a module used as a data
transform; a cpu count tensor a submodule never reads; `torch.tensor(n, torch.float32)` (a TypeError anyway).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, infer, lint, lint_in_run

DEEP_HELPER = """
import numpy as np
import torch


def get_device(obj, default="cpu"):
    if hasattr(obj, "device"):
        return obj.device
    return torch.device(default)


def separate_tensor(model, wav):
    input_device = get_device(wav)
    wav = wav.to(get_device(model))
    out = model(wav)
    return {returned}


def separate_numpy(model, wav):
    out = separate_tensor(model, torch.from_numpy(wav))
    return out.numpy(){mark}


def separate(model, name):
    return separate_numpy(model, np.load(name))


def infer(device, name):
    model = torch.nn.Linear(2, 2).to(device)
    return separate(model, name)


def cli(argv):
    return infer(argv[0], argv[1])


def test_cli():
    cli(["cuda", "x.npy"])  # expect: DEV201
"""


@pytest.mark.parametrize("returned, mark", [
    ("out.to(input_device)", ""),
    ("out", "  # expect: DEV401"),
])
def test_a_small_helper_past_the_call_depth(returned, mark):
    source = DEEP_HELPER.format(returned=returned, mark=mark)
    assert found(source) == expected_findings(source)


DEFAULTED = {
    "pkg/__init__.py": "",
    "pkg/runner.py": """
        import torch


        class Runner:
            def __init__(self, model, device="cuda"):
                self.device = device
                self.model = model.to(device)

            def step(self, x):
                return self.model(x.to(self.device))


        def make_mask(n, device="cuda:0"):
            return torch.ones(n, device=device)
        """,
    "train.py": """
        import torch
        import torch.nn as nn
        from pkg.runner import Runner, make_mask


        def main():
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            runner = {runner}
            mask = {mask}
            return runner.step(torch.zeros(1, 2)), mask


        if __name__ == "__main__":
            main()
        """,
}


@pytest.mark.parametrize("runner, mask, reported", [
    ("Runner(nn.Linear(2, 2), device=device)", "make_mask(3, device)", set()),
    # a caller that passes no device runs the default: a GPU written into the code
    ("Runner(nn.Linear(2, 2))", "make_mask(3, device)", {6}),
    ("Runner(nn.Linear(2, 2), device)", "make_mask(3)", {14}),
])
def test_a_device_default_every_caller_of_the_run_overrides(tmp_path, runner, mask, reported):
    files = dict(DEFAULTED)
    files["train.py"] = files["train.py"].replace("{runner}", runner).replace("{mask}", mask)
    findings = lint_in_run(tmp_path, files, "pkg/runner.py")
    assert {f.line for f in findings if f.code == "DEV201"} == reported


GENERATE = """
import time
import torch
import torch.nn as nn
from transformers import AutoModelForCausalLM


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(4, 4)

    def generate(self, ids, steps):
        for _ in range(steps):
            ids = torch.cat([ids, self.head(ids.float()).argmax(-1, keepdim=True)], dim=1)
        return ids


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = {model}.to(device)
ids = torch.ones(1, 4, dtype=torch.long).to(device)
start = time.time()
out = model.generate(ids, 8)
print(time.time() - start){mark}
"""


@pytest.mark.parametrize("model, mark", [
    # transformers' generate reads every step whether all sequences have finished: it returns after the work
    ('AutoModelForCausalLM.from_pretrained("gpt2")', ""),
    # a project's own generate, whose loop never waits, is walked: the clock is read while its work is queued
    ("TinyLM()", "  # expect: DEV301"),
])
def test_a_library_models_generate_waits_for_its_work(model, mark):
    source = GENERATE.format(model=model, mark=mark)
    assert found(source) == expected_findings(source)


PARTS = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def forward(self, batch):
        out = self.fc(batch["images"])
        return {use}


class Trainer:
    def __init__(self, model, device):
        self.model, self.device = model, device

    def parse(self, inputs):
        images, lengths = inputs
        return {{"images": images.to(self.device), "lengths": lengths}}

    def step(self, inputs):
        return self.model(self.parse(inputs))


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    trainer = Trainer(Net().to(device), device)
    for inputs in [(torch.randn(4, 8), torch.tensor([2, 3, 1, 2]))]:
        print(trainer.step(inputs).shape)
"""


@pytest.mark.parametrize("use", [
    # the lengths, left on the host, are read as Python ints: the parts are where the forward uses them
    'out[:, : int(max(batch["lengths"]))]',
    # read as a tensor beside the output: the crash is where the forward uses them
    'out * batch["lengths"].float().unsqueeze(1)  # expect: DEV101',
])
def test_a_batch_dict_placed_part_by_part(use):
    source = PARTS.format(use=use)
    assert found(source) == expected_findings(source)


NAMED_LOSSES = """
import torch
import torch.nn as nn


class Dice(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Linear(4, 4)

    def forward(self, p, t):
        return (self.scale(p) - t).abs().mean()


class Combo(nn.Module):
    def __init__(self, weights):
        super().__init__()
        self.weights = weights
        self.bce = nn.BCELoss()
        self.dice = Dice()
        self.mapping = {{"bce": self.bce, "dice": {dice}}}

    def forward(self, logits, target):
        probs = torch.sigmoid(logits)
        loss = 0
        for name, w in self.weights.items():
            loss = loss + w * self.mapping[name](probs, target){mark}
        return loss


def run():
    return Combo({{"bce": 1.0, "dice": 0.5}})(torch.randn(2, 4), torch.rand(2, 4).round())
"""


@pytest.mark.parametrize("dice, mark", [
    ("self.dice", ""),  # a name for a module registered as `self.dice`
    ("Dice()", "  # expect: DEV107"),  # a module only the dict holds
])
def test_a_dict_naming_registered_modules(dice, mark):
    source = NAMED_LOSSES.format(dice=dice, mark=mark)
    assert found(source) == expected_findings(source)


TIMER = """
import torch


class StageTimer:
    def __init__(self):
        self.begin = torch.cuda.Event(enable_timing=True)
        self.finish = torch.cuda.Event(enable_timing=True)
        self.times = {{}}

    def start(self):
        self.begin.record()

    def stop(self, label):
        self.finish.record()
        {wait}
        self.times[label] = self.begin.elapsed_time(self.finish){mark}


if __name__ == "__main__":
    if torch.cuda.is_available():
        timer = StageTimer()
        x = torch.randn(256, 256, device="cuda")
        timer.start()
        y = x @ x
        timer.stop("matmul")
        print(timer.times)
"""


@pytest.mark.parametrize("wait, mark", [
    ("torch.cuda.synchronize()", ""),  # every recorded event has completed, those kept on the object too
    ("print(label)", "  # expect: DEV302"),
])
def test_events_kept_on_the_object_and_a_synchronize(wait, mark):
    source = TIMER.format(wait=wait, mark=mark)
    assert found(source) == expected_findings(source)


PLACEHOLDER = """
import torch
import torch.nn as nn


class Derivative(nn.Module):
    def __init__(self, width, device):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(width, width))
        self.shift = torch.eye(width).to(device)
        self.drive = torch.zeros(width){mark}

    def forward(self, t, h):
        mixed = self.weight - self.shift
        return torch.tanh(torch.matmul(h, mixed) + self.drive)


class Integrator(nn.Module):
    def __init__(self, width, device):
        super().__init__()
        self.func = Derivative(width, device)

    def forward(self, x):
        h = torch.zeros(x.shape[0], x.shape[2], device=x.device)
        for i in range(x.shape[1]):
            {set_drive}
            h = h + 0.1 * self.func(0.0, h)
        return h


def run():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Integrator(8, device).to(device)
    return model(torch.randn(4, 5, 8, device=device))
"""


@pytest.mark.parametrize("set_drive, mark", [
    # the owner replaces the placeholder before every call: the cpu one is never read
    ("self.func.drive = x[:, i, :]", ""),
    ("print(i)", "  # expect: DEV105"),
])
def test_a_placeholder_attribute_its_owner_replaces(set_drive, mark):
    source = PLACEHOLDER.format(set_drive=set_drive, mark=mark)
    assert found(source) == expected_findings(source)


ONE_HOT = """
import numpy as np
import torch
import torch.nn.functional as F


def copy_task_batch(seq_len, vocab, batch=8):
    seq = np.random.randint(1, vocab - 1, size=(batch, seq_len))
    inputs = F.one_hot(torch.tensor(seq, dtype=torch.int64), {classes}).float(){mark}
    return inputs, torch.tensor(seq, dtype=torch.int64)
"""


@pytest.mark.parametrize("classes, mark", [
    ("vocab", ""),  # `num_classes`: a count, whatever its parameter's name suggests
    ("num_classes=vocab", ""),
])
def test_a_count_handed_to_one_hot_is_no_operand(classes, mark):
    source = ONE_HOT.format(classes=classes, mark=mark)
    assert found(source) == expected_findings(source)


BACKEND = """
import torch
import torch.distributed as dist


def reduce_scalar(value):
    if not (dist.is_available() and dist.is_initialized()):
        return value
    backend = dist.get_backend()
    if backend == {first}:
        device = torch.device("cuda"){mark}
    elif backend == dist.Backend.GLOO:
        device = torch.device("cpu")
    else:
        raise RuntimeError("unsupported backend")
    t = torch.tensor(value, device=device)
    dist.all_reduce(t)
    return t.item()
"""


@pytest.mark.parametrize("first, mark", [
    ("dist.Backend.NCCL", ""),  # NCCL runs on GPUs only
    ('"nccl"', ""),
    ('"mpi"', "  # expect: DEV201"),
])
def test_a_process_group_on_nccl_has_gpus(first, mark):
    source = BACKEND.format(first=first, mark=mark)
    assert found(source) == expected_findings(source)


DEFAULT_TYPE = {
    "main.py": """
        import argparse
        import torch
        import torch.nn as nn
        from builder import Model


        def main(args):
            use_cuda = args.cuda and torch.cuda.is_available()
            if use_cuda:
                {setting}
            model = Model()
            if use_cuda:
                model = nn.DataParallel(model.cuda())
            print(model(torch.randn(4, 5, 8)).shape)


        if __name__ == "__main__":
            p = argparse.ArgumentParser()
            p.add_argument("--cuda", action="store_true")
            main(p.parse_args())
        """,
    "builder.py": """
        import torch.nn as nn
        from head import Head


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = Head()

            def forward(self, x):
                return self.head(x)
        """,
    "head.py": """
        import torch
        import torch.nn as nn


        class Head(nn.Module):
            def __init__(self, hidden=16):
                super().__init__()
                self.hidden = hidden
                self.cell = nn.GRU(8, hidden, batch_first=True)

            def forward(self, x):
                state = torch.zeros(1, x.size(0), self.hidden)
                out, state = self.cell(x, state)
                return out
        """,
}


@pytest.mark.parametrize("setting, reported", [
    # the script two imports above makes CUDA the default: the head's zeros are made where the model is
    ('torch.set_default_tensor_type("torch.cuda.FloatTensor")', False),
    ("print(args)", True),
])
def test_a_cuda_default_set_by_the_importers_importer(tmp_path, setting, reported):
    files = dict(DEFAULT_TYPE)
    files["main.py"] = files["main.py"].replace("{setting}", setting)
    codes = {f.code for f in lint_in_run(tmp_path, files, "head.py")}
    assert ("DEV104" in codes) == reported


SKIPPED_FOLDER = {
    "tests/conftest.py": """
        import pytest
        import torch

        if not torch.cuda.is_available():
            pytest.skip({reason}, allow_module_level=True)
        """,
    "tests/test_decode.py": """
        import torch


        def test_greedy_decode(steps: int = 4, device: str = "cuda"):
            logits = torch.randn(2, steps, 16, device=torch.device(device))
            assert logits.argmax(-1).shape == (2, steps)
        """,
}


@pytest.mark.parametrize("guard, reported", [
    ("if not torch.cuda.is_available():", False),  # the folder's tests are skipped without CUDA
    ("if not torch.backends.mps.is_available():", True),
])
def test_a_folder_its_conftest_skips_without_cuda(tmp_path, guard, reported):
    files = dict(SKIPPED_FOLDER)
    files["tests/conftest.py"] = files["tests/conftest.py"].replace("{reason}", '"needs a GPU"').replace(
        "if not torch.cuda.is_available():", guard)
    codes = {f.code for f in lint_in_run(tmp_path, files, "tests/test_decode.py")}
    assert bool(codes & {"DEV201", "DEV204"}) == reported  # (a GPU assumed: one line, or the whole file)


RANKED = """
import argparse
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--gpu", type=int, default=0)
args = parser.parse_args()

model = nn.Linear(4, 2).to(f"cuda:{{args.gpu}}")
x = torch.randn(3, 4).to({target})
print(model(x)){mark}
"""


@pytest.mark.parametrize("target, mark", [
    # AdaFace's validation scripts: the model on the GPU the user picks, the inputs on GPU 0
    ('"cuda:0"', "  # expect: DEV102"),
    ('f"cuda:{args.gpu}"', ""),
    ("torch.device('cuda', args.gpu)", ""),
])
def test_a_gpu_index_chosen_at_run_time_beside_gpu_0(target, mark):
    source = RANKED.format(target=target, mark=mark)
    findings = {(f.line, f.code) for f in lint(source)} - {(11, "DEV201")}  # (the 'cuda:0' written in the code)
    assert findings == expected_findings(source)
    if mark:
        assert "crashes whenever `args.gpu` is not 0" in next(f.message for f in lint(source) if f.code == "DEV102")


LITERAL_PASSED_ON = {
    "pkg/__init__.py": "",
    "pkg/det.py": """
        import torch
        import torch.nn as nn


        class Detector:
            def __init__(self, device="cuda:0"):
                self.device = torch.device({chosen})
                self.net = nn.Linear(2, 2).to(self.device)
        """,
    "align.py": """
        import torch
        from pkg import det

        detector = det.Detector(device="cuda:0")


        def embed(x):
            return x.cuda() if torch.cuda.is_available() else x
        """,
}


@pytest.mark.parametrize("chosen, reported", [
    # AdaFace's align.py builds its face detector on 'cuda:0' when imported: the class places it there
    ("device", True),
    ('device if torch.cuda.is_available() else "cpu"', False),
])
def test_a_cuda_literal_another_module_places_things_on(tmp_path, chosen, reported):
    files = dict(LITERAL_PASSED_ON)
    files["pkg/det.py"] = files["pkg/det.py"].replace("{chosen}", chosen)
    findings = lint_in_run(tmp_path, files, "align.py")
    assert ({(f.line, f.code) for f in findings} == {(5, "DEV201")}) == reported
    assert bool(findings) == reported


HELPER_OBJECT = """
import torch
from torch import nn


class Stepper(object):
    def __init__(self, emb, weight):
        self._emb = emb
        self._w = weight

    def step(self, tok):
        h = self._emb(tok){mark}
        return torch.mm(h, self._w)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.w = nn.Parameter(torch.randn(4, 4))
        self.stepper = Stepper({emb}, self.w)

    def decode(self, tok):
        return self.stepper.step(tok)


def run():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = Net().to(device)
    return net.decode(torch.zeros(3, dtype=torch.long).to(device))
"""


@pytest.mark.parametrize("emb, mark", [
    # a plain object holding the module's own submodule and parameter: the same objects, moved with it
    ("self.emb", ""),
    # one made for the helper alone is registered nowhere: `Net().to(device)` leaves it on the cpu
    ("nn.Embedding(10, 4)", "  # expect: DEV102"),
])
def test_a_plain_helper_holding_the_modules_own_layers(emb, mark):
    source = HELPER_OBJECT.format(emb=emb, mark=mark)
    assert found(source) == expected_findings(source)


WIDTH_ATTRIBUTE = """
from torch import nn


class Encoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.proj = nn.Linear(dim, dim)


class Embedder(object):
    def __init__(self, model):
        self.model = model
        self.out_dim = model.{read}

    def cuda(self):
        self.model.cuda(){mark}
"""


@pytest.mark.parametrize("read, mark", [
    ("dim", ""),  # a module's width: `Tensor.dim` is a method, a bare read of the name is no tensor's
    ("dim()", "  # expect: DEV103"),  # called: only a tensor has it, and a tensor's `.cuda()` is a copy
])
def test_an_attribute_named_like_a_tensor_method(read, mark):
    source = WIDTH_ATTRIBUTE.format(read=read, mark=mark)
    assert found(source) == expected_findings(source)


FORMATTED = """
import cv2
import numpy as np
import torch
from torch import nn

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
model = nn.Linear(8, 5).to(device)
frame = np.zeros((64, 64, 3), dtype=np.uint8)
probs = torch.softmax(model(torch.randn(1, 8).to(device)), dim=1)
cv2.putText(frame, {text}, (2, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 255), 1){mark}
"""


@pytest.mark.parametrize("text, mark", [
    ('"prob: %.4f" % probs[0][1]', ""),  # a str: the number read on the host by the formatting
    ("probs[0][1]", "  # expect: DEV401"),
])
def test_a_tensor_formatted_into_a_string(text, mark):
    source = FORMATTED.format(text=text, mark=mark)
    assert found(source) == expected_findings(source)


DUMPS = """
import os
import numpy as np
import torch


def convert(feat_dir, video_ids, out_dir):
    for vid in video_ids:
        path = os.path.join(feat_dir, vid + ".pt")
        feats = torch.load(path){convert}{mark}
        np.save(os.path.join(out_dir, vid + ".npy"), feats)
"""


@pytest.mark.parametrize("convert, mark", [
    (".numpy()", ""),  # only cpu tensors convert so: the dumps hold cpu tensors
    ("", "  # expect: DEV202"),
])
def test_a_load_read_straight_into_numpy(convert, mark):
    source = DUMPS.format(convert=convert, mark=mark)
    assert found(source) == expected_findings(source)


BEST_SO_FAR = """
import time
import torch
from torch import nn


def run(epochs=3):
    model = nn.Linear(8, 3).cuda()
    batch = torch.randn(16, 8).cuda()
    best = 0
    for epoch in range(epochs):
        t0 = time.time()
        acc = (model(batch).argmax(1) == 0).float().mean()
        best = {kept}
        elapsed = time.time() - t0{mark}
        print(epoch, elapsed, best)
"""


@pytest.mark.parametrize("kept, mark", [
    ("max(acc, best)", ""),  # the builtin reads `acc > best` on the host: it waits for the GPU
    ("acc", "  # expect: DEV301"),
])
def test_the_builtin_max_of_a_gpu_tensor_waits(kept, mark):
    source = BEST_SO_FAR.format(kept=kept, mark=mark)
    assert found(source) - {(8, "DEV204")} == expected_findings(source)


NOISE = """
import numpy as np
import torch
from torch import nn


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(4, 2)
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.to(self.device)

    def forward(self, x):
        return self.out(x)


def smoothed_target(policy, obs):
    act = policy(obs.to(policy.device))
    jitter = torch.clamp(torch.tensor({draw}), -0.5, 0.5)
    return act + jitter{mark}
"""


@pytest.mark.parametrize("draw, mark", [
    ("np.random.normal(scale=0.2)", ""),  # one draw, a number: a 0-dim tensor combines with any device
    ("np.random.normal(scale=0.2, size=(4, 2))", "  # expect: DEV104"),  # (the policy is a parameter here)
])
def test_one_numpy_draw_is_a_number(draw, mark):
    source = NOISE.format(draw=draw, mark=mark)
    assert found(source) == expected_findings(source)


STARRED_CONSTRUCTOR = """
import sys
import torch
from torch import nn


class GanPair(nn.Module):
    def __init__(self, {params}width=16, rank=0):
        super().__init__()
        self.G = nn.Linear(width, width)
        self.cuda(rank)


extra = sys.argv[2:]
pair = GanPair(rank=0, *extra)
"""


@pytest.mark.parametrize("params, where", [
    # keyword-only parameters: `*extra` of unknown length passes nothing (or the call raises), so `__init__` runs
    # and its `self.cuda(rank)` moves the module (lightweight-gan's trainer, 2 DEV102)
    ("*, ", "cuda:0"),
    ("depth, ", "cpu"),  # where `*extra` lands is unknown here: the body is not followed
])
def test_a_constructor_given_a_starred_sequence(params, where):
    found_globals, _ = infer(STARRED_CONSTRUCTOR.format(params=params))
    assert str(found_globals["pair"].where) == where
