"""A project module's walk is kept and replayed for the next checked file (devlint/static/analysis/walked.py),
also one that met an import cycle or a bound, where the walk around it meets the same again: each file's
findings are those a fresh process gives it, and a second round walks no module. (Lightning's 562 files
re-walked up to 48 modules each: its package imports itself in cycles.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from devlint.static.analysis import imports
from devlint.static.project import sources
from tests.test_projects import codes, write

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


def fresh(path: Path) -> set:
    sources._TABLE.clear()  # every module read again: no earlier walk to replay
    return codes(path)


@pytest.mark.parametrize("files", [CYCLE, chain(imports.MAX_NESTING + 3)], ids=["cycle", "chain"])
def test_a_walk_that_met_its_context_is_replayed_where_it_holds(tmp_path, monkeypatch, files):
    write(tmp_path, files)
    (tmp_path / ".git").mkdir()
    checked = sorted(tmp_path / name for name in files if not name.startswith(("a.", "b.", "link")))
    alone = {path: fresh(path) for path in checked}
    assert any(alone.values())
    walks: list = []
    walk = imports._walk_module
    monkeypatch.setattr(imports, "_walk_module", lambda *a: walks.append(a[2].key) or walk(*a))
    sources._TABLE.clear()
    for path in checked + checked[::-1]:
        assert codes(path) == alone[path], path.name
    first = len(walks)
    for path in checked:
        assert codes(path) == alone[path], path.name
    assert first and len(walks) == first  # the second round replays every walk
