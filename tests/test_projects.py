"""Whole-project analysis: a file sees the project modules it imports (read, never run).

The fixture packages under fixtures/projects are checked by tests/test_fixtures.py (their
`# expect:` lines); these tests pin the mechanisms one at a time on small projects built here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from devlint.core.digests import CLOSURE_PREFIX, closure_files
from devlint.static.project.layout import layout_for
from tests.lint_helpers import check_file, file_found, write_files



HELPER = """\
    import torch


    def make_mask(n):
        return torch.ones(n, n).tril()
"""

USER = """\
    import torch
    from {module} import make_mask

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    scores = torch.randn(4, 4).to(device)
    masked = scores * make_mask(4)
"""


def test_a_module_beside_the_script_is_read_and_its_lines_named(tmp_path):
    write_files(tmp_path, {"masks.py": HELPER, "train.py": USER.format(module="masks")})
    findings = check_file(tmp_path / "train.py")
    assert [(f.line, f.code) for f in findings] == [(6, "DEV101")]
    assert any("masks.py:5" in step for step in findings[0].why), findings[0].why


def test_isolated_files_knows_nothing_of_the_helper(tmp_path):
    write_files(tmp_path, {"masks.py": HELPER, "train.py": USER.format(module="masks")})
    assert file_found(tmp_path / "train.py", isolated=True) == set()


@pytest.mark.parametrize("layout, user, module", [
    ({"pyproject.toml": "", "pkg/__init__.py": "", "pkg/util/__init__.py": "", "pkg/util/masks.py": HELPER},
     "pkg/train.py", "pkg.util.masks"),
    ({"pyproject.toml": "", "src/pkg/__init__.py": "", "src/pkg/masks.py": HELPER}, "src/pkg/train.py", "pkg.masks"),
    ({"pkg/__init__.py": "", "pkg/masks.py": HELPER}, "pkg/train.py", ".masks"),
    ({"pkg/__init__.py": "", "pkg/masks.py": HELPER, "pkg/sub/__init__.py": ""}, "pkg/sub/train.py", "..masks"),
    ({"pyproject.toml": "", "pkg/__init__.py": "from .masks import make_mask\n", "pkg/masks.py": HELPER},
     "train.py", "pkg"),  # a re-export through __init__.py
    ({"pyproject.toml": "", "nsp/masks.py": HELPER}, "train.py", "nsp.masks"),  # a package without __init__.py
    ({"pyproject.toml": '[tool.devlint]\nimport-roots = ["lib"]\n', "lib/masks.py": HELPER}, "train.py", "masks"),
])
def test_imports_resolve_in_every_layout(tmp_path, layout, user, module):
    write_files(tmp_path, {**layout, user: USER.format(module=module)})
    assert file_found(tmp_path / user) == {(6, "DEV101")}


def test_star_imports_aliases_and_imports_inside_functions(tmp_path):
    write_files(tmp_path, {"pyproject.toml": "", "app/__init__.py": "", "app/masks.py": HELPER, "train.py": """\
        import torch
        import app.masks as M
        from app.masks import *

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        scores = torch.randn(4, 4).to(device)
        a = scores * M.make_mask(4)
        b = scores * make_mask(4)


        def late():
            from app.masks import make_mask as mm
            return scores * mm(4)
    """})
    assert file_found(tmp_path / "train.py") == {(7, "DEV101"), (8, "DEV101"), (13, "DEV101")}


def test_a_trainer_that_moves_the_model_moves_the_callers_model(tmp_path):
    write_files(tmp_path, {"trainer.py": """\
        class Trainer:
            def __init__(self, model, device):
                self.model = model.to(device)
    """, "good.py": """\
        import torch
        from trainer import Trainer

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = torch.nn.Linear(4, 2)
        Trainer(model, device)
        out = model(torch.randn(3, 4).to(device))
    """, "bad.py": """\
        import torch
        from trainer import Trainer

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = torch.nn.Linear(4, 2)
        Trainer(model, device)
        out = model(torch.randn(3, 4))
    """})
    assert file_found(tmp_path / "good.py") == set()
    assert file_found(tmp_path / "bad.py") == {(7, "DEV102")}


def test_aliases_see_a_move_in_place(tmp_path):
    write_files(tmp_path, {"aliases.py": """\
        import torch

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = torch.nn.Linear(4, 2)
        wrapped = torch.nn.DataParallel(model)
        models = [model]
        wrapped.to(device)
        a = model(torch.randn(3, 4))
        b = models[0](torch.randn(3, 4).to(device))
    """})
    assert file_found(tmp_path / "aliases.py") == {(8, "DEV102")}


def test_a_base_class_in_another_module_gives_its_attributes_and_methods(tmp_path):
    write_files(tmp_path, {"base.py": """\
        import torch
        import torch.nn as nn


        class Base(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
                self.bias_table = torch.zeros(dim)

            def project(self, x):
                return self.proj(x)
    """, "net.py": """\
        from base import Base as Parent


        class Net(Parent):
            def forward(self, x):
                return self.project(x) + self.bias_table
    """})
    findings = check_file(tmp_path / "net.py")
    assert [(f.line, f.code) for f in findings] == [(6, "DEV105")]
    assert findings[0].why[0].startswith("defined at ") and "base.py:9" in findings[0].why[0]
    assert not findings[0].edits  # the fix would be in base.py: none is offered here


def test_a_device_constant_of_a_config_module(tmp_path):
    write_files(tmp_path, {"config.py": 'DEVICE = "cuda"\n', "run.py": """\
        import torch
        from config import DEVICE

        x = torch.zeros(3, device=DEVICE)
        y = torch.ones(3, device=DEVICE)
    """})
    findings = check_file(tmp_path / "run.py")
    assert [(f.line, f.code) for f in findings] == [(4, "DEV201")]  # one literal, one finding
    assert "config.py:1" in findings[0].why[0]


def test_a_timer_around_an_imported_function_that_launches_gpu_work(tmp_path):
    write_files(tmp_path, {"work.py": """\
        def run(model, x):
            return model(x)
    """, "bench.py": """\
        import time
        import torch
        from work import run

        model = torch.nn.Linear(8, 8).cuda()
        x = torch.randn(4, 8).cuda()
        start = time.perf_counter()
        run(model, x)
        print(time.perf_counter() - start)
    """})
    findings = [f for f in check_file(tmp_path / "bench.py") if f.code == "DEV301"]
    assert [f.line for f in findings] == [9]
    assert any("line 8 `run(model, x)`" in step for step in findings[0].why), findings[0].why


def test_import_cycles_end(tmp_path):
    write_files(tmp_path, {"a.py": """\
        import torch
        from b import helper_b


        def helper_a(n):
            return helper_b(n) + torch.zeros(n)
    """, "b.py": """\
        import torch
        from a import helper_a


        def helper_b(n):
            return torch.ones(n)
    """, "main.py": """\
        import torch
        from a import helper_a

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        y = torch.randn(3).to(device) + helper_a(3)
    """})
    assert file_found(tmp_path / "main.py") == {(5, "DEV101")}
    assert file_found(tmp_path / "a.py") == set() and file_found(tmp_path / "b.py") == set()


def test_bad_modules_are_unknown_and_cost_nothing_else(tmp_path):
    write_files(tmp_path, {"broken.py": "def make_mask(n:\n", "binary.py": "", "main.py": """\
        import torch
        from broken import make_mask
        from binary import thing
        from missing import other

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        y = torch.randn(3).to(device) + make_mask(3) + thing + other
        z = torch.randn(3).to(device) + torch.zeros(3)
    """})
    (tmp_path / "binary.py").write_bytes(b"\xff\xfe\x00garbage")
    assert file_found(tmp_path / "main.py") == {(8, "DEV101")}


def test_a_long_chain_of_imports_is_bounded(tmp_path, monkeypatch):
    """Walks stop at the module bound; the scan of top-level imports for a GPU-only module (gpu_imports) reads
    the whole chain, and the cache entry names every file its answer rests on."""
    from devlint.static.analysis import imports

    files = {f"m{i}.py": f"from m{i + 1} import f\n" for i in range(60)}
    files["m60.py"] = "import torch\n\n\ndef f(n):\n    return torch.ones(n)\n"
    files["main.py"] = "import torch\nfrom m0 import f\n\ny = torch.randn(2).cuda() + f(2)\n"
    write_files(tmp_path, files)
    walked = []
    walk = imports._walk_module
    monkeypatch.setattr(imports, "_walk_module", lambda *a: walked.append(a[2]) or walk(*a))
    used: dict = {}
    findings = check_file(tmp_path / "main.py", used=used)
    assert all(f.code not in ("DEV003", "DEV005") for f in findings)
    assert 0 < len(walked) <= imports.MAX_MODULES
    read = {path for name, text in used.items() if name.startswith(CLOSURE_PREFIX) for path in closure_files(text)}
    assert len(read) == 61 and str((tmp_path / "m60.py").resolve()) in read


def test_the_cache_entry_names_the_modules_read(tmp_path):
    write_files(tmp_path, {"masks.py": HELPER, "train.py": USER.format(module="masks")})
    used: dict = {}
    check_file(tmp_path / "train.py", used=used)
    assert [name for name in used if not name.startswith(CLOSURE_PREFIX)] == [str((tmp_path / "masks.py").resolve())]
    assert all(list(closure_files(used[name])) == [str((tmp_path / "masks.py").resolve())]
               for name in used if name.startswith(CLOSURE_PREFIX))  # (does masks.py need a GPU: it alone says)


def run_cli(*args, cwd: Path, input: str = None):
    return subprocess.run([sys.executable, "-m", "devlint", *args], capture_output=True, text=True, cwd=cwd,
                          input=input, timeout=120)


def test_the_command_line_follows_imports_and_reports_only_the_files_named(tmp_path):
    write_files(tmp_path, {"masks.py": textwrap.dedent(HELPER) + "\n\nx = torch.zeros(2).cuda()\n",
                     "train.py": USER.format(module="masks")})
    result = run_cli("--no-cache", "train.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "train.py:6" in result.stdout and "masks.py:9" not in result.stdout.replace("masks.py:5", "")


def test_an_edit_to_an_imported_module_rechecks_its_importer(tmp_path):
    write_files(tmp_path, {"masks.py": HELPER, "train.py": USER.format(module="masks")})
    env_args = ("--format", "json", "train.py")
    first = run_cli(*env_args, cwd=tmp_path)
    assert first.returncode == 1
    (tmp_path / "masks.py").write_text(HELPER.replace("torch.ones(n, n)", "torch.ones(n, n, device='cuda')"))
    second = run_cli(*env_args, cwd=tmp_path)
    assert second.returncode == 0 and second.stdout.strip() == "[]", second.stdout


def test_stdin_is_placed_in_its_project(tmp_path):
    write_files(tmp_path, {"masks.py": HELPER})
    text = textwrap.dedent(USER.format(module="masks"))
    result = run_cli("-", "--stdin-filename", str(tmp_path / "train.py"), cwd=tmp_path, input=text)
    assert result.returncode == 1 and "DEV101" in result.stdout


def test_the_root_is_the_nearest_marker(tmp_path):
    write_files(tmp_path, {"outer/pyproject.toml": "", "outer/inner/setup.cfg": "", "outer/inner/deep/x.py": ""})
    assert layout_for(str(tmp_path / "outer/inner/deep/x.py")).root == (tmp_path / "outer/inner").resolve()


def test_a_setup_module_inside_a_package_is_no_project_root(tmp_path):
    """mit-han-lab/efficientvit's `efficientvit/apps/setup.py` sets up experiments: a module of the package
    `apps`, not a build script. Its files import `efficientvit.apps.utils.dist` from the checkout's root, so
    the root is above it; a `setup.py` beside no `__init__.py` still marks a root."""
    write_files(tmp_path, {"pyproject.toml": "", "lib/apps/__init__.py": "", "lib/apps/setup.py": "",
                     "lib/apps/utils/dist.py": "", "tools/setup.py": "", "tools/x.py": ""})
    assert layout_for(str(tmp_path / "lib/apps/utils/dist.py")).root == tmp_path.resolve()
    assert layout_for(str(tmp_path / "lib/apps/probe.py")).root == tmp_path.resolve()
    assert layout_for(str(tmp_path / "tools/x.py")).root == (tmp_path / "tools").resolve()


NUMPY_HELPER = """\
    import torch


    def to_numpy(t):
        return t.detach().numpy()  # reached with a GPU tensor from train.py
"""

NUMPY_USER = """\
    import torch
    from helpers import to_numpy

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    out = torch.randn(4, 4).to(device)
    print(to_numpy(out))
"""


def test_what_a_files_values_do_in_a_checked_helper_is_reported_there(tmp_path):
    write_files(tmp_path, {"helpers.py": NUMPY_HELPER, "train.py": NUMPY_USER})
    helper = str((tmp_path / "helpers.py").resolve())
    findings = check_file(tmp_path / "train.py", checked={helper: "helpers.py"})
    assert [(f.path, f.line, f.code) for f in findings] == [("helpers.py", 5, "DEV401")]
    assert any(f"{tmp_path / 'train.py'}:6 `to_numpy(out)`" in step for step in findings[0].why), findings[0].why
    assert not findings[0].edits
    assert check_file(tmp_path / "train.py") == []  # an imported file that is not checked is never reported on


def test_a_helper_finding_is_reported_once_and_noqa_in_the_helper_silences_it(tmp_path):
    write_files(tmp_path, {"helpers.py": NUMPY_HELPER, "train.py": NUMPY_USER, "eval.py": NUMPY_USER})
    result = run_cli("--no-cache", "--format", "json", ".", cwd=tmp_path)
    import json

    found = [(os.path.normpath(f["path"]), f["line"], f["code"]) for f in json.loads(result.stdout)]
    assert found == [("helpers.py", 5, "DEV401")], found
    (tmp_path / "helpers.py").write_text(textwrap.dedent(NUMPY_HELPER).replace(
        "# reached", "# noqa: DEV401 reached"))
    assert run_cli("--no-cache", ".", cwd=tmp_path).returncode == 0


def test_a_callback_sees_the_model_a_trainer_moved_under_main(tmp_path):
    """minGPT's layout: the Trainer moves the model in its __init__; the evaluation callback uses the model."""
    write_files(tmp_path, {"trainer.py": """\
        import torch


        class Trainer:
            def __init__(self, model):
                self.device = "cuda" if torch.cuda.is_available() else "cpu"
                self.model = model
                self.model = self.model.to(self.device)
    """, "run.py": """\
        import torch
        from trainer import Trainer

        if __name__ == "__main__":
            model = torch.nn.Linear(4, 2)
            trainer = Trainer(model)

            def evaluate(trainer):
                x = torch.randn(3, 4).to(trainer.device)
                return model(x)

            trainer.callback = evaluate
    """})
    assert file_found(tmp_path / "run.py") == set()


def test_a_notebook_reaching_a_helpers_bug_names_its_cells_and_leaves_the_helpers_line(tmp_path):
    """A finding told at a project module's line, reached from a notebook, is placed in that module (not in
    a notebook cell), and its why-chain names the notebook's lines as cells."""
    import json

    write_files(tmp_path, {"helper.py": """\
        import torch


        def scale(x):
            w = torch.ones(3)
            return x * w
    """})
    cells = [["import torch\n", "from helper import scale\n"],
             ["device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n",
              "x = torch.randn(3, device=device)\n", "y = scale(x)\n"]]
    notebook = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# demo\n"]}] + [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c} for c in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "demo.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    result = run_cli("demo.ipynb", "helper.py", "--no-cache", "--output-format", "json", cwd=tmp_path)
    (finding,) = [f for f in json.loads(result.stdout) if f["code"].startswith("DEV1")]
    assert (finding["path"], finding["line"], finding["cell"]) == ("helper.py", 6, None)
    assert any("demo.ipynb cell 2, line 3 `scale(x)`" in step for step in finding["why"])


def test_a_module_that_imports_a_gpu_only_project_module_runs_with_a_gpu(tmp_path):
    """A test of a CUDA-only package (its kernels import triton) assumes the GPU by design: no DEV201 there;
    the same test of a module without triton is told."""
    test = """\
        import torch
        from pkg.{module} import scan


        def test_scan():
            x = torch.randn(8, device="cuda")
            assert scan(x).shape == x.shape
    """
    write_files(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/kernels.py": """\
        import torch
        import triton


        def scan(x):
            return torch.cumsum(x, 0)
    """, "pkg/plain.py": """\
        import torch


        def scan(x):
            return torch.cumsum(x, 0)
    """, "tests/test_kernels.py": test.format(module="kernels"), "tests/test_plain.py": test.format(module="plain")})
    assert not {code for _, code in file_found(tmp_path / "tests" / "test_kernels.py") if code.startswith("DEV2")}
    assert (6, "DEV204") in file_found(tmp_path / "tests" / "test_plain.py")  # a file that assumes a GPU throughout


def test_an_nccl_group_set_up_in_a_helper_module_puts_every_rank_on_gpu_0(tmp_path):
    """DEV205 through a helper of another module; a helper that also calls set_device is fine."""
    write_files(tmp_path, {"pyproject.toml": "", "dist_utils.py": """\
        import os

        import torch
        import torch.distributed as dist


        def setup():
            dist.init_process_group(backend="nccl")


        def setup_ranked():
            dist.init_process_group(backend="nccl")
            torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    """, "train.py": """\
        import torch
        from dist_utils import setup


        def main():
            setup()
            return torch.nn.Linear(4, 2).cuda()
    """, "train_ranked.py": """\
        import torch
        from dist_utils import setup_ranked


        def main():
            setup_ranked()
            return torch.nn.Linear(4, 2).cuda()
    """})
    found = check_file(tmp_path / "train.py")
    (finding,) = [f for f in found if f.code == "DEV205"]
    assert finding.line == 7 and "dist_utils.py:8" in finding.why[0]
    assert "DEV205" not in {f.code for f in check_file(tmp_path / "train_ranked.py")}


def test_a_module_that_appears_or_goes_is_seen_at_the_next_resolution(tmp_path: Path, monkeypatch):
    """Folders are read once per process and kept (imports resolve thousands of times): a module written
    or removed since (an editor, --watch, the language server) is seen; a folder too big to keep is asked
    name by name."""
    import devlint.static.project.layout as layout

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    script = tmp_path / "train.py"
    script.write_text("")
    project = layout_for(str(script))
    assert project.resolve(script, "helpers") is None
    (tmp_path / "helpers.py").write_text("")
    found = project.resolve(script, "helpers")
    assert found is not None and found.file == tmp_path / "helpers.py"
    (tmp_path / "helpers.py").unlink()
    os.utime(tmp_path, ns=(0, 10**9 * 7))  # a coarse clock: the folder's time of change still moves
    assert project.resolve(script, "helpers") is None
    assert project.resolve(script, "pkg").folder == tmp_path / "pkg"
    monkeypatch.setattr(layout, "MAX_LISTING", 2)
    for index in range(4):
        (tmp_path / "pkg" / f"m{index}.py").write_text("")
    (tmp_path / "pkg" / "__init__.py").write_text("")
    assert project.resolve(script, "pkg.m3").file == tmp_path / "pkg" / "m3.py"
    assert project.resolve(script, "pkg").file == tmp_path / "pkg" / "__init__.py"
    assert project.resolve(script, "pkg.absent") is None


def test_a_checkout_without_markers_is_the_run_s_project(tmp_path: Path):
    """No pyproject.toml, setup.py or .git (a downloaded archive): `devlint .` makes the folder it was given the
    project, so a script in scripts/ that imports the root's package (after `sys.path.append(".")`, run from
    the root) sees it: the helper brings the image to the host, no DEV401. A file alone keeps its folder."""
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("")
    (tmp_path / "helpers" / "images.py").write_text(textwrap.dedent("""
        import numpy as np

        def to_host(t):
            return np.clip(t.detach().cpu().numpy(), 0, 1)
    """))
    (tmp_path / "scripts").mkdir()
    script = tmp_path / "scripts" / "show.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy as np
        import torch
        sys.path.append(".")
        from helpers.images import to_host

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        net = torch.nn.Conv2d(3, 3, 1).to(device)
        picture = to_host(net(torch.randn(1, 3, 8, 8, device=device)))
        print(np.array(picture).mean())
    """))
    result = subprocess.run([sys.executable, "-m", "devlint", "--no-cache", "--output-format", "concise", "."],
                            cwd=tmp_path, capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1])))
    assert "DEV401" not in result.stdout, result.stdout
    assert result.returncode == 0, result.stdout + result.stderr
    from devlint.static.project.layout import run_root

    assert layout_for(str(script), run_root([str(script), str(tmp_path / "helpers" / "images.py")])).root \
        == tmp_path.resolve()
    assert layout_for(str(script)).root == script.parent.resolve()
    assert run_root(["/etc/hosts", "/usr/bin/env"]) is None  # unrelated places: no project


