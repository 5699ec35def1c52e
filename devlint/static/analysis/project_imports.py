"""What one checked file's walk has of the project's other modules (`ProjectImports`): how an import
resolves to a file, the names each module walked binds, what was read (for the cache). It holds them; the
walking is imports.py's (`names_of`), and the engine makes one per checked file.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, cast

import libcst as cst

from devlint.core.digests import digest_of
from devlint.core.limits import DEFAULT_MAX_FILE_SIZE
from devlint.core.torch_catalogue import views as api
from devlint.static.analysis.prepass import save_templates
from devlint.core.values import Value
from devlint.static.project.call_sites import (
    all_holders_match, assigned_elsewhere, holding, is_test_module, is_test_path, mentioning, own_text)
from devlint.static.project.checkpoints import weights_writes
from devlint.static.project.layout import Layout, Target, layout_for, run_root
from devlint.static.project.sources import read_module

_LIBRARY_TOPS = frozenset(prefix.rstrip(".") for prefix in api.LIBRARY_PREFIXES)


_MOST_SIBLINGS = 200  # scripts of a folder read for a load's file (a folder of thousands is no pipeline)
_LARGEST_SIBLING = min(DEFAULT_MAX_FILE_SIZE, 512 * 1024)  # a pipeline step is a script, not generated code


def script_bytes(path: Path) -> bytes:
    """A script's bytes, read without parsing; nothing for what is no regular file (a FIFO named `x.py` would
    block the read) or is too big to be a script."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _LARGEST_SIBLING:
            return b""
        with open(path, "rb") as stream:
            return stream.read(_LARGEST_SIBLING)
    except OSError:
        return b""


def _mentions(path: Path, literal: bytes) -> bool:
    """Does the file hold that text and a save? (Read, not parsed: most siblings do not.)"""
    data = script_bytes(path)
    return literal in data and b"save(" in data


def _nccl_setup(checked: dict[str, str]) -> Optional[tuple[str, str]]:
    """A file of the run that sets up an NCCL group, naming no other backend, and its digest: the entries that
    took it as known depend on it. (A file that starts to do so later does not make the others checked again:
    they only said less than they may.)"""
    for path, data, digest in holding(checked, script_bytes, api.INIT_PROCESS_GROUP_NAME):
        if any(text in data for text in _NCCL_TEXTS) and b"gloo" not in data:
            return path, digest
    return None


_NCCL_TEXTS = (b'"nccl"', b"'nccl'")
_IMPORT_LINE = re.compile(rb'^[ \t]*(?:from|import)[ \t]([^\n]*)', re.M)
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


_CONFTEST, _CONFTEST_LEVELS = "conftest.py", 8
_SETUP_DEPTH = 3  # setup.py files looked for in the project's folders this deep (`libs/pointops/setup.py`)
_PACKAGE_NAMES = re.compile(rb"""\b(?:name\s*=\s*|packages\s*=\s*\[[^\]]*?)["']([A-Za-z_][\w.]*)["']""")
_CUDA_PACKAGES: dict[Path, dict[str, tuple[str, str]]] = {}  # a project's root -> its CUDA-only packages


def _cuda_packages(root: Path) -> dict[str, tuple[str, str]]:
    """The names of the packages each setup.py below the project's root builds with CUDA extensions and no cpu
    one (`setup(name=..., packages=[...])`), each with that setup.py's path and digest. Read once per root."""
    if root not in _CUDA_PACKAGES:
        found: dict[str, tuple[str, str]] = {}
        pattern = api.SETUP_SCRIPT
        for _ in range(_SETUP_DEPTH):
            pattern = "*/" + pattern
            for setup in sorted(root.glob(pattern))[:_MOST_SIBLINGS]:
                data = script_bytes(setup)
                if api.CUDA_EXTENSION_WORD in data and api.CPU_EXTENSION_WORD not in data:
                    for match in _PACKAGE_NAMES.finditer(data):
                        name = match.group(1).decode().split(".")[0]
                        found.setdefault(name, (str(setup), digest_of(data)))
        if len(_CUDA_PACKAGES) > 64:
            _CUDA_PACKAGES.clear()
        _CUDA_PACKAGES[root] = found
    return _CUDA_PACKAGES[root]


