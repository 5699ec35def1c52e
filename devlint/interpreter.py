"""A flow-sensitive abstract interpreter over a libcst module.

It walks statements in order with an explicit state (an environment of
abstract values, whether CUDA is known to be available on this path, the
current CUDA device, and the timing state), joins states where paths meet,
iterates loops to a fixed point, and analyses functions defined in the file at
their call sites with the caller's argument values (functions nobody calls,
and every `forward`, are also analysed on their own with symbolic
parameters). What it observes goes out as facts (devlint.facts) to the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Callable, Iterable, Optional

import libcst as cst

from devlint.semantics import torch_api as api
from devlint.facts import (
    ClockRead, Context, CpuOnlyArgument, DiscardedMove, EventElapsed, FreshMove, GpuAssumption, HostConversion,
    HostSync, Load, ModuleCall, Operand, Operation,
)
from devlint.mixing import classify, pairs
from devlint.values import (
    CPU, IMPLICIT_CPU, SELECTED, UNKNOWN, ArgsNamespace, Availability, Class, Const, CudaEvent, Device,
    DeviceValue, Function, Instance, Loader, Located, Module, Parser, Ref, Seq, SkipMarker, Step, Tensor,
    Unknown, Value, const_device, cuda, join, parse_device_string,
)

@dataclass(frozen=True)
class _Builtin(Value):
    name: str = ""


_BUILTINS = {name: _Builtin(name=name) for name in (
    "iter", "next", "enumerate", "zip", "list", "tuple", "sorted", "reversed", "set", "print", "float", "int",
    "bool", "isinstance", "hasattr", "callable", "super", "getattr", "dict", "str", "len", "range", "min", "max",
    "sum", "abs", "round", "map", "filter", "any", "all", "open", "repr", "format", "type", "id", "vars")}
_BUILTINS.update({name: Ref(path=name) for name in ("exit", "quit")})




@dataclass(frozen=True)
class _BoundMethod(Value):
    receiver: Value = UNKNOWN
    name: str = ""


@dataclass(frozen=True)
class _Super(Value):
    receiver: Value = UNKNOWN


@dataclass(frozen=True)
class _ParserGroup(Value):
    parser: str = ""


@dataclass(frozen=True)
class _DeviceContext(Value):
    index: Optional[int] = None
    unknown: bool = False


@dataclass(frozen=True)
class _DeviceType(Value):
    device: Optional[Device] = None


@dataclass(frozen=True)
class _Clock(Value):
    pass


@dataclass(frozen=True)
class _Dataset(Value):
    """A TensorDataset whose tensors' device is known."""

    where: Optional[Device] = None


MAX_CALL_DEPTH = 6
MAX_LOOP_ITERATIONS = 3


class _DeviceCount(Value):
    """What torch.cuda.device_count() returns: comparing it is a guard."""


DEVICE_COUNT = _DeviceCount()


class State:
    __slots__ = ("env", "guarded", "unavailable", "cuda_index", "default_device", "dead", "clock", "work", "synced",
                 "clock_depth", "lap")

    def __init__(self) -> None:
        self.env: dict[str, Value] = {}
        self.guarded = False  # CUDA is known to be available on this path
        self.unavailable = False  # CUDA is known to be missing: the selected device is the cpu
        self.cuda_index: Optional[int] = 0  # what plain 'cuda' means here
        self.default_device: Optional[Device] = None
        self.dead = False  # after return/raise/exit
        self.clock: Optional[Step] = None  # the last wall-clock read
        self.work: Optional[Step] = None  # GPU work since that read
        self.synced = False  # a synchronization since that read
        self.clock_depth = 0  # the loop depth of that read
        self.lap = False  # that read was made in an earlier iteration of the enclosing loop

    def copy(self) -> "State":
        new = State.__new__(State)
        new.env = dict(self.env)
        new.guarded, new.cuda_index, new.default_device = self.guarded, self.cuda_index, self.default_device
        new.unavailable = self.unavailable
        new.dead, new.clock, new.work, new.synced = self.dead, self.clock, self.work, self.synced
        new.clock_depth, new.lap = self.clock_depth, self.lap
        return new

    def join(self, other: "State", availability_split: bool = False) -> "State":
        if self.dead:
            return other.copy()
        if other.dead:
            return self.copy()
        new = self.copy()
        for name, value in other.env.items():
            mine = new.env.get(name)
            new.env[name] = value if mine is None else join(mine, value, availability_split)
        new.guarded = self.guarded and other.guarded
        new.unavailable = self.unavailable and other.unavailable
        if self.cuda_index != other.cuda_index:
            new.cuda_index = None
        if self.default_device != other.default_device:
            # `if torch.cuda.is_available(): torch.set_default_device("cuda")`: the selected device
            devices = {self.default_device, other.default_device}
            gpu = any(d is not None and d.is_gpu for d in devices)
            new.default_device = SELECTED if availability_split and gpu and None in devices else None
        new.clock = self.clock or other.clock
        new.work = self.work or other.work
        new.synced = self.synced or other.synced  # precision: a sync on any path counts
        new.lap = self.lap or other.lap
        new.clock_depth = max(self.clock_depth, other.clock_depth)
        return new

    def same(self, other: "State") -> bool:
        return (
            self.env == other.env and self.guarded == other.guarded and self.cuda_index == other.cuda_index
            and self.dead == other.dead and (self.work is None) == (other.work is None)
            and (self.clock is None) == (other.clock is None) and self.synced == other.synced
        )


class _Scope:
    """What the pre-pass knows about the names of one function (or the module)."""

    __slots__ = ("tensor_names", "clock_ends", "generator")

    def __init__(self) -> None:
        self.tensor_names: set[str] = set()  # used in a way only a tensor can be
        self.clock_ends: set[str] = set()  # left operand of a subtraction: `end - start`
        self.generator = False


_FIELDS: dict[type, tuple] = {}
_IS_NODE: dict[type, bool] = {}
_SKIPPED_FIELDS = frozenset({
    "whitespace_before", "whitespace_after", "leading_lines", "lines_after_decorators", "header", "footer",
    "comma", "lpar", "rpar", "semicolon", "trailing_whitespace", "whitespace_before_colon",
    "whitespace_after_colon", "newline", "indent", "whitespace_after_arg", "whitespace_before_arg", "equal",
    "star_tok", "colon", "operator", "whitespace_after_func", "whitespace_before_args", "whitespace_after_star",
    "whitespace_after_param", "whitespace_after_dot", "dot", "whitespace_after_for", "whitespace_before_in",
    "whitespace_after_in", "whitespace_before_if", "whitespace_after_if", "asynchronous", "value_quote",
})


def _is_node(kind: type) -> bool:
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return known


def children(node: cst.CSTNode) -> list:
    """A node's child nodes, straight from its dataclass fields (libcst's `.children` is slow)."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(f.name for f in fields(node) if f.name not in _SKIPPED_FIELDS)
    out = []
    for name in names:
        value = getattr(node, name)
        kind = type(value)
        if kind is tuple or kind is list:
            out.extend(v for v in value if _is_node(type(v)))
        elif _is_node(kind):
            out.append(value)
    return out


class _PrePass:
    """One walk over the module: called names, per-function scopes, where clock reads go."""

    def __init__(self, module: cst.Module) -> None:
        self.called_names: set[str] = set()
        self.scopes: dict[int, _Scope] = {0: _Scope()}
        self.parents: dict[int, cst.CSTNode] = {}  # a call -> the subtraction or assignment it feeds
        stack = [(module, self.scopes[0])]
        while stack:
            node, scope = stack.pop()
            if isinstance(node, cst.FunctionDef):
                inner = self.scopes[id(node)] = _Scope()
                stack.extend((child, inner) for child in children(node.body))
                stack.extend((d, scope) for d in node.decorators)
                stack.append((node.params, scope))
                continue
            if isinstance(node, cst.Call):
                func = node.func
                if isinstance(func, cst.Name):
                    self.called_names.add(func.value)
                elif isinstance(func, cst.Attribute):
                    self.called_names.add(func.attr.value)
            elif isinstance(node, cst.Attribute):
                if node.attr.value in api.TENSOR_ONLY_ATTRS:
                    name = dotted(node.value)
                    if name:
                        scope.tensor_names.add(name)
            elif isinstance(node, cst.Subscript):
                if len(node.slice) > 1 or not isinstance(node.slice[0].slice, cst.Index):
                    name = dotted(node.value)
                    if name:
                        scope.tensor_names.add(name)
            elif isinstance(node, cst.BinaryOperation):
                if isinstance(node.operator, cst.Subtract):
                    name = dotted(node.left)
                    if name:
                        scope.clock_ends.add(name)
                    if isinstance(node.left, cst.Call):
                        self.parents[id(node.left)] = node
            elif isinstance(node, cst.Assign):
                if isinstance(node.value, cst.Call):
                    self.parents[id(node.value)] = node
            elif isinstance(node, (cst.Yield,)):
                scope.generator = True
            elif isinstance(node, cst.Lambda):
                continue
            stack.extend((child, scope) for child in children(node))


def dotted(node: cst.CSTNode) -> Optional[str]:
    """`a.b.c` for a chain of names, None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _has_training_call(node: cst.CSTNode) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call) and isinstance(current.func, cst.Attribute) \
                and current.func.attr.value in ("backward", "step"):
            return True
        if isinstance(current, (cst.FunctionDef, cst.ClassDef)):
            continue
        stack.extend(children(current))
    return False


class _Return(Exception):
    pass