SAVES_EMBEDDING = """\
    import torch


    def save_embedding(model, weights):
        torch.save({saved}, "embedding.pt")
"""

LOADS_EMBEDDING = """\
    import torch


    def features(x):
        return torch.cat([x, torch.load("embedding.pt")], dim=-1)
"""


def test_a_file_that_a_script_beside_saves_is_loaded_without_map_location(tmp_path):
    """ogb's `linkproppred/ppa/gnn.py` loads the `embedding.pt` that `node2vec.py` beside it saves from the
    cpu (survey 5); a state dict saved beside is a checkpoint, on the model's device, and stays reported."""
    write_files(tmp_path, {"embed.py": SAVES_EMBEDDING.format(saved="weights.data.cpu()"), "gnn.py": LOADS_EMBEDDING})
    used: dict = {}
    assert file_found(tmp_path / "gnn.py", used=used) == set()
    assert str((tmp_path / "embed.py").resolve()) in used  # editing the saving script re-checks the loader
    assert file_found(tmp_path / "gnn.py", isolated=True) == {(5, "DEV202")}
    write_files(tmp_path, {"embed.py": SAVES_EMBEDDING.format(saved="model.state_dict()")})
    assert file_found(tmp_path / "gnn.py") == {(5, "DEV202")}


CPU_TRAINING = """\
    import torch
    import torch.nn as nn

    net = nn.Linear(4, 2){moved}
    loss = net(torch.randn(8, 4{placed})).pow(2).mean()
    loss.backward()
    save_path = "./lenet.pth"
    torch.save(net.state_dict(), save_path)
"""

