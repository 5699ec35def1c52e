"""The abstract domain: where a value lives, and what kind of value it is.

Devices are abstract (`cpu`, `cuda:N`, `selected`, `same-as(p)`); values carry
their device and *why* it is there: a chain of steps, each a CST node with a
short description, rendered as "line 31 `for x, y in loader`" only when a
finding is reported.  ``None`` as a device means unknown, and unknown never
conflicts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, cast

import libcst as cst

# the domain's devices and its record type, re-exported: values are where the analysis imports them from
from devlint.core.devices import (  # noqa: F401
    ACCELERATORS as ACCELERATORS,
    CPU as CPU,
    IMPLICIT_CPU as IMPLICIT_CPU,
    RANKED_CUDA as RANKED_CUDA, ranked_cuda as ranked_cuda, SELECTED as SELECTED,
    Device as Device,
    conflict as conflict,
    cuda as cuda, cuda_and_cpu_types,
    join_choice as join_choice,
    join_device as join_device,
    on_cpu as on_cpu,
    parse_device_string as parse_device_string,
)
from devlint.core.record import field as field, record as record, replace as replace  # noqa: F401

if TYPE_CHECKING:
    from typing_extensions import Self

# A step of a why-chain: the node that did something to the value, and what.
Step = tuple[cst.CSTNode, str]
Why = tuple[Step, ...]

# ---------------------------------------------------------------- values


@record
class Value:
    why: Why = field(default=(), compare=False)

    def with_why(self, *steps: Step) -> "Value":
        return replace(self, why=self.why + steps)

    @property
    def device(self) -> Optional[Device]:
        return None

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Optional[Value]:
        """Where two paths meet with a value of this kind on each (see `join`); None: the rules across kinds decide."""
        return None


# ((name, value), ...): an object's attributes, a parser's options
Attributes = tuple[tuple[str, Value], ...]


@record
class Unknown(Value):
    pass


UNKNOWN = Unknown()


@record
class Integer(Unknown):
    """A Python int of unknown value (`timestep: int`): `alphas_cumprod[timestep]` is one element; else unknown."""


INTEGER = Integer()


@record
class Crashed(Unknown):
    """The result of an operation reported as crashing: what follows from it is not judged again."""


CRASHED = Crashed()


@record
class Located(Value):
    """A value of unknown kind known to live on a device: `obj.to(device)`, `self.weight_v` in a module method.
    It never conflicts in an operator (it may be a number), but torch functions treat it as a tensor."""

    where: Optional[Device] = None
    sent: bool = False  # the result of `.to(device)`, `.cuda()` (not a module's member, nor its output)

    @property
    def device(self) -> Optional[Device]:
        return self.where


@record
class ModelWrapper(Value):
    """An object of a class nobody can see, built around a module (`atk = torchattacks.PGD(model)`, an
    evaluator, an EMA): calling it runs that module on inputs it moves itself, so what it returns is where the
    module is (`where`: None when that is unknown or may change: a module on the cpu may be moved after)."""

    where: Optional[Device] = None

    @property
    def device(self) -> Optional[Device]:
        return self.where


@record
class Tensor(Value):
    where: Optional[Device] = None
    scalar: bool = False  # 0-dim: a cpu one combines with any device
    fresh: bool = False  # the direct result of a factory (DEV501)
    from_param: Optional[str] = None  # derives from this function parameter
    derived: bool = False  # computed by an operation (not passed in as is)
    attr_node: Optional[cst.CSTNode] = field(default=None, compare=False)  # a plain attribute's assignment
    attr_name: Optional[str] = None
    maybe_cpu: Optional[Step] = field(default=None, compare=False)  # on some path: created on cpu here
    parameter: bool = False  # nn.Parameter / buffer: follows Module.to
    # a member of a host batch left unmoved: certain to clash in an operation with a GPU tensor, but a
    # model may well want it there (packed-sequence lengths), so module inputs are not judged on it
    host_batch: bool = False
    collated: bool = False  # a DataLoader's batch: maybe a tuple of tensors, so `batch[0]` is a member, not 0-dim
    # maybe an object of a class we cannot see (a custom collate_fn's batch, a guess from a move), whose
    # `.to()` may move it in place and return it, as a BatchEncoding's or a PyG Data's does
    maybe_object: bool = False
    # (the branch's condition, "true"/"false") on which it stayed on the cpu, moved on the other (`if f: x = x.cuda()`)
    cpu_path: Optional[tuple[cst.CSTNode, str]] = field(default=None, compare=False)
    # the result of a call devlint cannot see, on the device of the tensors it was given: maybe not a
    # tensor at all (a metric's float), so a host library taking it is not judged
    inferred: bool = False
    # made with a 0 in its shape (`torch.zeros(0, 0)`): a placeholder that the code replaces before use
    empty: bool = False

    @property
    def device(self) -> Optional[Device]:
        return self.where

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Value:
        where = join_device(self.where, other.where, availability_split)
        maybe = self.maybe_cpu or other.maybe_cpu
        cpu_path = self.cpu_path or other.cpu_path
        if availability_split and where is None and any(s.where is not None and s.where.is_gpu for s in (self, other)):
            where, maybe, cpu_path = SELECTED, None, None  # moved wherever a GPU is; without one all is on the cpu
        why = self.why if where is not None and self.where is not None and where.same_place(self.where) else other.why
        if where is None and branch is not None:
            for side, opposite, outcome in ((self, other, "true"), (other, self, "false")):
                # (a parameter on the cpu is where its module is: it moves with it, it was not left behind)
                if on_cpu(side.where) and not side.scalar and not side.parameter and opposite.where is not None \
                        and opposite.where.concrete and opposite.where.kind != "cpu":
                    cpu_path, why = (branch, outcome), side.why
        if where is None:
            # `if h is None: h = torch.zeros(...)`: on the path that takes the default, h is on cpu (a 0-dim
            # cpu tensor combines with any device: that one may stay there)
            for side, opposite in ((self, other), (other, self)):
                if side.where is not None and side.where.implicit and side.where.kind == "cpu" and not side.scalar \
                        and not side.empty \
                        and opposite.where is not None and opposite.where.kind == "param" \
                        and opposite.where.param != "self":
                    maybe = maybe or (side.why[-1] if side.why else None)
        return Tensor(
            why=why,
            where=where,
            scalar=self.scalar and other.scalar,
            from_param=self.from_param if self.from_param == other.from_param else None,
            derived=self.derived or other.derived,
            attr_node=self.attr_node if self.attr_node is other.attr_node else None,
            attr_name=self.attr_name if self.attr_name == other.attr_name else None,
            maybe_cpu=maybe,
            parameter=self.parameter and other.parameter,
            cpu_path=cpu_path if where is None else None,
            inferred=self.inferred or other.inferred,
        )


@record
class Module(Value):
    where: Optional[Device] = None
    cls: Optional[str] = None  # a class defined in this file
    attrs: Attributes = ()  # ((name, Value), ...) from __init__
    moved: bool = False  # `.to()`/`.cuda()` seen on it
    stateless: bool = False  # no parameters (a loss, an activation): runs wherever its input is
    reduces: bool = False  # a loss with a reduction (its default): its output is one number, 0-dim
    # inputs its forward takes on any device: ((position, keyword), ...) (`nn.CTCLoss`'s targets and lengths)
    any_device_inputs: tuple[tuple[int, str], ...] = ()
    moves_inputs: bool = False  # DataParallel / DistributedDataParallel: it moves its inputs itself
    registered: bool = False  # held by a module's attribute (or a module container): it moves with it
    # a container (`nn.Sequential(Block(8), Block(8))`) whose members are all of one project class: what they
    # are together (their join), what iterating or indexing it gives
    member: Optional[Module] = None
    # one of several classes of this file (`Base() if ... else Scaled()`): their names ("" for one not known)
    of_classes: tuple[str, ...] = ()
    # held only by a plain list/dict attribute of a module: (the assignment, the attribute's name)
    plain_container: Optional[tuple[cst.CSTNode, str]] = field(default=None, compare=False)
    # which object it is (id of the call that built it; 0: unknown): `Module.to()` moves the object, and
    # every alias (a variable, an attribute, a wrapper, a caller's variable) sees the move
    ident: int = field(default=0, compare=False)

    @property
    def device(self) -> Optional[Device]:
        return self.where

    def _wrapped_by(self, other: Module) -> Optional[Module]:
        """self, if `other` is a wrapper of it that moves its inputs itself (DataParallel of this object)."""
        wraps = other.moves_inputs and not self.moves_inputs and other.cls is None and self.cls is not None
        return self if wraps and self.ident and other.ident == self.ident else None

    def element(self) -> Module:
        """A member, where it moved (its members share one class; else the container itself: wherever they are)."""
        if self.member is None:
            return self
        return replace(self.member, why=self.why, where=self.where, moved=self.moved, registered=True, ident=0,
                       plain_container=None)  # held by this container: registered, whatever list held it before

    def attr(self, name: str) -> Optional[Value]:
        for key, value in self.attrs:
            if key == name:
                return value
        return None

    def with_attr(self, name: str, value: Value) -> "Module":
        attrs = tuple((k, v) for k, v in self.attrs if k != name) + ((name, value),)
        return replace(self, attrs=attrs)

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Value:
        where = join_device(self.where, other.where, availability_split)
        inner = self._wrapped_by(other) or other._wrapped_by(self)
        if inner is not None:  # `if multigpus: model = DataParallel(model)`: called as the model is on the other path
            return replace(inner, why=self.why, where=where, moved=self.moved or other.moved)
        same, registered = self.cls == other.cls, self.registered and other.registered  # (a dict of `self.bce`...)
        return Module(why=self.why, where=where, cls=self.cls if same else None,
                      of_classes=_classes_joined(self, other) if self.of_classes or other.of_classes or not same
                      and None not in (self.cls, other.cls) else (),
                      attrs=_join_attrs(self.attrs, other.attrs, availability_split, branch),
                      moved=self.moved or other.moved, moves_inputs=_moves_inputs_joined(self, other),
                      member=self.member if self.member == other.member else None, registered=registered,
                      any_device_inputs=tuple(dict.fromkeys(self.any_device_inputs + other.any_device_inputs)),
                      plain_container=next((m.plain_container for m in (self, other) if _unregistered(m)), None))


def _moves_inputs_joined(a: Module, b: Module) -> bool:
    """Both paths move their inputs, or one wraps the model in DataParallel and the other left it on the cpu
    (`if device.type == "cuda": model = DataParallel(model).cuda()`): cpu batches are right on either path."""
    return a.moves_inputs and b.moves_inputs or any(
        m.moves_inputs and on_cpu(o.where) for m, o in ((a, b), (b, a)))


@record
class Instance(Value):
    """An object of a plain class defined in this file (a Trainer)."""

    cls: str = ""
    attrs: Attributes = ()

    def attr(self, name: str) -> Optional[Value]:
        for key, value in self.attrs:
            if key == name:
                return value
        return None

    def with_attr(self, name: str, value: Value) -> "Instance":
        attrs = tuple((k, v) for k, v in self.attrs if k != name) + ((name, value),)
        return replace(self, attrs=attrs)

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Optional[Value]:
        if self.cls == other.cls:
            # an object whose method set an attribute on one path (`timer.start()` in a loop) is still that object
            return Instance(why=self.why, cls=self.cls,
                            attrs=_join_attrs(self.attrs, other.attrs, availability_split, branch))
        return None


@record
class DeviceValue(Value):
    """A torch.device, or a string used as one."""

    where: Optional[Device] = None
    literal: Optional[cst.CSTNode] = field(default=None, compare=False)  # a hardcoded 'cuda'
    literal_guarded: bool = True
    maybe_none: bool = False  # None on some path (`torch.device("cuda") if cuda else None`)

    @property
    def device(self) -> Optional[Device]:
        return self.where

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Value:
        where = join_choice(self.where, other.where, availability_split)
        literal = self.literal or other.literal
        guarded = [side.literal_guarded for side in (self, other) if side.literal is not None]
        return DeviceValue(why=self.why or other.why, where=where, literal=literal, literal_guarded=all(guarded),
                           maybe_none=self.maybe_none or other.maybe_none)


@record
class Const(Value):
    value: object = None
    node: Optional[cst.CSTNode] = field(default=None, compare=False)
    guarded: bool = False  # written where CUDA was known to be available

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Optional[Value]:
        if availability_split and self.guarded != other.guarded and _flag(self) is not None \
                and _flag(other) is not None and _flag(self) != _flag(other):
            # `if torch.cuda.is_available(): use_cuda = 1 else: use_cuda = 0`: the flag says whether CUDA is there
            return Availability(positive=bool(_flag(self if self.guarded else other)))
        if availability_split or _device_strings(self, other):
            da, db = const_device(self), const_device(other)
            if da is not None and db is not None:
                return DeviceValue(why=self.why + other.why, where=join_choice(da, db, availability_split))
        return INTEGER if type(self.value) is int and type(other.value) is int else None  # `j = 0`, `j += 1`


def _flag(value: Const) -> Optional[bool]:
    """The truth of a constant written as a flag (`True`, `1`, `0`), or None for anything else."""
    return bool(value.value) if type(value.value) in (bool, int) and value.value in (0, 1) else None


@record
class Availability(Value):
    """A boolean about an accelerator: True when it being true means the accelerator is there.

    `backend` is "cuda" for CUDA checks (and torch.accelerator's), else the accelerator checked
    ("mps", "xpu"): such a check chooses a device but says nothing about CUDA."""

    positive: bool = True
    backend: str = "cuda"
    # Which outcome tells something: "both" (`torch.cuda.is_available()`), "then" (`avail and x`: true
    # means available, false says nothing) or "else" (`not avail or x`: only false says something).
    branch: str = "both"
    # Branching on it chooses where values go (`x.cuda() if avail else x` is the selected device); false
    # for `x.is_cuda`, which says where x already is: code under it is guarded, its join is no choice.
    choice: bool = True
    # its value, where the tensor it asks about is known to be on cuda (or the cpu): one branch runs
    holds: Optional[bool] = None

    def learns(self, outcome: bool) -> Optional[bool]:
        """What a path where this was `outcome` knows: True the accelerator is there, False it is not."""
        if self.branch == "both" or self.branch == ("then" if outcome else "else"):
            return self.positive if outcome else not self.positive
        return None

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Optional[Value]:
        return None if self.positive != other.positive else self if self.holds == other.holds \
            else replace(self, holds=None)  # (each path knew its own)


@record
class Loader(Value):
    """A DataLoader (or an iterator over one): yields batches on `where`, the cpu unless its dataset is elsewhere."""

    iterator: bool = False
    where: Optional[Device] = Device("cpu")
    custom_collate: bool = False  # its batches are whatever its collate_fn makes
    host_items: tuple[bool, ...] = ()  # a collate_fn's tuple: which of its items are host values (numpy lengths)
    item_devices: tuple[Optional[Device], ...] = ()  # a tuple whose items are on several devices: where each is

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Value:
        return self


@record
class HostArray(Value):
    """A numpy array or a Python list made from a tensor (`t.numpy()`, `t.tolist()`, `np.stack(rows)`): it
    lives on the host, and it has dimensions (`torch.tensor(a)` is a cpu tensor, not a 0-dim one)."""


@record
class Seq(Value):
    """A list, tuple or dict of values. `items` when known item by item."""

    kind: str = "list"
    items: Optional[tuple[Value, ...]] = None
    elem: Value = UNKNOWN  # the join of the items, for iteration
    keys: Optional[tuple[object, ...]] = None  # dict: the constant keys (None: not constant), parallel to items
    gpu_members: tuple[Value, ...] = ()  # a GPU tensor appended to it, kept though the join forgets it
    # a plain list/dict attribute of a module holding modules nobody registered: (assignment, name)
    plain_attr: Optional[tuple[cst.CSTNode, str]] = field(default=None, compare=False)
    # its modules were registered one by one (`for i, h in enumerate(self.heads): self.add_module(str(i), h)`):
    # registered where paths meet too (the loop's path that registered none ran over no module)
    hand_registered: bool = False
    # a tuple of one of a few lengths, item by item (a function that returns 2 or 4 things by a flag): the
    # caller's `a, b, c, d = f(...)` takes the 4 (`items` is None then)
    shapes: tuple[tuple[Value, ...], ...] = ()

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Value:
        # an empty list on one path (`feats = []` before the loop that fills it) holds nothing to join
        elem = other.elem if self.items == () else self.elem if other.items == () else join(self.elem, other.elem)
        hand = self.hand_registered or other.hand_registered
        if hand and isinstance(elem, Module):
            elem = replace(elem, registered=True, plain_container=None)
        keys, items = None, None
        shapes: tuple[tuple[Value, ...], ...] = ()
        if self.keys is not None and self.keys == other.keys and self.items is not None and other.items is not None:
            # `collect = {"epoch": [], "cost": []}` filled key by key in a loop: each key keeps its own values
            keys, items = self.keys, tuple(join(a, b, availability_split, branch) for a, b in zip(self.items,
                                                                                                  other.items))
        elif self.kind == other.kind == "tuple":
            shapes = _tuple_shapes(self, other, availability_split, branch)
            if len(shapes) == 1:
                items, shapes = shapes[0], ()
        return Seq(kind=self.kind, items=items, keys=keys, elem=elem,
                   gpu_members=(self.gpu_members + other.gpu_members)[-1:], hand_registered=hand,
                   plain_attr=None if hand else self.plain_attr or other.plain_attr,  # (a list filled in a loop)
                   shapes=shapes)


def _tuple_shapes(a: Seq, b: Seq, availability_split: bool,
                  branch: Optional[cst.CSTNode]) -> tuple[tuple[Value, ...], ...]:
    """Two tuples where paths meet, item by item, one shape per length (none where one is not known so)."""
    by_length: dict[int, tuple[Value, ...]] = {}
    for side in (a, b):
        shapes = side.shapes or ((side.items,) if side.items is not None else None)
        if shapes is None:
            return ()
        for shape in shapes:
            seen = by_length.get(len(shape))
            by_length[len(shape)] = shape if seen is None else tuple(
                join(x, y, availability_split, branch) for x, y in zip(seen, shape))
    return tuple(by_length.values()) if len(by_length) <= MOST_TUPLE_SHAPES else ()


@record
class Ref(Value):
    """A name bound to something imported: `torch.zeros`, `np.asarray`."""

    path: str = ""

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Optional[Value]:
        if availability_split and cuda_and_cpu_types(self.path, other.path):
            return TensorType(why=self.why or other.why, where=SELECTED)
        return None


@record
class Function(Value):
    node: Optional[cst.FunctionDef] = field(default=None, compare=False)
    qualname: str = ""
    owner: Optional[str] = None  # the class it is a method of
    bound: Optional[Value] = field(default=None, compare=False)  # `self` when accessed on an object


@record
class Alternatives(Value):
    """A name bound to one of a few functions, by path (`from .dense import evaluate` in one branch, `from .sparse
    import evaluate` in the other): a call runs one of them, and what follows holds after either."""

    options: tuple[Function, ...] = ()


MOST_ALTERNATIVES = 4  # more functions than this behind one name: unknown
MOST_TUPLE_SHAPES = 4  # more lengths than this of one tuple: unknown item by item


def _function_choice(a: Value, b: Value) -> Value:
    """Two functions (or choices of them) where paths meet: a choice of each, told apart by their code."""
    found: dict[int, Function] = {}
    for side in (a, b):
        for option in (side,) if type(side) is Function else cast(Alternatives, side).options:
            found.setdefault(id(option.node), option)
    return Alternatives(options=tuple(found.values())) if len(found) <= MOST_ALTERNATIVES else UNKNOWN


@record
class RandomGenerator(Value):
    """A `torch.Generator`: its random state lives on a device, and a factory given it must create there."""

    where: Optional[Device] = None

    @property
    def device(self) -> Optional[Device]:
        return self.where


@record
class TensorType(Value):
    """A legacy tensor type chosen at run time (`torch.cuda.FloatTensor if cuda else torch.FloatTensor`)."""

    where: Optional[Device] = None

    @property
    def device(self) -> Optional[Device]:
        return self.where


@record
class LambdaFunction(Value):
    """A `lambda`: calling it evaluates its body with the names it sees where it was written."""

    node: Optional[cst.Lambda] = field(default=None, compare=False)
    env: Optional[dict[str, Value]] = field(default=None, compare=False, hash=False)


@record
class Class(Value):
    node: Optional[cst.ClassDef] = field(default=None, compare=False)
    name: str = ""
    is_module: bool = False
    # a module by its `forward` only, its bases all known to be none (`class MLP():`): no registration, so
    # no tensor of it is "left behind" by a move (DEV105)
    by_shape: bool = False
    is_dataset: bool = False  # a Dataset or Sampler: its methods run in the data pipeline, on the cpu
    # its base classes as evaluated where it was defined (a Class of this file or another module's, a Ref
    # to a library's, unknown), in order
    bases: tuple[Value, ...] = field(default=(), compare=False)


@record
class Optimizer(Value):
    """A torch.optim optimizer of a module's parameters."""

    owner: Optional[str] = None  # the name of the module whose parameters it updates
    loaded: Optional[cst.CSTNode] = field(default=None, compare=False)  # its `load_state_dict(...)` call
    loaded_where: Optional[Device] = None  # where the module's parameters were then: its state is there

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Optional[Value]:
        # `if args.resume: optimizer.load_state_dict(...)`: the path that loaded reaches what follows the `if`
        # with its state where it was loaded; a later move of the module leaves that state behind on that path
        if self.owner != other.owner:
            return None
        loaded = [o for o in (self, other) if o.loaded is not None]
        on_the_cpu = [o for o in loaded if on_cpu(o.loaded_where)]
        return (on_the_cpu or loaded or [self])[0]


@record
class CudaEvent(Value):
    recorded: Optional[cst.CSTNode] = field(default=None, compare=False)
    synced: bool = False


@record
class ArgsNamespace(Value):
    """What `parser.parse_args()` returns: options and their defaults (and what the code sets on it)."""

    options: Attributes = ()  # ((dest, default Value), ...)

    def _join_same(self, other: Self, availability_split: bool, branch: Optional[cst.CSTNode]) -> Value:
        return replace(self, options=_join_attrs(self.options, other.options, availability_split, branch))


@record
class Parser(Value):
    options: Attributes = ()


@record
class SkipMarker(Value):
    """A pytest/unittest skip decorator whose test runs only with CUDA."""


# ---------------------------------------------------------------- what only the walk sees


@record
class Builtin(Value):
    """A Python builtin function (`len`, `zip`, `print`...)."""

    name: str = ""


@record
class BoundMethod(Value):
    """`x.method` looked up but not yet called."""

    receiver: Value = UNKNOWN
    name: str = ""


@record
class Super(Value):
    receiver: Value = UNKNOWN


@record
class ParserGroup(Value):
    """`parser.add_argument_group()`: its options land on the named parser."""

    parser: str = ""


@record
class DeviceContext(Value):
    """`torch.cuda.device(i)`: inside its `with`, plain 'cuda' means cuda:i."""

    index: Optional[int] = None
    unknown: bool = False


@record
class DeviceType(Value):
    """`device.type`: comparing it with 'cuda' or 'cpu' is a guard."""

    device: Optional[Device] = None


@record
class Clock(Value):
    """What a wall-clock read returns."""


@record
class HostTransform(Value):
    """A torchvision transform that makes an image a cpu tensor (`ToTensor()`, a `Compose` holding one)."""


@record
class Dataset(Value):
    """A TensorDataset whose tensors' device is known."""

    where: Optional[Device] = None


@record
class DeviceCount(Value):
    """`torch.cuda.device_count()`: comparing it is a guard; `world`: `dist.get_world_size()` of NCCL (GPUs)."""

    world: bool = False


DEVICE_COUNT = DeviceCount()


def join(a: Value, b: Value, availability_split: bool = False, branch: Optional[cst.CSTNode] = None) -> Value:
    """Where two paths meet. Unknown wins unless the two agree. `branch`: the condition of the `if`
    whose true path gave `a` and false path `b` (to say on which path a tensor stayed on the cpu).
    Two values of one kind join by that kind's rule (`_join_same`); the rules across kinds come after."""
    if a is b:
        return a
    if a == b:  # (a path on which a tensor stayed on the cpu is no part of its equality: the join keeps it)
        return b if isinstance(a, Tensor) and a.cpu_path is None else a
    if type(a) is type(b):
        joined = a._join_same(b, availability_split, branch)
        if joined is not None:
            return joined
    for made, given in ((a, b), (b, a)):  # `if mask is None: mask = torch.ones(n)` of a parameter: a tensor either way
        if type(made) is Tensor and type(given) is Located and given.where is not None and given.where.kind == "param":
            return made._join_same(Tensor(why=given.why, where=given.where), availability_split, None)
    if isinstance(a, (Tensor, Located)) and isinstance(b, (Tensor, Located)) or {type(a), type(b)} == {Module, Located}:
        # (a module of unknown class moved to a device, `Model().to(device)`, and a module there: there either way)
        return Located(why=a.why, where=join_device(a.device, b.device, availability_split))
    for number, summed in ((a, b), (b, a)):
        if isinstance(number, Const) and type(number.value) in (int, float) and isinstance(summed, (Tensor, Located)):
            # `total = 0; for ...: total += loss`: a running sum is the tensor it accumulates (a Python
            # number combines with a tensor on any device), so its device is that tensor's
            return summed
    for index, element in ((a, b), (b, a)):
        if type(index) is Integer and (isinstance(element, Tensor) and element.scalar
                                       or isinstance(element, Const) and type(element.value) is int):
            return INTEGER  # `t = timesteps[i] if ... else timestep`, `i = 0` then `i += 1`: an index either way
    for one, world in ((a, b), (b, a)):
        if isinstance(world, DeviceCount) and world.world and isinstance(one, Const) and one.value == 1:
            return world  # `dist.get_world_size() if dist.is_initialized() else 1`: one process is a world too
    if type(a) in (Function, Alternatives) and type(b) in (Function, Alternatives):
        return _function_choice(a, b)
    for word, chosen in ((a, b), (b, a)):
        if isinstance(word, Const) and isinstance(word.value, str) and parse_device_string(word.value) is None \
                and isinstance(chosen, DeviceValue) and chosen.where is not None and chosen.where.kind == "selected":
            return chosen  # `if args.trt: args.device = "gpu"` of a `--device` option: still the user's choice
    for none, given in ((a, b), (b, a)):
        if isinstance(none, Const) and none.value is None:
            # `if x is None: x = ...` keeps what x is when it is given (a device remembers it may be None)
            return replace(given, maybe_none=True) if isinstance(given, DeviceValue) else given
    return UNKNOWN


def _classes_joined(a: Module, b: Module) -> tuple[str, ...]:
    return tuple(dict.fromkeys(name for m in (a, b) for name in (m.of_classes or (m.cls or "",))))


def _unregistered(module: Module) -> bool:
    """Held only by a plain container, with parameters of its own: what DEV107 is about."""
    return module.plain_container is not None and not module.registered and not module.stateless


def _join_attrs(a: Attributes, b: Attributes, availability_split: bool = False,
                branch: Optional[cst.CSTNode] = None) -> Attributes:
    """Attributes where two paths meet: joined by name, as variables are (`self.gpu = True` under a GPU
    option is that option); one set on a single path keeps its value."""
    if a == b:
        return a
    theirs = dict(b)
    joined = [(name, join(value, theirs.pop(name), availability_split, branch) if name in theirs else value)
              for name, value in a]
    return tuple(joined) + tuple(theirs.items())


def _device_strings(a: Const, b: Const) -> bool:
    """`"mps"` on one path, `"cpu"` on the other: two device names, a device chosen at run time."""
    return isinstance(a.value, str) and isinstance(b.value, str) and a.value != b.value \
        and parse_device_string(a.value) is not None and parse_device_string(b.value) is not None


def const_device(value: Value) -> Optional[Device]:
    if isinstance(value, Const) and isinstance(value.value, str):
        return parse_device_string(value.value)
    if isinstance(value, Const) and isinstance(value.value, int) and not isinstance(value.value, bool):
        return cuda(value.value)
    return None
