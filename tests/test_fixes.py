"""Every fix on every fixture (and real-world case) it applies to: the result parses, keeps the
file's comments, re-lints without the finding it fixed, and adds no new one; `--fix` and `--diff`
agree; unsafe fixes need `--unsafe-fixes`."""

from __future__ import annotations

import ast
import difflib
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.lint_helpers import REALWORLD

from devlint.static.engine import check_source
from devlint.core.findings import SAFE, Edit, Finding
from devlint.static.fixes.apply import applicable, apply_fixes
from devlint.static.fixes.run import fix_file
from devlint.static.rules import ALL_RULES
from tests.conftest import ROOT
from tests.test_cli import run


def _rules_for(path: Path):
    every = "silent_cost" in path.parts
    return [r() for r in ALL_RULES if every or r.default_enabled]


def _cases():
    files = sorted((ROOT / "fixtures").rglob("bad_*.py"))
    if REALWORLD is not None:
        files += sorted(REALWORLD.glob("*.py"))
    cases = []
    for path in files:
        found = check_source(path.read_bytes(), str(path), _rules_for(path))
        for unsafe in (False, True):
            fixable = applicable(found, unsafe)
            if fixable and (unsafe is False or len(fixable) > len(applicable(found, False))):
                name = path.relative_to(ROOT).as_posix() if ROOT in path.parents else f"realworld/{path.name}"
                cases.append(pytest.param(path, unsafe, id=f"{name}-{'unsafe' if unsafe else 'safe'}"))
    return cases


CASES = _cases()


def _comments(text: str) -> list[str]:
    import io
    import tokenize

    return [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]


@pytest.mark.parametrize("path,unsafe", CASES)
def test_fix_parses_and_relints_clean_for_the_fixed_rule(path: Path, unsafe: bool):
    rules = _rules_for(path)
    source = path.read_bytes()
    before = check_source(source, str(path), rules)
    result = fix_file(str(path), source, before, lambda data: check_source(data, str(path), rules), unsafe)
    assert result.error is None and result.fixed and result.changed
    text = result.after.decode("utf-8")
    ast.parse(text)  # a fixed file always parses
    unfixed = Counter(f.code for f in before if f not in applicable(before, unsafe))
    after = Counter(f.code for f in result.remaining)
    for code in {f.code for f in result.fixed}:
        assert after[code] <= unfixed[code], f"{code} still reported after its fix:\n{text}"
    assert after - Counter(f.code for f in before) == Counter(), f"the fix brought new findings: {result.remaining}"
    assert _comments(text) == _comments(source.decode("utf-8")), "comments were lost or changed"
    removed = sum(1 for line in difflib.ndiff(source.decode().splitlines(), text.splitlines()) if line[:2] == "- ")
    assert removed <= len(result.fixed), "lines the fixes did not touch were rewritten"


def test_every_fixable_rule_is_exercised():
    # The rules that show a fix (FIXED) and that the fixtures run; those off by default (DEV004) are
    # exercised by their own examples in tests/test_rule_examples.py.
    fixable_codes = {rule.code for rule in ALL_RULES if any(rule.FIXED) and rule.default_enabled}
    assert {"DEV103", "DEV104", "DEV201", "DEV202", "DEV301", "DEV401"} <= fixable_codes
    exercised = set()
    for param in CASES:
        path, unsafe = param.values
        found = check_source(path.read_bytes(), str(path), _rules_for(path))
        exercised |= {f.code for f in applicable(found, unsafe)}
    assert fixable_codes <= exercised, fixable_codes - exercised


def test_realworld_cases_are_in_the_run():
    if REALWORLD is None:
        pytest.skip("../shared/realworld is not next to this checkout (it is outside the repository)")
    assert any("realworld/" in param.id for param in CASES)


def test_safe_and_unsafe_marks():
    source = (ROOT / "fixtures/gpu_assumed/bad_hardcoded_torch_device.py").read_bytes()
    found = check_source(source, "x.py", [r() for r in ALL_RULES if r.default_enabled])
    dev201 = [f for f in found if f.code == "DEV201"]
    assert dev201 and all(f.applicability == "unsafe" for f in dev201)
    assert not applicable(dev201, unsafe=False) and applicable(dev201, unsafe=True)


