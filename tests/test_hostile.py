"""Generated hostile input: no traceback, no crash, no hang, and every other file keeps its findings."""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from devlint.static import engine
from devlint.cli.batch import RunStats, check_files
from devlint.core.deep_stack import DEEP_STACK
from devlint.static.engine import check_source
from devlint.core.limits import MAX_NESTING, AnalysisBudgetExceeded
from devlint.static.rules import ALL_RULES
from devlint.cli.workers import run_jobs
from tests.conftest import ROOT

CODES = [r.code for r in ALL_RULES if r.default_enabled]
# A real bug after the hostile part: the analysis went past it.
BUG = "import torch\nx = torch.ones(3)\ny = torch.ones(3).to('cuda')\nz = x + y\n"
BUG_LINE = 4


def lint(source: str | bytes, path: str = "hostile.py") -> list:
    data = source.encode("utf-8") if isinstance(source, str) else source
    return check_source(data, path, [r() for r in ALL_RULES if r.default_enabled])


def codes(findings) -> set[str]:
    return {f.code for f in findings}


def elif_ladder(n: int) -> str:
    return "if a:\n    pass\n" + "".join(f"elif a == {i}:\n    b = {i}\n" for i in range(n))


def nested_loops(depth: int) -> str:
    lines = [" " * 4 * i + f"for i{i} in range(3):" for i in range(depth)]
    return "\n".join(lines) + "\n" + " " * 4 * depth + "x = i0\n"


NEAR_LIMIT = MAX_NESTING - 100  # 2,900 levels; 600 on Python 3.12 (see devlint.core.limits)
# Valid code that Python compiles: analysed, not reported as a syntax error or as too deep.
VALID_DEEP = {
    "plus-500": "x = " + " + ".join(["a"] * 500),
    "plus-near-limit": "x = " + " + ".join(["a"] * NEAR_LIMIT),
    "attributes-500": "x = a" + ".b" * 500,
    "calls-500": "x = f" + "()" * 500,
    "subscripts-500": "x = a" + "[0]" * 500,
    "not-500": "x = " + "not " * 500 + "a",
    "and-near-limit": "x = " + " and ".join(["a"] * NEAR_LIMIT),
    "brackets-150": "x = " + "[" * 150 + "1" + "]" * 150,
    "comprehension-500": "x = [a " + "for a in b " * 500 + "]",
    "elif-600": elif_ladder(600),
    "elif-near-limit": elif_ladder(NEAR_LIMIT),
    "parenthesised-annotation": "(pars): bool = True\n(a.b): int = 1\nclass C:\n    (x): int\n",
}


@pytest.mark.parametrize("name", sorted(VALID_DEEP))
def test_valid_deep_code_is_analysed(name):
    findings = lint(VALID_DEEP[name] + "\n" + BUG)
    assert not codes(findings) & {"DEV001", "DEV003", "DEV005"}, findings
    bug_line = VALID_DEEP[name].count("\n") + 1 + BUG_LINE
    assert ("DEV101", bug_line) in {(f.code, f.line) for f in findings}


# Every spelling of an integer Python accepts, where devlint reads one (a GPU option's test, a GPU index, a range,
# a slice, a magic number): read as Python reads it, never an internal error (deep_sort's `!= 0x0d0a1a0a`).
NUMBER_SPELLINGS = ("0x0d0a1a0a", "0o17", "0b1", "1_000", "0X1F", "00")
NUMBERS = """
import torch
if magic != {n}:
    pass
if opt.gpu >= {n}:
    x = torch.ones(3).cuda({n})
if opt.gpu_ids[0] > -{n}:
    y = torch.ones(3).to(f"cuda:{{opt.gpu_ids[0]}}")
for i in range({n}, {n} + 2):
    z = [1, 2][{n}:]
"""


@pytest.mark.parametrize("spelling", NUMBER_SPELLINGS)
def test_every_spelling_of_an_integer_is_read(spelling):
    findings = lint(NUMBERS.format(n=spelling) + BUG)
    assert not codes(findings) & {"DEV001", "DEV003", "DEV005"}, findings
    assert ("DEV101", NUMBERS.count("\n") + BUG_LINE) in {(f.code, f.line) for f in findings}