class Interpreter:
    def __init__(self, module: cst.Module, emit: Callable[[object], None]) -> None:
        self.module = module
        self._emit = emit
        self.muted = 0
        self.functions: dict[int, Function] = {}  # id(FunctionDef) -> value
        self.classes: dict[str, Class] = {}
        self.class_summaries: dict[str, Value] = {}
        self.analysed: set[int] = set()
        self.called_names: set[str] = set()
        self.scopes: dict[int, _Scope] = {}
        self.memo: dict[tuple, tuple] = {}
        self.stack: list[int] = []  # functions being analysed
        self.context = Context()
        self.current_function: Optional[cst.FunctionDef] = None
        self.returns: list[list[Value]] = []
        self.loops: list[dict] = []  # break/continue states, training-loop flags
        self.if_depth = 0
        self.globals: dict[str, Value] = {}
        self.closures: dict[int, dict[str, Value]] = {}
        self.guarded_classes: set[str] = set()  # decorated with a skip-unless-CUDA marker
        self.module_default_device: Optional[Device] = None  # torch.set_default_device at module level

    # ------------------------------------------------------------ driving

    def run(self) -> None:
        prepass = _PrePass(self.module)
        self.called_names = prepass.called_names
        self.scopes = prepass.scopes
        self._parent_map = prepass.parents
        state = State()
        self.globals = state.env
        self.exec_block(self.module.body, state)
        self.globals = state.env
        self.module_default_device = state.default_device
        for fn in list(self.functions.values()):
            if id(fn.node) in self.analysed and fn.node.name.value != "forward":
                continue
            if fn.node.name.value in self.called_names and fn.node.name.value != "forward":
                continue
            self.analyse_standalone(fn)
        for fn in list(self.functions.values()):
            if id(fn.node) not in self.analysed:
                self.analyse_standalone(fn)

    def emit(self, fact: object) -> None:
        if not self.muted:
            self._emit(fact)

    def scope_of(self, node: Optional[cst.CSTNode]) -> _Scope:
        return self.scopes.get(id(node) if node is not None else 0) or self.scopes[0]

    # ------------------------------------------------------------ statements

    def exec_block(self, body: Iterable[cst.CSTNode], state: State) -> State:
        for stmt in body:
            if state.dead:
                break
            state = self.exec_stmt(stmt, state)
        return state

    def exec_suite(self, suite: cst.BaseSuite, state: State) -> State:
        if isinstance(suite, cst.IndentedBlock):
            return self.exec_block(suite.body, state)
        return self.exec_block(suite.body, state)  # SimpleStatementSuite

    def exec_stmt(self, stmt: cst.CSTNode, state: State) -> State:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if state.dead:
                    break
                state = self.exec_small(small, stmt, state)
            return state
        method = getattr(self, "exec_" + type(stmt).__name__, None)
        if method is None:
            return state
        return method(stmt, state)

    def exec_small(self, small: cst.CSTNode, line: cst.CSTNode, state: State) -> State:
        if isinstance(small, cst.Expr):
            self.exec_expression_statement(small, line, state)
        elif isinstance(small, cst.Assign):
            value = self.eval(small.value, state)
            if isinstance(value, (Tensor, Module, DeviceValue, Located)) and not isinstance(small.value, cst.Name):
                value = value.with_why((line, ""))
            for target in small.targets:
                self.assign(target.target, value, state, line)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self.assign(small.target, self.eval(small.value, state), state, line)
        elif isinstance(small, cst.AugAssign):
            left = self.eval(small.target, state)
            right = self.eval(small.value, state)
            result = self.binary(small, _op_text(small.operator), left, right, small.target, small.value, state)
            self.assign(small.target, result, state, line)
        elif isinstance(small, cst.Return):
            value = self.eval(small.value, state) if small.value is not None else Const(value=None)
            if self.returns:
                self.returns[-1].append((value, state.env.get("self"), state.guarded))
            state.dead = True
        elif isinstance(small, cst.Raise):
            if small.exc is not None:
                self.eval(small.exc, state)
            state.dead = True
        elif isinstance(small, cst.Assert):
            test = self.eval(small.test, state)
            if _polarity(test) is True:
                state.guarded = True
            if isinstance(small.test, cst.Name) and small.test.value in ("False",):
                state.dead = True
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            self.exec_import(small, state)
        elif isinstance(small, cst.Break):
            if self.loops:
                self.loops[-1]["breaks"].append(state.copy())
            state.dead = True
        elif isinstance(small, cst.Continue):
            if self.loops:
                self.loops[-1]["continues"].append(state.copy())
            state.dead = True
        elif isinstance(small, cst.Del):
            pass
        return state

    def exec_expression_statement(self, small: cst.Expr, line: cst.CSTNode, state: State) -> None:
        expr = small.value
        # `x.to(device)` alone: in place for a module, thrown away for a tensor.
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) \
                and expr.func.attr.value in ("to", "cuda", "cpu"):
            receiver_node = expr.func.value
            while isinstance(receiver_node, cst.Call) and isinstance(receiver_node.func, cst.Attribute) \
                    and receiver_node.func.attr.value in api.SAME_DEVICE_METHODS_MODULE:
                receiver_node = receiver_node.func.value  # net.eval().cuda()
            receiver = self.eval(receiver_node, state)
            name = dotted(receiver_node)
            tensor = isinstance(receiver, Tensor) or (
                isinstance(receiver, (Unknown, Located)) and name is not None
                and name in self.scope_of(self.current_function).tensor_names
            )
            if tensor:
                self.eval(expr, state)
                self.emit(DiscardedMove(line, Operand(receiver_node, receiver, _code(self.module, receiver_node)),
                                        expr.func.attr.value, self.context))
                return
            moved = self.eval(expr, state)
            if name is not None and isinstance(receiver, (Unknown, Located, Module)):
                if isinstance(moved, Located):
                    moved = Module(why=moved.why, where=moved.where, moved=True)
                if isinstance(moved, Module):
                    self.assign_name(name, moved, state, line)
            return
        self.eval(expr, state)

    def exec_import(self, node: cst.CSTNode, state: State) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = _attr_path(alias.name)
                if alias.asname is not None:
                    state.env[alias.asname.name.value] = Ref(path=full)
                else:
                    top = full.split(".")[0]
                    state.env[top] = Ref(path=top)
        else:
            if node.relative or node.module is None:
                module = None
            else:
                module = _attr_path(node.module)
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                name = _attr_path(alias.name)
                bound = alias.asname.name.value if alias.asname is not None else name
                state.env[bound] = Ref(path=f"{module}.{name}") if module else UNKNOWN

    def exec_If(self, node: cst.If, state: State) -> State:
        test = self.eval(node.test, state)
        polarity = _polarity(test)
        then_state, else_state = state.copy(), state.copy()
        if polarity is True:
            then_state.guarded, else_state.unavailable = True, True
        elif polarity is False:
            else_state.guarded, then_state.unavailable = True, True
        self._narrow(node.test, then_state, else_state)
        self.if_depth += 1
        then_state = self.exec_suite(node.body, then_state)
        if node.orelse is not None:
            if isinstance(node.orelse, cst.If):
                else_state = self.exec_If(node.orelse, else_state)
            else:
                else_state = self.exec_suite(node.orelse.body, else_state)
        self.if_depth -= 1
        return then_state.join(else_state, availability_split=polarity is not None)

    def _narrow(self, test: cst.BaseExpression, then_state: State, else_state: State) -> None:
        """`if torch.is_tensor(x)`, `isinstance(x, torch.Tensor)`: x is a tensor in the branch."""
        if isinstance(test, cst.Call) and test.args:
            callee = self.eval(test.func, then_state)
            path = callee.path if isinstance(callee, Ref) else (test.func.value if isinstance(test.func, cst.Name) else "")
            subject = dotted(test.args[0].value)
            is_tensor = path == "torch.is_tensor" or (
                path == "isinstance" and len(test.args) > 1
                and getattr(self.eval(test.args[1].value, then_state), "path", "") == "torch.Tensor"
            )
            if is_tensor and subject:
                current = then_state.env.get(subject)
                if isinstance(current, (Unknown, Located)) or current is None:
                    then_state.env[subject] = Tensor(where=current.device if current else None, from_param=subject)
                    self.scope_of(self.current_function).tensor_names.add(subject)

    def exec_For(self, node: cst.For, state: State) -> State:
        iterable = self.eval(node.iter, state)
        element = self.iterate(iterable, node)
        training = isinstance(iterable, Loader) or _loader_like(iterable) or _has_training_call(node.body)

        def bind(s: State) -> None:
            self.assign(node.target, element, s, node)

        out = self.loop(node.body, state, bind, training)
        if node.orelse is not None:
            out = self.exec_suite(node.orelse.body, out)
        return out

    def exec_While(self, node: cst.While, state: State) -> State:
        def bind(s: State) -> None:
            test = self.eval(node.test, s)
            if _polarity(test) is True:
                s.guarded = True

        out = self.loop(node.body, state, bind, _has_training_call(node.body))
        if node.orelse is not None:
            out = self.exec_suite(node.orelse.body, out)
        return out

    def loop(self, body: cst.BaseSuite, entry: State, bind: Callable[[State], None], training: bool) -> State:
        frame = {"breaks": [], "continues": [], "training": training, "if_depth": self.if_depth}
        self.loops.append(frame)
        head = entry.copy()
        self.muted += 1
        iterations = 1 if self.muted > 1 else MAX_LOOP_ITERATIONS
        for _ in range(iterations):
            frame["breaks"], frame["continues"] = [], []
            s = head.copy()
            self._next_iteration(s)
            bind(s)
            end = self.exec_suite(body, s)
            new_head = head.join(end)
            for c in frame["continues"]:
                new_head = new_head.join(c)
            if new_head.same(head):
                break
            head = new_head
        self.muted -= 1
        frame["breaks"], frame["continues"] = [], []
        s = head.copy()
        self._next_iteration(s)
        bind(s)
        end = self.exec_suite(body, s)
        self.loops.pop()
        out = head.join(end)
        for b in frame["breaks"]:
            out = out.join(b)
        out.dead = False
        return out

    def _next_iteration(self, state: State) -> None:
        # A clock read inside this loop body, seen again at the next iteration: lap timing.
        if state.clock is not None and state.clock_depth >= len(self.loops):
            state.lap = True

    def exec_With(self, node: cst.With, state: State) -> State:
        saved_index, saved_default = state.cuda_index, state.default_device
        for item in node.items:
            value = self.eval(item.item, state)
            if isinstance(value, _DeviceContext):
                if value.index is not None or value.unknown:
                    state.cuda_index = value.index
            elif isinstance(value, DeviceValue) and isinstance(item.item, cst.Call):
                state.default_device = value.where  # `with torch.device('cuda'):`
            if item.asname is not None:
                self.assign(item.asname.name, UNKNOWN if isinstance(value, _DeviceContext) else value, state, node)
        state = self.exec_suite(node.body, state)
        state.cuda_index, state.default_device = saved_index, saved_default
        return state

    def exec_Try(self, node: cst.Try, state: State) -> State:
        entry = state.copy()
        body_end = self.exec_suite(node.body, state)
        out = body_end
        if node.orelse is not None:
            out = self.exec_suite(node.orelse.body, out)
        for handler in node.handlers:
            h = entry.join(body_end) if not body_end.dead else entry.copy()
            h.dead = False
            if handler.name is not None:
                self.assign(handler.name.name, UNKNOWN, h, handler)
            out = out.join(self.exec_suite(handler.body, h))
        if node.finalbody is not None:
            dead = out.dead
            out.dead = False
            out = self.exec_suite(node.finalbody.body, out)
            out.dead = out.dead or dead
        return out

    exec_TryStar = exec_Try

    def exec_Match(self, node: cst.CSTNode, state: State) -> State:
        self.eval(node.subject, state)
        out: Optional[State] = None
        for case in node.cases:
            s = self.exec_suite(case.body, state.copy())
            out = s if out is None else out.join(s)
        return state.join(out) if out is not None else state

    def exec_FunctionDef(self, node: cst.FunctionDef, state: State, owner: Optional[str] = None) -> State:
        qual = f"{owner}.{node.name.value}" if owner else node.name.value
        fn = Function(node=node, qualname=qual, owner=owner)
        self.functions.setdefault(id(node), fn)
        if self.current_function is not None:
            self.closures[id(node)] = state.env
        for deco in node.decorators:
            self.eval(deco.decorator, state)
        if owner is None:
            state.env[node.name.value] = fn
        return state

    def exec_ClassDef(self, node: cst.ClassDef, state: State) -> State:
        name = node.name.value
        bases = [self.eval(b.value, state) for b in node.bases]
        is_module = any(_is_module_base(b, self.classes) for b in bases) or any(
            isinstance(s, cst.FunctionDef) and s.name.value == "forward" for s in _class_body(node)
        )
        cls = Class(node=node, name=name, is_module=is_module)
        self.classes[name] = cls
        if any(self._is_skip_marker(d, state) for d in node.decorators):
            self.guarded_classes.add(name)
        state.env[name] = cls
        for stmt in _class_body(node):
            if isinstance(stmt, cst.FunctionDef):
                self.exec_FunctionDef(stmt, state, owner=name)
        return state

    # ------------------------------------------------------------ assignment

    def assign(self, target: cst.CSTNode, value: Value, state: State, line: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self.assign_name(target.value, value, state, line)
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = [e.value for e in target.elements]
            for i, element in enumerate(elements):
                if isinstance(element, cst.StarredElement):
                    self.assign(element.value, Seq(elem=_element(value)), state, line)
                    continue
                self.assign(element, _item(value, i), state, line)
        elif isinstance(target, cst.Attribute):
            self.assign_attribute(target, value, state, line)
        elif isinstance(target, cst.Subscript):
            container_name = dotted(target.value)
            container = self.eval(target.value, state)
            self.eval_slices(target, state)
            if isinstance(container, Seq) and container_name:
                key = _const_key(target)
                self.assign_name(container_name, _seq_store(container, key, value), state, line)


    def assign_name(self, name: str, value: Value, state: State, line: cst.CSTNode) -> None:
        if "." in name:
            base, _, attr = name.rpartition(".")
            self._store_attribute(base, attr, value, state, line)
            return
        state.env[name] = value

    def assign_attribute(self, target: cst.Attribute, value: Value, state: State, line: cst.CSTNode) -> None:
        base = dotted(target.value)
        if base is None:
            self.eval(target.value, state)
            return
        self._store_attribute(base, target.attr.value, value, state, line)

    def _store_attribute(self, base: str, attr: str, value: Value, state: State, line: cst.CSTNode) -> None:
        owner = self.lookup(base, state)
        if isinstance(owner, (Module, Instance)):
            if isinstance(owner, Module) and isinstance(value, Tensor) and not value.parameter \
                    and self.current_function is not None and self.current_function.name.value == "__init__":
                value = replace(value, attr_node=line, attr_name=attr)
            self.assign_name(base, owner.with_attr(attr, value), state, line)
        else:
            state.env[f"{base}.{attr}"] = value

    def lookup(self, name: str, state: State) -> Value:
        value = state.env.get(name)
        if value is not None:
            return value
        if "." in name:
            base, _, attr = name.rpartition(".")
            return self.attribute(self.lookup(base, state), attr, state, name)
        if name in self.globals and state.env is not self.globals:
            return self.globals[name]
        return _BUILTINS.get(name, UNKNOWN)

    # ------------------------------------------------------------ expressions

    def eval(self, node: Optional[cst.CSTNode], state: State) -> Value:
        if node is None:
            return UNKNOWN
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:
            return UNKNOWN
        return method(node, state)

    def eval_Name(self, node: cst.Name, state: State) -> Value:
        if node.value in ("True", "False", "None"):
            return Const(value={"True": True, "False": False, "None": None}[node.value], node=node,
                         guarded=state.guarded)
        return self.lookup(node.value, state)

    def eval_Attribute(self, node: cst.Attribute, state: State) -> Value:
        name = dotted(node)
        if name is not None and name in state.env:
            return state.env[name]
        base = self.eval(node.value, state)
        return self.attribute(base, node.attr.value, state, name, node)

    def attribute(self, base: Value, attr: str, state: State, name: Optional[str] = None,
                  node: Optional[cst.CSTNode] = None) -> Value:
        if isinstance(base, Ref):
            return Ref(path=api.ALIASES.get(f"{base.path}.{attr}", f"{base.path}.{attr}"))
        if isinstance(base, Tensor):
            if attr == "device":
                return DeviceValue(why=base.why, where=base.where)
            if attr in ("data", "T", "mT", "real", "imag", "grad"):
                return base
            if attr == "is_cuda" and base.where is not None and base.where.kind == "selected":
                return Availability(positive=True)
            if attr in ("shape", "dtype", "ndim", "is_cuda", "requires_grad", "layout"):
                return UNKNOWN
            return _BoundMethod(receiver=base, name=attr)
        if isinstance(base, DeviceValue):
            if attr == "type":
                return _DeviceType(device=base.where)
            return UNKNOWN
        if isinstance(base, Module):
            value = base.attr(attr)
            if value is not None:
                return _as_member(base, value)
            cls = self.classes.get(base.cls or "")
            method = _find_method(cls, attr, self.classes) if cls else None
            if method is not None:
                return self._method_value(method, base)
            if attr == "device":
                return DeviceValue(why=base.why, where=base.where)
            if attr in ("weight", "bias"):
                return Tensor(why=base.why, where=base.where, parameter=True)
            if cls is not None and not attr.startswith("__"):
                return Located(why=base.why, where=base.where)
            return _BoundMethod(receiver=base, name=attr)
        if isinstance(base, Instance):
            value = base.attr(attr)
            if value is not None:
                return value
            cls = self.classes.get(base.cls)
            method = _find_method(cls, attr, self.classes) if cls else None
            if method is not None:
                return self._method_value(method, base)
            return UNKNOWN
        if isinstance(base, Class):
            method = _find_method(base, attr, self.classes)
            if method is not None:
                return self._method_value(method, None)
            return UNKNOWN
        if isinstance(base, ArgsNamespace):
            for dest, default in base.options:
                if dest == attr:
                    return default
            return _guess_flag(attr)
        if isinstance(base, (Unknown, Located)):
            if attr in _FLAG_NAMES:
                return Availability(positive=True)
            if attr in _NEGATIVE_FLAG_NAMES:
                return Availability(positive=False)
            if isinstance(base, Located) and attr == "device":
                return DeviceValue(where=base.where)
            if isinstance(base, Located) and attr in ("data", "T", "mT", "grad", "real", "imag"):
                return base
            if api.looks_like_device_name(attr):
                return DeviceValue(why=((node, ""),) if node is not None else (), where=SELECTED)
            return UNKNOWN
        return _BoundMethod(receiver=base, name=attr)

    def _method_value(self, method: cst.FunctionDef, bound: Optional[Value]) -> Value:
        fn = self.functions.get(id(method))
        if fn is None:
            return UNKNOWN
        return replace(fn, bound=bound)

    def eval_SimpleString(self, node: cst.SimpleString, state: State) -> Value:
        try:
            return Const(value=node.evaluated_value, node=node, guarded=state.guarded)
        except Exception:  # noqa: BLE001 - a string libcst cannot evaluate is just a string
            return UNKNOWN

    def eval_ConcatenatedString(self, node: cst.ConcatenatedString, state: State) -> Value:
        return UNKNOWN

    def eval_FormattedString(self, node: cst.FormattedString, state: State) -> Value:
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                self.eval(part.expression, state)
        first = node.parts[0] if node.parts else None
        if isinstance(first, cst.FormattedStringText) and first.value.startswith("cuda:"):
            # f'cuda:{local_rank}': the launcher chose a GPU; its index is unknown here
            return DeviceValue(why=((node, ""),), where=cuda(None))
        return UNKNOWN

    def eval_Integer(self, node: cst.Integer, state: State) -> Value:
        try:
            return Const(value=int(node.value, 0), node=node)
        except ValueError:
            return Const(value=0, node=node)

    def eval_Float(self, node: cst.Float, state: State) -> Value:
        return Const(value=1.0, node=node)

    def eval_Imaginary(self, node: cst.Imaginary, state: State) -> Value:
        return Const(value=1j, node=node)

    def eval_Tuple(self, node: cst.Tuple, state: State) -> Value:
        return self._sequence(node, "tuple", state)

    def eval_List(self, node: cst.List, state: State) -> Value:
        return self._sequence(node, "list", state)

    def eval_Set(self, node: cst.Set, state: State) -> Value:
        return self._sequence(node, "set", state)

    def _sequence(self, node: cst.CSTNode, kind: str, state: State) -> Value:
        items: list[Value] = []
        known = True
        for element in node.elements:
            value = self.eval(element.value, state)
            if isinstance(element, cst.StarredElement):
                known = False
                value = _element(value)
            items.append(value)
        return _make_seq(kind, items if known else None, items)

    def eval_Dict(self, node: cst.Dict, state: State) -> Value:
        keys, items = [], []
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                key = self.eval(element.key, state)
                keys.append(key.value if isinstance(key, Const) else None)
                items.append(self.eval(element.value, state))
            else:
                items.append(_element(self.eval(element.value, state)))
                keys.append(None)
        return Seq(kind="dict", items=tuple(items), keys=tuple(keys), elem=_join_all(items))

    def _comprehension(self, node: cst.CSTNode, state: State) -> State:
        inner = state.copy()
        comp = node.for_in
        while comp is not None:
            iterable = self.eval(comp.iter, inner)
            self.assign(comp.target, self.iterate(iterable, comp), inner, comp)
            for cond in comp.ifs:
                self.eval(cond.test, inner)
            comp = comp.inner_for_in
        return inner

    def eval_ListComp(self, node: cst.ListComp, state: State) -> Value:
        inner = self._comprehension(node, state)
        return Seq(kind="list", elem=self.eval(node.elt, inner))

    eval_SetComp = eval_ListComp

    def eval_GeneratorExp(self, node: cst.GeneratorExp, state: State) -> Value:
        inner = self._comprehension(node, state)
        return Seq(kind="generator", elem=self.eval(node.elt, inner))

    def eval_DictComp(self, node: cst.DictComp, state: State) -> Value:
        inner = self._comprehension(node, state)
        self.eval(node.key, inner)
        return Seq(kind="dict", elem=self.eval(node.value, inner))

    def eval_Lambda(self, node: cst.Lambda, state: State) -> Value:
        return UNKNOWN

    def eval_Await(self, node: cst.Await, state: State) -> Value:
        return self.eval(node.expression, state)

    def eval_NamedExpr(self, node: cst.NamedExpr, state: State) -> Value:
        value = self.eval(node.value, state)
        self.assign(node.target, value, state, node)
        return value

    def eval_IfExp(self, node: cst.IfExp, state: State) -> Value:
        test = self.eval(node.test, state)
        polarity = _polarity(test)
        then_state, else_state = state.copy(), state.copy()
        if polarity is True:
            then_state.guarded = True
        elif polarity is False:
            else_state.guarded = True
        body = self.eval(node.body, then_state)
        orelse = self.eval(node.orelse, else_state)
        if polarity is not None and isinstance(body, Const) and isinstance(orelse, Const) \
                and isinstance(body.value, bool) and isinstance(orelse.value, bool) and body.value != orelse.value:
            return Availability(positive=polarity if body.value else not polarity)  # `True if avail else False`
        if polarity is not None:
            device_body, device_else = _as_device(body), _as_device(orelse)
            if device_body is not None and device_else is not None:
                from devlint.values import join_device
                return DeviceValue(why=((node, ""),), where=join_device(device_body, device_else, True))
        return join(body, orelse, availability_split=polarity is not None)

    def eval_UnaryOperation(self, node: cst.UnaryOperation, state: State) -> Value:
        value = self.eval(node.expression, state)
        if isinstance(node.operator, cst.Not):
            polarity = _polarity(value)
            if polarity is not None:
                return Availability(positive=not polarity)
            if isinstance(value, Const):
                return Const(value=not value.value, node=node)
            return UNKNOWN
        if isinstance(value, (Tensor, Located)):
            return value
        return UNKNOWN

    def eval_BooleanOperation(self, node: cst.BooleanOperation, state: State) -> Value:
        left = self.eval(node.left, state)
        right_state = state.copy()
        if isinstance(node.operator, cst.And) and _polarity(left) is True:
            right_state.guarded = True
        right = self.eval(node.right, right_state)
        lp, rp = _polarity(left), _polarity(right)
        if isinstance(node.operator, cst.And):
            if lp is True or rp is True:
                return Availability(positive=True)
            if lp is False and rp is False:
                return Availability(positive=False)
        else:
            if lp is True and rp is True:
                return Availability(positive=True)
            if lp is False or rp is False:
                return Availability(positive=False) if (lp is False and rp is False) else UNKNOWN
            if isinstance(left, Const) and not left.value:
                return right
            if isinstance(left, (Tensor, Module, DeviceValue)):
                return join(left, right)
        if isinstance(left, Const) and isinstance(right, Const):
            return Const(value=None)
        return UNKNOWN if not isinstance(node.operator, cst.Or) else join(left, right)

    def eval_Comparison(self, node: cst.Comparison, state: State) -> Value:
        left = self.eval(node.left, state)
        result: Value = UNKNOWN
        for target in node.comparisons:
            right = self.eval(target.comparator, state)
            op = target.operator
            guard = _comparison_guard(left, op, right)
            if guard is not None:
                result = Availability(positive=guard)
            elif isinstance(left, (Tensor, Located)) or isinstance(right, (Tensor, Located)):
                if not isinstance(op, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                    result = self.binary(node, _op_text(op), left, right, node.left, target.comparator, state)
            left = right
        return result

    def eval_BinaryOperation(self, node: cst.BinaryOperation, state: State) -> Value:
        left = self.eval(node.left, state)
        right = self.eval(node.right, state)
        return self.binary(node, _op_text(node.operator), left, right, node.left, node.right, state)

    def binary(self, node: cst.CSTNode, op: str, left: Value, right: Value, left_node: cst.CSTNode,
               right_node: cst.CSTNode, state: State) -> Value:
        if isinstance(left, Seq) and isinstance(right, Seq) and op == "+":
            items = (left.items + right.items) if left.items is not None and right.items is not None else None
            return _make_seq(left.kind, list(items) if items is not None else None, [left.elem, right.elem])
        if isinstance(left, Const) and isinstance(right, Const) and op == "+" \
                and isinstance(left.value, str) and isinstance(right.value, str):
            return Const(value=left.value + right.value, node=node, guarded=state.guarded)
        if isinstance(left, Const) and isinstance(left.value, str) and left.value.startswith("cuda") and op == "+":
            return DeviceValue(why=((node, ""),), where=cuda(None), literal=left.node,
                               literal_guarded=left.guarded)
        operands = [Operand(n, v, _code(self.module, n)) for n, v in ((left_node, left), (right_node, right))
                    if isinstance(v, Tensor)]
        if not operands:
            if isinstance(left, Located) or isinstance(right, Located):
                return Located(where=(left.device or right.device))
            return UNKNOWN
        return self.operation(node, op, operands, state)

    def eval_Subscript(self, node: cst.Subscript, state: State) -> Value:
        container = self.eval(node.value, state)
        indices = self.eval_slices(node, state)
        if isinstance(container, Seq):
            key = _const_key(node)
            if container.items is not None and key is not None:
                if container.keys is not None:
                    for k, v in zip(container.keys, container.items):
                        if k == key:
                            return v
                    return container.elem
                if isinstance(key, int) and -len(container.items) <= key < len(container.items):
                    return container.items[key]
            if isinstance(node.slice[0].slice, cst.Slice):
                return container
            return container.elem
        if isinstance(container, Tensor):
            tensor_indices = [(s, v) for s, v in indices if isinstance(v, Tensor)]
            if tensor_indices:
                operands = [Operand(node.value, container, _code(self.module, node.value))]
                operands += [Operand(s, v, _code(self.module, s)) for s, v in tensor_indices]
                result = self.operation(node, "[]", operands, state, indexing=True)
                if isinstance(result, Tensor):
                    return replace(result, where=container.where, scalar=False)
                return result
            # `x[0]` of a 1-d tensor is 0-dim, and a 0-dim cpu tensor mixes with anything
            integer = all(isinstance(v, Const) and isinstance(v.value, int) for _, v in indices) and indices
            return replace(container, scalar=bool(integer) and container.where is not None
                           and container.where.kind == "cpu", fresh=False, derived=True)
        if isinstance(container, Located):
            return Located(where=container.where)
        if isinstance(container, Module):
            return container  # nn.Sequential / ModuleList indexing
        if isinstance(container, Loader):
            return UNKNOWN
        return UNKNOWN

    def eval_slices(self, node: cst.Subscript, state: State) -> list:
        out = []
        for element in node.slice:
            if isinstance(element.slice, cst.Index):
                out.append((element.slice.value, self.eval(element.slice.value, state)))
            else:
                for part in (element.slice.lower, element.slice.upper, element.slice.step):
                    if part is not None:
                        self.eval(part, state)
        return out

    # ------------------------------------------------------------ operations

    def operation(self, node: cst.CSTNode, name: str, operands: list, state: State, indexing: bool = False,
                  reduce: bool = False) -> Value:
        """A computation over tensors that must share a device."""
        tensors = [o for o in operands if isinstance(o.value, Tensor)]
        if len(tensors) >= 2:
            self.emit(Operation(node, name, tuple(tensors), self.context, indexing))
            if any(classify(a.value, b.value, indexing, self.context.in_module_method)
                   for a, b in pairs(tensors, indexing)):
                return UNKNOWN  # reported once: nothing downstream of it is known
        if not tensors:
            return UNKNOWN
        self.note_gpu_work(node, [t.value for t in tensors], state)
        return self.result_tensor(node, [t.value for t in tensors], reduce)

    def result_tensor(self, node: cst.CSTNode, tensors: list, reduce: bool = False) -> Tensor:
        # The most telling operand: a concrete device over a parameter's, a non-scalar over a scalar.
        def rank(t: Tensor) -> tuple:
            where = t.where
            return (
                where is not None,
                where is not None and where.concrete,
                not (t.scalar and where is not None and where.kind == "cpu"),
                where is not None and not where.implicit,
            )

        best = max(tensors, key=rank)
        from_param = next((t.from_param for t in tensors if t.from_param), None)
        maybe = next((t.maybe_cpu for t in tensors if t.maybe_cpu), None)
        where = best.where
        if where is not None and where.implicit and not all(
                t.where is not None and t.where.implicit or t.scalar for t in tensors):
            where = replace(where, implicit=False)
        return Tensor(
            why=best.why, where=where, scalar=reduce or all(t.scalar for t in tensors), from_param=from_param,
            derived=True, maybe_cpu=maybe if where is None or where.kind != "param" else None,
            attr_node=best.attr_node if len(tensors) == 1 else None,
            attr_name=best.attr_name if len(tensors) == 1 else None,
        )

    def note_gpu_work(self, node: cst.CSTNode, values: Iterable[Value], state: State,
                      opaque: bool = False) -> None:
        """GPU work happened if a tensor or module on the GPU took part. `opaque`: code we cannot
        see got them, and may have synchronized too (a validation run ends with `.cpu()`)."""
        for value in values:
            if not isinstance(value, (Tensor, Module, Located, Seq)):
                continue
            if isinstance(value, Seq):
                tensors = _tensors_in(value)
                if not tensors:
                    continue
                value = tensors[0]
            device = value.device
            if device is not None and device.is_gpu and not (state.unavailable and device.kind == "selected"):
                state.work = (node, "")
                if opaque:
                    state.synced = True
                return

    def note_sync(self, state: State) -> None:
        state.synced = True
        state.work = None

    # ------------------------------------------------------------ calls

    def eval_Call(self, node: cst.Call, state: State) -> Value:
        func = node.func
        if isinstance(func, cst.Attribute):
            receiver = self.eval(func.value, state)
            if isinstance(receiver, Ref):
                callee: Value = self.attribute(receiver, func.attr.value, state)
            elif isinstance(receiver, (Module, Instance, Class)) and not isinstance(receiver, Ref):
                callee = self.attribute(receiver, func.attr.value, state)
                if isinstance(callee, Function):
                    return self.call_function(callee, node, state, receiver_node=func.value)
                if isinstance(callee, _BoundMethod) or isinstance(receiver, Module) and not isinstance(
                        callee, (Module, Function)):
                    return self.call_method(receiver, func.attr.value, node, state)
            else:
                return self.call_method(receiver, func.attr.value, node, state)
        else:
            callee = self.eval(func, state)
        if isinstance(callee, Ref):
            return self.call_ref(callee.path, node, state)
        if isinstance(callee, Function):
            return self.call_function(callee, node, state)
        if isinstance(callee, Class):
            return self.instantiate(callee, node, state)
        if isinstance(callee, _Builtin):
            return self.call_builtin(callee.name, node, state)
        if isinstance(callee, (Module, Located)):
            return self.call_module(callee, node, state)
        if isinstance(callee, _BoundMethod):
            return self.call_method(callee.receiver, callee.name, node, state)
        args = self.eval_args(node, state)
        self.escape(args, state)
        self.note_gpu_work(node, [v for _, v in args.all()], state)
        return UNKNOWN

    def escape(self, args: "_Args", state: State) -> None:
        """Modules handed to code we cannot see may be moved there: their device is unknown after."""
        for arg_node, value in args.all():
            if isinstance(value, Module) and value.where is not None and not value.stateless:
                name = dotted(arg_node)
                if name:
                    self.assign_name(name, replace(value, where=None), state, arg_node)

    def eval_args(self, node: cst.Call, state: State) -> "_Args":
        args = _Args()
        for arg in node.args:
            value = self.eval(arg.value, state)
            if arg.star == "*":
                args.star.append((arg.value, value))
            elif arg.star == "**":
                args.starstar.append((arg.value, value))
            elif arg.keyword is not None:
                args.keywords[arg.keyword.value] = (arg.value, value)
            else:
                args.positional.append((arg.value, value))
        return args

    def call_builtin(self, name: str, node: cst.Call, state: State) -> Value:
        args = self.eval_args(node, state)
        first = args.positional[0][1] if args.positional else UNKNOWN
        if name == "iter":
            return replace(first, iterator=True) if isinstance(first, Loader) else (
                first if isinstance(first, (Seq, Tensor)) else UNKNOWN)
        if name == "next":
            return self.iterate(first, node) if isinstance(first, (Loader, Seq, Tensor)) else UNKNOWN
        if name in ("enumerate",):
            return Seq(kind="list", elem=Seq(kind="tuple", items=(Const(value=0), self.iterate(first, node))))
        if name == "zip":
            return Seq(kind="list", elem=Seq(kind="tuple", items=tuple(self.iterate(v, node) for _, v in args.positional)))
        if name in ("list", "tuple", "sorted", "reversed", "set"):
            if isinstance(first, Seq):
                return Seq(kind="list", elem=first.elem, items=first.items if name != "sorted" else None)
            if isinstance(first, (Loader, Tensor)):
                return Seq(kind="list", elem=self.iterate(first, node))
            return UNKNOWN
        if name == "print":
            for arg_node, value in args.positional:
                if isinstance(value, Tensor) and value.where is not None and value.where.is_gpu:
                    self.host_sync(node, "print", Operand(arg_node, value, _code(self.module, arg_node)), state)
            return Const(value=None)
        if name in ("float", "int", "bool"):
            if isinstance(first, Tensor) and first.where is not None and first.where.is_gpu:
                self.host_sync(node, f"{name}()", Operand(args.positional[0][0], first, ""), state)
            return UNKNOWN
        if name == "isinstance" or name == "hasattr" or name == "callable":
            return UNKNOWN
        if name == "super":
            me = state.env.get("self")
            return _Super(receiver=me) if me is not None else UNKNOWN
        if name in ("getattr",):
            return UNKNOWN
        if name == "dict":
            if args.keywords:
                items = [v for _, v in args.keywords.values()]
                return Seq(kind="dict", items=tuple(items), keys=tuple(args.keywords), elem=_join_all(items))
            return first if isinstance(first, Seq) else UNKNOWN
        if name == "str":
            return first if isinstance(first, DeviceValue) else UNKNOWN
        return UNKNOWN

    def call_ref(self, path: str, node: cst.Call, state: State) -> Value:
        path = api.ALIASES.get(path, path)
        if path in api.NO_RETURN:
            self.eval_args(node, state)
            state.dead = True
            return UNKNOWN
        if path in api.CLOCKS:
            self.clock_read(node, path, state)
            return _Clock()
        if path == "torch.device":
            return self.make_device(node, state)
        if path in api.AVAILABILITY:
            return Availability(positive=True)
        if path in api.CURRENT_ACCELERATOR:
            self.eval_args(node, state)
            return DeviceValue(why=((node, ""),), where=SELECTED)
        if path in api.DEVICE_COUNT:
            return DEVICE_COUNT
        if path in api.SKIP_DECORATORS or path in api.SKIP_UNLESS_DECORATORS:
            args = self.eval_args(node, state)
            condition = args.positional[0][1] if args.positional else args.get("condition")
            polarity = _polarity(condition)
            wanted = False if path in api.SKIP_DECORATORS else True
            return SkipMarker() if polarity is wanted else UNKNOWN
        if path in api.CUDA_TENSOR_TYPES:
            self.eval_args(node, state)
            self.gpu_assumption(node, path, state)
            return Tensor(why=((node, ""),), where=cuda(state.cuda_index), fresh=True)
        if path.startswith("torch.cuda.") and path not in api.CUDA_SAFE:
            return self.call_cuda_api(path, node, state)
        if path in api.SET_DEFAULT_DEVICE:
            args = self.eval_args(node, state)
            value = args.positional[0][1] if args.positional else UNKNOWN
            device = self.device_argument(value, state, args.positional[0][0] if args.positional else node)
            state.default_device = device
            return UNKNOWN
        if path in api.SET_DEFAULT_TENSOR_TYPE:
            args = self.eval_args(node, state)
            value = args.positional[0][1] if args.positional else UNKNOWN
            text = value.value if isinstance(value, Const) else getattr(value, "path", "")
            if isinstance(text, str) and "cuda" in text:
                self.gpu_assumption(node, "torch.set_default_tensor_type(cuda)", state)
                state.default_device = cuda(state.cuda_index)
            return UNKNOWN
        if path in api.LOAD:
            args = self.eval_args(node, state)
            has_map = "map_location" in args.keywords or len(args.positional) > 1 or bool(args.starstar)
            self.emit(Load(node, has_map, state.guarded, self.context))
            return UNKNOWN
        if path in api.CPU_ONLY_ARGS:
            return self.call_cpu_only(path, node, state)
        if path in api.LOADERS:
            args = self.eval_args(node, state)
            dataset = args.positional[0][1] if args.positional else args.get("dataset")
            if isinstance(dataset, _Dataset):
                return Loader(why=dataset.why + ((node, ""),), where=dataset.where)
            return Loader(why=((node, "a DataLoader yields cpu batches"),))
        if path in api.TENSOR_DATASETS:
            # TensorDataset(x.to(device), ...): its batches are where its tensors are
            args = self.eval_args(node, state)
            tensors = [v for _, v in args.positional]
            devices = {t.where for t in tensors if isinstance(t, Tensor)}
            if tensors and all(isinstance(t, Tensor) for t in tensors) and len(devices) == 1:
                return _Dataset(why=tensors[0].why, where=devices.pop())
            return _Dataset(where=None) if any(not isinstance(t, Tensor) or t.where != CPU
                                               for t in tensors) else _Dataset(where=CPU)
        if path in api.FACTORIES:
            return self.factory(path, node, state)
        if path in api.CPU_RESULTS:
            self.eval_args(node, state)
            return Tensor(why=((node, "created on cpu"),), where=IMPLICIT_CPU)
        if path in api.LIKE_FACTORIES:
            args = self.eval_args(node, state)
            if "device" in args.keywords:
                return Tensor(why=((node, ""),), where=self.device_argument(args.keywords["device"][1], state, node))
            first = args.positional[0][1] if args.positional else UNKNOWN
            if isinstance(first, (Tensor, Located)):
                return Tensor(why=first.why + ((node, ""),), where=first.device,
                              from_param=getattr(first, "from_param", None))
            return Tensor(why=((node, ""),), where=None)
        if path in api.PARAMETER_CLASSES:
            args = self.eval_args(node, state)
            first = args.positional[0][1] if args.positional else args.get("data")
            if isinstance(first, (Tensor, Located)):
                return Tensor(why=first.why, where=first.device, parameter=True)
            return Tensor(where=None, parameter=True)
        if path in api.MODULE_WRAPPERS:
            args = self.eval_args(node, state)
            first = args.positional[0][1] if args.positional else args.get("module")
            if path in api.INPUT_MOVING_WRAPPERS and isinstance(first, (Module, Located)):
                # DataParallel scatters, DDP moves its inputs to the module's device itself
                return Module(why=first.why, where=first.device, moves_inputs=True)
            return first if isinstance(first, (Module, Located)) else UNKNOWN
        if path in api.TRACE_CALLS:
            return self.trace_call(path, node, state)
        if path == "argparse.ArgumentParser":
            self.eval_args(node, state)
            return Parser()
        if path.startswith(api.MODULE_CLASSES_PREFIX) and path.rsplit(".", 1)[-1][:1].isupper() \
                and not any(path.startswith(p) for p in api.NOT_MODULES):
            args = self.eval_args(node, state)
            if path not in api.MODULES_WITH_PARAMETERS:
                # A loss, an activation, pooling: no parameters, it runs wherever its input is.
                weight = args.get("weight")
                return Module(why=weight.why, where=weight.device, stateless=weight.device is None)
            if path in api.MODULE_CONTAINERS:
                # nn.Sequential(*layers): wherever its layers are
                members = [v.elem if isinstance(v, Seq) else v for _, v in args.positional + args.star]
                members = [m for m in members if not (isinstance(m, Module) and m.stateless)]
                devices = {m.where for m in members if isinstance(m, Module)}
                if members and all(isinstance(m, Module) for m in members) and len(devices) == 1:
                    return Module(why=members[0].why + ((node, ""),), where=devices.pop())
                return Module(why=((node, ""),), where=None)
            where = CPU
            if "device" in args.keywords:
                where = self.device_argument(args.keywords["device"][1], state, node)
            elif args.starstar:
                where = None  # nn.Linear(a, b, **dd): dd may hold the device
            elif state.default_device is not None:
                where = state.default_device
            return Module(why=((node, "created on cpu"),), where=where)
        if path.startswith(api.HOST_LIBRARY_PREFIXES):
            return self.call_host_library(path, node, state)
        namespace, _, function = path.rpartition(".")
        if namespace + "." in api.TORCH_OP_NAMESPACES and function[:1].islower() and path not in api.NOT_OPS:
            return self.torch_function(path, node, state)
        args = self.eval_args(node, state)
        self.escape(args, state)
        self.note_gpu_work(node, [v for _, v in args.all()], state, opaque=True)
        if state.work is not None and path.split(".")[0] not in api.NEVER_SYNC_MODULES:
            state.synced = True  # `validate.run(...)`: a project function may well wait for the GPU
        return UNKNOWN

    def call_cuda_api(self, path: str, node: cst.Call, state: State) -> Value:
        args = self.eval_args(node, state)
        if path in api.CUDA_NEEDS_GPU:
            self.emit(GpuAssumption(node, path, "cuda-api", state.guarded, self.context))
        if path in api.SYNCHRONIZE:
            self.note_sync(state)
            for name, value in list(state.env.items()):
                if isinstance(value, CudaEvent) and value.recorded is not None:
                    state.env[name] = replace(value, synced=True)
            return UNKNOWN
        if path in api.CUDA_EVENT:
            return CudaEvent()
        if path in api.SET_DEVICE:
            value = args.positional[0][1] if args.positional else UNKNOWN
            device = _as_device(value)
            state.cuda_index = device.index if device is not None and device.kind == "cuda" else (
                value.value if isinstance(value, Const) and isinstance(value.value, int) else None)
            return UNKNOWN
        if path in api.DEVICE_CONTEXTS:
            value = args.positional[0][1] if args.positional else UNKNOWN
            device = _as_device(value)
            if isinstance(value, Const) and isinstance(value.value, int):
                return _DeviceContext(index=value.value)
            if device is not None and device.kind == "cuda":
                return _DeviceContext(index=device.index)
            return _DeviceContext(index=None, unknown=True)
        if path == "torch.cuda.current_device":
            return UNKNOWN
        return UNKNOWN

    def make_device(self, node: cst.Call, state: State) -> Value:
        args = self.eval_args(node, state)
        if not args.positional and "type" not in args.keywords:
            return DeviceValue(where=None)
        arg_node, value = args.positional[0] if args.positional else args.keywords["type"]
        index_value = args.positional[1][1] if len(args.positional) > 1 else args.get("index")
        if isinstance(value, Const) and isinstance(value.value, str):
            device = parse_device_string(value.value)
            if device is not None and device.kind == "cuda" and isinstance(index_value, Const) \
                    and isinstance(index_value.value, int):
                device = cuda(index_value.value)
            elif device is not None and device.kind == "cuda" and index_value is not UNKNOWN and len(args.positional) > 1:
                device = cuda(None)
            literal = value.node if device is not None and device.kind == "cuda" else None
            result = DeviceValue(why=((node, ""),), where=device, literal=literal,
                                 literal_guarded=value.guarded or state.guarded)
            if literal is not None and not result.literal_guarded:
                self.gpu_assumption(literal, f"'{value.value}'", state)
            return result
        if isinstance(value, DeviceValue):
            return replace(value, why=value.why + ((node, ""),))
        if isinstance(value, Const) and isinstance(value.value, int):
            return DeviceValue(why=((node, ""),), where=cuda(value.value))
        if isinstance(value, Tensor):
            return DeviceValue(where=value.where)
        return DeviceValue(why=((node, ""),), where=None)

    def device_argument(self, value: Value, state: State, node: cst.CSTNode) -> Optional[Device]:
        """The device a `device=`/`.to()` argument names, checking hardcoded 'cuda'."""
        if isinstance(value, DeviceValue):
            if value.literal is not None and not value.literal_guarded and not state.guarded:
                self.gpu_assumption(value.literal, "a 'cuda' device", state)
            return _resolve_current(value.where, state)
        if isinstance(value, Const):
            if isinstance(value.value, str):
                device = parse_device_string(value.value)
                if device is not None and device.kind == "cuda" and not value.guarded and not state.guarded:
                    self.gpu_assumption(value.node or node, f"'{value.value}'", state)
                return _resolve_current(device, state)
            if isinstance(value.value, int) and not isinstance(value.value, bool):
                return cuda(value.value)
            return None
        if isinstance(value, (Tensor, Located)):
            return value.device
        if isinstance(value, Unknown):
            return None
        return None

    def gpu_assumption(self, node: cst.CSTNode, what: str, state: State) -> None:
        self.emit(GpuAssumption(node, what, "device", state.guarded, self.context))

    def factory(self, path: str, node: cst.Call, state: State) -> Value:
        args = self.eval_args(node, state)
        scalar = path in api.SCALAR_FACTORIES and len(args.positional) == 1 and _is_number(*args.positional[0])
        if "device" in args.keywords:
            arg_node, value = args.keywords["device"]
            where = self.device_argument(value, state, arg_node)
            why = getattr(value, "why", ())
            return Tensor(why=why + ((node, ""),), where=where, scalar=scalar)
        for _, extra in args.starstar:
            known = extra.keys is not None and None not in extra.keys if isinstance(extra, Seq) else False
            if not known or "device" in extra.keys:
                # `torch.zeros(n, **dd)`: dd may well hold the device
                device_value = _dict_entry(extra, "device")
                where = self.device_argument(device_value, state, node) if device_value is not None else None
                return Tensor(why=((node, ""),), where=where, scalar=scalar)
        first = args.positional[0][1] if args.positional else UNKNOWN
        if path in ("torch.tensor", "torch.as_tensor", "torch.asarray") and isinstance(first, Tensor):
            return replace(first, why=first.why + ((node, ""),), fresh=False)
        if state.default_device is not None:
            return Tensor(why=((node, "created on the default device"),), where=state.default_device, scalar=scalar)
        return Tensor(why=((node, "created on cpu (no device=)"),), where=IMPLICIT_CPU, scalar=scalar, fresh=True)

    def torch_function(self, path: str, node: cst.Call, state: State) -> Value:
        args = self.eval_args(node, state)
        operands: list[Operand] = []
        for position, (arg_node, value) in enumerate(args.positional + list(args.keywords.values())):
            if isinstance(value, Located) and position == 0 and args.positional:
                value = Tensor(why=value.why, where=value.where)  # a torch function's input is a tensor
            if isinstance(value, Tensor):
                operands.append(Operand(arg_node, value, _code(self.module, arg_node)))
            elif isinstance(value, Seq) and path in api.SEQUENCE_OPS:
                items = value.items if value.items is not None else (value.elem,)
                nodes = [e.value for e in arg_node.elements] if isinstance(arg_node, (cst.List, cst.Tuple)) else []
                for i, item in enumerate(items):
                    if isinstance(item, Located):
                        item = Tensor(why=item.why, where=item.where)
                    if isinstance(item, Tensor):
                        item_node = nodes[i] if len(nodes) == len(items) else arg_node
                        operands.append(Operand(item_node, item, _code(self.module, item_node)))
        if "device" in args.keywords and operands:
            # an op told where to put its result: its result follows device=
            where = self.device_argument(args.keywords["device"][1], state, node)
            return Tensor(why=((node, ""),), where=where)
        if not operands:
            return UNKNOWN
        unknown_operand = any(isinstance(v, Unknown) for _, v in args.positional[:2]) and path not in api.SEQUENCE_OPS
        reduce = path.rsplit(".", 1)[-1] in _REDUCTIONS and len(args.positional) <= 1 and not args.keywords
        result = self.operation(node, path.replace("torch.nn.functional.", "F.").replace("torch.", "torch."),
                                operands, state, reduce=reduce)
        if isinstance(result, Tensor) and unknown_operand:
            # `torch.matmul(unknown, x)`: the result is wherever the unknown operand is
            result = Tensor(why=((node, ""),), where=None, derived=True)
        if isinstance(result, Tensor) and path in api.TUPLE_OPS and (len(args.positional) > 1 or args.keywords):
            return Seq(kind="tuple", elem=replace(result, scalar=False))
        return result

    def call_host_library(self, path: str, node: cst.Call, state: State) -> Value:
        args = self.eval_args(node, state)
        if path in api.HOST_LIBRARY_SAFE:
            return UNKNOWN
        for arg_node, value in args.positional + list(args.keywords.values()):
            for item in _tensors_in(value):
                if item.where is not None and item.where.is_gpu:
                    self.emit(HostConversion(node, path.replace("numpy.", "np.").replace("matplotlib.pyplot.", "plt."),
                                             Operand(arg_node, item, _code(self.module, arg_node)), self.context))
                    self.note_sync(state)
                    return UNKNOWN
        return UNKNOWN

    def call_cpu_only(self, path: str, node: cst.Call, state: State) -> Value:
        args = self.eval_args(node, state)
        position, keyword = api.CPU_ONLY_ARGS[path]
        found = args.keywords.get(keyword)
        if found is None and position is not None and len(args.positional) > position:
            found = args.positional[position]
        if found is not None:
            arg_node, value = found
            if isinstance(value, Tensor) and value.where is not None and value.where.kind != "cpu" \
                    and (value.derived or value.where.concrete):
                self.emit(CpuOnlyArgument(node, path.rsplit(".", 1)[-1], keyword,
                                          Operand(arg_node, value, _code(self.module, arg_node)), self.context))
        first = args.positional[0][1] if args.positional else UNKNOWN
        return Located(where=first.device) if isinstance(first, (Tensor, Located)) else UNKNOWN

    def trace_call(self, path: str, node: cst.Call, state: State) -> Value:
        args = self.eval_args(node, state)
        module_pos, input_pos = api.TRACE_CALLS[path]
        if len(args.positional) > input_pos:
            module_node, module = args.positional[module_pos]
            input_node, value = args.positional[input_pos]
            self.module_call_fact(node, module_node, module, [(input_node, value)])
        return UNKNOWN

    def module_call_fact(self, node: cst.CSTNode, module_node: cst.CSTNode, module: Value, inputs: list) -> bool:
        """Emit a ModuleCall; True when an input is on another device than the module."""
        from devlint.values import conflict

        tensors = []
        for arg_node, value in inputs:
            for item in _tensors_in(value):
                tensors.append(Operand(arg_node, item, _code(self.module, arg_node)))
        if not tensors or not isinstance(module, (Module, Located)) or getattr(module, "moves_inputs", False):
            return False
        self.emit(ModuleCall(node, Operand(module_node, module, _code(self.module, module_node)), tuple(tensors),
                             self.context))
        return any(conflict(module.device, t.value.where) and not (t.value.scalar and t.value.where.kind == "cpu")
                   for t in tensors)

    def call_module(self, module: Value, node: cst.Call, state: State) -> Value:
        args = self.eval_args(node, state)
        inputs = args.positional + list(args.keywords.values()) + [
            (n, v.elem if isinstance(v, Seq) else v) for n, v in args.starstar]
        if self.module_call_fact(node, node.func, module, inputs):
            return UNKNOWN
        self.note_gpu_work(node, [module] + [v for _, v in inputs], state)
        if isinstance(module, Module) and module.cls in self.classes:
            cls = self.classes[module.cls]
            forward = _find_method(cls, "forward", self.classes)
            if forward is not None and id(forward) in self.functions:
                fn = replace(self.functions[id(forward)], bound=module)
                return self._invoke(fn, args, node, state, receiver_node=None)
        device = module.device
        if isinstance(module, Located):
            # `model = cfg.get_model().to(device)` then `model(x)`: a module on `device`, most likely
            return Located(why=((node, ""),), where=device)
        if device is None:
            tensors = [t for _, v in inputs for t in _tensors_in(v)]
            device = tensors[0].where if tensors else None
        return Tensor(why=((node, "the module's output"),), where=device, derived=True)

    def call_method(self, receiver: Value, name: str, node: cst.Call, state: State) -> Value:
        func = node.func
        receiver_node = func.value if isinstance(func, cst.Attribute) else func
        receiver_name = dotted(receiver_node)
        if isinstance(receiver, Parser):
            args = self.eval_args(node, state)
            if name == "add_argument":
                option = _argparse_option(args, self)
                if option is not None and receiver_name:
                    self.assign_name(receiver_name, Parser(options=receiver.options + (option,)), state, node)
                return UNKNOWN
            if name in ("parse_args", "parse_known_args"):
                namespace = ArgsNamespace(options=receiver.options)
                return namespace if name == "parse_args" else Seq(kind="tuple", items=(namespace, UNKNOWN))
            if name in ("add_argument_group", "add_mutually_exclusive_group"):
                return _ParserGroup(parser=receiver_name or "")
            return UNKNOWN
        if isinstance(receiver, _ParserGroup) and name == "add_argument":
            parser = state.env.get(receiver.parser)
            args = self.eval_args(node, state)
            option = _argparse_option(args, self)
            if isinstance(parser, Parser) and option is not None:
                state.env[receiver.parser] = Parser(options=parser.options + (option,))
            return UNKNOWN
        if isinstance(receiver, CudaEvent):
            args = self.eval_args(node, state)
            if name == "record" and receiver_name:
                self.assign_name(receiver_name, CudaEvent(recorded=node, synced=False), state, node)
                return UNKNOWN
            if name == "synchronize":
                self.note_sync(state)
                if receiver_name:
                    self.assign_name(receiver_name, replace(receiver, synced=True), state, node)
                return UNKNOWN
            if name == "elapsed_time" and args.positional:
                end_node, end = args.positional[0]
                if isinstance(end, CudaEvent):
                    self.emit(EventElapsed(node, _code(self.module, end_node), end.recorded, end.synced, self.context))
                return UNKNOWN
            return UNKNOWN
        if isinstance(receiver, _Super):
            args = self.eval_args(node, state)
            return UNKNOWN
        if isinstance(receiver, Seq):
            args = self.eval_args(node, state)
            if name in ("append", "add", "insert") and args.positional and receiver_name:
                value = args.positional[-1][1]
                members = tuple(receiver.items or ()) + receiver.gpu_members
                if isinstance(value, (Tensor, Located)) and value.device is not None and value.device.is_gpu:
                    members += (value if isinstance(value, Tensor) else Tensor(why=value.why, where=value.device),)
                gpu = tuple(m for m in members if isinstance(m, Tensor) and m.where is not None and m.where.is_gpu)
                self.assign_name(receiver_name, Seq(kind=receiver.kind, elem=join(receiver.elem, value)
                                                    if receiver.items or receiver.elem is not UNKNOWN else value,
                                                    gpu_members=gpu[-1:]), state, node)
                return Const(value=None)
            if name == "extend" and args.positional and receiver_name:
                other = args.positional[0][1]
                self.assign_name(receiver_name, Seq(kind=receiver.kind, elem=join(receiver.elem, _element(other))),
                                 state, node)
                return Const(value=None)
            if name == "items":
                return Seq(kind="list", elem=Seq(kind="tuple", items=(UNKNOWN, receiver.elem)))
            if name == "values":
                return Seq(kind="list", elem=receiver.elem)
            if name in ("get", "pop") and args.positional:
                key = args.positional[0][1]
                if receiver.keys is not None and isinstance(key, Const):
                    for k, v in zip(receiver.keys, receiver.items):
                        if k == key.value:
                            return v
                return receiver.elem
            if name == "index" or name == "count" or name == "keys":
                return UNKNOWN
            return UNKNOWN
        if isinstance(receiver, Loader):
            self.eval_args(node, state)
            if name in ("next", "__next__"):
                return self.iterate(receiver, node)
            return UNKNOWN
        if isinstance(receiver, Module):
            return self.module_method(receiver, name, node, state, receiver_name)
        if isinstance(receiver, Tensor):
            return self.tensor_method(receiver, name, node, state, receiver_node)
        if isinstance(receiver, DeviceValue):
            self.eval_args(node, state)
            if name == "startswith" or name == "__eq__":
                return UNKNOWN
            return UNKNOWN
        if name == "startswith" and isinstance(receiver, (Unknown, DeviceValue)):
            args = self.eval_args(node, state)
            first = args.positional[0][1] if args.positional else UNKNOWN
            if isinstance(first, Const) and isinstance(first.value, str) and first.value.startswith("cuda"):
                return Availability(positive=True)  # `if args.device.startswith("cuda"):`
            return UNKNOWN
        if isinstance(receiver, Const) and isinstance(receiver.value, str):
            args = self.eval_args(node, state)
            if name == "format" and receiver.value.startswith("cuda"):
                return DeviceValue(why=((node, ""),), where=cuda(None))
            return UNKNOWN
        # receiver of unknown kind
        if name in api.TRACE_CALLS:
            return self.trace_call(name, node, state)
        args = self.eval_args(node, state)
        self.escape(args, state)
        if name in ("to", "cuda"):
            where = self.move_target(name, args, state, node)
            if where is _KEEP:
                return receiver
            self.note_gpu_work(node, [Located(where=where)], state)
            if where is None:
                return UNKNOWN
            return Located(why=((node, ""),), where=where)
        if name in api.SAME_DEVICE_METHODS_MODULE and isinstance(receiver, Located):
            return receiver
        if name in ("cpu",):
            return Located(why=((node, ""),), where=CPU)
        if name in api.SYNC_METHODS and receiver is not UNKNOWN:
            if receiver.device is not None and receiver.device.is_gpu:
                self.note_sync(state)
        if name in ("item", "tolist", "cpu", "numpy") and receiver_name and receiver_name in self.scope_of(
                self.current_function).tensor_names:
            self.note_sync(state)
        if name == "items" and isinstance(receiver, Located):
            return Seq(kind="list", elem=Seq(kind="tuple", items=(UNKNOWN, receiver)))
        if name == "synchronize":
            self.note_sync(state)
        if name in ("backward", "step") or isinstance(receiver, Located):
            self.note_gpu_work(node, [receiver] + [v for _, v in args.all()], state)
        elif args.positional or args.keywords:
            self.note_gpu_work(node, [v for _, v in args.all()], state, opaque=True)
        if isinstance(receiver, Located) and name in api.TENSOR_ONLY_ATTRS and name not in api.METADATA_METHODS:
            # only a tensor has this method: it is one
            return Tensor(why=receiver.why, where=receiver.where, derived=True)
        if isinstance(receiver, Located) and name not in api.METADATA_METHODS:
            return Located(where=receiver.where)
        return UNKNOWN

    def move_target(self, name: str, args: "_Args", state: State, node: cst.Call) -> Optional[Device]:
        """Where `.to(...)`/`.cuda(...)` sends its receiver; None when unknown or a dtype."""
        if name == "cuda":
            if not state.guarded:
                self.gpu_assumption(node, ".cuda()", state)
            value = args.positional[0][1] if args.positional else args.get("device")
            if isinstance(value, Const) and isinstance(value.value, int):
                return cuda(value.value)
            if isinstance(value, DeviceValue) and value.where is not None:
                return _resolve_current(value.where, state)
            return cuda(state.cuda_index)
        if "device" in args.keywords:
            arg_node, value = args.keywords["device"]
            return self.device_argument(value, state, arg_node)
        if args.positional:
            arg_node, value = args.positional[0]
            if isinstance(value, Const) and value.value is None:
                return _KEEP
            if isinstance(value, Ref) and value.path.startswith("torch.") and value.path[6:7].islower():
                return _KEEP  # torch.float16 and friends: a dtype, the device does not change
            if isinstance(value, (Unknown, Ref)):
                # An imported or unknown name: a device if it is named like one (DEVICE, args.device).
                name_text = dotted(arg_node) or ""
                if name_text and api.looks_like_device_name(name_text):
                    return SELECTED
                return None
            return self.device_argument(value, state, arg_node)
        return _KEEP

    @staticmethod
    def target_why(args: "_Args") -> tuple:
        """Where the device a value is moved to was chosen: the last step of its story."""
        value = args.keywords["device"][1] if "device" in args.keywords else (
            args.positional[0][1] if args.positional else None)
        if isinstance(value, DeviceValue) and value.why:
            return value.why[-1:]
        return ()

    def tensor_method(self, receiver: Tensor, name: str, node: cst.Call, state: State,
                      receiver_node: cst.CSTNode) -> Value:
        args = self.eval_args(node, state)
        label = _code(self.module, receiver_node)
        if name in ("to", "cuda"):
            where = self.move_target(name, args, state, node)
            if where is _KEEP:
                return replace(receiver, fresh=False, derived=True)
            if receiver.fresh and where is not None and where.is_gpu:
                self.emit(FreshMove(node, _code(self.module, receiver_node), Tensor(where=where), self.context))
            if where is not None and where.is_gpu:
                state.work = (node, "")
            if receiver.where is not None and receiver.where.is_gpu and where is not None and where.kind == "cpu":
                self.note_sync(state)
            return Tensor(why=receiver.why + self.target_why(args) + ((node, f"moved to {where}" if where else ""),),
                          where=where, scalar=receiver.scalar, from_param=receiver.from_param, derived=True)
        if name == "cpu":
            if receiver.where is None or receiver.where.kind != "cpu":
                self.host_sync(node, ".cpu()", Operand(receiver_node, receiver, label), state)
            return Tensor(why=receiver.why + ((node, "moved to cpu"),), where=CPU, scalar=receiver.scalar,
                          from_param=receiver.from_param, derived=True)
        if name == "type_as" and args.positional:
            other = args.positional[0][1]
            if isinstance(other, (Tensor, Located)):
                return Tensor(why=other.why + ((node, ""),), where=other.device, from_param=getattr(
                    other, "from_param", None), derived=True)
            return Tensor(where=None, derived=True)
        if name == "type" and args.positional:
            value = args.positional[0][1]
            text = value.value if isinstance(value, Const) else getattr(value, "path", "")
            if isinstance(text, str) and "cuda" in text:
                self.gpu_assumption(node, ".type(cuda)", state)
                return Tensor(why=((node, ""),), where=cuda(state.cuda_index), derived=True)
            return replace(receiver, fresh=False, derived=True) if text else Tensor(where=None, derived=True)
        if name in api.NEW_METHODS:
            if "device" in args.keywords:
                where = self.device_argument(args.keywords["device"][1], state, node)
                return Tensor(why=((node, ""),), where=where)
            return Tensor(why=receiver.why + ((node, ""),), where=receiver.where, from_param=receiver.from_param,
                          derived=True)
        if name in api.HOST_CONVERSION_METHODS:
            if receiver.where is not None and receiver.where.is_gpu:
                self.emit(HostConversion(node, ".numpy()", Operand(receiver_node, receiver, label), self.context))
                self.note_sync(state)
            return UNKNOWN
        if name in api.HOST_SYNC_METHODS:
            if receiver.where is None or receiver.where.kind != "cpu":
                self.host_sync(node, f".{name}()", Operand(receiver_node, receiver, label), state)
            return UNKNOWN
        if name == "copy_":
            return receiver
        if name == "backward":
            self.note_gpu_work(node, [receiver], state)
            return UNKNOWN
        if name == "items":
            return Seq(kind="list", elem=Seq(kind="tuple", items=(UNKNOWN, receiver)))
        if name in ("values",):
            return Seq(kind="list", elem=receiver)
        if name in ("get", "pop") and args.positional and isinstance(args.positional[0][1], Const) \
                and isinstance(args.positional[0][1].value, str):
            return receiver  # a batch dict's entry
        if name == "keys" or name in api.METADATA_METHODS:
            return UNKNOWN
        if name in api.SAME_DEVICE_METHODS_MODULE and name in ("float", "double", "half", "bfloat16",
                                                                "requires_grad_"):
            return replace(receiver, fresh=False)
        operands = [Operand(receiver_node, receiver, label)]
        if name not in api.CROSS_DEVICE_METHODS:
            for arg_node, value in args.positional + list(args.keywords.values()):
                if isinstance(value, Tensor):
                    operands.append(Operand(arg_node, value, _code(self.module, arg_node)))
        reduce = name in _REDUCTIONS and not args.positional and not args.keywords
        result = self.operation(node, f".{name}", operands, state, reduce=reduce)
        if isinstance(result, Tensor):
            result = replace(result, fresh=False, scalar=reduce or (result.scalar and name in _SCALAR_KEEPING))
            if name in ("max", "min", "sort", "topk", "chunk", "split", "unbind", "kthvalue", "median", "mode") \
                    and (args.positional or args.keywords):
                return Seq(kind="tuple", elem=result)
        return result

    def module_method(self, module: Module, name: str, node: cst.Call, state: State,
                      receiver_name: Optional[str]) -> Value:
        args = self.eval_args(node, state)
        if name in ("to", "cuda", "cpu"):
            where = CPU if name == "cpu" else self.move_target(name, args, state, node)
            if where is _KEEP or module.stateless:
                return module
            moved = replace(module, where=where, moved=True,
                            why=module.why + self.target_why(args) + ((node, f"moved to {where}" if where else ""),))
            if receiver_name:
                self.assign_name(receiver_name, moved, state, node)
            return moved
        if name in api.SAME_DEVICE_METHODS_MODULE:
            return module
        if name in ("parameters", "buffers", "children", "modules"):
            return Seq(kind="list", elem=Tensor(why=module.why, where=module.where, parameter=True))
        if name == "named_parameters":
            return Seq(kind="list", elem=Seq(kind="tuple", items=(UNKNOWN, Tensor(where=module.where, parameter=True))))
        if name == "register_buffer" and len(args.positional) >= 2 and receiver_name:
            key = args.positional[0][1]
            value = args.positional[1][1]
            if isinstance(key, Const) and isinstance(key.value, str):
                if isinstance(value, Tensor):
                    value = replace(value, parameter=True, attr_node=None)
                self.assign_name(receiver_name, module.with_attr(key.value, value), state, node)
            return UNKNOWN
        if name == "register_parameter" and len(args.positional) >= 2 and receiver_name:
            key = args.positional[0][1]
            if isinstance(key, Const) and isinstance(key.value, str):
                self.assign_name(receiver_name, module.with_attr(key.value, Tensor(where=module.where, parameter=True)),
                                 state, node)
            return UNKNOWN
        if name == "add_module" and len(args.positional) >= 2 and receiver_name:
            key = args.positional[0][1]
            if isinstance(key, Const) and isinstance(key.value, str):
                self.assign_name(receiver_name, module.with_attr(key.value, args.positional[1][1]), state, node)
            return UNKNOWN
        if name == "forward":
            return self.call_module(module, node, state)
        if name in ("state_dict", "load_state_dict", "named_modules", "named_children", "extra_repr"):
            return UNKNOWN
        self.note_gpu_work(node, [v for _, v in args.all()], state)
        return UNKNOWN

    def host_sync(self, node: cst.CSTNode, how: str, operand: Operand, state: State) -> None:
        self.note_sync(state)
        in_loop = bool(self.loops) and self.loops[-1]["training"]
        every_step = in_loop and self.if_depth == self.loops[-1]["if_depth"]
        if operand.value.device is not None and operand.value.device.is_gpu:
            self.emit(HostSync(node, how, operand, in_loop, every_step, self.context))

    def clock_read(self, node: cst.Call, path: str, state: State) -> None:
        # Only a read that ends a measurement can lie: `time.time() - t0`, or one stored in a name
        # that is later subtracted from.
        ends = self._clock_ends_measurement(node)
        if state.clock is not None and ends and not state.lap:
            # (a lap timing, `dt = now - last` each iteration, averages out once the GPU queue is full)
            self.emit(ClockRead(node, path.replace("timeit.", ""), state.clock, state.work, state.synced,
                                self.context))
        state.clock = (node, "")
        state.clock_depth = len(self.loops)
        state.lap = False
        state.work = None
        state.synced = False

    def _clock_ends_measurement(self, node: cst.Call) -> bool:
        parent = self._parents().get(id(node))
        if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Subtract) and parent.left is node:
            return True
        if isinstance(parent, cst.Assign):
            names = {dotted(t.target) for t in parent.targets}
            return bool(names & self.scope_of(self.current_function).clock_ends)
        if isinstance(parent, cst.Arg) or isinstance(parent, cst.Expr):
            return False
        return False

    def _parents(self) -> dict:
        return self._parent_map

    # ------------------------------------------------------------ functions and classes

    def call_function(self, fn: Function, node: cst.Call, state: State,
                      receiver_node: Optional[cst.CSTNode] = None) -> Value:
        args = self.eval_args(node, state)
        return self._invoke(fn, args, node, state, receiver_node)

    def _invoke(self, fn: Function, args: "_Args", node: cst.Call, state: State,
                receiver_node: Optional[cst.CSTNode]) -> Value:
        fdef = fn.node
        self.note_gpu_work(node, [v for _, v in args.all()], state)
        if fdef is None or id(fdef) in self.stack or len(self.stack) >= MAX_CALL_DEPTH:
            return UNKNOWN
        if any(_is_property(d) for d in fdef.decorators):
            return UNKNOWN
        bound = fn.bound
        params = self.bind_params(fdef, args, bound, state)
        if params is None:
            return UNKNOWN
        key = (id(fdef), tuple(params.items()), state.guarded, state.cuda_index, bool(self.muted))
        try:
            cached = self.memo.get(key)
        except TypeError:
            cached, key = None, None
        if cached is None:
            result, final_self, inner_state = self.analyse_body(fn, params, state, node)
            cached = (result, final_self, inner_state.work, inner_state.synced)
            if key is not None:
                self.memo[key] = cached
        result, final_self, work, synced = cached
        if work is not None:
            state.work = work
        if synced:
            state.synced = True
        # Methods change their object: the caller sees the new attributes.
        if bound is not None and final_self is not None and receiver_node is not None:
            name = dotted(receiver_node)
            if name and isinstance(final_self, (Module, Instance)):
                self.assign_name(name, final_self, state, node)
        return result

    def bind_params(self, fdef: cst.FunctionDef, args: "_Args", bound: Optional[Value], state: State):
        params: dict[str, Value] = {}
        positional = [v for _, v in args.positional]
        plist = list(fdef.params.posonly_params) + list(fdef.params.params)
        if bound is not None and plist and not _is_static(fdef):
            params[plist[0].name.value] = bound
            plist = plist[1:]
        if args.star:
            return None  # *args at the call: positions unknown
        for i, param in enumerate(plist):
            name = param.name.value
            if i < len(positional):
                params[name] = positional[i]
            elif name in args.keywords:
                params[name] = args.keywords[name][1]
            elif param.default is not None:
                params[name] = self.eval(param.default, state)
            else:
                params[name] = UNKNOWN
        for param in fdef.params.kwonly_params:
            name = param.name.value
            if name in args.keywords:
                params[name] = args.keywords[name][1]
            elif param.default is not None:
                params[name] = self.eval(param.default, state)
            else:
                params[name] = UNKNOWN
        if isinstance(fdef.params.star_arg, cst.Param):
            params[fdef.params.star_arg.name.value] = Seq(kind="tuple", elem=_join_all(positional[len(plist):]))
        if fdef.params.star_kwarg is not None:
            params[fdef.params.star_kwarg.name.value] = Seq(kind="dict", elem=UNKNOWN)
        # A value passed in keeps its device; inside, it comes from the caller.
        return {k: (replace(v, from_param=k) if isinstance(v, Tensor) and k != "self" else v)
                for k, v in params.items()}

    def analyse_body(self, fn: Function, params: dict, caller: Optional[State], call_node: Optional[cst.CSTNode]):
        fdef = fn.node
        self.analysed.add(id(fdef))
        state = State()
        state.env = dict(self.closures.get(id(fdef), self.globals))
        state.env.update(params)
        state.default_device = self.module_default_device
        if caller is not None:
            state.guarded = caller.guarded
            state.cuda_index = caller.cuda_index
            state.default_device = caller.default_device
            state.clock, state.work, state.synced = caller.clock, caller.work, caller.synced
        if fn.owner in self.guarded_classes or isinstance(self.globals.get("pytestmark"), SkipMarker) or any(
                self._is_skip_marker(d, state) for d in fdef.decorators):
            state.guarded = True  # a test that only runs where CUDA is
        saved = (self.context, self.current_function, self.loops, self.if_depth)
        calls = self.context.calls + (((call_node, fn.qualname),) if call_node is not None else ())
        self.context = Context(function=fn.qualname, calls=calls,
                               in_module_method=self.context.in_module_method or bool(
                                   fn.owner and self.classes.get(fn.owner) and self.classes[fn.owner].is_module))
        self.current_function = fdef
        self.loops, self.if_depth = [], 0
        self.stack.append(id(fdef))
        self.returns.append([])
        try:
            end = self.exec_suite(fdef.body, state)
        except RecursionError:
            end = state
        returned = self.returns.pop()
        self.stack.pop()
        self.context, self.current_function, self.loops, self.if_depth = saved
        if not end.dead:
            returned.append((Const(value=None), end.env.get("self"), end.guarded))
        values = [v for v, _, _ in returned]
        # `if torch.cuda.is_available(): return x.cuda()` / `return x`: the selected-device idiom
        split = len({g for _, _, g in returned}) > 1
        result = _join_all(values, availability_split=split) if values else UNKNOWN
        if len(values) > 1 and all(isinstance(v, Const) and v.value is None for v in values[1:]) \
                and not isinstance(values[0], Const):
            result = values[0]
        selves = [s for _, s, _ in returned if s is not None]
        final_self = selves[-1] if selves else None
        if self.is_generator(fdef):
            result = Seq(kind="generator", elem=UNKNOWN)
        return result, final_self, end

    def is_generator(self, fdef: cst.FunctionDef) -> bool:
        return self.scope_of(fdef).generator

    def _is_skip_marker(self, decorator: cst.Decorator, state: State) -> bool:
        text = self.module.code_for_node(decorator.decorator).lower()
        if ("cuda" in text or "gpu" in text) and "autocast" not in text and "amp" not in text:
            return True  # a test helper that runs (or mocks) the test only where a GPU is
        saved = self.muted
        self.muted += 1
        try:
            value = self.eval(decorator.decorator, state)
        finally:
            self.muted = saved
        return isinstance(value, SkipMarker)

    def instantiate(self, cls: Class, node: cst.Call, state: State) -> Value:
        args = self.eval_args(node, state)
        if cls.is_module:
            where = state.default_device or CPU
            note = "modules are created on cpu" if state.default_device is None else "created on the default device"
            obj: Value = Module(why=((node, note),), where=where, cls=cls.name)
        else:
            obj = Instance(why=((node, ""),), cls=cls.name)
        init = _find_method(cls, "__init__", self.classes)
        if init is None or id(init) not in self.functions:
            return obj
        fn = replace(self.functions[id(init)], bound=obj)
        params = self.bind_params(init, args, obj, state)
        if params is None:
            return obj
        key = (id(init), tuple(params.items()), state.guarded, bool(self.muted))
        try:
            cached = self.memo.get(key)
        except TypeError:
            cached, key = None, None
        if cached is None:
            _, final_self, _ = self.analyse_body(fn, params, state, node)
            cached = (final_self,)
            if key is not None:
                self.memo[key] = cached
        final_self = cached[0]
        if isinstance(final_self, Module) and not self.has_state(cls, final_self):
            return replace(final_self, where=None, stateless=True)
        return final_self if isinstance(final_self, (Module, Instance)) else obj

    def has_state(self, cls: Class, module: Module) -> bool:
        """Does a module of a class defined here own parameters or buffers (so it has a device)?"""
        for _, value in module.attrs:
            if isinstance(value, Tensor) and value.parameter or isinstance(value, Module) and not value.stateless:
                return True
            if isinstance(value, Seq) and isinstance(value.elem, Module):
                return True
        for base in cls.node.bases if cls.node is not None else ():
            value = self.eval(base.value, State())
            if isinstance(value, Ref) and value.path.startswith("torch.nn."):
                if value.path in api.MODULES_WITH_PARAMETERS:
                    return True
                continue  # nn.Module itself, a loss, an activation
            if isinstance(value, Class) and value.name != cls.name:
                summary = self.class_summary(value)
                if not isinstance(summary, Module) or self.has_state(value, summary):
                    return True
                continue
            return True  # a base we cannot see may create parameters
        return False

    def analyse_standalone(self, fn: Function) -> None:
        """A function nobody in the file calls (or any `forward`): symbolic parameters."""
        fdef = fn.node
        bound = None
        cls = self.classes.get(fn.owner) if fn.owner else None
        static = _is_static(fdef) or _is_classmethod(fdef)
        if cls is not None and not static:
            bound = self.class_summary(cls)
        params: dict[str, Value] = {}
        plist = list(fdef.params.posonly_params) + list(fdef.params.params)
        if bound is not None and plist:
            params[plist[0].name.value] = bound
            plist = plist[1:]
        scope = self.scope_of(fdef)
        is_forward = fdef.name.value == "forward" and cls is not None and cls.is_module
        for param in plist + list(fdef.params.kwonly_params):
            params[param.name.value] = self.symbolic_param(param, scope, is_forward)
        if isinstance(fdef.params.star_arg, cst.Param):
            params[fdef.params.star_arg.name.value] = Seq(kind="tuple", elem=UNKNOWN)
        if fdef.params.star_kwarg is not None:
            params[fdef.params.star_kwarg.name.value] = Seq(kind="dict", elem=UNKNOWN)
        self.analyse_body(fn, params, None, None)

    def symbolic_param(self, param: cst.Param, scope: _Scope, is_forward: bool) -> Value:
        name = param.name.value
        annotation = self.eval(param.annotation.annotation, State()) if param.annotation else UNKNOWN
        path = getattr(annotation, "path", "")
        if path in api.LOADERS:
            return Loader(why=((param, "a DataLoader yields cpu batches"),))
        if path == "torch.device":
            return DeviceValue(where=SELECTED)
        default = param.default
        if name in _FLAG_NAMES:
            return Availability(positive=True)
        if api.looks_like_device_name(name):
            return DeviceValue(why=((param, ""),), where=SELECTED)
        symbolic = Device("param", param=name)
        tensor = path in ("torch.Tensor", "torch.FloatTensor", "torch.LongTensor") or name in scope.tensor_names or (
            is_forward and default is None)
        if tensor:
            return Tensor(why=((param, ""),), where=symbolic, from_param=name)
        return Located(why=((param, ""),), where=symbolic)

    def class_summary(self, cls: Class) -> Value:
        """`self` as the methods of a class see it: the attributes __init__ gives it."""
        cached = self.class_summaries.get(cls.name)
        if cached is not None:
            return cached
        if cls.is_module:
            base: Value = Module(why=(), where=Device("param", param="self"), cls=cls.name)
        else:
            base = Instance(cls=cls.name)
        self.class_summaries[cls.name] = base  # recursion guard
        init = _find_method(cls, "__init__", self.classes)
        if init is not None and id(init) in self.functions:
            fn = replace(self.functions[id(init)], bound=base)
            params: dict[str, Value] = {}
            plist = list(init.params.posonly_params) + list(init.params.params)
            if plist:
                params[plist[0].name.value] = base
            scope = self.scope_of(init)
            for param in plist[1:] + list(init.params.kwonly_params):
                params[param.name.value] = self.symbolic_param(param, scope, False)
            self.muted += 1
            try:
                _, final_self, _ = self.analyse_body(fn, params, None, None)
            finally:
                self.muted -= 1
            self.analysed.discard(id(init))
            if isinstance(final_self, (Module, Instance)):
                if isinstance(final_self, Module):
                    final_self = replace(final_self, where=Device("param", param="self"))
                base = final_self
        self.class_summaries[cls.name] = base
        return base

    # ------------------------------------------------------------ iteration

    def iterate(self, iterable: Value, node: cst.CSTNode) -> Value:
        if isinstance(iterable, Loader):
            if iterable.where is None:
                return UNKNOWN
            note = "a DataLoader batch is on cpu" if iterable.where == CPU else ""
            return Tensor(why=iterable.why + ((node, note),), where=iterable.where)
        if isinstance(iterable, Seq):
            if iterable.items is not None and iterable.kind != "dict":
                return _join_all(list(iterable.items))
            return iterable.elem
        if isinstance(iterable, Tensor):
            return replace(iterable, scalar=False, fresh=False, derived=True)
        if isinstance(iterable, Module):
            return iterable  # iterating a ModuleList
        if isinstance(iterable, Located):
            return Located(where=iterable.where)
        return UNKNOWN


# ---------------------------------------------------------------- helpers


_KEEP = Device("keep")  # `.to(dtype)`: the device does not change


class _Args:
    __slots__ = ("positional", "keywords", "star", "starstar")

    def __init__(self) -> None:
        self.positional: list = []
        self.keywords: dict = {}
        self.star: list = []
        self.starstar: list = []

    def get(self, name: str) -> Value:
        found = self.keywords.get(name)
        return found[1] if found else UNKNOWN

    def all(self) -> list:
        return self.positional + list(self.keywords.values()) + self.star + self.starstar


_FLAG_NAMES = frozenset({"cuda", "use_cuda", "gpu", "use_gpu", "on_gpu", "is_cuda", "with_cuda", "has_cuda",
                         "cuda_available", "USE_CUDA", "CUDA", "GPU", "USE_GPU"})
_NEGATIVE_FLAG_NAMES = frozenset({"no_cuda", "cpu", "no_gpu", "use_cpu", "cpu_only", "force_cpu"})
_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "norm", "prod", "std", "var", "all", "any", "item",
                         "argmax", "argmin", "logsumexp", "dot", "nansum", "nanmean", "median", "amax", "amin"})