def test_overlapping_fixes_wait_for_the_next_round():
    def finding(edit: Edit, line: int) -> Finding:
        return Finding("DEV401", "error", "a.py", line, 1, line, 2, "m", edits=(edit,), applicability=SAFE)

    text = "abcdef\nxyz\n"
    first = finding(Edit(1, 2, 1, 4, "BC"), 1)
    overlapping = finding(Edit(1, 3, 1, 5, "CD"), 1)
    shared = finding(Edit(2, 1, 2, 1, "#"), 2)
    same_again = finding(Edit(2, 1, 2, 1, "#"), 2)
    new, fixed = apply_fixes(text, [first, overlapping, shared, same_again])
    assert new == "aBCdef\n#xyz\n" and overlapping not in fixed and len(fixed) == 3


def test_the_finding_round_trips_through_the_cache_dict():
    source = (ROOT / "fixtures/host/bad_plot_cuda_tensor.py").read_bytes()
    found = [f for f in check_source(source, "a.py", [r() for r in ALL_RULES]) if f.fixable]
    assert found and [Finding.from_dict(f.to_record()) for f in found] == found  # the cache keeps places too


@pytest.fixture
def fixture_copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "fixtures", tmp_path / "fixtures")
    return tmp_path


def test_fix_and_diff_agree_and_diff_writes_nothing(fixture_copy: Path):
    originals = {p: p.read_text() for p in (fixture_copy / "fixtures").rglob("*.py")}
    diff = run("--no-cache", "--diff", "fixtures", cwd=fixture_copy)
    assert diff.returncode == 1 and diff.stdout.startswith("--- ")
    assert "Would fix" in diff.stderr
    assert {p: p.read_text() for p in originals} == originals  # --diff wrote nothing
    fixed = run("--no-cache", "--fix", "--show-fixes", "fixtures", cwd=fixture_copy)
    assert "Fixed " in fixed.stdout and "DEV401 (host-conversion)" in fixed.stdout
    changed = [p for p, text in originals.items() if p.read_text() != text]
    assert changed
    def diff_of(p: Path) -> str:
        name = str(p.relative_to(fixture_copy))
        return "".join(difflib.unified_diff(originals[p].splitlines(keepends=True),
                                            p.read_text().splitlines(keepends=True), fromfile=name, tofile=name))

    expected = "".join(diff_of(p) for p in changed)
    assert sorted(diff.stdout.split("--- ")) == sorted(expected.split("--- "))
    again = run("--no-cache", "--diff", "fixtures", cwd=fixture_copy)  # nothing safe is left to fix
    assert again.returncode == 0 and again.stdout == ""


def test_unsafe_fixes_only_with_the_flag(tmp_path: Path):
    target = tmp_path / "train.py"
    target.write_text('import torch\nmodel = torch.nn.Linear(2, 2).cuda()\n')
    result = run("--no-cache", "--fix", "--fail-on", "info", "train.py", cwd=tmp_path)  # DEV204 is an info
    assert result.returncode == 1 and target.read_text().endswith(".cuda()\n")
    assert "1 more with `--unsafe-fixes`" in result.stdout or "--unsafe-fixes" in result.stdout
    result = run("--no-cache", "--fix", "--unsafe-fixes", "train.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert target.read_text() == ('import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() '
                                  'else "cpu")\nmodel = torch.nn.Linear(2, 2).to(device)\n')


def test_fix_keeps_formatting_comments_and_crlf(tmp_path: Path):
    target = tmp_path / "eval.py"
    target.write_bytes(b'import torch\r\n# the scores\r\ndevice = torch.device("cuda" if torch.cuda.is_available() '
                       b'else "cpu")\r\nscores = torch.randn(3, device=device)\r\n'
                       b'values = scores.numpy( )   # keep me\r\n')
    assert run("--no-cache", "--fix", "eval.py", cwd=tmp_path).returncode == 0
    assert target.read_bytes().endswith(b"values = scores.detach().cpu().numpy( )   # keep me\r\n")
    assert target.read_bytes().count(b"\r\n") == 5


def test_fix_refuses_a_symlink(tmp_path: Path):
    real = tmp_path / "outside.py"
    real.write_text("import torch\nx = torch.load('a.pt')\n")
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "link.py").symlink_to(real)
    result = run("--no-cache", "--fix", "link.py", cwd=tmp_path / "repo")
    assert "symbolic link" in result.stderr and "map_location" not in real.read_text()


def test_dev202_fix_names_the_selected_device_in_scope():
    source = b'import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n' \
             b'state = torch.load("m.pt")\n'
    found = [f for f in check_source(source, "a.py", [r() for r in ALL_RULES if r.code == "DEV202"])]
    assert found[0].edits[0].content == ", map_location=device"
    found = check_source(b'import torch\nstate = torch.load("m.pt")\n', "a.py",
                         [r() for r in ALL_RULES if r.code == "DEV202"])
    assert found[0].edits[0].content == ', map_location="cpu"'


