"""What the interpreter observes, for the rules to judge.

Each fact is emitted once per analysis context; the engine drops duplicate
findings, so a rule never needs to remember what it already said.
"""

from __future__ import annotations

from dataclasses import field
from typing import Optional

import libcst as cst

from devlint.core.values import Step, Value, record


@record
class FileIntent:
    """Whether the file means to run without a GPU too: emitted once per file, after the walk."""

    node: cst.CSTNode  # the module
    cpu_capable: bool  # an availability check, a device option or a device variable somewhere
    portable_uses: int = 0  # tensors and modules placed on a device chosen at run time
    multi_gpu: bool = False  # DataParallel, DDP, NCCL: a program for several GPUs
    xla: bool = False  # imports torch_xla: a TPU program, whose checkpoints XLA writes from the cpu
    # cpu_capable only by device variables that always hold a cuda constant (no check, no option, no other device)
    cuda_variables_only: bool = False
    gpu_in_run: bool = True  # a file of the run (this one or another) writes a GPU word somewhere


@record
class Operand:
    node: cst.CSTNode
    value: Value
    label: str  # how the source names it: `x`, `torch.zeros(3)`


@record
class Context:
    """Where the analysis is: which function, called from which lines."""

    function: Optional[str] = None  # qualified name, None at module level
    calls: tuple[Step, ...] = ()  # (call node, description) from the outermost caller in
    in_module_method: bool = False
    # Its tensor parameters are on the device its callers compute on: a module's method, a loss, a
    # metric; not the cpu side of a data pipeline (a Dataset, a collate function, a transform).
    params_on_device: bool = False


@record
class Operation:
    """An operation on several tensors that must share a device."""

    node: cst.CSTNode
    name: str  # `+`, `torch.cat`, `.gather`
    operands: tuple[Operand, ...]
    context: Context
    indexing: bool = False  # operands[0] indexed by operands[1]


@record
class ModuleCall:
    node: cst.CSTNode
    module: Operand
    inputs: tuple[Operand, ...]
    context: Context


@record
class UnregisteredModule:
    """A module held only by a plain list/dict attribute of a module, called."""

    node: cst.CSTNode
    module: Operand
    attribute: str  # the plain container's name
    assigned: cst.CSTNode  # where the container was assigned
    context: Context


@record
class OptimizerStateLeftBehind:
    """An optimizer's state loaded while its module was on one device, the module then moved."""

    node: cst.CSTNode  # the load_state_dict call
    optimizer: str
    module: Operand  # the module, as moved
    moved: cst.CSTNode  # the move
    context: Context
    # the module was of a kind and place devlint cannot see when the state was loaded (built by an unseen
    # factory): only the move after says it was not yet where it goes
    unplaced: bool = False


@record
class SharedGpu:
    """Plain 'cuda' (the current device) where an NCCL process group was set up and no
    `torch.cuda.set_device` ran since: every rank computes on GPU 0."""

    node: cst.CSTNode
    group: cst.CSTNode  # the `init_process_group` call
    context: Context


@record
class GpuAssumption:
    """Code that needs a GPU: a 'cuda' literal, .cuda(), a torch.cuda type or call."""

    node: cst.CSTNode
    what: str
    kind: str  # "device" (DEV201) or "cuda-api" (DEV203)
    guarded: bool
    context: Context
    switched: bool = False  # under a GPU switch (`if use_cuda:`): the file means to run without one too
    # where the GPU is assumed when `node` (a 'cuda' literal) was written in another module of the project
    use: Optional[cst.CSTNode] = field(default=None, compare=False)


@record
class Load:
    node: cst.CSTNode
    has_map_location: bool
    guarded: bool
    context: Context
    device_name: Optional[str] = None  # a variable in scope holding the selected device (for the fix)
    # what it loads was written on this machine: by this file's torch.save, or by the code a test tests
    saved_here: bool = False


@record
class DiscardedMove:
    node: cst.CSTNode  # the expression statement
    value: Operand  # what was to be moved
    method: str
    context: Context


@record
class HostConversion:
    node: cst.CSTNode
    how: str  # `.numpy()`, `np.asarray`
    value: Operand
    context: Context


@record
class CpuOnlyArgument:
    node: cst.CSTNode
    function: str
    argument: str
    value: Operand
    context: Context
    fix: str = ""  # (the default: pass the value's `.cpu()`)


@record
class ClockRead:
    """A wall-clock read that ends a measurement started by an earlier read."""

    node: cst.CSTNode
    clock: str
    started: Step  # the read that started it
    gpu_work: Optional[Step]  # the last GPU work in between, None if none
    synced: bool  # a synchronization happened in between
    context: Context
    spans_training: bool = False  # a whole training loop ran in between


@record
class EventElapsed:
    node: cst.CSTNode
    end_label: str
    recorded: Optional[cst.CSTNode]
    synced: bool
    context: Context


@record
class MovedParameter:
    """`nn.Parameter(t).to(device)`: the move of a new parameter gives a plain tensor, not the parameter."""

    node: cst.CSTNode  # the move
    parameter: cst.CSTNode  # the `nn.Parameter(...)` call moved
    target: Value  # where it goes (a Tensor there)
    context: Context


@record
class UncalledCheck:
    """`if torch.cuda.is_available:`: the check itself, not called, tested for truth (always true)."""

    node: cst.CSTNode  # the function named without a call (or a name that holds it)
    path: str  # the check's own name (`torch.cuda.is_available`)
    context: Context


@record
class FreshMove:
    """A tensor created on cpu and moved at once: `torch.zeros(n).cuda()`."""

    node: cst.CSTNode
    factory: str
    target: Value
    context: Context


@record
class HostSync:
    node: cst.CSTNode
    how: str
    value: Operand
    in_training_loop: bool
    every_step: bool  # not under a condition inside the loop
    context: Context


@record
class CallerPlacement:
    """An operation of another module's function, run on this file's values, that meets a tensor the function
    made without `device=`: `cpu` when every operand is on the cpu. That module's own walk could only guess what
    its callers pass (a DEV104 warning); a run whose callers all pass cpu tensors answers it (cli/batch.py)."""

    node: cst.CSTNode
    cpu: bool
    context: Context
    function: Optional[cst.CSTNode]  # the function it is in (another module's: the module is looked up by it)

