"""What a call of one of the file's functions gives its caller (`Summary`): functions.py makes one per
function and arguments, and the file's tables keep them (`FileTables.memo`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, AbstractSet, Mapping, Optional, cast

from devlint.core.values import Instance, Module, Seq
from devlint.static.analysis.definitions import stored_on_self

if TYPE_CHECKING:
    import libcst as cst

    from devlint.core.values import Device, Step, Value
    from devlint.static.analysis.state import State

    # ((Module.ident, the module after the move), ...)
    Moves = tuple[tuple[int, Module], ...]
    # ((parameter, what it holds at the end), ...)
    Filled = tuple[tuple[str, Value], ...]


@dataclass(frozen=True)
class Summary:
    """What analysing a function's body with some arguments gives its caller."""

    result: Value
    final_self: Optional[Value]  # `self` at the end (a method changes its object)
    clock: Optional[Step]  # the last wall-clock read it made (a `tic()` helper starts a measurement)
    synced: bool  # it waited for the GPU (after that read, if any)
    work: Optional[Step]  # GPU work it queued and left running
    moved: Moves = ()  # ((ident, Module), ...): modules it moved in place (its arguments, or their attributes)
    # it learnt that a GPU is there, on every path to its end (`setup()` calls init_process_group("nccl"))
    guards: bool = False
    ranks: Optional[cst.CSTNode] = None  # it set up an NCCL group and no `set_device` (the call)
    device_chosen: bool = False  # it ran `torch.cuda.set_device` (on every path to its end)
    # the process's default device it left (`torch.set_default_tensor_type(torch.cuda.FloatTensor)` in a
    # helper changes it for the caller too), in a 1-tuple; None: unchanged
    default_device: Optional[tuple[Optional[Device]]] = None
    # parameters whose items it wrote (`d["x"] = d["x"].cuda()`), with what each holds at its end: the caller's
    # dict or batch was filled in place
    filled: Filled = ()
    # it ran a whole training loop inside the caller's measurement (`train_epoch(...)` between two clock reads)
    trained: bool = False

    def apply_timing(self, state: State, depth: int) -> None:
        """The caller's measurement, after the call: the callee's clock reads, syncs and work."""
        if self.clock is not None:
            state.timing.start(self.clock, depth)
        if self.synced:
            state.timing.note_sync()
        if self.work is not None:
            state.timing.note_work(self.work)
        if self.trained and self.clock is None:
            state.timing.trained = True

    def seen_from(self, call: cst.CSTNode) -> "Summary":
        """Another module's function, seen by this file: its clock reads and GPU work are the call."""
        step = (call, "")
        return Summary(self.result, self.final_self, step if self.clock is not None else None, self.synced,
                       step if self.work is not None else None, self.moved, self.guards, self.ranks,
                       self.device_chosen, self.default_device, self.filled, self.trained)

    def apply_moves(self, state: State) -> None:
        """The caller's objects that the callee moved in place (`Trainer(model)` moves `model`), and what it
        learnt of the GPU."""
        for ident, module in self.moved:
            state.moved[ident] = module
        if self.guards:
            state.guarded = True
        if self.device_chosen:
            state.ranks, state.device_chosen = None, True
        if self.ranks is not None:
            state.ranks = self.ranks
        if self.default_device is not None:
            state.default_device = self.default_device[0]


def escaping_moves(caller: State, end: State, given: list[Optional[Value]], globals_: Mapping[str, Value]) -> Moves:
    """The objects the callee moved that the caller can see: what its end state knows of them that the caller
    did not. An object the callee built and dropped is its own (`model = make_model(); model.cuda(gpu)` in a
    worker leaves the next `make_model()` on the cpu): only one the caller gave, the callee returned or the
    module holds escapes."""
    new = [(ident, module) for ident, module in end.moved.items() if caller.moved.get(ident) is not module]
    if not new:
        return ()
    seen = _idents_in([v for v in given if v is not None] + list(globals_.values()))
    return tuple((ident, module) for ident, module in new if ident in seen or ident in caller.moved)


def _idents_in(values: list[Value], depth: int = 4) -> set[int]:
    """The objects (`Module.ident`) these values hold: themselves, their attributes, their members."""
    found: set[int] = set()
    todo = [(v, 0) for v in values]
    while todo:
        value, level = todo.pop()
        if isinstance(value, Module) and value.ident:
            found.add(value.ident)
        if level >= depth:
            continue
        if isinstance(value, (Module, Instance)):
            todo.extend((v, level + 1) for _, v in value.attrs)
        elif isinstance(value, Seq):
            todo.extend((v, level + 1) for v in (value.items or ()) + (value.elem,))
    return found


def changed_objects(fdef: cst.FunctionDef, method: bool, params: Mapping[str, Value], end: State,
                    rebound: AbstractSet[str]) -> Filled:
    """The caller's objects the body changed through their methods: `cloud.fill(n)` on a parameter, or on the
    attribute that keeps it (`self.cloud = cloud; self.cloud.fill(n)`, a constructor that sets up what it is
    given): the caller's object has the attributes they set (3DGS's `Scene(args, gaussians)` fills the model)."""
    names = list(params)
    me = end.env.get(names[0]) if method and names else None
    kept = stored_on_self(fdef, names[0]) if isinstance(me, (Module, Instance)) and any(
        isinstance(value, Instance) for value in params.values()) else {}
    changed: dict[str, Value] = {}
    for name in names[1:] if method else names:
        given = params[name]
        if not isinstance(given, Instance) or name in rebound:
            continue
        now = end.env.get(name)
        for attribute, param in kept.items():
            if param == name and now == given:
                now = cast("Module | Instance", me).attr(attribute)
        if isinstance(now, Instance) and now.cls == given.cls and now != given:
            changed[name] = now
    return tuple(changed.items())