def class_cycle(length: int, module: bool, defined_before: bool) -> str:
    """`class A(C)`, `class B(A)`, `class C(B)`: valid syntax that no program can run (or, when the
    last class was defined before, runs with other bases than the last binding says), its methods
    calling `super()` and each other, every class instantiated, moved and called."""
    names = [chr(ord("A") + i) for i in range(length)]
    lines = ["import torch", "from torch import nn"]
    if defined_before:
        lines += [f"class {names[-1]}(nn.Module):", "    pass"]
    for i, name in enumerate(names):
        lines += [f"class {name}({names[i - 1]}):", "    def __init__(self):", "        super().__init__()",
                  f"        self.w{i} = torch.zeros(3)", "    def f(self):", "        return super().f() + self.g()",
                  "    def g(self):", "        return self.f()"]
        if module:
            lines += ["    def forward(self, x):", f"        return super().forward(x) + self.w{i}"]
    for name in names:
        lines += [f"m_{name} = {name}().to('cuda')", f"m_{name}(torch.ones(3))", f"m_{name}.f()", f"{name}.g",
                  f"isinstance(m_{name}, {names[0]})"]
    return "\n".join(lines) + "\n"


CLASS_CYCLES = {f"{n}-classes{'-modules' if module else ''}{'-defined-before' if before else ''}":
                class_cycle(n, module, before) for n in (1, 2, 3) for module in (False, True) for before in (False, True)}


@pytest.mark.parametrize("name", sorted(CLASS_CYCLES))
def test_a_class_inheritance_cycle_is_analysed(name):
    """A base that leads back to its class is looked at once: never an internal error (DEV003)."""
    source = CLASS_CYCLES[name]
    start = time.perf_counter()
    findings = lint(source + BUG)
    assert time.perf_counter() - start < 10
    assert not codes(findings) & {"DEV003", "DEV005"}, findings
    assert ("DEV101", source.count("\n") + BUG_LINE) in {(f.code, f.line) for f in findings}


# What neither Python nor libcst can take: refused before parsing, with the reason.
TOO_DEEP = {
    "parentheses-3000": ("x = " + "(" * 3000 + "1" + ")" * 3000, "DEV001", "too many nested parentheses"),
    "lists-3000": ("x = " + "[" * 3000 + "1" + "]" * 3000, "DEV001", "too many nested parentheses"),
    "dicts-3000": ("x = " + "{1: " * 3000 + "1" + "}" * 3000, "DEV001", "too many nested parentheses"),
    "calls-nested-3000": ("x = " + "f(" * 3000 + "1" + ")" * 3000, "DEV001", "too many nested parentheses"),
    "plus-10000": ("x = " + " + ".join(["a"] * 10000), "DEV005", "binary operators"),
    "and-10000": ("x = " + " and ".join(["a"] * 10000), "DEV005", "and/or chain"),
    "attributes-10000": ("x = a" + ".b" * 10000, "DEV005", "attribute accesses"),
    "calls-10000": ("x = f" + "()" * 10000, "DEV005", "calls"),
    "elif-5000": (elif_ladder(5000), "DEV005", "elif ladder"),
    "comprehension-10000": ("x = [a " + "for a in b " * 10000 + "]", "DEV005", "`for` clauses"),
    "unary-10000": ("x = " + "-" * 10000 + "a", "DEV005", "Python's own parser"),  # CPython: MemoryError
}


@pytest.mark.parametrize("name", sorted(TOO_DEEP))
def test_too_deep_is_one_clean_finding(name):
    source, code, words = TOO_DEEP[name]
    start = time.perf_counter()
    findings = lint("import torch\n" + source + "\n")
    assert time.perf_counter() - start < 10  # refused before libcst's quadratic parse, not after it
    assert [f.code for f in findings] == [code], findings
    # Python 3.12's own parser gives up on some of these first: devlint says so instead
    assert words in findings[0].message or "Python's own parser" in findings[0].message, findings


def test_parse_cost_of_many_deep_statements_is_bounded():
    nest = "x = " + "f(" * 200 + "1" + ")" * 200 + "\n"  # Python accepts 200 levels; libcst takes 0.3 s each
    findings = lint("import torch\n" + nest * 200)
    assert [f.code for f in findings] == ["DEV005"] and "too deeply nested as a whole" in findings[0].message


