"""Torch knowledge lives in one place: `devlint/core/torch_catalogue/`.

No module outside the catalogue names a torch API (a function, method or class a record
defines, or a device type) in a string literal; docstrings and comments do not count. What
is still spelled elsewhere is listed below, per module, with why: the list may only shrink.
"""

from __future__ import annotations

import ast
import collections
from pathlib import Path
from typing import Counter, Dict

from devlint.core.torch_catalogue import records, views

ROOT = Path(__file__).resolve().parent.parent / "devlint"
CATALOGUE = ROOT / "core" / "torch_catalogue"

# Words that name a torch API and mean something else as often: not counted anywhere.
AMBIGUOUS = frozenset({
    "device",  # the `device=` keyword every factory takes, `x.device`, a config key
    "type",  # `device.type`, a JSON field
    "full",  # an output format
    "where",  # a report field
    "T",  # a TypeVar
    "data",  # `DataLoader(data)`, `torch.tensor(data)`: an argument's name
})

# Still spelled outside the catalogue: module -> {name: occurrences}. Each group says why.
ALLOWED: Dict[str, Dict[str, int]] = {
    # The abstract domain's device kinds (`Device.kind`), written where the domain is defined; they are to
    # read records.CPU_TYPE/CUDA_TYPE once the analysis work on values.py and devices.py has landed. `Module`/`Tensor` there
    # are the value classes' own names (a forward reference, a type name in text).
    "devlint/core/mixing.py": {"cpu": 8},
    "devlint/core/devices.py": {"Tensor": 1, "cpu": 5, "cuda": 9, "mps": 2, "xpu": 2},
    "devlint/core/values.py": {"Module": 1, "cpu": 3, "cuda": 1},
    "devlint/static/analysis/interpreter.py": {"cpu": 1},
    # The runtime's own plumbing, keyed by what torch calls things:
    # `__get__`, the handlers of `set_`, `copy_`, `.grad` and the packed-sequence kernel, the functions patches.py
    # replaces (setattr targets), the launcher's module name, and the simulated classes' names.
    "devlint/runtime/checker.py": {"__get__": 2, "_base": 1, "_pack_padded_sequence": 1, "copy_": 1, "grad": 4,
                                   "set_": 1},
    "devlint/runtime/distributed.py": {"torch.distributed.run": 2},
    "devlint/runtime/patches.py": {
        "Event": 1, "Stream": 1, "apply": 2, "compile": 1, "cuda": 1, "init_process_group": 1, "load": 1,
        "register_full_backward_hook": 1, "save": 1, "set_default_device": 1, "spawn": 1, "synchronize": 1,
        "torch.multiprocessing.spawn": 1},
    "devlint/runtime/simulate.py": {"Event": 1, "Stream": 1, "Tensor": 2},
    # Handlers of tensor attributes keyed by name (`x.shape`, `x.is_cuda`), type annotations and isinstance
    # checks the walk reads, and syntax heuristics (`x.numpy` in a prepass, a decorator naming amp, a
    # parameter named like cuda). Kept out of a bigger edit of analysis/ while it is being reworked.
    "devlint/static/analysis/attributes.py": {"dtype": 1, "is_cuda": 1, "ndim": 1, "shape": 1},
    "devlint/static/analysis/definitions.py": {"to": 1},
    "devlint/static/analysis/functions.py": {"__len__": 1, "cuda": 1, "torch.FloatTensor": 1,
                                             "torch.LongTensor": 1, "torch.Tensor": 1,
                                             "int": 1},  # the builtin type of an annotation (`t: int`)
    "devlint/static/analysis/guards.py": {"amp": 1},
    "devlint/static/analysis/prepass.py": {"numpy": 1, "save": 1, "to": 1},
    # Code the autofixes write (`.to(device)`, `torch.tensor(...)`, `torch.empty(...)`) and the shape of a
    # `.detach()` call they look for.
    "devlint/static/rules/dev201_gpu_assumed.py": {"Tensor": 4, "cpu": 1, "empty": 1, "tensor": 1, "to": 2},
    # The command line's option groups: `run` is the group a run's options belong to, not `torch.distributed.run`.
    "devlint/cli/lint_run.py": {"run": 1},
    "devlint/static/rules/dev401_host_conversion.py": {"detach": 1},
    # Names people give command-line options.
    "devlint/static/semantics/argparse_options.py": {"cuda": 1},
    # Python's builtins (`float(x)`, `max(a, b)`), not torch's.
    "devlint/static/semantics/builtins.py": {"abs": 1, "all": 1, "any": 1, "bool": 1, "float": 1, "int": 1, "max": 1,
                                             "min": 1, "range": 1, "sum": 1},
    "devlint/static/semantics/tensors.py": {"bool": 1, "float": 1, "int": 1, "max": 1, "min": 1, "sum": 1,
                                            # handlers keyed by the tensor method they model
                                            "backward": 1, "copy_": 1},
    # Handlers keyed by the method they model (Event, Generator and Optimizer methods), the text of a message.
    "devlint/static/semantics/cuda.py": {"synchronize": 1},
    "devlint/static/semantics/opaque.py": {"synchronize": 1},
    "devlint/static/semantics/registry.py": {"manual_seed": 1, "seed": 1},
    "devlint/static/semantics/optim.py": {"load_state_dict": 1},
    "devlint/static/semantics/data.py": {"DataLoader": 1},
    # libcst's field names.
    "devlint/static/syntax.py": {"dot": 1, "equal": 1},
}


