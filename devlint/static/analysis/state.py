"""What the walk knows at one point of a path, and how two paths meet.

`State` is mutable and copied where paths split; `join` is where they meet.
The records beside it (`Timing`, `LoopFrame`, `Returned`) replace what used to
be tuples and dicts with string keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, cast

from devlint.core.torch_catalogue import views as api
from devlint.core.values import (
    CPU, SELECTED, ArgsNamespace, Availability, Const, Device, Located, Module, Step, Tensor, Value, join, replace,
)
from devlint.core.torch_catalogue.records import CPU_TYPE

if TYPE_CHECKING:
    import libcst as cst


class Timing:
    """The wall-clock measurement in progress on this path (DEV301).

    The counters only grow along a path: comparing them before and after a call tells what the
    callee did (read a clock, queued GPU work, synchronized), whatever was memoised."""

    __slots__ = ("clock", "work", "synced", "depth", "lap", "trained", "clocks", "works", "syncs")

    def __init__(self) -> None:
        self.clock: Optional[Step] = None  # the last wall-clock read
        self.work: Optional[Step] = None  # GPU work since that read
        self.synced = False  # a synchronization since that read
        self.depth = 0  # the loop depth of that read
        self.lap = False  # that read was made in an earlier iteration of the enclosing loop
        self.trained = False  # a whole training loop ran since that read
        self.clocks = self.works = self.syncs = 0

    def copy(self) -> "Timing":
        new = Timing.__new__(Timing)
        new.clock, new.work, new.synced, new.depth, new.lap = self.clock, self.work, self.synced, self.depth, self.lap
        new.trained, new.clocks, new.works, new.syncs = self.trained, self.clocks, self.works, self.syncs
        return new

    def join(self, other: "Timing") -> "Timing":
        new = Timing.__new__(Timing)
        new.clock = self.clock or other.clock
        new.work = self.work or other.work
        new.synced = self.synced or other.synced  # precision: a sync on any path counts
        new.lap = self.lap or other.lap
        new.trained = self.trained or other.trained
        new.depth = max(self.depth, other.depth)
        new.clocks, new.works, new.syncs = max(self.clocks, other.clocks), max(self.works, other.works), \
            max(self.syncs, other.syncs)
        return new

    def same(self, other: "Timing") -> bool:
        # Steps hold CST nodes: compare whether there is one, not the nodes (deep and slow).
        return ((self.clock is None) == (other.clock is None) and (self.work is None) == (other.work is None)
                and self.synced == other.synced)

    def start(self, clock: Step, depth: int) -> None:
        """A clock read: a new measurement starts here."""
        self.clock, self.depth, self.lap, self.work, self.synced, self.trained = clock, depth, False, None, False, False
        self.clocks += 1

    def note_work(self, step: Step) -> None:
        self.work = step
        self.works += 1

    def note_sync(self) -> None:
        self.synced, self.work = True, None
        self.syncs += 1

    def key(self) -> tuple[bool, bool, bool]:
        """What a callee's timing behaviour may depend on (for the memo)."""
        return self.clock is not None, self.work is not None, self.synced