_SCALAR_KEEPING = frozenset({"float", "double", "half", "long", "int", "detach", "clone", "abs", "sqrt", "exp",
                             "log", "neg", "squeeze", "contiguous"})


def _is_number(node: cst.CSTNode, value: Value) -> bool:
    """A Python number (or what may be one): `2.0`, `-1`, `float("inf")`, `math.pi`, `n`."""
    if isinstance(value, Unknown) and not isinstance(node, (cst.List, cst.Tuple, cst.ListComp)):
        return True  # `torch.tensor(y)`: 0-dim unless y is a sequence, which we do not know
    if isinstance(value, Const):
        return isinstance(value.value, (int, float, bool, complex))
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.expression, (cst.Integer, cst.Float))
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        return node.func.value in ("float", "int", "bool", "len", "round", "sum", "max", "min")
    return isinstance(value, Ref) and value.path.startswith("math.")


def _guess_flag(attr: str) -> Value:
    if attr in _FLAG_NAMES:
        return Availability(positive=True)
    if attr in _NEGATIVE_FLAG_NAMES:
        return Availability(positive=False)
    if api.looks_like_device_name(attr):
        return DeviceValue(where=SELECTED)
    return UNKNOWN


def _argparse_option(args: _Args, interp: Interpreter) -> Optional[tuple]:
    """(dest, value) for `add_argument('--device', default='cuda')`."""
    flags = [v.value for _, v in args.positional if isinstance(v, Const) and isinstance(v.value, str)]
    long = [f for f in flags if f.startswith("--")]
    dest_value = args.get("dest")
    if isinstance(dest_value, Const) and isinstance(dest_value.value, str):
        dest = dest_value.value
    elif long:
        dest = long[0][2:].replace("-", "_")
    elif flags:
        dest = flags[0].lstrip("-").replace("-", "_")
    else:
        return None
    action = args.get("action")
    if dest in _FLAG_NAMES or dest.startswith(("use_cuda", "cuda", "gpu", "use_gpu")) and not api.looks_like_device_name(dest):
        return dest, Availability(positive=True)  # the user's choice: they asked for a GPU
    if dest in _NEGATIVE_FLAG_NAMES or dest.startswith("no_cuda") or dest.startswith("no_gpu"):
        return dest, Availability(positive=False)
    if api.looks_like_device_name(dest) or dest in ("gpu_id", "gpu_ids", "gpus", "local_rank"):
        return dest, DeviceValue(where=SELECTED)  # the user's choice, whatever the default
    if isinstance(action, Const) and action.value in ("store_true", "store_false"):
        return dest, UNKNOWN
    return dest, UNKNOWN