PREDICTS = """\
    import torch
    import torch.nn as nn

    net = nn.Linear(4, 2)
    net.load_state_dict(torch.load("lenet.pth"))
"""


@pytest.mark.parametrize("moved, placed, expected", [
    ("", "", set()), (".cuda()", ", device='cuda'", {(5, "DEV202")})])
def test_a_state_dict_a_cpu_script_beside_saves_loads_anywhere(tmp_path, moved, placed, expected):
    """WZMIAOMIAO's Test1_official_demo: train.py trains LeNet without ever naming a GPU and saves its state dict
    to `save_path = './Lenet.pth'`; predict.py beside it loads 'Lenet.pth' (survey 12). A script that uses a GPU
    saves a checkpoint on it: reported."""
    write_files(tmp_path, {"train.py": CPU_TRAINING.format(moved=moved, placed=placed), "predict.py": PREDICTS})
    assert file_found(tmp_path / "predict.py") == expected


TRAINER = """\
    import torch
    import torch.distributed as dist


    class Trainer:
        def __init__(self, device, rank=0):
            self.is_ddp = dist.is_available() and dist.is_initialized()
            if self.is_ddp:
                self.device = torch.device("cuda", rank)
            else:
                self.device = device
            self.model = torch.nn.Linear(4, 4).to(self.device)
"""

