from __future__ import annotations

from typing import Callable, Iterable, Optional

import libcst as cst

from devlint.core.facts import FileIntent, GpuAssumption, Load
from devlint.core.torch_catalogue import views as api
from devlint.static.fixes import AFTER, Fix, NodeEdit
from devlint.static.fixes.helpers import function_of
from devlint.static.rules.base import Verdict, Rule
from devlint.static.syntax import children, dotted


class LoadWithoutMapLocation(Rule):
    """`torch.load` without `map_location` in code that may run without a GPU.

    ## What it does
    Flags `torch.load(path)` calls that give no `map_location` (or give one that
    is None: a helper's `map_location=None` parameter no caller sets), outside code
    guarded by a CUDA availability check. Not flagged: loading what the file
    itself writes with `torch.save` (the same path expression or buffer, or a
    path with the same string parts) or what a script beside it saves there
    (other than a state dict: a pipeline's steps hand each other data; a state
    dict too where that script never names a GPU and saves a model it builds),
    weights loaded into a module of a project whose every writer of a module's
    weights moves them to the cpu before `torch.save` (`state_dict[k] = v.cpu()`),
    what a test loads (a test function loads
    what the code it tests just wrote, on the same machine), what a dataset
    loads (its split indices and metadata come with the download or from its
    own preprocessing: a class deriving from a dataset base, named `...Dataset`,
    or with `__getitem__` and `__len__`), files that
    are GPU-only throughout (DEV204), TPU programs that name no GPU (they
    import `torch_xla`, whose checkpoint writers move tensors to the cpu), and
    published weights, named as torch.hub names them (`vgg16-397923af.pth`:
    the model, then the first hex digits of the file's SHA-256, also as the
    default of the option that names the file): the model zoos that release
    them save them from the cpu. Nor a load in a function that assumes a GPU
    unguarded, itself or in what it calls: it dies without one whatever the
    load does, and that assumption is the report (DEV201, DEV203). Nor a
    load in a `try` whose `except` loads again with `map_location`.

    ## Why is this bad?
    A checkpoint saved from GPU tensors is restored onto the GPU it came from.
    On a machine without one, loading raises `RuntimeError: Attempting to
    deserialize object on a CUDA device but torch.cuda.is_available() is
    False`. `map_location=device` (or `'cpu'`) loads it anywhere.

    ## Fix
    Safe: `--fix` adds `map_location=device`, naming the variable that holds
    the selected device where one is in scope, else `map_location="cpu"`.
    """

    code = "DEV202"
    name = "load-without-map-location"
    severity = "warning"
    facts = (FileIntent, GpuAssumption, Load)

    INVALID = (
        """\
import torch
state = torch.load("checkpoint.pt")  # expect: DEV202
""",
    )
    FIXED = (
        """\
import torch
state = torch.load("checkpoint.pt", map_location="cpu")
""",
    )
    VALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
state = torch.load("checkpoint.pt", map_location=device)
""",
        # a dataset's own files (split indices, metadata), whatever its base: named one, or map-style
        """\
import os.path as osp
import torch

class KnowledgeGraphDataset(object):
    def __init__(self, root):
        self.meta = torch.load(osp.join(root, "meta.pt"))

class Graphs:
    def __init__(self, root):
        self.root = root

    def split(self):
        return torch.load(osp.join(self.root, "split", "split_dict.pt"))

    def __getitem__(self, i):
        return i

    def __len__(self):
        return 1