def _polarity(value: Value) -> Optional[bool]:
    """True: being true means CUDA is available. False: it means CUDA is not."""
    if isinstance(value, Availability):
        return value.positive
    return None


def _comparison_guard(left: Value, op: cst.BaseCompOp, right: Value) -> Optional[bool]:
    if isinstance(left, _DeviceCount) and isinstance(right, Const) and isinstance(right.value, int):
        n = right.value
        if isinstance(op, cst.GreaterThan):
            return True if n >= 0 else None
        if isinstance(op, cst.GreaterThanEqual):
            return True if n >= 1 else None
        if isinstance(op, cst.NotEqual):
            return True if n == 0 else None
        if isinstance(op, (cst.Equal, cst.LessThanEqual)):
            return False if n == 0 else None
        if isinstance(op, cst.LessThan):
            return False if n == 1 else None
    text = right.value if isinstance(right, Const) else None
    subject = left
    if isinstance(left, Const) and isinstance(right, (_DeviceType, DeviceValue, Unknown)):
        text, subject = left.value, right
    if isinstance(subject, Unknown) and isinstance(text, str) and text.startswith("cuda"):
        # `args.device == "cuda"`, `x.device.type == "cuda"`, `"cuda" in device`: checked by hand
        if isinstance(op, (cst.Equal, cst.Is, cst.In)):
            return True
    if isinstance(subject, (_DeviceType, DeviceValue)) and isinstance(text, str):
        wants_cuda = text.startswith("cuda")
        if isinstance(op, (cst.Equal, cst.Is)):
            return True if wants_cuda else (False if text == "cpu" else None)
        if isinstance(op, (cst.NotEqual, cst.IsNot)):
            return True if text == "cpu" else None
        if isinstance(op, cst.In) and text == "cuda":
            return True
    return None