LAUNCHER = """\
    import torch
    import torch.distributed as dist
    from trainer import Trainer


    def main(rank, world_size):
        if world_size > 1:
            dist.init_process_group({backend}, rank=rank, world_size=world_size)
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        Trainer(device, rank)
"""


def test_a_launcher_that_sets_up_nccl_makes_the_projects_group_paths_gpu_paths(tmp_path):
    """nnU-Net's trainer (survey 6) picks 'cuda' only when `dist.is_initialized()`, and the project's launcher
    sets the group up with NCCL: that path has a GPU. With a gloo launcher, a group runs on the cpu too."""
    write_files(tmp_path, {"trainer.py": TRAINER, "run.py": LAUNCHER.format(backend='"nccl"')})
    run = {str((tmp_path / name).resolve()): name for name in ("trainer.py", "run.py")}
    used: dict = {}
    assert file_found(tmp_path / "trainer.py", checked=run, used=used) == set()
    assert str((tmp_path / "run.py").resolve()) in used  # editing the launcher re-checks the trainer
    write_files(tmp_path, {"run.py": LAUNCHER.format(backend='"gloo"')})
    assert file_found(tmp_path / "trainer.py", checked=dict(run)) == {(9, "DEV201")}


def test_a_gpu_only_file_counts_another_modules_cuda_at_its_own_lines(tmp_path):
    """MONAI's MAISI diff_model_train.py takes its device from diff_model_setting.setup_ddp(), which returns
    `torch.device("cuda", local_rank)`: a GPU-only script's one DEV204 names its own lines, in its own file
    (it was reported in the helper's file, at line 0), and the helper's module keeps its own findings."""
    write_files(tmp_path, {"pyproject.toml": "", "setting.py": """\
        import torch


        def setup(rank):
            device = torch.device("cuda", rank)
            return device


        def fallback():
            return "cuda" if torch.cuda.is_available() else "cpu"
    """, "train.py": """\
        import torch
        from setting import setup

        x = torch.zeros(2, device=setup(0))
        torch.cuda.synchronize()
    """})
    result = run_cli("setting.py", "train.py", "--no-cache", "--output-format", "json", cwd=tmp_path)
    found = [(f["path"], f["line"], f["code"], f["message"]) for f in json.loads(result.stdout)]
    assert [(path, line, code) for path, line, code, _ in found] == [("train.py", 4, "DEV204")]
    assert "(2 lines: 4, 5)" in found[0][3]


