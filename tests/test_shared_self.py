"""Another module's method that does the same to every object is walked once for all of them
(devlint/static/analysis/shared_self.py): a project's base class `__init__`, reached by `super().__init__()` from
each subclass, as torch.nn's own `Module.__init__` is from its 130 modules. What each subclass's walk would have
found, the shared one finds: the findings are those of a walk per subclass."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from devlint.static.analysis import functions, shared_self
from tests.lint_helpers import file_found, write_files

BASE = """\
    import torch
    from torch import nn


    class Base(nn.Module):
        def __init__(self, *args, **kwargs):
            super().__init__()
            if self.strict and kwargs:
                raise TypeError(f"{type(self).__name__} takes no keyword arguments")
            {more}
"""

MODELS = """\
    import torch
    from torch import nn
    from base import Base

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


    class One(Base):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)


    class Two(Base):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x) + torch.ones(2)


    class Three(Base):
        strict = True

        def __init__(self):
            super(Three, self).__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return self.fc(x)


    models = [One().to(device), Two().to(device), Three().to(device)]
    batch = torch.rand(3, 4).to(device)
    print(models[0](batch), Two().to(device)(batch), Three()(batch))
"""


def walks_of(monkeypatch, name: str) -> list:
    """The walks of function `name`'s body, counted."""
    walked: list = []
    analyse = functions.analyse_body

    def counted(interp, fn, params, caller, node):
        if fn.qualname == name:
            walked.append(fn.qualname)
        return analyse(interp, fn, params, caller, node)

    monkeypatch.setattr(functions, "analyse_body", counted)
    return walked


def walks_with_and_without_sharing(tmp_path, monkeypatch, base: str, models: str, call_line: int) -> tuple[int, int]:
    write_files(tmp_path, {"base.py": base, "models.py": models})
    walked = walks_of(monkeypatch, "Base.__init__")
    with_sharing = file_found(tmp_path / "models.py")
    shared = len(walked)
    with monkeypatch.context() as patched:
        patched.setattr(functions, "shared_key", lambda *args: None)
        assert file_found(tmp_path / "models.py") == with_sharing == {(23, "DEV104"), (call_line, "DEV102")}
    return shared, len(walked) - shared


def test_a_base_init_that_touches_nothing_of_its_object_is_walked_once(tmp_path, monkeypatch):
    """`self.strict`, `self.init_weights()` and `type(self).__name__` are the same for every subclass: one walk
    for the three in each context they are built in (standalone, at the module level, muted or not), where
    a walk per subclass would be three. Where one subclass has a method of that name, its walk is its own."""
    base = BASE.replace("{more}", "self.init_weights()")
    shared, alone = walks_with_and_without_sharing(tmp_path / "same", monkeypatch, base, MODELS, 39)
    assert shared == 4 and alone > 2 * shared
    overriding = MODELS.replace("    class Three(Base):", "        def init_weights(self):\n            pass\n\n\n"
                                "    class Three(Base):")
    shared_but_two, _ = walks_with_and_without_sharing(tmp_path / "two", monkeypatch, base, overriding, 43)
    assert shared_but_two > shared


@pytest.mark.parametrize("body, touched", [
    ("super().__init__()\nself.x = 1\nprint(type(self).__name__)", {"x"}),
    ("super(Net, self).__init__()\nif self.training: pass", {"training"}),
    ("return self", None),
    ("if hasattr(self, 'x'): pass", None),
    ("helper(self)", None),
    ("self.register_buffer('x', None)", {"register_buffer"}),
])
def test_what_a_method_touches_of_its_object(body, touched):
    source = "def method(self):\n" + textwrap.indent(body, "    ") + "\n"
    fdef = cst.parse_module(source).body[0]
    found = shared_self.self_attributes(fdef)
    assert (set(found) if found is not None else None) == touched
