"""Notebooks: code cells as one program in order, findings placed in their cells, magics skipped,
suppressions in cells, fixes written back into the cells, nothing ever executed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from devlint.static.engine import check_source
from devlint.static.notebooks import Notebook, dump, python_lines
from devlint.static.rules import ALL_RULES
from tests.test_cli import run

DEFAULT_RULES = [r() for r in ALL_RULES if r.default_enabled]


def code_cell(*lines: str) -> dict:
    source = [line + "\n" for line in lines[:-1]] + [lines[-1]]
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}


def markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": [text]}


def notebook(*cells: dict) -> str:
    raw = {"cells": list(cells), "metadata": {"kernelspec": {"display_name": "Python 3", "name": "python3"}},
           "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(raw, indent=1, ensure_ascii=False) + "\n"


BUGGY_NB = notebook(
    markdown("# Train"),
    code_cell("import torch", "%matplotlib inline"),
    code_cell("device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')", "!nvidia-smi"),
    markdown("Data"),
    code_cell("x = torch.randn(8, device=device)", "files = !ls", "y = torch.ones(8)"),
    code_cell("print(x.shape)", "", "z = x + y"),
    code_cell("%%bash", "echo not python at all (", "ls"),
)
CLEAN_NB = notebook(
    code_cell("import torch"),
    code_cell("device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')"),
    code_cell("x = torch.randn(8, device=device)", "y = torch.ones(8, device=device)", "%time z = x + y"),
    code_cell("values = z.detach().cpu().numpy()"),
)


def test_a_bug_in_a_later_cell_is_found_at_its_cell_and_line(tmp_path: Path):
    (tmp_path / "nb.ipynb").write_text(BUGGY_NB)
    result = run("--no-cache", "nb.ipynb", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("nb.ipynb:cell 4:3:5: DEV101"), first  # the 4th code cell, its 3rd line
    assert "3 | z = x + y" in result.stdout  # the frame shows the cell's line
    assert "cell 2, line 1 `device = torch.device" in result.stdout  # the why, in cells too
    data = json.loads(run("--no-cache", "--output-format", "json", "nb.ipynb", cwd=tmp_path).stdout)
    assert [(f["code"], f["cell"], f["line"], f["column"]) for f in data] == [("DEV101", 4, 3, 5)]


def test_findings_at_the_same_place_of_two_cells_are_two_findings(tmp_path: Path):
    """The same code at the same line and column of two cells is two bugs (survey 14: a notebook plotting its
    train and its test accuracy lost the second)."""
    (tmp_path / "nb.ipynb").write_text(notebook(
        code_cell("import torch", "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
                  "net = torch.nn.Linear(3, 2).to(device)", "x, v = torch.randn(4, 3), torch.randn(4, 3)"),
        code_cell("y = 1", "out = net(x)"),
        code_cell("y = 2", "out = net(v)"),
    ))
    data = json.loads(run("--no-cache", "--output-format", "json", "nb.ipynb", cwd=tmp_path).stdout)
    assert [(f["code"], f["cell"], f["line"], f["column"]) for f in data] == [("DEV102", 2, 2, 7), ("DEV102", 3, 2, 7)]


def test_a_cell_indented_as_a_whole_is_read_as_ipython_reads_it(tmp_path: Path):
    """IPython strips the indent every line of a cell shares before it runs it (survey 16: two mrdbourke cells
    were DEV001 and their findings lost); findings keep the cell's own columns. A cell whose lines do not share
    it stays a syntax error."""
    (tmp_path / "nb.ipynb").write_text(notebook(
        code_cell("import torch"),
        code_cell(" x = torch.ones(2).to('cuda' if torch.cuda.is_available() else 'cpu')", " x.numpy()"),
        code_cell("  y = 1", " z = 2"),
    ))
    data = json.loads(run("--no-cache", "--output-format", "json", "nb.ipynb", cwd=tmp_path).stdout)
    assert [(f["code"], f["cell"], f["line"], f["column"]) for f in data] == [
        ("DEV401", 2, 2, 2), ("DEV001", 3, 1, 2)]


def test_a_cell_whose_first_line_is_indented_is_read_as_ipython_reads_it(tmp_path: Path):
    """IPython strips the first line's indent from every line that has it, and leaves the others (survey 21: a
    rasbt notebook cell ` def compute_z(...)` ran, and was a DEV001). Findings keep the cell's own columns on
    both kinds of line."""
    (tmp_path / "nb.ipynb").write_text(notebook(
        code_cell("import torch"),
        code_cell(" def host(a):", "    return a.numpy()", "",
                  "x = torch.ones(2).to('cuda' if torch.cuda.is_available() else 'cpu')", "print(host(x), x.numpy())"),
    ))
    data = json.loads(run("--no-cache", "--output-format", "json", "nb.ipynb", cwd=tmp_path).stdout)
    assert sorted((f["code"], f["cell"], f["line"], f["column"]) for f in data) == [
        ("DEV401", 2, 2, 12), ("DEV401", 2, 5, 16)]


def test_a_correct_notebook_is_clean(tmp_path: Path):
    (tmp_path / "ok.ipynb").write_text(CLEAN_NB)
    result = run("--no-cache", "ok.ipynb", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip() == "All checked: 1 file, no problems."


def test_folders_are_walked_for_notebooks(tmp_path: Path):
    (tmp_path / "notebooks" / ".ipynb_checkpoints").mkdir(parents=True)
    (tmp_path / "notebooks" / "nb.ipynb").write_text(BUGGY_NB)
    (tmp_path / "notebooks" / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text(BUGGY_NB)  # Jupyter's copy
    result = run("--no-cache", "--output-format", "concise", ".", cwd=tmp_path)
    assert "nb.ipynb:cell 4:3:5: DEV101" in result.stdout and "checkpoint" not in result.stdout


def test_suppressions_in_cells():
    source = BUGGY_NB.replace('"z = x + y"', '"z = x + y  # noqa: DEV101"')
    assert check_source(source.encode(), "nb.ipynb", DEFAULT_RULES) == []


def test_magics_and_shell_lines_are_skipped_not_run():
    assert python_lines("%%bash\necho (\n") == ["", ""]
    assert python_lines("%%timeit\nx = 1 + 1\n") == ["", "x = 1 + 1"]
    assert python_lines("for i in range(3):\n    !echo {i}\nfiles = !ls\ntorch.zeros?\n") == [
        "for i in range(3):", "    pass", "", ""]
    assert python_lines("x = 1  # what?\n") == ["x = 1  # what?"]  # plain Python is left alone


def test_ipython_escapes_are_read_as_ipython_reads_them():
    """`torch.*Tensor?` is a wildcard search (Atcold's tensor tutorial); a `%` that starts a line inside an open
    bracket is the formatting operator, in a cell that also holds a magic (rasbt's matplotlib notebook)."""
    assert python_lines("import torch\ntorch.*Tensor?\n") == ["import torch", ""]
    cell = "%matplotlib inline\nprint('Step %03d | Cost: %.4f'\n      %(step, cost))\nx = ('(', ')')\n%time y = 1\n"
    assert python_lines(cell) == ["", "print('Step %03d | Cost: %.4f'", "      %(step, cost))", "x = ('(', ')')", ""]


@pytest.mark.parametrize("last, reported", [("m.to(device)", False), ("m.to(device);", True),
                                            ("m.to(device)\nprint(m)", True)])
def test_a_cell_s_last_expression_is_shown_not_thrown_away(tmp_path: Path, last: str, reported: bool):
    """Jupyter shows the value of a cell's last expression (Atcold's tensor tutorial shows `m.to(device)` and
    keeps `m` on the cpu): no DEV103 there; a `;` hides it, and a line before the last is thrown away."""
    (tmp_path / "nb.ipynb").write_text(notebook(
        code_cell("import torch", "m = torch.ones(2, 2)"),
        code_cell("device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')", *last.split("\n"))))
    data = json.loads(run("--no-cache", "--output-format", "json", "nb.ipynb", cwd=tmp_path).stdout)
    assert [(f["code"], f["cell"], f["line"]) for f in data] == ([("DEV103", 2, 2)] if reported else [])


def test_nothing_is_executed(tmp_path: Path):
    marker = tmp_path / "ran"
    (tmp_path / "nb.ipynb").write_text(notebook(code_cell(f"open({str(marker)!r}, 'w').write('x')"),
                                                code_cell(f"!touch {marker}")))
    run("--no-cache", "nb.ipynb", cwd=tmp_path)
    assert not marker.exists()


def test_a_broken_notebook_is_one_finding(tmp_path: Path):
    (tmp_path / "bad.ipynb").write_text('{"cells": ["import torch"')  # a file naming no device is skipped
    (tmp_path / "dict.ipynb").write_text('{"not": "a notebook on a device"}')
    (tmp_path / "ok.py").write_text("x = 1\n")
    result = run("--no-cache", "--output-format", "concise", "bad.ipynb", "dict.ipynb", "ok.py", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "bad.ipynb:1:1: DEV001 not a notebook devlint can read: invalid JSON" in result.stdout
    assert "dict.ipynb:1:1: DEV001" in result.stdout


def test_a_syntax_error_is_placed_in_its_cell():
    found = check_source(notebook(code_cell("import torch"), code_cell("x = (", "")).encode(), "nb.ipynb",
                         DEFAULT_RULES)
    assert [(f.code, f.cell) for f in found] == [("DEV001", 2)]


def test_a_cell_that_is_not_python_costs_only_itself():
    """Jupyter runs each cell alone: a cell with a syntax error fails alone, and the other cells' findings stand
    (trl's sft_qwen_vl notebook: a missing comma in one cell hid a finding in another)."""
    found = check_source(notebook(
        code_cell("import torch", "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')"),
        code_cell("w = torch.randn(4, 4, device=device)", "x = torch.randn(4, 4)", "y = x @ w"),
        code_cell("settings = dict(", "    a=1", "    b=2,", ")"),
        code_cell("%%bash", "echo not python"),
        code_cell("!pip install torch", "z = y + 1")).encode(), "nb.ipynb", DEFAULT_RULES)
    # where in the cell the parser places the error is CPython's to say (3.9 and 3.11 differ)
    assert sorted((f.code, f.cell) for f in found) == [("DEV001", 3), ("DEV101", 2)]
    assert [(f.line, f.column) for f in found if f.code == "DEV101"] == [(3, 5)]


def test_fix_writes_back_into_the_cell_and_keeps_the_layout(tmp_path: Path):
    text = notebook(
        code_cell("import torch"),
        markdown("ünïcode stays as it is"),
        code_cell("device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
                  "scores = torch.randn(3, device=device)"),
        code_cell("values = scores.numpy()  # to numpy", "print(values)"),
    )
    path = tmp_path / "nb.ipynb"
    path.write_text(text)
    diff = run("--no-cache", "--diff", "nb.ipynb", cwd=tmp_path)
    assert diff.returncode == 1 and "--- nb.ipynb:cell 3\n" in diff.stdout
    assert "+values = scores.detach().cpu().numpy()  # to numpy\n" in diff.stdout
    assert path.read_text() == text
    assert run("--no-cache", "--fix", "nb.ipynb", cwd=tmp_path).returncode == 0
    after = path.read_text()
    expected = text.replace('"values = scores.numpy()  # to numpy\\n"',
                            '"values = scores.detach().cpu().numpy()  # to numpy\\n"')
    assert after == expected  # one line of one cell changed, the rest byte for byte
    assert run("--no-cache", "nb.ipynb", cwd=tmp_path).returncode == 0


def test_dump_round_trips_nbformat_layout():
    for text in (BUGGY_NB, CLEAN_NB):
        assert dump(Notebook.parse(text.encode()).raw, text) == text


def test_sarif_and_github_say_the_cell(tmp_path: Path):
    (tmp_path / "nb.ipynb").write_text(BUGGY_NB)
    sarif = json.loads(run("--no-cache", "--output-format", "sarif", "nb.ipynb", cwd=tmp_path).stdout)
    location = sarif["runs"][0]["results"][0]["locations"][0]
    assert location["properties"] == {"cell": 4} and location["physicalLocation"]["region"]["startLine"] == 3
    github = run("--no-cache", "--output-format", "github", "nb.ipynb", cwd=tmp_path).stdout
    assert "title=DEV101 mixed-devices (cell 4%2C line 3)" in github and "line=" not in github


def test_a_fix_across_cells_goes_in_whole(tmp_path: Path):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(code_cell("import torch", "%matplotlib inline"),
                             code_cell("model = torch.nn.Linear(2, 2).cuda()", 'x = torch.zeros(3, device="cuda")')))
    assert run("--no-cache", "--fix", "--unsafe-fixes", "nb.ipynb", cwd=tmp_path).returncode == 0
    cells = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    assert cells == ['import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
                     "%matplotlib inline",
                     "model = torch.nn.Linear(2, 2).to(device)\nx = torch.zeros(3, device=device)"]


def test_indented_continuation_lines_of_a_shell_command_are_part_of_it():
    """`!pip install \\` then `    transformers \\`: IPython joins them; no syntax error (found in diffusers' notebooks)."""
    lines = python_lines("import torch\n!pip install -q \\\n    transformers \\\n    accelerate\nx = torch.ones(2)\n")
    assert lines == ["import torch", "", "", "", "x = torch.ones(2)"]
    inside = python_lines("if True:\n    !pip install a \\\n      b\n    y = 1\n")
    assert inside == ["if True:", "    pass", "    pass", "    y = 1"]