BAD_BYTES = {
    "invalid-utf8": (b"import torch\nx = '\xe9t\xe9'\n", "DEV002"),
    "utf16": ("import torch\n".encode("utf-16"), "DEV002"),
    "unknown-declared-encoding": (b"# -*- coding: klingon -*-\nimport torch\nx = '\xff'\n", "DEV002"),
    "lone-surrogate": (b"import torch\nx = '\xed\xa0\x80'\n", "DEV002"),
    "null-byte": (b"import torch\nx = 1\x00\n", "DEV001"),
    "bom-and-latin1-declared": (b"\xef\xbb\xbf# -*- coding: latin-1 -*-\nimport torch\n", "DEV001"),
    "unterminated-triple-quote": (b"import torch\nx = '''" + b"a" * 100_000, "DEV001"),
    "quotes-only": (b"import torch\n" + b"'''" * 50_001, "DEV001"),
    "binary-noise": (b"import torch\n" + bytes(range(256)) * 64, "DEV002"),
}


@pytest.mark.parametrize("name", sorted(BAD_BYTES))
def test_bad_bytes_are_one_clean_finding(name):
    source, code = BAD_BYTES[name]
    assert [f.code for f in lint(source)] == [code]


def test_declared_latin1_and_old_mac_line_ends_are_analysed():
    latin = b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + BUG.encode()
    assert ("DEV101", 2 + BUG_LINE) in {(f.code, f.line) for f in lint(latin)}
    assert ("DEV101", BUG_LINE) in {(f.code, f.line) for f in lint(BUG.replace("\n", "\r").encode())}


def test_a_stopped_analysis_keeps_its_findings(monkeypatch):
    from devlint.core.facts import Operation

    source = "import torch\na = torch.ones(3) + torch.ones(3).to('cuda')\nb = torch.ones(3) + torch.ones(3).to('cuda')\n"
    complete = {(f.code, f.line) for f in lint(source)}
    assert {("DEV101", 2), ("DEV101", 3)} <= complete
    real = engine.analyse

    def stops_at_the_second_operation(module, emit, project=None):
        seen = []

        def emit_until(fact):
            if isinstance(fact, Operation):
                seen.append(fact)
                if len(seen) == 2:
                    raise AnalysisBudgetExceeded("more than 3 analysis steps")
            emit(fact)
        real(module, emit_until, project)

    monkeypatch.setattr(engine, "analyse", stops_at_the_second_operation)
    findings = lint(source)
    assert findings[0].code == "DEV005" and "partially checked: more than 3 analysis steps" in findings[0].message
    partial = {(f.code, f.line) for f in findings[1:]}
    assert ("DEV101", 2) in partial and ("DEV101", 3) not in partial and partial <= complete


def test_the_deadline_interrupts_a_runaway_analysis(monkeypatch):
    real = engine.analyse

    def never_ends(module, emit, project=None):
        real(module, emit, project)
        while True:
            pass

    complete = codes(lint(BUG))
    monkeypatch.setattr(engine, "analyse", never_ends)
    monkeypatch.setattr(engine, "MAX_ANALYSIS_SECONDS", 0.5)
    findings = lint(BUG)
    assert findings[0].code == "DEV005" and "ran past 0.5 s" in findings[0].message
    assert codes(findings[1:]) == complete
    assert codes(lint(BUG)) == complete | {"DEV005"}  # and the deep thread is usable again


def test_deeply_nested_loops_finish(monkeypatch):
    monkeypatch.setattr(engine, "MAX_ANALYSIS_SECONDS", 20)
    start = time.perf_counter()
    findings = lint(nested_loops(20) + BUG)
    assert time.perf_counter() - start < 20
    assert "DEV005" not in codes(findings) and "DEV101" in codes(findings)


# ---------------------------------------------------------------- many files at once


def write_tree(folder: Path) -> dict[str, int]:
    """Hostile files next to buggy ones; {buggy file: its bug's line}."""
    hostile = {f"deep_{name}.py": "import torch\n" + source for name, (source, _, _) in TOO_DEEP.items()}
    hostile.update({f"valid_{name}.py": "import torch\n" + source for name, source in VALID_DEEP.items()})
    for name, text in hostile.items():
        (folder / name).write_text(text)
    for name, (data, _) in BAD_BYTES.items():
        (folder / f"bytes_{name}.py").write_bytes(data)
    (folder / "huge.py").write_bytes(b"import torch\n" + b"x = 1\n" * 700_000)  # 4.2 MB
    buggy = {}
    for i in range(30):
        path = folder / f"buggy_{i:02}.py"
        path.write_text("# filler\n" * i + BUG)
        buggy[path.name] = i + BUG_LINE
    return buggy