def test_dev401_hint_is_right_for_detached_and_lists():
    rules = [r() for r in ALL_RULES if r.code == "DEV401"]
    detached = check_source(b'import torch\nimport numpy as np\ndevice = torch.device("cuda" if '
                            b'torch.cuda.is_available() else "cpu")\nout = torch.randn(3, device=device)\n'
                            b'a = out.detach().numpy()\n', "a.py", rules)
    assert detached[0].fix == "bring it to the host first: `out.detach().cpu()`"
    assert detached[0].edits[0].content == ".cpu()"
    listed = check_source((ROOT / "fixtures/host/bad_np_array_of_tensors.py").read_bytes(), "b.py", rules)
    assert ".detach()`" not in listed[0].fix and "[precision, recall].detach" not in listed[0].fix
    assert not listed[0].fixable  # which items are tensors is not known: no automatic fix


def test_fixes_leave_multiline_code_as_written(tmp_path: Path):
    source = ("import torch\n\n\ndef run(rpc, m):\n    for i in range(3):\n        m = rpc.rpc_sync(\n            1,\n"
              "            2,\n        ).cuda()\n        y = (m.cuda())\n        z = m.cuda(non_blocking=True)\n"
              "        w = torch.cuda.FloatTensor(\n            [1.0, 2.0],\n        )\n    return m, y, z, w\n")
    (tmp_path / "a.py").write_text(source)
    assert run("--no-cache", "--fix", "--unsafe-fixes", "a.py", cwd=tmp_path).returncode == 0
    assert (tmp_path / "a.py").read_text() == (
        'import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n\n\n'
        "def run(rpc, m):\n    for i in range(3):\n        m = rpc.rpc_sync(\n            1,\n            2,\n"
        "        ).to(device)\n        y = (m.to(device))\n        z = m.to(device, non_blocking=True)\n"
        "        w = torch.tensor(\n            [1.0, 2.0], dtype=torch.float32, device=device,\n        )\n"
        "    return m, y, z, w\n")


def _fixed(source: str, codes: tuple = ()) -> tuple[str, list[Finding]]:
    """`source` after --fix --unsafe-fixes with the default rules (and `codes`), and what is left."""
    rules = [r() for r in ALL_RULES if r.default_enabled or r.code in codes]
    data = source.encode("utf-8")
    before = check_source(data, "a.py", rules)
    result = fix_file("a.py", data, before, lambda text: check_source(text, "a.py", rules), True)
    assert result.error is None
    ast.parse(result.after)
    return result.after.decode("utf-8"), result.remaining


def test_dev201_fixes_a_cuda_default_tensor_type():
    text, left = _fixed("import torch\nprint(torch.cuda.is_available())\n"
                        "torch.set_default_tensor_type('torch.cuda.FloatTensor')\n"
                        "torch.set_default_tensor_type(torch.cuda.HalfTensor)\n")
    assert text.splitlines()[2:] == [
        "torch.set_default_tensor_type('torch.cuda.FloatTensor' if torch.cuda.is_available() else "
        "'torch.FloatTensor')",
        "torch.set_default_tensor_type(torch.cuda.HalfTensor if torch.cuda.is_available() else torch.HalfTensor)"]
    assert not left


def test_a_gpu_only_file_fixed_to_select_its_device_leaves_no_gpu_assumption():
    """DEV204's fix makes the file check for a GPU; the assumptions it counted come back as DEV201 and
    DEV203, and each is fixed in turn, a CUDA default tensor type and a `torch.cuda` statement included."""
    source = ("import torch\n\ntorch.set_default_tensor_type('torch.cuda.FloatTensor')\n\n\n"
              "def main(rank):\n    torch.cuda.set_device(rank)\n    x = torch.ones(3).cuda()\n"
              "    y = torch.zeros(3).cuda()\n    torch.cuda.synchronize()\n    return x + y\n")
    assert [f.code for f in lint_default(source)] == ["DEV204"]
    text, left = _fixed(source)
    assert not left, left
    assert "    if torch.cuda.is_available():\n        torch.cuda.set_device(rank)\n" in text
    assert "    if torch.cuda.is_available():\n        torch.cuda.synchronize()\n" in text


