"""Names real code binds twice, values a path leaves behind, and attributes read off `None`: what the
development excerpts of ../shared/realworld taught (each named where it is checked).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, REALWORLD

CASES = {
    # A stopwatch class pasted above the script that uses it, then imported by name from a module the
    # project cannot find: the class written here is what the name means.
    "a_timer_defined_here_then_imported_from_an_unknown_module": """
import time
import torch
class Stopwatch:
    def __init__(self):
        self.begun = 0.0
    def start(self):
        self.begun = time.time()
    def stop(self):
        return time.time() - self.begun  # expect: DEV301
from helpers.clock import Stopwatch
def evaluate(net, images, use_gpu):
    watch = Stopwatch()
    for image in images:
        if use_gpu:
            image = image.cuda()
        watch.start()
        scores = net(image)
        print(watch.stop())
""",
    "twin_the_timer_defined_here_synchronizes": """
import time
import torch
class Stopwatch:
    def __init__(self):
        self.begun = 0.0
    def start(self):
        self.begun = time.time()
    def stop(self):
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        return time.time() - self.begun
from helpers.clock import Stopwatch
def evaluate(net, images, use_gpu):
    watch = Stopwatch()
    for image in images:
        if use_gpu:
            image = image.cuda()
        watch.start()
        scores = net(image)
        print(watch.stop())
""",
    # A library's name is the library's, whatever the file defined before under that name.
    "twin_a_library_import_replaces_a_definition_of_the_same_name": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
def ones(*shape):
    return torch.ones(*shape, device=device)
from torch import ones
bias = ones(3)
weight = torch.randn(3, device=device)
out = weight + bias  # expect: DEV101
""",
    # `self.device = None` in `__init__`, set by another method before this one runs: a test of its `.type`
    # is a test of the device the object was given, not an attribute of None
    "twin_a_device_type_test_on_an_attribute_set_after_init": """
import torch
class Bench:
    def __init__(self):
        self.device = None
    def run(self, device):
        self.device = device
    def wait(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize()
""",
    "the_same_wait_without_the_test": """
import torch
class Bench:
    def __init__(self):
        self.device = None
    def run(self, device):
        self.device = device
    def wait(self):
        torch.cuda.synchronize()  # expect: DEV203
""",
    # Resuming on one path only: the optimizer's state, loaded while the model is on the cpu, stays there on
    # that path when the model moves after the `if`.
    "optimizer_state_loaded_on_the_resume_path_then_the_model_moves": """
import torch
from torch import nn
def main(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(8, 2)
    optimizer = torch.optim.Adam(model.parameters())
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])  # expect: DEV108
    model = model.to(device)
""",
    "twin_the_model_moves_before_the_resume": """
import torch
from torch import nn
def main(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(8, 2)
    optimizer = torch.optim.Adam(model.parameters())
    model = model.to(device)
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
    model = model.to(device)
""",
    # A model built by a factory nobody can see: the move after the load says it was not on `device` yet.
    "optimizer_state_loaded_before_a_factory_built_model_moves": """
import torch
from nets.zoo import build_net
def main(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = build_net(args.depth)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if args.resume:
        state = torch.load(args.resume, map_location="cpu")
        optimizer.load_state_dict(state["optimizer"])  # expect: DEV108
    model = model.to(device)
""",
    "twin_the_factory_built_model_moves_before_the_load": """
import torch
from nets.zoo import build_net
def main(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = build_net(args.depth).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if args.resume:
        state = torch.load(args.resume, map_location="cpu")
        optimizer.load_state_dict(state["optimizer"])
    model = model.to(device)
""",
    # a model handed in may have been moved by the caller: the move here may be a no-op
    "twin_a_model_given_by_the_caller": """
import torch
def resume(model, path):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    state = torch.load(path, map_location="cpu")
    optimizer.load_state_dict(state["optimizer"])
    model.to(device)
from nets.zoo import pretrained
resume(pretrained("resnet18"), "last.pt")
""",
    # A template method: the base class times `self.step()`, which it only declares; the one subclass of the file
    # does the GPU work. The base's `run()`, analysed on its own, runs the override.
    "a_base_class_times_the_step_its_subclass_defines": """
import time
import torch
class Benchmark:
    def run(self, device):
        self.x = torch.randn(64, 64, device=device)
        start = time.perf_counter()
        self.step()
        return time.perf_counter() - start  # expect: DEV301
    def step(self):
        \"\"\"One timed iteration.\"\"\"
        raise NotImplementedError
class MatMul(Benchmark):
    def step(self):
        self.y = self.x @ self.x
""",
    "twin_the_subclass_step_synchronizes": """
import time
import torch
class Benchmark:
    def run(self, device):
        self.x = torch.randn(64, 64, device=device)
        start = time.perf_counter()
        self.step()
        return time.perf_counter() - start
    def step(self):
        raise NotImplementedError()
class MatMul(Benchmark):
    def step(self):
        self.y = self.x @ self.x
        if torch.cuda.is_available():
            torch.cuda.synchronize()
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)




@pytest.mark.skipif(REALWORLD is None, reason="../shared/realworld is not next to this checkout")
@pytest.mark.parametrize("excerpt, line, code", [
    # RFBNet: utils/timer.py's Timer pasted above test_RFB.py, which imports it; toc() reads time.time() after
    # the cuda forward
    ("127_UNSYNCED_TIMING_rfbnet_timer_im_detect.py", 31, "DEV301"),
    # ganomaly: lib/evaluate.py pasted above lib/model.py, which imports `evaluate` from it: roc_curve of
    # labels kept on the model's device
    ("110_NUMPY_ON_CUDA_ganomaly_sklearn_roc_cuda.py", 48, "DEV401"),
    # IAGNet: `model = get_IAGNet(...)`, Adam's state loaded on the resume path, then `model = model.to(device)`
    ("119_OTHER_DEVICE_iagnet_resume_optimizer_state_cpu.py", 42, "DEV108"),
])
def test_real_excerpt(excerpt, line, code):
    source = (REALWORLD / excerpt).read_text()
    assert (line, code) in found(source)


@pytest.mark.skipif(REALWORLD is None, reason="../shared/realworld is not next to this checkout")
def test_real_excerpt_that_synchronizes_by_device_type_is_clean():
    # mlx-benchmark after its fix: `if self.device.type == "cuda": torch.cuda.synchronize()`, where
    # `self.device = None` in `__init__` and `run()` sets it
    source = (REALWORLD / "123_NEGATIVE_mlx_benchmark_cuda_synced.py").read_text()
    assert found(source) == set()


def test_what_an_abstract_method_is():
    import libcst as cst
    from devlint.static.analysis.definitions import is_abstract

    def first(code: str) -> cst.FunctionDef:
        return cast_def(cst.parse_module(code).body[0])

    def cast_def(node: cst.CSTNode) -> cst.FunctionDef:
        assert isinstance(node, cst.FunctionDef)
        return node

    assert is_abstract(first('def f(self):\n    """Doc."""\n    raise NotImplementedError("subclass")\n'))
    assert is_abstract(first("@abc.abstractmethod\ndef f(self):\n    return 1\n"))
    assert not is_abstract(first("def f(self):\n    pass\n"))  # a hook that does nothing: it may well run
    assert not is_abstract(first("def f(self):\n    if x:\n        raise NotImplementedError\n    return 1\n"))
    assert not is_abstract(first("def f(self):\n    raise ValueError\n"))


TIMER_MODULE = """\
import time