def _as_device(value: Value) -> Optional[Device]:
    if isinstance(value, DeviceValue):
        return value.where
    return const_device(value)


def _resolve_current(device: Optional[Device], state: State) -> Optional[Device]:
    """Plain 'cuda' means the current device where it is created."""
    if device is not None and device.kind == "cuda" and device.index is None and state.cuda_index is not None:
        return cuda(state.cuda_index)
    return device


def _is_module_base(base: Value, classes: dict) -> bool:
    if isinstance(base, Ref):
        if base.path in api.MODULE_BASES:
            return True
        return base.path.startswith("torch.nn.") and base.path.rsplit(".", 1)[-1][:1].isupper() \
            and not any(base.path.startswith(p) for p in api.NOT_MODULES)
    if isinstance(base, Class):
        return base.is_module
    return False


def _class_body(node: cst.ClassDef) -> list:
    body = node.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else []


def _find_method(cls: Optional[Class], name: str, classes: dict, depth: int = 0) -> Optional[cst.FunctionDef]:
    if cls is None or cls.node is None or depth > 8:
        return None
    for stmt in _class_body(cls.node):
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    for base in cls.node.bases:
        base_name = dotted(base.value)
        if base_name in classes and base_name != cls.name:
            found = _find_method(classes[base_name], name, classes, depth + 1)
            if found is not None:
                return found
    return None


