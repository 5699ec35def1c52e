"""One call, as a semantics handler sees it.

A handler is a function `handler(site: CallSite) -> Value`: what the call
returns, after recording what it does (facts, moves, synchronisations) through
the site. Arguments are evaluated once, on first use: a handler that never
looks at them (`time.time()`, `torch.cuda.is_available()`) never walks them.
`Walk` is all a handler may ask of the interpreter: a few verbs, `facts` to record
what it observes, `file` to ask about the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, AbstractSet, Callable, Iterable, Mapping, Optional, Protocol

import libcst as cst

from devlint.core.facts import Context, Operand
from devlint.static.semantics.containers import join_all
from devlint.static.syntax import dotted
from devlint.core.values import UNKNOWN, Seq, Value

if TYPE_CHECKING:
    from devlint.core.values import Class, Function
    from devlint.static.analysis.state import State

# An argument: its expression (or the node standing for it) and its value.
Argument = tuple[cst.CSTNode, Value]


class Args:
    """A call's arguments, evaluated: (node, value) pairs."""

    __slots__ = ("positional", "keywords", "star", "starstar")

    def __init__(self) -> None:
        self.positional: list[Argument] = []
        self.keywords: dict[str, Argument] = {}
        self.star: list[Argument] = []
        self.starstar: list[Argument] = []

    def get(self, name: str) -> Value:
        found = self.keywords.get(name)
        return found[1] if found else UNKNOWN

    def first(self, keyword: Optional[str] = None) -> Value:
        """The first positional argument, else the keyword `keyword`."""
        if self.positional:
            return self.positional[0][1]
        return self.get(keyword) if keyword else UNKNOWN

    def find(self, position: Optional[int], keyword: str) -> Optional[Argument]:
        """(node, value) given as keyword `keyword` or at `position`, or None."""
        found = self.keywords.get(keyword)
        if found is None and position is not None and len(self.positional) > position:
            found = self.positional[position]
        return found

    def all(self) -> list[Argument]:
        return self.positional + list(self.keywords.values()) + self.star + self.starstar

    def extra_keywords(self, named: AbstractSet[str]) -> Seq:
        """What a `**kwargs` parameter receives: the keywords no parameter in `named` takes, and the entries of
        a `**dict` passed on (`create(config=cfg)` -> `Agent(**kwargs)`); keys unknown where a dict's are."""
        keys: list[object] = [k for k in self.keywords if k not in named]
        items: list[Value] = [self.keywords[k][1] for k in self.keywords if k not in named]
        for _, extra in self.starstar:
            if not isinstance(extra, Seq) or extra.keys is None or extra.items is None or None in extra.keys:
                return Seq(kind="dict", elem=UNKNOWN)
            for key, value in zip(extra.keys, extra.items):
                if key not in named:
                    keys.append(key)
                    items.append(value)
        return Seq(kind="dict", keys=tuple(keys), items=tuple(items), elem=join_all(items) if items else UNKNOWN)


class Facts(Protocol):
    """What a handler records (devlint.static.analysis.emitter.Emitter): facts for the rules, told in the
    walk's context and dropped while it explores, and what the path's measurement learns."""

    def emit(self, fact: object) -> None: ...
    def host_sync(self, node: cst.CSTNode, how: str, operand: Operand, state: State) -> None: ...

    def shown(self, node: cst.CSTNode, how: str, operand: Operand, state: State) -> None: ...
    def gpu_assumption(self, node: cst.CSTNode, what: str, state: State,
                       use: Optional[cst.CSTNode] = None) -> None: ...
    def module_call_fact(self, node: cst.CSTNode, module_node: cst.CSTNode, module: Value,
                         inputs: list[Argument]) -> bool: ...
    def note_gpu_work(self, node: cst.CSTNode, values: Iterable[Value], state: State) -> None: ...
    def note_sync(self, state: State) -> None: ...
    def portable_use(self) -> None: ...
    def shared_gpu(self, node: cst.CSTNode, group: cst.CSTNode, state: State) -> None: ...


class FileView(Protocol):
    """What a handler may ask of the file and of where the walk is in it, read only
    (devlint.static.analysis.tables.FileQuestions)."""

    @property
    def context(self) -> Context: ...
    @property
    def classes(self) -> Mapping[str, Class]: ...
    @property
    def functions(self) -> Mapping[int, Function]: ...
    def globals(self) -> Mapping[str, Value]: ...
    def loop_depth(self) -> int: ...
    def find_method(self, cls: Optional[Class], name: str) -> Optional[cst.FunctionDef]: ...
    def self_placed_inputs(self, fdef: cst.FunctionDef, args: Args, bound: bool) -> set[int]: ...

    def placed_params(self, fdef: cst.FunctionDef) -> set[str]: ...

    def handed_to_members(self, fdef: cst.FunctionDef) -> list[tuple[str, str, str]]: ...
    def tensor_names(self) -> AbstractSet[str]: ...
    def converted_to_numpy(self, node: cst.CSTNode) -> bool: ...
    def parameters(self) -> AbstractSet[str]: ...
    def module_names(self) -> AbstractSet[str]: ...
    def clock_ends(self) -> AbstractSet[str]: ...
    def saved_here(self, path: cst.CSTNode) -> bool: ...
    def saves_to_memory(self) -> bool: ...
    def own_weights(self, load: cst.CSTNode, optimizer: Callable[[cst.BaseExpression], bool]) -> bool: ...

    def released(self, path: cst.CSTNode, value: Value) -> bool: ...
    def saved_beside(self, path: cst.CSTNode) -> bool: ...
    def shipped(self, path: cst.CSTNode) -> bool: ...
    def project_module(self, path: str) -> bool: ...
    def sets_gpu_default(self, path: str) -> bool: ...
    def saved_as(self, path: str) -> bool: ...
    @property
    def nccl_backend(self) -> bool: ...
    def in_test(self) -> bool: ...
    def in_test_module(self) -> bool: ...
    def consumer(self, node: cst.CSTNode) -> Optional[cst.CSTNode]: ...

    def never_read(self, name: str) -> bool: ...
    def coarse(self, node: cst.CSTNode) -> bool: ...
    def code(self, node: cst.CSTNode) -> str: ...