class Stopwatch:
    def __init__(self):
        self.begun = 0.0

    def start(self):
        self.begun = time.time()

    def stop(self):
        return time.time() - self.begun
"""

TIMED_SCRIPT = """\
import torch
from helpers.clock import Stopwatch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = torch.nn.Linear(8, 8).to(device)
watch = Stopwatch()
for batch in range(10):
    x = torch.randn(4, 8).to(device)
    watch.start()
    y = net(x)
{wait}    print(watch.stop())
"""


def _project(tmp_path: Path, script: str) -> list:
    from devlint.static.engine import check_source
    from devlint.static.rules import ALL_RULES

    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("")
    (tmp_path / "helpers" / "clock.py").write_text(TIMER_MODULE)
    (tmp_path / "bench.py").write_text(script)
    clock = str((tmp_path / "helpers" / "clock.py").resolve())
    rules = [r() for r in ALL_RULES if r.default_enabled]
    return check_source((tmp_path / "bench.py").read_bytes(), str(tmp_path / "bench.py"), rules,
                        checked={clock: "helpers/clock.py"})


def test_another_modules_timer_around_this_files_gpu_work(tmp_path):
    # RFBNet's test_RFB.py times `net(x)` with utils/timer.py's Timer, a module that never names torch: its own
    # file queues no GPU work, so the measurement is judged where the work is, and reported at the clock read
    findings = _project(tmp_path, TIMED_SCRIPT.format(wait=""))
    assert [(f.path, f.line, f.code) for f in findings] == [("helpers/clock.py", 12, "DEV301")]
    assert any("bench.py:10 `net(x)`" in step for step in findings[0].why), findings[0].why


def test_another_modules_timer_after_a_synchronize(tmp_path):
    wait = "    if torch.cuda.is_available():\n        torch.cuda.synchronize()\n"
    assert _project(tmp_path, TIMED_SCRIPT.format(wait=wait)) == []


def test_another_modules_timer_around_host_work(tmp_path):
    script = TIMED_SCRIPT.format(wait="").replace("y = net(x)", "y = sorted(range(1000))")
    assert _project(tmp_path, script) == []