_WEIGHTS: list[Optional[object]] = [None, None]  # [the run's `checked` table, _cpu_weights' answer]


def _cpu_weights(checked: dict[str, str]) -> Optional[dict[str, str]]:
    """(path -> digest) of the files of the run that write a module's weights, where each of them moves them to
    the cpu first (checkpoints.weights_writes); None where one writes them from their device, or none writes
    any. Tests are not the project's writers. Asked once per run."""
    if _WEIGHTS[0] is not checked:
        states = {path for path, _, _ in holding(checked, script_bytes, api.STATE_DICT_METHOD)}
        writers = [(path, digest) for path, _, digest in holding(checked, script_bytes, api.SAVE_NAME)
                   if path in states and not is_test_path(path)]
        found: dict[str, str] = {}
        cpu = device = 0
        for path, digest in writers[:_MOST_SIBLINGS] if len(writers) <= _MOST_SIBLINGS else ():
            source = read_module(Path(path))
            if source is None or source.tree is None:
                continue
            to_cpu, on_device = weights_writes(source.tree)
            cpu, device = cpu + to_cpu, device + on_device
            found[path] = digest
        _WEIGHTS[:] = [checked, found if cpu and not device else None]
    return cast(Optional[dict[str, str]], _WEIGHTS[1])


def _stem(path: Path) -> bytes:
    """The name a module is imported by (a package's `__init__.py`: its folder's)."""
    return (path.parent.name if path.stem == "__init__" else path.stem).encode()


def _imports_word(data: bytes, word: bytes) -> bool:
    """Does an import line of the file name that word (a module's name)?"""
    return any(re.search(rb"(?<![A-Za-z0-9_])" + re.escape(word) + rb"(?![A-Za-z0-9_])", line)
               for line in _IMPORT_LINE.findall(data))


_DEFAULT_SETTERS = tuple(sorted({name.rsplit(".", 1)[-1] for name in api.SET_DEFAULT_TENSOR_TYPE
                                  | api.SET_DEFAULT_DEVICE}))
_GPU_TEXTS = ((api.CUDA_TYPE + ".").encode(), ("'" + api.CUDA_TYPE).encode(), ('"' + api.CUDA_TYPE).encode())


# a call of a setter on a line of code (not a comment), and its arguments' text on that line
_SETTER_CALL = re.compile(rb"^[^\n#]*(?<![A-Za-z0-9_])(?:" + b"|".join(n.encode() for n in _DEFAULT_SETTERS)
                          + rb")[ \t]*\(([^)\n]*)", re.M)


def _gpu_default_setters(checked: dict[str, str]) -> list[tuple[str, bytes, str]]:
    """The files of the run that make CUDA the default for new tensors: (path, text, digest)."""
    found = {entry[0]: entry for name in _DEFAULT_SETTERS for entry in holding(checked, script_bytes, name)}
    return [found[path] for path in sorted(found) if _sets_gpu_default(found[path][1], lasting=True)]


def _sets_gpu_default(data: bytes, lasting: bool = False) -> bool:
    """A setter call of the file makes CUDA the default: given a CUDA type or device
    (`set_default_tensor_type('torch.cuda.FloatTensor')`), or a variable in a file that names CUDA; not one in a
    comment. `lasting`: its last call does, for what runs after it (LLaMA-Adapter builds its model under
    `torch.cuda.HalfTensor`, then sets `torch.FloatTensor` back: a switch for that block, not for the run)."""
    calls = [(call.start(), api.CUDA_TYPE.encode() in call.group(1) or (
        b"'" not in call.group(1) and b'"' not in call.group(1) and b"." not in call.group(1)
        and any(text in data for text in _GPU_TEXTS))) for call in _SETTER_CALL.finditer(data)]
    if not lasting:
        return any(gpu for _, gpu in calls)
    return any(gpu and not any(not later and _undoes(data, start, after) for after, later in calls[i + 1:])
               for i, (start, gpu) in enumerate(calls))


