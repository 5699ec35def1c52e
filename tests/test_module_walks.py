"""A project module's walk is kept and replayed for the next checked file (devlint/static/analysis/walked.py),
also one that met an import cycle or a bound, where the walk around it meets the same again: each file's
findings are those a fresh process gives it, and a second round walks no module. (Lightning's 562 files
re-walked up to 48 modules each: its package imports itself in cycles.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from devlint.static.analysis import imports
from devlint.static.project import sources
from tests.lint_helpers import file_found, write_files

CYCLE = {"a.py": """\
    import torch
    from b import make

    DEVICE = "cuda"


    def run(n):
        return make(n) + torch.ones(n).to(DEVICE)
""", "b.py": """\
    import torch
    from a import DEVICE


    def make(n):
        return torch.zeros(n, device=DEVICE)
""", "enters_a.py": """\
    import numpy as np
    from a import run

    print(np.asarray(run(3)))
""", "enters_b.py": """\
    import numpy as np
    from b import make

    print(np.asarray(make(3)))
""", "enters_both.py": """\
    import numpy as np
    import torch
    from b import make
    from a import run

    x = make(3)
    print(np.asarray(run(3)), x + torch.ones(3))
"""}


def chain(length: int) -> dict:
    """link0 imports link1 ... : deeper than the nesting bound; the last one says where tensors go."""
    files = {f"link{i}.py": f"from link{i + 1} import DEVICE, make\n" for i in range(length - 1)}
    files[f"link{length - 1}.py"] = "import torch\nDEVICE = 'cuda'\n\ndef make(n):\n    return torch.ones(n)\n"
    for start in (0, 2, length - 3):
        files[f"from{start}.py"] = f"""\
            import torch
            from link{start} import DEVICE, make

            x = make(3).to(DEVICE) + torch.zeros(3)
        """
    return files


def counting_walks(monkeypatch) -> list:
    """The keys of the modules walked from now on, one per walk (replays are not walks)."""
    walks: list = []
    walk = imports._walk_module
    monkeypatch.setattr(imports, "_walk_module", lambda *a: walks.append(a[2].key) or walk(*a))
    return walks


def fresh(path: Path) -> set:
    sources._TABLE.clear()  # every module read again: no earlier walk to replay
    return file_found(path)


@pytest.mark.parametrize("files", [CYCLE, chain(imports.MAX_NESTING + 3)], ids=["cycle", "chain"])
def test_a_walk_that_met_its_context_is_replayed_where_it_holds(tmp_path, monkeypatch, files):
    write_files(tmp_path, files)
    (tmp_path / ".git").mkdir()
    checked = sorted(tmp_path / name for name in files if not name.startswith(("a.", "b.", "link")))
    alone = {path: fresh(path) for path in checked}
    assert any(alone.values())
    walks = counting_walks(monkeypatch)
    sources._TABLE.clear()
    for path in checked + checked[::-1]:
        assert file_found(path) == alone[path], path.name
    first = len(walks)
    for path in checked:
        assert file_found(path) == alone[path], path.name
    assert first and len(walks) == first  # the second round replays every walk



RING = 5  # modules importing each other in a ring (under the nesting bound)


def ring() -> dict:
    """m0 imports m1 ... m4 imports m0; the last names the device. One script enters the ring at each module."""
    files = {f"m{i}.py": f"import torch\nfrom m{i + 1} import DEVICE\n\n"
                         f"def make{i}(n):\n    return torch.ones(n).to(DEVICE)\n" for i in range(RING - 1)}
    files[f"m{RING - 1}.py"] = "import torch\nfrom m0 import make0\n\nDEVICE = 'cuda'\n"
    for i in range(RING - 1):
        files[f"enter{i}.py"] = f"import numpy as np\nfrom m{i} import make{i}\n\nprint(np.asarray(make{i}(3)))\n"
    files[f"enter{RING - 1}.py"] = f"import numpy as np\nfrom m{RING - 1} import make0\n\nprint(np.asarray(make0(3)))\n"
    return files


def test_a_module_met_in_more_contexts_than_four_keeps_a_walk_for_each(tmp_path, monkeypatch):
    """A ring of modules entered at each of them: each module's walk meets the ring in as many contexts
    (the modules loading around it) as there are ways in, more than the 4 walks once kept per module. Those
    met again most recently are kept first: a second round replays every walk, and each file says what a
    fresh process says."""
    files = ring()
    write_files(tmp_path, files)
    (tmp_path / ".git").mkdir()
    checked = sorted(tmp_path / name for name in files if name.startswith("enter"))
    alone = {path: fresh(path) for path in checked}
    assert any(alone.values())
    walks = counting_walks(monkeypatch)
    sources._TABLE.clear()
    for path in checked:
        assert file_found(path) == alone[path], path.name
    first = len(walks)
    assert first > RING  # each module walked in several contexts
    for path in checked[::-1] + checked:
        assert file_found(path) == alone[path], path.name
    assert len(walks) == first


def test_a_walk_that_met_nothing_is_replayed_only_where_the_bound_lets_its_imports_be_walked(tmp_path):
    """A chain deeper than the nesting bound entered at each of its links. link10, entered first (from10.py
    sorts before from2.py), is walked to the chain's end: a walk that met nothing. From from5.py link10 is
    five modules deep, and a fresh walk of it meets the bound at its import of link11 (no DEVICE): the kept walk
    holds only where the bounds leave room for its reach (its height and size), else it is walked again. (It was
    replayed anywhere: DEV101 and DEV201 where a fresh process reports nothing, the findings depending on the
    order files were checked in.)"""
    length = imports.MAX_NESTING + 6
    files = {name: text for name, text in chain(length).items() if not name.startswith("from")}
    for start in range(length - 1):
        files[f"from{start}.py"] = f"""\
            import torch
            from link{start} import DEVICE, make

            x = make(3).to(DEVICE) + torch.zeros(3)
        """
    write_files(tmp_path, files)
    (tmp_path / ".git").mkdir()
    checked = sorted(tmp_path / name for name in files if name.startswith("from"))
    alone = {path: fresh(path) for path in checked}
    sources._TABLE.clear()
    assert [file_found(path) for path in checked] == [alone[path] for path in checked]


def test_a_walk_that_met_a_cycle_but_no_bound_is_replayed_only_where_the_bounds_leave_it_room(tmp_path):
    """audiocraft's solvers/base.py, walked from builders.py at the top (it met a cycle, no bound), was replayed
    five imports deep in the next file, where a fresh walk meets the nesting bound: a DEV101 that a fresh
    process does not report. A kept walk is held to the bounds it did not meet, as one that met nothing is."""
    files = {"ca.py": "from cb import helper\nfrom link0 import DEVICE, make\n",
             "cb.py": "from ca import DEVICE\n\n\ndef helper():\n    return DEVICE\n",
             "d0.py": "from d1 import DEVICE, make\n", "d1.py": "from ca import DEVICE, make\n",
             "top.py": "import torch\nfrom ca import DEVICE, make\n\nx = make(3).to(DEVICE) + torch.zeros(3)\n",
             "deep.py": "import torch\nfrom d0 import DEVICE, make\n\nx = make(3).to(DEVICE) + torch.zeros(3)\n"}
    files.update({f"link{i}.py": f"from link{i + 1} import DEVICE, make\n" for i in range(4)})
    files["link4.py"] = "import torch\nDEVICE = 'cuda'\n\ndef make(n):\n    return torch.ones(n)\n"
    write_files(tmp_path, files)
    (tmp_path / ".git").mkdir()
    alone = fresh(tmp_path / "deep.py")
    sources._TABLE.clear()
    assert file_found(tmp_path / "top.py")  # the walk of ca from the top knows DEVICE: a DEV101 there
    assert file_found(tmp_path / "deep.py") == alone