class Walk(Protocol):
    """The verbs a handler may ask of the walk (devlint.static.analysis.interpreter.Interpreter), and its two
    views: `facts` to record, `file` to ask. A handler writes nothing else: what it computed, it returns."""

    @property
    def facts(self) -> Facts: ...
    @property
    def file(self) -> FileView: ...

    def eval(self, node: Optional[cst.CSTNode], state: State) -> Value: ...
    def lookup(self, name: str, state: State) -> Value: ...
    def assign_name(self, name: str, value: Value, state: State, line: cst.CSTNode) -> None: ...
    def store(self, target: cst.CSTNode, value: Value, state: State, line: cst.CSTNode) -> bool: ...
    def escape(self, args: Args, state: State) -> None: ...
    def iterate(self, iterable: Value, node: cst.CSTNode) -> Value: ...
    def operation(self, node: cst.CSTNode, name: str, operands: list[Operand], state: State, indexing: bool = False,
                  reduce: bool = False) -> Value: ...
    def invoke(self, fn: Function, args: Args, node: cst.Call, state: State,
               receiver_node: Optional[cst.CSTNode]) -> Value: ...
    def call_method_of(self, receiver: Value, name: str, values: list[Value], node: cst.CSTNode,
                       state: State) -> Value: ...
    def call_super(self, site: CallSite) -> Value: ...


class CallSite:
    """The call node, its callee (a dotted path, or a receiver and a method name), its arguments
    evaluated once, and the state of the path it is on."""

    __slots__ = ("walk", "node", "state", "path", "name", "receiver", "receiver_node", "_args")

    def __init__(self, walk: Walk, node: cst.Call, state: State, path: str = "", name: str = "",
                 receiver: Value = UNKNOWN, receiver_node: Optional[cst.CSTNode] = None) -> None:
        self.walk, self.node, self.state = walk, node, state
        self.path, self.name = path, name  # a function's dotted path; a method's name
        self.receiver, self.receiver_node = receiver, receiver_node
        self._args: Optional[Args] = None

    @property
    def args(self) -> Args:
        """The arguments, evaluated on first use (`evaluate_arguments`)."""
        args = self._args
        return args if args is not None else self.evaluate_arguments()

    def evaluate_arguments(self) -> Args:
        """Evaluate the arguments now, once: a handler that returns without reading them calls this for what
        evaluating them does (the calls and operations inside them are walked, their facts told)."""
        if self._args is None:
            args = Args()
            evaluate, state = self.walk.eval, self.state
            for arg in self.node.args:
                value = evaluate(arg.value, state)
                star = arg.star
                if not star:  # the common case first
                    if arg.keyword is None:
                        args.positional.append((arg.value, value))
                    else:
                        args.keywords[arg.keyword.value] = (arg.value, value)
                elif star == "*" and isinstance(value, Seq) and value.items is not None and not args.star:
                    # `train(*make_example())` of a known tuple: its items are the positions
                    args.positional.extend((arg.value, item) for item in value.items)
                elif star == "*":
                    args.star.append((arg.value, value))
                else:
                    args.starstar.append((arg.value, value))
            self._args = args
        return self._args

    def on_path(self, state: State) -> CallSite:
        """This call on another path (a copy of this one's state), its arguments as evaluated here."""
        other = CallSite(self.walk, self.node, state, self.path, self.name, self.receiver, self.receiver_node)
        other._args = self.args
        return other

    @property
    def facts(self) -> Facts:
        """What the handler records (facts, syncs, GPU work, portable uses)."""
        return self.walk.facts

    @property
    def file(self) -> FileView:
        """What the handler may ask of the file, and of where the walk is in it."""
        return self.walk.file

    @property
    def context(self) -> Context:
        return self.walk.file.context

    @property
    def receiver_name(self) -> Optional[str]:
        return dotted(self.receiver_node) if self.receiver_node is not None else None

    def emit(self, fact: object) -> None:
        self.walk.facts.emit(fact)

    def update_receiver(self, value: Value) -> bool:
        """The method changed its receiver: bind the new value where the receiver came from."""
        return self.receiver_node is not None and self.walk.store(self.receiver_node, value, self.state, self.node)

    def operand(self, node: cst.CSTNode, value: Value) -> Operand:
        return Operand(node, value, self.walk.file.code(node))


Handler = Callable[[CallSite], Value]
# A method's handler may return None: the call is left to its receiver kind's default handler (registry.METHODS).
MethodHandler = Callable[[CallSite], Optional[Value]]