def api_names() -> frozenset:
    names = {records.CPU_TYPE, records.CUDA_TYPE, records.MPS_TYPE, records.XPU_TYPE}
    for record in views.RECORDS:
        names.update(record.methods)
        for name in record.names:
            names.update((name, name.rsplit(".", 1)[-1]))
    return frozenset(names - AMBIGUOUS)


def _docstrings(tree: ast.AST) -> set:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {id(node.body[0].value) for node in ast.walk(tree) if isinstance(node, kinds) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def spelled(path: Path, names: frozenset) -> Counter:
    """The API names among `path`'s string constants (f-string pieces included), docstrings apart."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    return collections.Counter(node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
                               and isinstance(node.value, str) and id(node) not in docs and node.value in names)


def modules() -> list:
    return sorted(p for p in ROOT.rglob("*.py") if CATALOGUE not in p.parents)


def test_no_module_outside_the_catalogue_names_a_torch_api_in_a_string():
    names = api_names()
    leaks = []
    for path in modules():
        key = str(path.relative_to(ROOT.parent))
        allowed = ALLOWED.get(key, {})
        for name, count in sorted(spelled(path, names).items()):
            if count > allowed.get(name, 0):
                leaks.append(f"{key}: {name!r} x{count} (allowed {allowed.get(name, 0)})")
    assert not leaks, "torch API names outside devlint/core/torch_catalogue/ (use a record or a view):\n" + \
        "\n".join(leaks)


def test_the_allow_list_only_lists_what_is_still_there():
    """A name moved to the catalogue leaves the list too, so that the list can only shrink."""
    names = api_names()
    stale = []
    for key, allowed in ALLOWED.items():
        path = ROOT.parent / key
        found = spelled(path, names) if path.exists() else collections.Counter()
        stale += [f"{key}: {name!r} allowed {count}, found {found[name]}"
                  for name, count in allowed.items() if found[name] < count]
    assert not stale, "\n".join(stale)


def test_the_scan_sees_a_leak(tmp_path):
    """The scan works: a name as a string or an f-string piece is found; in a docstring or in text, not."""
    path = tmp_path / "probe.py"
    path.write_text('"""torch.zeros in a docstring is fine."""\nFACTORY = "zeros"\nTEXT = f"call {1}.cuda()"\n'
                    'TYPE = f"{1}" + f"cuda{2}"\nKIND = {"mps": 1}\n', encoding="utf-8")
    assert spelled(path, api_names()) == collections.Counter({"zeros": 1, "cuda": 1, "mps": 1})


def test_one_record_per_api():
    """A dotted name or a method name belongs to one record: its knowledge is in one place."""
    seen: Counter = collections.Counter()
    for record in views.RECORDS:
        assert record.names or record.methods, record
        seen.update(f"name {n}" for n in record.names)
        seen.update(f"method {m}" for m in record.methods)
    assert [key for key, count in seen.items() if count > 1] == []


def test_the_catalogue_imports_nothing_else_from_devlint():
    """Every layer reads the catalogue, so it may read no layer."""
    for path in CATALOGUE.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("devlint"):
                assert node.module.startswith("devlint.core.torch_catalogue"), (path.name, node.module)
