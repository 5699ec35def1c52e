"""Facts out to the rules (`Emitter`): when the walk may say something, and what the walk and its semantics
handlers record (an operation's operands, a module call, a host sync, a GPU assumption, GPU work and waits on
the path's measurement, a value placed on a device chosen at run time)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Optional, cast

import libcst as cst

from devlint.core.facts import (
    CallerPlacement, ClockRead, CpuOnlyArgument, GpuAssumption, HostConversion, HostSync, ModuleCall, Operand,
    Operation, SharedGpu,
)
from devlint.core.mixing import classify_module_input, created_here_on_cpu
from devlint.core.torch_catalogue import views as api
from devlint.core.values import Located, Module, Seq, Tensor, Value, replace
from devlint.static.semantics.containers import tensors_in
from devlint.static.semantics.cuda import complete_events
from devlint.static.syntax import LazyCode, children

if TYPE_CHECKING:
    from devlint.static.analysis.frames import Frames
    from devlint.static.analysis.state import LoopFrame, State

# What this file's values do in another module's function (a helper given a GPU tensor calls `.numpy()`
# on it): reported at that module's line when it is checked too.
_CROSSING = (Operation, ModuleCall, HostConversion, CpuOnlyArgument)


class Emitter:
    """Sends facts to the rules, unless the walk is exploring; the `Facts` a semantics handler gets
    (`site.facts`). It reads the frames (the context a fact is told in, the loops around it). Its levels
    have one writer each:

    - `muted` (> 0: exploring, nothing is final): the walk where it explores (`statements.loop`'s fixed
      point, `functions.class_summary`, `guards.is_skip_marker`, `imports._walk_module`);
    - `first_pass` (the muted level of a loop's first pass, which runs on the state before the loop: what it
      sees crash is reported too): `statements.loop`;
    - `foreign` (> 0: in another module's function, called from this file: only what the caller's values do
      there is reported): `functions.open_frame` / `close_frame`;
    - `portable_uses` (values placed on a device chosen at run time: the file means to be portable):
      `portable_use()`, saved and restored around another module's code (`open_frame`, `imports.py`).
    """

    __slots__ = ("_send", "_module", "_frames", "muted", "first_pass", "foreign", "portable_uses", "told",
                 "_own_nodes", "_demo_only", "called_in_run")

    def __init__(self, send: Callable[[object], None], module: cst.Module, frames: Frames,
                 demo_only: Optional[dict[int, bool]] = None) -> None:
        self._send = send
        self._demo_only = demo_only if demo_only is not None else {}  # (FileTables.demo_only)
        self._module, self._frames = module, frames
        self.muted = 0
        self.first_pass: Optional[int] = None
        self.foreign = 0
        self.portable_uses = 0
        self.told = 0  # facts handed to `emit` so far, said or not (a walk that told none said nothing)
        self._own_nodes: Optional[set[int]] = None  # id() of every node of this file, made when first needed
        # in a function walked on its own symbolic parameters: whether the run's files call it (their walks run it
        # on what they pass: this one stands for none of them); None outside such a walk
        self.called_in_run: Optional[Callable[[], bool]] = None

    def emit(self, fact: object) -> None:
        self.told += 1
        if type(fact) is Operation and not self.muted and (self.foreign or self._frames.context.calls):
            self._caller_placement(fact)  # a function run on what a caller gives it
        if self.foreign and type(fact) not in _CROSSING and not self._times_this_file(fact):
            return  # another module's own habits (its GPU assumptions, its timers) are judged in its own file
        if not self.muted or (self.muted == self.first_pass and isinstance(fact, (Operation, ModuleCall))):
            self._send(fact)

    def _caller_placement(self, fact: Operation) -> None:
        stack = self._frames.stack
        if stack and self._demo_only.get(stack[0]):
            return  # the file's self-test, on toy cpu tensors: its users call it with theirs
        values = [operand.value for operand in fact.operands]
        if self.called_in_run is not None and self.called_in_run() and any(
                isinstance(v, Tensor) and v.where is not None and v.where.kind == "param" for v in values):
            return  # a caller walked on its own symbolic parameters, which the run's callers walk with theirs
        if len(values) >= 2 and any(created_here_on_cpu(value) for value in values):
            cpu = all(isinstance(v, Tensor) and v.where is not None and v.where.kind == api.CPU_TYPE for v in values)
            self._send(CallerPlacement(fact.node, cpu, fact.context, self._frames.current_function))

    def _times_this_file(self, fact: object) -> bool:
        """A timer of another module (`timer.toc()` of utils/timer.py) whose measurement holds this file's GPU
        work: what it measures is this file's, and its own file, which queues no GPU work, never sees it. So is
        a 'cuda' literal of this file that another module's code places something on (`MTCNN(device='cuda:0')`)."""
        if isinstance(fact, GpuAssumption):  # (this file's literal, used there: not this file's code run from there)
            return fact.use is not None and id(fact.node) in self._own() and id(fact.use) not in self._own()
        if not isinstance(fact, ClockRead):
            return False
        work = fact.gpu_work
        if work is None:
            return False
        return id(work[0]) in self._own()

    def _own(self) -> set[int]:
        if self._own_nodes is None:
            own: set[int] = set()
            stack: list[cst.CSTNode] = [self._module]
            while stack:
                node = stack.pop()
                own.add(id(node))
                stack.extend(children(node))
            self._own_nodes = own
        return self._own_nodes

    def portable_use(self) -> None:
        """A value was placed on a device chosen at run time (counted only where nothing is explored)."""
        if not self.muted:
            self.portable_uses += 1

    def note_gpu_work(self, node: cst.CSTNode, values: Iterable[Value], state: State) -> None:
        """GPU work happened if a tensor or module on the GPU took part (code we cannot see that is
        given GPU values counts: it is GPU work, and it is not assumed to wait for the GPU)."""
        for value in values:
            if not isinstance(value, (Tensor, Module, Located, Seq)):
                continue
            if isinstance(value, Seq):
                tensors = tensors_in(value)
                if not tensors:
                    continue
                value = tensors[0]
            device = value.device
            if device is not None and device.is_gpu and not state.unavailable:
                state.timing.note_work((node, ""))
                return

    def note_sync(self, state: State) -> None:
        state.timing.note_sync()

    def shown(self, node: cst.CSTNode, how: str, operand: Operand, state: State) -> None:
        """A value printed or formatted (`print(loss)`, `f"{loss:.3f}"`, `"{}".format(n)`): a GPU tensor's is read on
        the host (`Tensor.__format__` calls `.item()`), after the GPU's queue."""
        value = operand.value
        if isinstance(value, Tensor) and value.where is not None and value.where.is_gpu:
            self.host_sync(node, how, operand, state)

    def host_sync(self, node: cst.CSTNode, how: str, operand: Operand, state: State) -> None:
        self.note_sync(state)
        complete_events(state)
        frames = self._frames
        frame = frames.loops[-1] if frames.loops else None
        in_loop = frame is not None and frame.training
        every_step = in_loop and frames.if_depth == cast("LoopFrame", frame).if_depth
        if operand.value.device is not None and operand.value.device.is_gpu:
            self.emit(HostSync(node, how, operand, in_loop, every_step, frames.context))

    def gpu_assumption(self, node: cst.CSTNode, what: str, state: State, use: Optional[cst.CSTNode] = None) -> None:
        """`use`: the expression that assumes the GPU, when `node` is the literal it got its device from."""
        self.emit(GpuAssumption(node, what, "device", state.guarded, self._frames.context, state.switched,
                                use if use is not node else None))

    def shared_gpu(self, node: cst.CSTNode, group: cst.CSTNode, state: State) -> None:
        """Plain 'cuda' used where every rank of an NCCL group is still on GPU 0 (DEV205)."""
        self.emit(SharedGpu(node, group, self._frames.context))

    def module_call_fact(self, node: cst.CSTNode, module_node: cst.CSTNode, module: Value,
                         inputs: list[tuple[cst.CSTNode, Value]]) -> bool:
        """Emit a ModuleCall; True when an input is on another device than the module."""
        data = node.args[0].value if type(node) is cst.Call and node.args and node.args[0].keyword is None \
            and not node.args[0].star else None
        code = self._module
        tensors = [Operand(arg_node, _as_data(member) if arg_node is data else member, LazyCode(code, arg_node))
                   for arg_node, value in inputs for member in tensors_in(value)]
        if not tensors or not isinstance(module, (Module, Located)) or getattr(module, "moves_inputs", False):
            return False
        context = self._frames.context
        self.emit(ModuleCall(node, Operand(module_node, module, LazyCode(code, module_node)), tuple(tensors), context))
        # reported once: nothing downstream of a mismatched call is known
        return any(classify_module_input(module, t.value, context.in_module_method) for t in tensors)


def _as_data(value: Value) -> Value:
    """A module's first input is its data, never packed-sequence lengths: a batch left on the host is judged
    there (a later input of unknown role is not: the model may want it on the cpu)."""
    return replace(value, host_batch=False) if isinstance(value, Tensor) and value.host_batch else value
