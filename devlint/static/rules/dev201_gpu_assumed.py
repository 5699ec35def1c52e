from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst

from devlint.core.facts import FileIntent, GpuAssumption
from devlint.core.torch_catalogue.records import CUDA_TYPE
from devlint.core.torch_catalogue.views import MOVES_TO_GPU, TENSOR_TYPE_DTYPES
from devlint.static.fixes import AFTER, BEFORE, BEFORE_LAST, LINE_AFTER, LINE_BEFORE, REPLACE, Fix, NodeEdit
from devlint.static.fixes.helpers import (SELECT_DEVICE, code, free_name, function_of, module_header_end, parent_of,
                                   simple_string_value, statement_of, torch_alias)
from devlint.static.rules.base import Verdict, Rule
from devlint.static.syntax import dotted

_DEVICE_NAMES = ("device", "torch_device", "selected_device", "default_device")


class GpuAssumed(Rule):
    """A GPU is assumed on a path that no availability check guards.

    ## What it does
    Flags a hardcoded `'cuda'` device (`torch.device('cuda')`,
    `device='cuda'`, `.to('cuda')`, `torch.load(f, map_location='cuda')`), `.cuda()`, legacy CUDA tensor types
    (`torch.cuda.FloatTensor(...)`, `set_default_tensor_type` with one), and
    constant flags such as `use_cuda = True` that drive them, when no guard
    dominates them. Guards: `if torch.cuda.is_available():`,
    `torch.cuda.device_count() > 0`, a variable assigned from those, the
    `'cuda' if torch.cuda.is_available() else 'cpu'` idiom, `assert`, an early
    exit when CUDA is missing, pytest/unittest skip decorators, and a user's
    explicit choice (`--device`, `--cuda` flags, a GPU option compared with a
    number: `if opt.gpu > -1:`, `if gpu_id >= 0:`). In a program that sets up
    NCCL (`backend="nccl"`), a process group is up only with GPUs: code past
    `if not dist.is_initialized(): return`, `if world_size == 1: return` or
    `if "RANK" not in os.environ: return` (or `SLURM_PROCID`: a SLURM task; directly or through a helper such
    as `get_world_size()`) has one, and so does a body that sets up an NCCL
    group itself (`init_process_group("nccl")` as one of its statements),
    before that call too. A worker that `mp.spawn` starts once per GPU
    (`nprocs=torch.cuda.device_count()`) runs with one.

    Only files that show they mean to run without a GPU too are checked line
    by line: they check availability somewhere, have a `--cpu`/`--no-cuda`/
    `--device` option, a `if use_cuda:` switch, or compute on a device variable.
    A file that is GPU-only throughout gets one DEV204 instead; a GPU-only
    project sets `assume-gpu = true`, and one whose `setup.py` (the nearest
    above the file: a package's own, or the project's) builds CUDA kernels
    only (`CUDAExtension`, no `CppExtension`) is GPU-only by construction:
    nothing of it is reported. So is what follows an import of a compiled
    CUDA extension or a build of one from `.cu` sources at run time
    (`cpp_extension.load`), and a Cog predictor whose `cog.yaml` asks for a
    GPU. Constructing `torch.device("cuda")`
    touches no GPU: it is reported where the device is used.

    ## Why is this bad?
    On a machine without an NVIDIA GPU (a laptop, CI, a Mac) the script dies
    with `AssertionError: Torch not compiled with CUDA enabled` or
    `RuntimeError: Found no NVIDIA driver`, often after minutes of data
    loading.

    ## Fix
    Unsafe (the code then runs on the cpu where it used to fail, which may
    not be what you want): `--fix --unsafe-fixes` rewrites `torch.device("cuda")`
    and `device = "cuda"` to `"cuda" if torch.cuda.is_available() else "cpu"`,
    a CUDA tensor type given to `set_default_tensor_type` to the cpu type when
    CUDA is missing, and `.cuda()`, `.to("cuda")`, `device="cuda"` to use a `device` variable
    that it defines once after the imports:
    `device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`.
    """

    code = "DEV201"
    name = "gpu-assumed"
    severity = "warning"
    facts = (FileIntent, GpuAssumption)

    INVALID = (
        """\
import torch
device = torch.device("cuda")  # expect: DEV201
x = torch.zeros(3).to(device)
""",
        """\
import torch
from torch import nn
print("CUDA:", torch.cuda.is_available())  # the script means to run without a GPU too
model = nn.Linear(3, 3).cuda()  # expect: DEV201
""",
    )
    FIXED = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.zeros(3).to(device)