""",
    )

    def check(self, fact: object) -> Iterable[Verdict]:
        if isinstance(fact, Load):
            if not (fact.has_map_location or fact.guarded or fact.saved_here):
                self.file_state().setdefault("loads", []).append(fact)
        else:
            self.gpu_intent().observe(fact)
        return ()

    def finish(self) -> Iterable[Verdict]:
        if self.gpu_intent().gpu_only():
            return  # a GPU-only file (DEV204): it never loads without a GPU
        intent = self.gpu_intent().intent
        if intent is not None and intent.xla and not self.gpu_intent().assumptions:
            return  # a TPU program that names no GPU: XLA saves its checkpoints from the cpu
        multi_gpu = self.gpu_intent().intent is not None and self.gpu_intent().intent.multi_gpu
        defaults = _parameter_defaults(self.file.module) if self.file_state().get("loads") else set()
        # (a 'cuda' default is a caller's to override: `def load(self, path, device="cuda")` loads anywhere)
        hardcoded = [a for a in self.gpu_intent().unguarded() if not a.switched and id(a.node) not in defaults]
        for fact in self.file_state().get("loads", ()):
            if not _gpu_bound(fact, hardcoded, lambda node: function_of(self.file, node)) \
                    and not _retried_with_map(function_of(self.file, fact.node) or self.file.module, fact.node):
                yield self._verdict(fact, multi_gpu)

    def _verdict(self, fact: Load, multi_gpu: bool) -> Verdict:
        called = dotted(fact.node.func) if type(fact.node) is cst.Call else None
        return Verdict(
            fact.node,
            (f"`{called}`" if called else "a load") + " without `map_location` fails on a machine without a GPU when "
            "the checkpoint holds cuda tensors" + ("; with several GPUs, every rank loads it onto the GPU it was saved from"
                                    if multi_gpu else ""),
            why=self.called_from(fact),
            fix=f"pass `map_location={fact.device_name}`" if fact.device_name
            else "pass `map_location=device` (or `map_location='cpu'`)",
            autofix=_autofix(fact),
        )


def _gpu_bound(load: Load, hardcoded: list[GpuAssumption],
               enclosing: Callable[[cst.CSTNode], Optional[cst.FunctionDef]]) -> bool:
    """Does the function that loads assume a GPU unguarded, itself or in what it calls (`device = "cuda"` it then
    moves the model to)? It dies without a GPU whatever the load does: that assumption is the report (DEV201,
    DEV203), and the load's map_location matters once it is fixed. `enclosing`: the function a node lies in."""
    function, chain = load.context.function, load.context.calls
    for a in hardcoded:
        if a.context.function == function or function in (name for _, name in a.context.calls):
            return True
        calls = a.context.calls  # (a callee of the function walked on its own: the chain starts in its body)
        if function is not None and len(calls) > len(chain) and calls[:len(chain)] == chain:
            holder = enclosing(calls[len(chain)][0])
            if holder is not None and holder.name.value == function.rsplit(".", 1)[-1]:
                return True
    return False



def _retried_with_map(body: cst.CSTNode, load: cst.CSTNode) -> bool:
    """`try: ckpt = torch.load(path)` / `except RuntimeError: ckpt = torch.load(path, map_location=...)`: the
    failure without a GPU is the one its handler catches, and it loads again where it can."""
    for node in _walk(body):
        if type(node) is cst.Try and any(part is load for part in _walk(node.body)) and any(
                type(call) is cst.Call and (dotted(call.func) or "").rsplit(".", 1)[-1] in _LOAD_NAMES
                and any(arg.keyword is not None and arg.keyword.value == "map_location" for arg in call.args)
                for handler in node.handlers for call in _walk(handler)):
            return True
    return False


_LOAD_NAMES = frozenset({path.rsplit(".", 1)[-1] for path in api.LOAD})  # (`torch.load`, `th.load`: its last word)


def _walk(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def _parameter_defaults(module: cst.Module) -> set[int]:
    """id() of every parameter default of the module's functions, and of the nodes inside them."""
    found: set[int] = set()
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if type(node) is cst.Param and node.default is not None:
            inner: list[cst.CSTNode] = [node.default]
            while inner:
                part = inner.pop()
                found.add(id(part))
                inner.extend(children(part))
            continue
        stack.extend(children(node))
    return found


def _autofix(fact: Load) -> Optional[Fix]:
    call = fact.node
    if type(call) is not cst.Call or not call.args or len(call.args) > 1 and call.args[1].keyword is None \
            or any(arg.keyword is not None and arg.keyword.value == "map_location" for arg in call.args):
        return None  # (one given as None: the caller's default is where to fix it)
    location = fact.device_name or '"cpu"'
    return Fix.safe(NodeEdit(call.args[-1].value, ", map_location=" + location, AFTER))