class State:
    __slots__ = ("env", "guarded", "unavailable", "switched", "cuda_index", "default_device", "dead", "timing",
                 "moved", "ranks", "device_chosen")

    def __init__(self) -> None:
        self.env: dict[str, Value] = {}
        self.guarded = False  # CUDA is known to be available on this path
        self.unavailable = False  # CUDA is known to be missing: the selected device is the cpu
        self.switched = False  # under a GPU switch the code sets by hand (`if use_cuda:`)
        self.cuda_index: Optional[int] = 0  # what plain 'cuda' means here
        self.default_device: Optional[Device] = None
        self.dead = False  # after return/raise/exit
        self.timing = Timing()
        # Module.ident -> the module after a move in place: any alias read afterwards is that module
        self.moved: dict[int, Module] = {}
        # `init_process_group("nccl")` ran and no `torch.cuda.set_device` since: plain 'cuda' is GPU 0 on every
        # rank (the call, for the why-chain)
        self.ranks: Optional[cst.CSTNode] = None
        self.device_chosen = False  # `torch.cuda.set_device(...)` ran on this path

    def copy(self) -> "State":
        new = State.__new__(State)
        new.env = dict(self.env)
        new.guarded, new.cuda_index, new.default_device = self.guarded, self.cuda_index, self.default_device
        new.unavailable, new.dead, new.switched = self.unavailable, self.dead, self.switched
        new.timing = self.timing.copy()
        new.moved = dict(self.moved) if self.moved else {}
        new.ranks, new.device_chosen = self.ranks, self.device_chosen
        return new

    def take(self, other: "State") -> None:
        """Become `other` (a join of copies of this path), in place: the caller holds this object."""
        for slot in State.__slots__:
            setattr(self, slot, getattr(other, slot))

    def take_either(self, paths: "list[State]") -> None:
        """Become the join of `paths` (copies of this path, each run one way), in place: what follows holds after
        any of them."""
        joined = paths[0]
        for path in paths[1:]:
            joined = joined.join(path)
        self.take(joined)

    def join(self, other: "State", availability_split: bool = False,
             branch: Optional[cst.CSTNode] = None) -> "State":
        """Where two paths meet; `branch`: the condition whose true path is self, false path other."""
        if self.dead:
            return other.copy()
        if other.dead:
            return self.copy()
        new = self.copy()
        env = new.env
        # one path knows CUDA is missing: its selected device is the cpu
        missing = self.unavailable != other.unavailable
        for name, value in other.env.items():
            mine = env.get(name)
            if mine is not value:
                if missing and mine is not None:
                    mine, value = where_missing(mine, self.unavailable), where_missing(value, other.unavailable)
                    kept = _placed_where_available(mine, value) if other.unavailable else \
                        _placed_where_available(value, mine)
                    if kept is None and (other.guarded if self.unavailable else self.guarded):
                        pair = (mine, value) if self.unavailable else (value, mine)  # (missing, available)
                        kept = _switched_off_where_missing(name, *pair)
                    if kept is not None:
                        env[name] = kept
                        continue
                if mine is not None and self.guarded != other.guarded:
                    flag = _set_where_guarded(*((mine, value) if self.guarded else (value, mine)))
                    if flag is not None:
                        env[name] = flag
                        continue
                if mine is None:
                    mine = _parsed_option(self.env, name)  # `if args.trt: args.device = "gpu"` (else: as parsed)
                env[name] = value if mine is None else join(mine, value, availability_split, branch)
        for name in self.env.keys() - other.env.keys():
            theirs = _parsed_option(other.env, name)
            if theirs is not None:
                env[name] = join(self.env[name], theirs, availability_split, branch)
        new.guarded = self.guarded and other.guarded
        new.unavailable = self.unavailable and other.unavailable
        new.switched = self.switched and other.switched
        if self.cuda_index != other.cuda_index:
            new.cuda_index = None
        new.ranks = self.ranks if other.ranks is not None else None  # on every path
        new.device_chosen = self.device_chosen and other.device_chosen
        if self.default_device != other.default_device:
            # `if torch.cuda.is_available(): torch.set_default_device("cuda")`: the selected device
            devices = {self.default_device, other.default_device}
            gpu = any(d is not None and d.is_gpu for d in devices)
            new.default_device = SELECTED if availability_split and gpu and None in devices else None
        new.timing = self.timing.join(other.timing)
        if self.moved or other.moved:
            new.moved = _join_moves(self, other, availability_split, branch)
        return new

    def same(self, other: "State") -> bool:
        """Has a loop reached its fixed point? Every field counts."""
        return (
            self.env == other.env and self.guarded == other.guarded and self.cuda_index == other.cuda_index
            and self.dead == other.dead and self.unavailable == other.unavailable
            and self.default_device == other.default_device and self.timing.same(other.timing)
            and self.moved == other.moved and (self.ranks is None) == (other.ranks is None)
            and self.device_chosen == other.device_chosen
        )


_CPU_WHERE_MISSING = ("selected", "param")