""",
        """\
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("CUDA:", torch.cuda.is_available())  # the script means to run without a GPU too
model = nn.Linear(3, 3).to(device)
""",
    )
    VALID = (
        """\
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.zeros(3).to(device)
""",
        """\
import torch
from torch import nn
model = nn.Linear(3, 3)
if torch.cuda.is_available():
    model.cuda()
""",
    )

    def check(self, fact: object) -> Iterable[Verdict]:
        self.gpu_intent().observe(fact)
        return ()

    def finish(self) -> Iterable[Verdict]:
        for fact in self.gpu_intent().reportable("device"):  # a GPU-only file: DEV204 says it once
            yield Verdict(
                fact.node,
                f"{fact.what} assumes a GPU, and no `torch.cuda.is_available()` check guards it",
                why=self.called_from(fact),
                fix="select the device: `torch.device('cuda' if torch.cuda.is_available() else 'cpu')`",
                autofix=self.autofix(fact.node),
                key=("literal", id(fact.node)),
                use=fact.use,  # `DEVICE = "cuda"` in a config module: reported where this file uses it
            )

    def autofix(self, node: cst.CSTNode) -> Optional[Fix]:
        if type(node) is cst.SimpleString:
            return self._fix_literal(node)
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in MOVES_TO_GPU:
            if any(not a.keyword or a.keyword.value != "non_blocking" for a in node.args):
                return None  # `.cuda(1)`: a chosen GPU is not the selected device
            # `.cuda()` -> `.to(device)`, `.cuda(non_blocking=True)` -> `.to(device, non_blocking=True)`:
            # only the name and the new argument change, the receiver is left as written
            rename = NodeEdit(node.func.attr, "to")
            if node.args:
                return self._with_variable(node.args[0], lambda name: f"{name}, ", BEFORE, rename)
            return self._with_variable(node, lambda name: name, BEFORE_LAST, rename)
        if type(node) is cst.Call:
            return self._fix_legacy_type(node) or self._fix_type_argument(node)
        return None

    def _fix_type_argument(self, call: cst.Call) -> Optional[Fix]:
        """A CUDA tensor type given as the one argument (`set_default_tensor_type('torch.cuda.FloatTensor')`):
        `'torch.cuda.FloatTensor' if torch.cuda.is_available() else 'torch.FloatTensor'`."""
        torch = torch_alias(self.file.module)
        if torch is None or len(call.args) != 1 or call.args[0].keyword or call.args[0].star:
            return None
        value = call.args[0].value
        text = simple_string_value(value) if type(value) is cst.SimpleString else dotted(value)
        prefix = "torch.cuda." if type(value) is cst.SimpleString else f"{torch}.cuda."
        kind = text[len(prefix): -len("Tensor")] if text and text.startswith(prefix) and text.endswith("Tensor") \
            else None
        if kind not in TENSOR_TYPE_DTYPES:
            return None
        written = code(self.file, value)
        on_cpu = written.replace(prefix, prefix[: -len("cuda.")], 1)
        return Fix.unsafe(NodeEdit(value, f"{written} if {torch}.cuda.is_available() else {on_cpu}"))

    def _fix_legacy_type(self, call: cst.Call) -> Optional[Fix]:
        """`torch.cuda.FloatTensor([1.0])` -> `torch.tensor([1.0], dtype=torch.float32, device=device)`;
        with sizes, `torch.empty(...)`. One argument that is not a list or tuple display is ambiguous."""
        name = dotted(call.func) or ""
        kind = name.rsplit(".", 1)[-1][: -len("Tensor")] if name.endswith("Tensor") and ".cuda." in name else None
        torch = torch_alias(self.file.module)
        if kind not in TENSOR_TYPE_DTYPES or torch is None or not call.args \
                or any(a.keyword or a.star for a in call.args):
            return None
        if len(call.args) == 1 and type(call.args[0].value) in (cst.List, cst.Tuple):
            factory = "tensor"
        elif len(call.args) > 1:
            factory = "empty"
        else:
            return None
        rename = NodeEdit(call.func, f"{torch}.{factory}")
        return self._with_variable(call.args[-1].value, lambda device: f", dtype={torch}.{TENSOR_TYPE_DTYPES[kind]}, "
                                                                       f"device={device}", AFTER, rename)

    def _fix_literal(self, node: cst.SimpleString) -> Optional[Fix]:
        if simple_string_value(node) not in (CUDA_TYPE, f"{CUDA_TYPE}:0"):
            return None  # "cuda:1" names a GPU on purpose
        statement = statement_of(self.file, node)
        parent = parent_of(statement, node) if statement is not None else None
        torch = torch_alias(self.file.module)
        inline = f"{code(self.file, node)} if {torch or 'torch'}.cuda.is_available() else {node.quote}cpu{node.quote}"
        if type(parent) in (cst.Assign, cst.AnnAssign, cst.Param) or (
                type(parent) is cst.Arg and self._sole_device_argument(statement, parent)):
            edits = [NodeEdit(node, inline)]  # `device = "cuda"`, `torch.device("cuda")`: select in place
            if torch is None:
                edits.append(self._header_edit("import torch"))
            return None if None in edits else Fix.unsafe(*edits)
        if type(parent) is cst.Arg and self._device_argument(statement, parent):
            return self._with_variable(node, lambda name: name)  # `.to("cuda")`, `device="cuda"`
        return None

    def _device_argument(self, statement: cst.CSTNode, arg: cst.Arg) -> bool:
        if arg.keyword is not None:
            return arg.keyword.value == "device"
        call = parent_of(statement, arg)
        return type(call) is cst.Call and type(call.func) is cst.Attribute and \
            call.func.attr.value == "to" and call.args[0] is arg

    def _sole_device_argument(self, statement: cst.CSTNode, arg: cst.Arg) -> bool:
        call = parent_of(statement, arg)
        return type(call) is cst.Call and len(call.args) == 1 and not arg.keyword and \
            type(call.func) in (cst.Attribute, cst.Name) and code(self.file, call.func).endswith("device")

    def _with_variable(self, node: cst.CSTNode, text, where: str = REPLACE, *more: NodeEdit) -> Optional[Fix]:
        """An edit that names the module's selected-device variable, defining it after the imports if
        it is not there yet. `text(name)` is what the edit writes, `where` where it goes."""
        torch = torch_alias(self.file.module)
        name = self._existing_variable(node, torch)
        if name is not None:
            return Fix.unsafe(NodeEdit(node, text(name), where), *more)
        name = free_name(self.file, *_DEVICE_NAMES)
        header = self._header_edit(("" if torch else "import torch\n")
                                   + f"{name} = {SELECT_DEVICE.format(torch=torch or 'torch')}")
        if name is None or header is None:
            return None
        return Fix.unsafe(NodeEdit(node, text(name), where), *more, header)

    def _existing_variable(self, node: cst.CSTNode, torch: Optional[str]) -> Optional[str]:
        """`device = torch.device("cuda" if torch.cuda.is_available() else "cpu")` at module level, above."""
        if torch is None:
            return None
        wanted, before = SELECT_DEVICE.format(torch=torch), self.file.line(node)
        if function_of(self.file, node) is not None:
            before = 1 << 30  # a function runs after the module has set its globals up
        for statement in self.file.module.body:
            if self.file.line(statement) >= before:
                break
            small = statement.body[0] if type(statement) is cst.SimpleStatementLine else None
            if type(small) is cst.Assign and len(small.targets) == 1 and isinstance(
                    small.targets[0].target, cst.Name) and code(self.file, small.value) == wanted:
                return small.targets[0].target.value
        return None

    def _header_edit(self, text: str) -> Optional[NodeEdit]:
        anchor, where = module_header_end(self.file.module)
        if anchor is None:
            return None
        return NodeEdit(anchor, text, LINE_AFTER if where == "after" else LINE_BEFORE)