def test_a_gpu_only_module_beyond_the_walks_bounds_still_guards_its_importers(tmp_path):
    """nanotron's tests import modules that import flash_attn some imports deep: whether a file runs with a GPU
    is read from the top-level imports over the whole graph (cycles too), not from how deep the walks went,
    so a run gives the same answer in whatever order its files are checked (`-j 2` gave other infos)."""
    chain = {f"pkg/m{i}.py": f"from pkg.m{i + 1} import f\n" for i in range(9)}
    chain["pkg/m9.py"] = "import torch\nimport triton\nfrom pkg.m3 import f as g\n\n\ndef f(n):\n    return n\n"
    chain["pkg/__init__.py"] = ""
    test = "import torch\nfrom pkg.m0 import f\n\n\ndef test_f():\n    assert f(torch.zeros(2).cuda()) is not None\n"
    plain = test.replace("from pkg.m0 import f", "from pkg.m7 import f").replace("pkg.m7", "plain")
    write_files(tmp_path, {"pyproject.toml": "", **chain, "tests/test_deep.py": test, "tests/test_plain.py": plain,
                     "plain.py": "def f(n):\n    return n\n"})
    for order in (("tests/test_deep.py", "tests/test_plain.py"), ("tests/test_plain.py", "tests/test_deep.py")):
        result = run_cli("--no-cache", "--output-format", "json", *order, cwd=tmp_path)
        found = {(f["path"], f["code"]) for f in json.loads(result.stdout)}
        assert found == {("tests/test_plain.py", "DEV204")}, order


def test_a_module_that_starts_to_need_a_gpu_far_down_the_imports_rechecks_its_importers(tmp_path):
    """The answer to "does this import need a GPU" rests on every module the search read, beyond the walks'
    bounds: the cache keeps them as one closure (format 4), so that adding `import triton` eight imports down
    re-checks the test that imports the chain's head."""
    chain = {f"pkg/m{i}.py": f"from pkg.m{i + 1} import f\n" for i in range(8)}
    chain["pkg/m8.py"] = "def f(n):\n    return n\n"
    test = "import torch\nfrom pkg.m0 import f\n\n\ndef test_f():\n    assert f(torch.zeros(2).cuda()) is not None\n"
    write_files(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", **chain, "tests/test_deep.py": test})
    first = run_cli("--output-format", "json", "tests/test_deep.py", cwd=tmp_path)
    assert [f["code"] for f in json.loads(first.stdout)] == ["DEV204"]
    (tmp_path / "pkg" / "m8.py").write_text("import triton\n\n\ndef f(n):\n    return n\n")
    second = run_cli("--output-format", "json", "tests/test_deep.py", cwd=tmp_path)
    assert json.loads(second.stdout) == [], second.stdout