def test_a_hostile_tree_in_parallel_keeps_every_finding(tmp_path):
    buggy = write_tree(tmp_path)
    files = sorted(str(p) for p in tmp_path.iterdir())
    stats = RunStats()
    findings = check_files(files, CODES, jobs=2, use_cache=False, stats=stats)
    by_file: dict[str, set] = {}
    for f in findings:
        by_file.setdefault(Path(f.path).name, set()).add((f.code, f.line))
    for name, line in buggy.items():
        assert ("DEV101", line) in by_file.get(name, set()), name
    assert ("DEV005", 1) in by_file["huge.py"]
    assert not any(code == "DEV003" for found in by_file.values() for code, _ in found), by_file
    assert stats.skipped == 1  # UTF-16: no "torch" byte string in it
    assert stats.analysed == len(files) - 2  # nor huge.py: refused by its size, unread


def test_the_command_on_a_hostile_tree(tmp_path):
    buggy = write_tree(tmp_path)
    (tmp_path / "no_device_words.py").write_text("print('hello')\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), DEVLINT_CACHE_DIR=str(tmp_path / "cache"))
    result = subprocess.run([sys.executable, "-m", "devlint", "-j", "2", "--format", "json", "."], cwd=tmp_path,
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    found = {(Path(f["path"]).name, f["code"], f["line"]) for f in json.loads(result.stdout)}
    assert all((name, "DEV101", line) in found for name, line in buggy.items())
    assert "skipped 2 file" in result.stderr  # no_device_words.py and the UTF-16 one


def test_a_huge_file_is_refused_in_bounded_memory(tmp_path):
    huge = tmp_path / "huge.py"
    with open(huge, "wb") as out:
        out.write(b"import torch\n")
        out.write(b"x = 1\n" * (64 * 1024 * 1024 // 6))
    silent = tmp_path / "silent.py"
    silent.write_bytes(b"x = 1\n" * (64 * 1024 * 1024 // 6))
    tracemalloc.start()
    try:
        findings = check_files([str(huge), str(silent)], CODES, jobs=1, use_cache=False, max_file_size=1 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [(Path(f.path).name, f.code) for f in findings] == [("huge.py", "DEV005")]
    assert "more than max-file-size (1,048,576)" in findings[0].message
    assert peak < 8 << 20  # read in blocks, never whole


# ---------------------------------------------------------------- worker processes


def _crashing_setup(crash_on: str, hang_on: str, raise_on: str):
    faulthandler.disable()  # the crash below is on purpose: no traceback dump

    def handle(name: str) -> str:
        if name == crash_on:
            os.kill(os.getpid(), signal.SIGSEGV)
        if name == hang_on:
            time.sleep(60)
        if name == raise_on:
            raise MemoryError
        return name.upper()
    return handle


def test_a_dead_or_stuck_worker_costs_only_its_file():
    DEEP_STACK.stop()  # as check_files does: workers are forked from a process with no other thread
    names = [f"f{i}" for i in range(40)]
    chunks = [[(i, name) for i, name in enumerate(names[start:start + 8], start)] for start in range(0, 40, 8)]
    results, lost = {}, {}
    start = time.perf_counter()
    run_jobs(chunks, 2, _crashing_setup, ("f5", "f17", "f30"), lambda i, r: results.__setitem__(i, r),
             lambda i, why, timed_out: lost.__setitem__(i, (why, timed_out)), file_timeout=2)
    assert time.perf_counter() - start < 30
    assert set(lost) == {5, 17, 30}
    assert "SIGSEGV" in lost[5][0] and not lost[5][1]
    assert "more than 2 s" in lost[17][0] and lost[17][1]
    assert "internal error" in lost[30][0] and not lost[30][1]
    assert results == {i: name.upper() for i, name in enumerate(names) if i not in (5, 17, 30)}


# ---------------------------------------------------------------- the cache


@pytest.fixture
def cache_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "cache-home"
    monkeypatch.setenv("DEVLINT_CACHE_DIR", str(home))
    return home


def project_with_bug(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    (project / "bug.py").write_text(BUG)
    return project


def run_cached(project: Path) -> list:
    return check_files([str(project / "bug.py")], CODES, jobs=1, cache_root=project)


POISON = {
    "not-json": "{{{",
    "array": "[]",
    "string": '"entries"',
    "deep": "[" * 100_000 + "]" * 100_000,
    "entries-array": '{"format": 1, "entries": []}',
    "entry-not-list": '{"format": 1, "entries": {"KEY": 5}}',
    "entry-of-strings": '{"format": 1, "entries": {"KEY": ["DEV101"]}}',
    "entry-missing-keys": '{"format": 1, "entries": {"KEY": [{"code": "DEV101"}]}}',
    "entry-wrong-types": '{"format": 1, "entries": {"KEY": [{"code": 1, "severity": "error", "path": "P", '
                         '"line": "x", "column": 1, "end_line": 1, "end_column": 1, "message": null}]}}',
    "entry-other-path": '{"format": 1, "entries": {"KEY": [{"code": "DEV101", "severity": "error", '
                        '"path": "elsewhere.py", "line": 1, "column": 1, "end_line": 1, "end_column": 1, '
                        '"message": "m"}]}}',
    "entry-empty": '{"format": 1, "entries": {"KEY": []}, "poisoned": true}',
}


@pytest.mark.parametrize("name", sorted(POISON))
def test_a_poisoned_cache_is_a_miss(tmp_path, cache_home, name):
    project = project_with_bug(tmp_path)
    expected = [(f.code, f.line) for f in run_cached(project)]
    assert ("DEV101", BUG_LINE) in expected
    [cache_file] = cache_home.glob("*/v*.json")
    key = next(iter(json.loads(cache_file.read_text())["entries"]))
    poison = POISON[name].replace("KEY", key).replace('"P"', json.dumps(str(project / "bug.py")))
    if name == "entry-empty":  # a valid entry, but from a foreign format version: a miss
        poison = poison.replace('"format": 1', '"format": 0')
    cache_file.write_text(poison)
    assert [(f.code, f.line) for f in run_cached(project)] == expected
    assert json.loads(cache_file.read_text())["entries"][key]  # and the entry was written again


def test_the_cache_never_writes_through_a_symlink(tmp_path, cache_home):
    project = project_with_bug(tmp_path)
    run_cached(project)
    [folder] = cache_home.iterdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    for cache_file in folder.glob("v*.json"):  # the cache file itself: replaced, not followed
        cache_file.unlink()
        cache_file.symlink_to(victim)
    (project / "bug.py").write_text(BUG + "\n")  # a change, so the cache is written again
    assert "DEV101" in codes(run_cached(project))
    assert victim.read_text() == "precious"
    # the whole folder a symlink to elsewhere: refused, neither read nor written
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for item in folder.iterdir():
        item.unlink()
    folder.rmdir()
    folder.symlink_to(elsewhere, target_is_directory=True)
    (project / "bug.py").write_text(BUG + "\n\n")
    assert "DEV101" in codes(run_cached(project))
    assert list(elsewhere.iterdir()) == []


def test_a_fifo_or_folder_as_the_cache_file_is_a_miss(tmp_path, cache_home):
    project = project_with_bug(tmp_path)
    run_cached(project)
    [cache_file] = cache_home.glob("*/v*.json")
    cache_file.unlink()
    os.mkfifo(cache_file)  # opening it for reading would block forever without O_NONBLOCK
    assert "DEV101" in codes(run_cached(project))


def test_nothing_is_written_in_the_linted_tree(tmp_path, cache_home):
    project = project_with_bug(tmp_path)
    before = sorted(p.name for p in project.rglob("*"))
    run_cached(project)
    assert sorted(p.name for p in project.rglob("*")) == before


def test_a_fifo_beside_a_load_does_not_block_the_search_for_its_writer(tmp_path):
    """The files beside a `torch.load` are read to find the script that saves its file: one that is a FIFO
    named `*.py` is skipped, never opened (reading it would block forever)."""
    (tmp_path / "train.py").write_text("import torch\nstate = torch.load('weights_here.pt')\n")
    os.mkfifo(tmp_path / "writer.py")
    done = subprocess.run([sys.executable, "-m", "devlint", "--no-cache", "train.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "DEV202" in done.stdout