def _decorator_name(decorator: cst.Decorator) -> str:
    expr = decorator.decorator
    if isinstance(expr, cst.Call):
        expr = expr.func
    return dotted(expr) or ""


def _is_property(decorator: cst.Decorator) -> bool:
    return _decorator_name(decorator).endswith(("property", "setter", "cached_property"))


def _is_static(fdef: cst.FunctionDef) -> bool:
    return any(_decorator_name(d) == "staticmethod" for d in fdef.decorators)


def _is_classmethod(fdef: cst.FunctionDef) -> bool:
    return any(_decorator_name(d) == "classmethod" for d in fdef.decorators)


def _as_member(module: Module, value: Value) -> Value:
    """A module's attribute as seen through the module: registered members move with it."""
    if isinstance(value, Module):
        return replace(value, where=module.where)
    if isinstance(value, Tensor) and value.parameter:
        return replace(value, where=module.where, why=module.why or value.why,
                       from_param="self" if module.where is not None and module.where.kind == "param" else None)
    if isinstance(value, Seq) and isinstance(value.elem, Module):
        return Seq(kind=value.kind, elem=replace(value.elem, where=module.where))
    return value


def _loader_like(value: Value) -> bool:
    return isinstance(value, Seq) and isinstance(value.elem, Seq) and any(
        isinstance(i, Tensor) and i.where == CPU for i in (value.elem.items or ()))