def test_dev203_guards_statements_only():
    uses = "".join(f"x{i} = torch.ones(3, device=device)\n" for i in range(4))  # a file meant to run anywhere
    source = ("import torch\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n" + uses +
              "print(torch.cuda.get_device_name(0))  # which GPU\n"
              "class Timer:\n    def stop(self):\n        torch.cuda.synchronize()\n"
              "name = torch.cuda.get_device_name(0)\ntorch.cuda.synchronize(); done = True\n")
    text, left = _fixed(source)
    assert text == ("import torch\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n" + uses +
                    "if torch.cuda.is_available():\n    print(torch.cuda.get_device_name(0))  # which GPU\n"
                    "class Timer:\n    def stop(self):\n        if torch.cuda.is_available():\n"
                    "            torch.cuda.synchronize()\n"
                    "name = torch.cuda.get_device_name(0)\ntorch.cuda.synchronize(); done = True\n")
    # an assignment would leave its name unset, a shared line has no line of its own: left to the user
    assert sorted((f.code, f.line) for f in left) == [("DEV203", 13), ("DEV203", 14)]


def test_dev104_fix_follows_a_partner_created_on_a_parameter_device():
    """`meshgrid` of two cpu aranges divided by a parameter: the first round's fix puts one arange on the
    parameter's device, the second finds the other arange mixed with it and fixes it the same way."""
    source = ("import torch\n\n\ndef grid(rows, cols):\n"
              "    ys, xs = torch.meshgrid(torch.arange(rows), torch.arange(cols))\n"
              "    return ys / rows + xs / cols\n\n\n"
              "lengths = torch.tensor([3, 4]).to('cuda' if torch.cuda.is_available() else 'cpu')\n"
              "grid(lengths[0], lengths[1])\n")
    text, left = _fixed(source)
    assert not [f for f in left if f.code == "DEV104"], left
    line = text.splitlines()[4]
    assert line.count("device=") == 2 and "torch.arange(rows, device=" in line and "torch.arange(cols, device=" in line


def test_dev104_fix_names_the_parameter_its_partner_was_created_on():
    """The partner's device is named after the caller's argument (`ilens`, the function analysed for that
    call), not a parameter here: the `device=ilen.device` it was created with is."""
    source = ("import torch\nfrom torch import nn\n\n\nclass Loss(nn.Module):\n    def forward(self, att, ilens):\n"
              "        masks = [self._mask(ilen) for ilen in ilens]\n        return att * masks[0]\n\n"
              "    @staticmethod\n    def _mask(ilen):\n        base = torch.arange(ilen, device=ilen.device)\n"
              "        extra = torch.arange(ilen)\n        return base + extra\n")
    text, left = _fixed(source)
    assert "        extra = torch.arange(ilen, device=ilen.device)\n" in text and not left


def lint_default(source: str) -> list[Finding]:
    return check_source(source.encode("utf-8"), "a.py", [r() for r in ALL_RULES if r.default_enabled])


def test_a_discarded_move_of_a_parameter_gets_no_assignment_fix():
    """`self.p = self.p.to(device)` raises for an nn.Parameter (a copy is a plain tensor): no safe fix, and the
    hint moves its data (glide-text2im's convert_to_fp16 threw away such casts; a dtype cast alone is no move)."""
    from tests.lint_helpers import lint

    source = """\
import torch
from torch import nn


class TextEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Parameter(torch.zeros(8, 4))

    def place(self, device):
        self.pos.to(device)
"""
    (finding,) = [f for f in lint(source) if f.code == "DEV103"]
    assert not finding.edits
    assert "`self.pos.data = self.pos.data.to(...)`" in finding.fix


@pytest.mark.parametrize("opening", ['with open("data.txt") as f:\n    text = f.read()\n',
                                     'with (open("a") as f, open("b") as g):\n    text = f.read()\n',
                                     'print("start")\n'])
def test_a_file_whose_code_starts_before_it_imports_torch_gets_the_device_after_the_import(opening: str):
    """A `with` first (survey 13: char_rnn.ipynb's first cell) once crashed the fix (its parentheses are no
    list) and lost every finding; the device line must come after `import torch`, which it needs."""
    source = opening + "\nimport torch\n\nx = torch.zeros(3).cuda()\n"
    found = [f for f in check_source(source.encode(), "a.py", [r() for r in ALL_RULES]) if f.code != "DEV501"]
    assert [f.code for f in found] == ["DEV204"]  # not DEV003: every finding of the file kept
    fixed, applied = apply_fixes(source, [f for f in found if f.fixable])
    assert applied
    ast.parse(fixed)
    assert fixed.index("import torch") < fixed.index("device = torch.device(")