def _undoes(data: bytes, start: int, after: int) -> bool:
    """Is the setter call at `after` a later statement of the block of the one at `start` (a reset, LLaMA-Adapter's
    `torch.FloatTensor` after building), not the other branch of a choice (aster's `if args.cuda: ... else: ...`)?"""
    indent = _indent_at(data, start)
    if _indent_at(data, after) != indent:
        return False
    between = data[start:data.rfind(b"\n", 0, after) + 1]
    return not any(line.strip().startswith((b"else", b"elif", b"except")) and _indent(line) < indent
                   for line in between.split(b"\n")[1:])


def _indent_at(data: bytes, position: int) -> int:
    """The indentation of the line that holds `position`."""
    start = data.rfind(b"\n", 0, position) + 1
    end = data.find(b"\n", start)
    return _indent(data[start:end if end >= 0 else len(data)])


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


_RUN: list[Optional[object]] = [None, None]  # [the run's `checked` table, the folder that holds its files]


def _root_of_run(checked: Optional[dict[str, str]]) -> Optional[str]:
    """The folder holding every file of the run (`checked`: one table per run, asked once per checked file)."""
    if not checked:
        return None
    if _RUN[0] is not checked:
        _RUN[:] = [checked, run_root(checked)]
    return cast(Optional[str], _RUN[1])


@dataclass
class Seen:
    """What a module's walk met of the walk around it: its result holds only where that is met again."""

    depth: int  # len(project.loading) when it began: its module's index there
    count: int  # len(project.envs) when it began, its own module included
    assumed: set[str] = field(default_factory=set)  # Target.key of modules loading around it, seen as unknown
    cut: bool = False  # the nesting bound left an import unknown: the same only at the same depth
    counted: bool = False  # the module bound left an import unknown: the same only from the same count
    opaque: bool = False  # the checked file or a module left unknown: this file's alone
    deepest: int = 0  # the longest `loading` at which an import inside it was held to the bounds