def _tensors_in(value: Value) -> list:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, Seq):
        items = (list(value.items) if value.items is not None else [value.elem]) + list(value.gpu_members)
        out = []
        for item in items:
            out.extend(_tensors_in(item) if isinstance(item, (Tensor, Seq)) else [])
        return out
    return []


def _dict_entry(value: Value, key: str) -> Optional[Value]:
    if isinstance(value, Seq) and value.keys is not None:
        for k, v in zip(value.keys, value.items):
            if k == key:
                return v
    return None


def _element(value: Value) -> Value:
    if isinstance(value, Seq):
        return value.elem
    if isinstance(value, Tensor):
        return replace(value, scalar=False, fresh=False)
    return UNKNOWN


def _item(value: Value, index: int) -> Value:
    if isinstance(value, Seq):
        if value.items is not None and index < len(value.items):
            return value.items[index]
        return value.elem
    if isinstance(value, Tensor):
        return replace(value, scalar=False, fresh=False)  # unpacking a batch or a tensor
    if isinstance(value, Located):
        return Located(why=value.why, where=value.where)
    return UNKNOWN


def _join_all(values: list, availability_split: bool = False) -> Value:
    result: Optional[Value] = None
    for value in values:
        result = value if result is None else join(result, value, availability_split)
    return result if result is not None else UNKNOWN