def where_missing(value: Value, missing: bool) -> Value:
    """A tensor on the selected device, on a path that knows CUDA is missing: on the cpu there (`if on_gpu: p =
    p.cpu()` leaves `p` on the cpu on both paths). So is one on the device of a parameter or of the module
    (`self.inner`): without CUDA, whatever the caller gives is on the cpu."""
    if missing and isinstance(value, (Tensor, Module, Located)) and value.where is not None \
            and value.where.kind in _CPU_WHERE_MISSING:
        return replace(value, where=CPU)
    return value




def _placed_where_available(available: Value, missing: Value) -> Optional[Value]:
    """A tensor the path with CUDA placed beside a parameter (`if self.cuda: target = target.type_as(pred)`)
    and the path without CUDA left on the cpu: without CUDA the parameter is on the cpu too, so on both paths
    the tensor is where the parameter is."""
    if isinstance(available, Tensor) and isinstance(missing, Tensor) and available.where is not None \
            and available.where.kind == "param" and missing.where is not None and missing.where.kind == CPU_TYPE:
        return available
    return None


def _switched_off_where_missing(name: str, missing: Value, available: Value) -> Optional[Value]:
    """`if not torch.cuda.is_available(): use_cuda = False`: a switch turned off where CUDA is missing, joined with
    the switch on the path that has CUDA: true only where there is a GPU, an availability check from here on."""
    switch = isinstance(available, Availability) or isinstance(available, Const) and type(available.value) is bool \
        or api.flag_polarity(name) is True
    if switch and isinstance(missing, Const) and missing.value is False:
        return Availability(positive=True)
    return None


def _set_where_guarded(guarded: Value, other: Value) -> Optional[Value]:
    """`args.distributed = True` beside `init_dist()` (an NCCL group: GPUs there), False on the other path: true
    only where a GPU is, a check from here on."""
    if isinstance(guarded, Const) and guarded.value is True and isinstance(other, Const) and other.value is False:
        return Availability(positive=True, branch="then", choice=False)
    return None


def _parsed_option(env: dict[str, Value], name: str) -> Optional[Value]:
    """What `args.device` holds on a path that did not set it: the option as the parser gave it."""
    base, _, attr = name.partition(".")
    owner = env.get(base) if attr and "." not in attr else None
    if not isinstance(owner, ArgsNamespace):
        return None
    return next((value for dest, value in owner.options if dest == attr), None)


def _join_moves(mine: "State", other: "State", availability_split: bool,
                branch: Optional[cst.CSTNode]) -> dict[int, Module]:
    """Moves where paths meet. A move made on one path only is forgotten when the other path knows the
    object too: the names joined hold what is known of it then (`if torch.cuda.is_available():
    model.cuda()` leaves it on the selected device, which the join of `model` says). An object the other
    path never saw (built and moved under `if __name__ == "__main__":`) keeps its move."""
    moved: dict[int, Module] = {}
    for ident in mine.moved.keys() & other.moved.keys():
        a, b = mine.moved[ident], other.moved[ident]
        moved[ident] = a if a is b else cast(Module, join(a, b, availability_split, branch))  # two modules join to one
    for one, rest in ((mine, other), (other, mine)):
        only = one.moved.keys() - rest.moved.keys()
        if only:
            seen = {getattr(v, "ident", 0) for v in rest.env.values()}
            moved.update((ident, one.moved[ident]) for ident in only if ident not in seen)
    return moved


@dataclass
class LoopFrame:
    """The loop being walked: the states that leave it early, and whether it trains."""

    training: bool
    if_depth: int  # `if` nesting at the loop's body: deeper code runs only on some steps
    breaks: list[State] = field(default_factory=list)
    continues: list[State] = field(default_factory=list)
    # `for key in batch.keys():` (key, container, "dict"; "list" for `range(len(container))`): a store
    # `batch[key] = ...` in it rewrites every entry
    every_key: Optional[tuple[str, str, str]] = None


@dataclass(frozen=True)
class Returned:
    """One `return` (or `yield`) of a function being analysed."""

    value: Value
    self_value: Optional[Value]  # `self` as it was at that return (methods change their object)
    guarded: bool  # CUDA was known to be available there
    yielded: bool = False  # a value a generator yields