class ProjectImports:
    """The project modules one checked file sees: their names, and what was read (for the cache)."""

    def __init__(self, path: str, layout: Optional[Layout] = None,
                 checked: Optional[dict[str, str]] = None) -> None:
        self.importer = Path(path).resolve() if path else Path.cwd()
        self.layout = layout or layout_for(str(self.importer), _root_of_run(checked), real=bool(path))
        self.envs: dict[str, Optional[dict[str, Value]]] = {}  # Target.key -> the module's names (None: unknown)
        self.targets: dict[str, Target] = {}  # a Ref path that is a project module -> it
        self.loading: list[str] = []
        self.used: dict[str, str] = {}  # path of a module read -> digest of what was read
        self.foreign_functions: set[int] = set()  # id(FunctionDef) of functions of other modules
        # (path as reported, line, column, all cpu) of the operations of other checked modules its calls ran
        self.placements: list[tuple[str, int, int, bool]] = []
        # absolute path -> path as reported, of the other files of the run: findings may be reported there
        self.checked: dict[str, str] = checked or {}
        self._gpu_required: Optional[list[tuple[str, str]]] = None  # (gpu_required's scripts, read once)
        self.module_file: dict[int, Path] = {}  # id(FunctionDef) of such a function -> its module's file
        self.deps: list[list[Target]] = []  # per module being walked: the project modules it imported
        self.tainted = False  # the walk in progress met a cycle or a bound: kept only with what it met
        self.seen: list[Seen] = []  # per module walk in progress: what it met of its context (walked.py)
        self.verified: set[int] = set()  # id() of the earlier walks found current for this file (walked.py)
        self.digests: dict[str, Optional[str]] = {}  # path -> digest of the module there now, as looked up
        self.closures: dict[str, bool] = {}  # closure key (core.digests) -> are its files unchanged, as looked up
        # (name, dots, importer's folder) -> what it resolved to: one walk's imports name the same modules again
        # and again, each a stat per folder searched; the files they name are read once per checked file too
        self._resolved: dict[tuple[str, int, Path], Optional[Target]] = {}
        # (how many modules were read, their trees) for trees()
        self._trees: Optional[tuple[int, dict[str, cst.Module]]] = None

    def trees(self) -> dict[str, cst.Module]:
        """path -> tree of each project module read so far (a why-chain may name their lines); made again
        only when more modules were read since it was last asked for."""
        if self._trees is None or self._trees[0] != len(self.used):
            found: dict[str, cst.Module] = {}
            for path in self.used:
                source = read_module(Path(path))
                if source is not None and source.tree is not None:
                    found[path] = source.tree
            self._trees = (len(self.used), found)
        return self._trees[1]

    def nccl_project(self) -> bool:
        """Does the run's project set up an NCCL group (`dist.init_process_group("nccl")` in its launcher)? Then
        in every module a process group is up only with GPUs (nnU-Net's trainer asks `dist.is_initialized()`)."""
        found = _nccl_setup(self.checked)
        if found is None:
            return False
        self.used[found[0]] = found[1]
        return True

    def gpu_required(self) -> bool:
        """Does every script of the run that runs as `__main__` and names torch refuse to start without CUDA
        (`assert torch.cuda.is_available()`, `if not torch.cuda.is_available(): raise ...`)? Then the project is
        GPU-only by its authors' own statement: its modules run where CUDA is (tdmpc2's train.py and evaluate.py;
        its environments' own `__main__` demos name no torch)."""
        if self._gpu_required is None:  # (asked at every function a file's walk enters on its own)
            self._gpu_required = all_holders_match(self.checked, script_bytes, (api.MAIN_GUARD_WORD, api.TORCH_WORD),
                                                   api.CUDA_REQUIRED_TEXT) if self.checked else None
            self._gpu_required = self._gpu_required or []
        self.used.update(self._gpu_required)  # (each answer's cache entry depends on those scripts)
        return bool(self._gpu_required)

    def builds_cuda_kernels(self, module: Optional[Path] = None) -> bool:
        """Does the setup.py nearest the file (in its folder or above, up to the project's root) build CUDA
        extensions and no cpu one? Then its package is GPU-only by construction: it installs where nvcc is, and
        its results go through kernels that have no cpu implementation (torch-ngp's `freqencoder/setup.py`
        beside the module that wraps its kernel). `module`: another module of the project, asked the same."""
        root = self.layout.root
        folder = (module or self.importer).parent
        folders = [folder, *[f for f in folder.parents if root in f.parents or f == root]] \
            if folder == root or root in folder.parents else [root]
        for candidate in folders:
            setup = candidate / api.SETUP_SCRIPT
            data = script_bytes(setup)  # (its text alone: nothing of it is parsed)
            if data:
                self.used[str(setup)] = digest_of(data)
                return api.CUDA_EXTENSION_WORD in data and api.CPU_EXTENSION_WORD not in data
        return False

    def cuda_only_package(self, name: str) -> bool:
        """Is `name` (a top-level import the project's roots do not hold) a package that a setup.py of the project
        builds with CUDA kernels and no cpu one (`setup(name="pointops", ext_modules=[CUDAExtension(...)])` in
        Pointcept's `libs/pointops/`, a Gaussian splatting rasterizer under `submodules/`)? Installed from there,
        it runs on GPUs only, like the package around a setup.py that builds_cuda_kernels."""
        found = _cuda_packages(self.layout.root).get(name)
        if found is not None:
            self.used[found[0]] = found[1]
        return found is not None

    def served_on_gpu(self) -> bool:
        """Is this file the predictor of a Cog model whose cog.yaml (at the project's root) asks for a GPU? Cog builds
        a CUDA image for it and serves it only on GPU machines."""
        config = self.layout.root / api.COG_CONFIG
        data = script_bytes(config)  # (its text alone)
        if not data:
            return False
        self.used[str(config)] = digest_of(data)
        predictor = api.COG_PREDICTOR.search(data)
        return bool(api.COG_GPU.search(data)) and predictor is not None and \
            (self.layout.root / predictor.group(1).decode("utf-8", "replace").strip()).resolve() == self.importer

    def test_module(self) -> bool:
        """Is the checked file a module of tests (call_sites.is_test_module)?"""
        path = str(self.importer)
        return is_test_path(path) and is_test_module(path, script_bytes(self.importer))

    def skipped_without_gpu(self) -> bool:
        """Is this a test module under a conftest.py that skips its folder without CUDA (`if not
        torch.cuda.is_available(): pytest.skip(..., allow_module_level=True)`, xlstm's tests)? It runs with a GPU."""
        if not is_test_path(str(self.importer)) or self.importer.name == _CONFTEST:
            return False
        folder = self.importer.parent
        for _ in range(_CONFTEST_LEVELS):
            conftest = folder / _CONFTEST
            data = script_bytes(conftest)  # (its text alone: nothing of it is parsed)
            if data:
                self.used[str(conftest)] = digest_of(data)
                if api.FOLDER_SKIPPED_WITHOUT_CUDA.search(data):
                    return True
            if folder == self.layout.root or folder.parent == folder:
                break
            folder = folder.parent
        return False

    def run_mentions_gpu(self) -> bool:
        """Does a file of the run write a GPU word anywhere (`cuda`, `device`, `gpu`...)? A run that never does
        trains on the cpu: nothing in it is placed on a GPU (unknown runs say yes)."""
        if not self.checked:
            return True
        own = own_text(self.checked, script_bytes, self.importer)
        if own is not None and any(word in own.lower() for word in api.GPU_WORDS):
            return True  # the file's own words: no other file's edit changes the answer (nor re-checks this one)
        found = mentioning(self.checked, script_bytes, api.GPU_WORDS)
        if found is not None:
            self.used[found[0]] = found[1]
        return found is not None

    def sets_gpu_default(self, path: str) -> bool:
        """Does the project module `path` make CUDA the default for new tensors (LLaMA-Adapter's builders run
        under `torch.set_default_tensor_type(torch.cuda.HalfTensor)`)? What it builds may be on a GPU."""
        target = self.targets.get(path)
        if target is None or target.file is None:
            return False
        source = read_module(target.file)
        if source is None:
            return False
        self.used[str(target.file)] = source.digest  # the answer depends on it either way (the cache entry too)
        return _sets_gpu_default(script_bytes(target.file))

    def gpu_default_from_importer(self) -> bool:
        """Does a file of the run that imports this module make CUDA the default for new tensors
        (`torch.set_default_tensor_type('torch.cuda.FloatTensor')` before it trains, nerf-pytorch's run_nerf.py)?
        Then a factory here without `device=` may make a GPU tensor: it is on the selected device."""
        if not self.checked:
            return False
        setters = [entry for entry in _gpu_default_setters(self.checked) if Path(entry[0]) != self.importer]
        if not setters:
            return False
        # the importers of the importers too (aster's main.py sets it, imports the builder that imports the head),
        # three imports deep at most
        stems, between = {_stem(Path(self.importer))}, dict[str, str]()
        for _ in range(3):
            for path, data, digest in setters:
                if any(_imports_word(data, stem) for stem in stems):
                    self.used.update(between)
                    self.used[path] = digest
                    return True
            found = {path: (data, digest) for stem in stems for path, data, digest in
                     holding(self.checked, script_bytes, stem.decode()) if _imports_word(data, stem)}
            between.update((path, digest) for path, (_, digest) in found.items())
            stems |= {_stem(Path(path)) for path in found}
        return False

    def sets_attribute(self, name: str) -> bool:
        """Does another file of the run set the attribute `name` on an object (the entry script's
        `t.inner.net = t.inner.net.to(device)`)? The files that do are read for it: the cache entry depends on them."""
        if not self.checked:
            return False
        read: dict[str, str] = {}
        found = assigned_elsewhere(self.checked, script_bytes, name, str(self.importer.resolve()), read)
        self.used.update(read)
        return found

    def weights_written_from_cpu(self) -> bool:
        """Does every file of the run that writes a module's weights move them to the cpu first (BasicSR's and
        KAIR's `save_network`)? Then the weights the project loads into its modules are its own, cpu tensors."""
        found = _cpu_weights(self.checked) if self.checked else None
        if found is not None:
            self.used.update(found)  # (the cache entry depends on each writer)
        return found is not None

    def saved_beside(self, template: str) -> bool:
        """Does a script beside the checked file, a module of the project it imports, or another file of the run
        `torch.save` to a path with these string parts? A pipeline's steps hand each other files: one script saves
        the `embedding.pt` (or the shards) the next one loads; an evaluation module caches its predictions, which
        its script reads back. A model's state dict is not such a file: its tensors are on the model's device."""
        literal = max(template.split("|"), key=len).encode()
        if len(literal) < 4:
            return False
        siblings = sorted(self.importer.parent.glob("*.py"))[:_MOST_SIBLINGS]
        # ... or any file of the run that names the file (`tools/compare.py` reads the chunks `pkg/codec.py` writes)
        me = str(self.importer.resolve())  # (the run's paths are resolved; this file's own saves are saved_here's)
        run = [Path(path) for path, data, _ in holding(self.checked, script_bytes, api.SAVE_NAME)
               if literal in data and path != me]
        for path in dict.fromkeys(siblings + self._imported_files() + run[:_MOST_SIBLINGS]):
            if path == self.importer or not _mentions(path, literal):
                continue
            source = read_module(path)
            if source is None or source.tree is None:
                continue
            self.used[str(path)] = source.digest  # the cache entry depends on it
            # a script that never names a GPU (no `cuda`, no device) trains on the cpu: its state dicts are too
            text = script_bytes(path).lower()
            on_cpu = not any(word in text for word in api.GPU_WORDS)
            if template in save_templates(source.tree, state_dicts=on_cpu):
                return True
        return False

    def _imported_files(self) -> list[Path]:
        """The project's modules the checked file's import lines name (`from pkg.utils import eval_utils` names
        `pkg/utils/__init__.py` and `pkg/utils/eval_utils.py`), read from its text."""
        found: list[Path] = []
        for line in _IMPORT_LINE.findall(script_bytes(self.importer))[:_MOST_SIBLINGS]:
            text = line.decode("utf-8", "replace").split("#", 1)[0]
            module, _, names = text.partition(" import ")
            dots = len(module) - len(module.lstrip("."))
            bases = [module.strip()] if names else [part.split(" as ")[0].strip() for part in module.split(",")]
            candidates = bases + [f"{bases[0]}.{n.split(' as ')[0].strip(' ()')}" for n in names.split(",") if names]
            for name in candidates:
                target = self.resolve(name.lstrip("."), dots) if _DOTTED.fullmatch(name.lstrip(".")) else None
                if target is not None and target.file is not None:
                    found.append(target.file)
        return found

    def resolve(self, module: str, level: int, importer: Optional[Path] = None) -> Optional[Target]:
        if not level and module.split(".")[0] in _LIBRARY_TOPS:
            return None
        importer = importer or self.importer
        key = (module, level, importer.parent)  # Layout.resolve reads only the importer's folder
        if key not in self._resolved:
            self._resolved[key] = self.layout.resolve(importer, module, level)
        return self._resolved[key]