def _make_seq(kind: str, items: Optional[list], all_items: list) -> Seq:
    return Seq(kind=kind, items=tuple(items) if items is not None else None, elem=_join_all(list(all_items)))


def _seq_store(container: Seq, key: object, value: Value) -> Seq:
    if container.keys is not None and key is not None:
        keys = list(container.keys)
        items = list(container.items)
        if key in keys:
            items[keys.index(key)] = value
        else:
            keys.append(key)
            items.append(value)
        return Seq(kind=container.kind, items=tuple(items), keys=tuple(keys), elem=_join_all(items))
    return Seq(kind=container.kind, elem=join(container.elem, value) if container.elem is not UNKNOWN else value)


def _const_key(node: cst.Subscript) -> object:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    expr = node.slice[0].slice.value
    if isinstance(expr, cst.SimpleString):
        try:
            return expr.evaluated_value
        except Exception:  # noqa: BLE001
            return None
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) and isinstance(
            expr.expression, cst.Integer):
        return -int(expr.expression.value, 0)
    return None


def _attr_path(node: cst.CSTNode) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_attr_path(node.value)}.{node.attr.value}"
    return ""


_OPERATORS = {
    "Add": "+", "Subtract": "-", "Multiply": "*", "Divide": "/", "FloorDivide": "//", "Modulo": "%",
    "Power": "**", "MatrixMultiply": "@", "BitAnd": "&", "BitOr": "|", "BitXor": "^", "LeftShift": "<<",
    "RightShift": ">>", "AddAssign": "+=", "SubtractAssign": "-=", "MultiplyAssign": "*=", "DivideAssign": "/=",
    "MatrixMultiplyAssign": "@=", "PowerAssign": "**=", "FloorDivideAssign": "//=", "ModuloAssign": "%=",
    "BitAndAssign": "&=", "BitOrAssign": "|=", "BitXorAssign": "^=", "LeftShiftAssign": "<<=",
    "RightShiftAssign": ">>=", "LessThan": "<", "GreaterThan": ">", "LessThanEqual": "<=",
    "GreaterThanEqual": ">=", "Equal": "==", "NotEqual": "!=",
}


def _op_text(op: cst.CSTNode) -> str:
    return _OPERATORS.get(type(op).__name__, type(op).__name__)


def _code(module: cst.Module, node: cst.CSTNode) -> str:
    """A short one-line rendering of `node`, only computed when needed."""
    return _LazyCode(module, node)


class _LazyCode(str):
    """Source text rendered on first use: most operands are never reported."""

    def __new__(cls, module: cst.Module, node: cst.CSTNode) -> "_LazyCode":
        obj = super().__new__(cls, "")
        obj._module, obj._node, obj._text = module, node, None
        return obj

    def render(self) -> str:
        if self._text is None:
            text = " ".join(self._module.code_for_node(self._node).split())
            self._text = text if len(text) <= 60 else text[:57] + "..."
        return self._text

    def __str__(self) -> str:
        return self.render()

    def __format__(self, spec: str) -> str:
        return format(self.render(), spec)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)
