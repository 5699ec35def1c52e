"""A flow-sensitive abstract interpreter over a libcst module.

It walks statements in order with an explicit state (devlint.static.analysis.state),
joins states where paths meet, iterates loops to a fixed point, and analyses
functions defined in the file at their call sites with the caller's argument
values (functions nobody calls, and every `forward`, also on their own with
symbolic parameters). Statements and expressions are handled by one function
per node type (statements.py, expressions.py); what library calls do is asked
of devlint.static.semantics. What it observes goes out as facts to the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, Optional, Sequence, cast

import libcst as cst

from devlint.static.analysis import functions
from devlint.static.analysis.assignment import assign, storable
from devlint.static.analysis.attributes import attribute
from devlint.static.analysis.expressions import EVAL
from devlint.static.analysis.imports import ProjectImports
from devlint.static.analysis.prepass import PrePass, Scope, path_template
from devlint.static.analysis.state import LoopFrame, State
from devlint.static.analysis.statements import exec_block
from devlint.core.facts import (
    Context, CpuOnlyArgument, FileIntent, GpuAssumption, HostConversion, HostSync, ModuleCall, Operand, Operation,
)
from devlint.core.mixing import classify, classify_module_input, pairs
from devlint.static.semantics.callsite import Args
from devlint.static.semantics.containers import join_all, tensors_in
from devlint.static.semantics.registry import BUILTIN_NAMES
from devlint.static.syntax import LazyCode, dotted
from devlint.core.values import (
    CPU, CRASHED, UNKNOWN, Builtin, Class, Device, Function, Instance, Loader, Located, Module, Ref, Seq, Tensor, Value,
    replace,
)

if TYPE_CHECKING:
    from pathlib import Path

    from devlint.static.analysis.state import Returned
    from devlint.static.semantics.callsite import CallSite

    # functions.summarise's key: the function, its arguments, and the path conditions it depends on
    MemoKey = tuple[int, tuple[tuple[str, Value], ...], bool, Optional[int], bool, tuple[bool, bool, bool]]

_BUILTINS: dict[str, Value] = {name: Builtin(name=name) for name in BUILTIN_NAMES}
# What this file's values do in another module's function (a helper given a GPU tensor calls `.numpy()`
# on it): reported at that module's line when it is checked too.
_CROSSING = (Operation, ModuleCall, HostConversion, CpuOnlyArgument)
_BUILTINS.update({name: Ref(path=name) for name in ("exit", "quit")})


class Interpreter:
    def __init__(self, module: cst.Module, emit: Callable[[object], None],
                 project: Optional[ProjectImports] = None) -> None:
        self.module = module
        self.project = project  # the project's other modules, or None: this file alone
        self.importing: Optional[Path] = None  # the file of the project module whose top level is being walked
        self.foreign = 0  # > 0: in a function of another module, called from this file
        self.moved_at_end: dict[int, Module] = {}  # the modules moved in place by the module level (functions see them)
        self._emit = emit
        self.muted = 0  # > 0: exploring (a loop's fixed point, a class summary): emit nothing
        # the muted level of a loop's first pass, which runs on the state before the loop: what it sees
        # crash is reported too (a running sum made on the cpu, a GPU value added in the loop)
        self.first_pass: Optional[int] = None
        self.functions: dict[int, Function] = {}  # id(FunctionDef) -> value
        self.classes: dict[str, Class] = {}
        self.class_summaries: dict[str, Value] = {}
        self.analysed: set[int] = set()
        self.memo: dict[MemoKey, functions.Summary] = {}
        self.stack: list[int] = []  # functions being analysed
        self.context = Context()
        self.current_function: Optional[cst.FunctionDef] = None
        self.returns: list[list[Returned]] = []  # one list of Returned per function being analysed
        self.loops: list[LoopFrame] = []
        self.if_depth = 0
        self.globals: dict[str, Value] = {}
        self.star_modules: list[str] = []  # the project's modules imported with `*`
        self.closures: dict[int, dict[str, Value]] = {}
        self.guarded_classes: set[str] = set()  # decorated with a skip-unless-CUDA marker
        self.module_default_device: Optional[Device] = None  # torch.set_default_device at module level
        self.prepass: PrePass = None  # type: ignore[assignment]  # made by run(), before anything reads it
        self.cpu_only_params: dict[int, set[str]] = {}  # id(FunctionDef) -> parameters it needs on the cpu
        self.constructing = 0  # `__init__`s being analysed (and the helpers they call)
        self.dotted_bases: set[str] = set()  # names whose attributes have entries of their own (`data.x`)
        self.imported_layers: dict[str, bool] = {}  # class name -> its __init__ builds a layer of an imported class
        self.enclosing: dict[int, Optional[str]] = {}  # id(nested FunctionDef) -> the function around it
        self.defined_guarded: set[int] = set()  # id(FunctionDef) of functions defined where CUDA was known
        self.portable_uses = 0  # values placed on a device chosen at run time (the file is portable)

    # ------------------------------------------------------------ driving

    def run(self) -> None:
        self.prepass = PrePass(self.module)
        state = State()
        self.globals = state.env
        end = exec_block(self, self.module.body, state)
        self.globals = end.env
        self.moved_at_end = end.moved
        self.module_default_device = end.default_device
        called = self.prepass.called_names
        foreign = self.project.foreign_functions if self.project is not None else ()
        for fn in list(self.functions.values()):
            if id(fn.node) in foreign:
                continue
            name = cast(cst.FunctionDef, fn.node).name.value  # every Function here was made from its def
            if name == "forward" or (id(fn.node) not in self.analysed and name not in called):
                functions.analyse_standalone(self, fn)
        for fn in list(self.functions.values()):
            if id(fn.node) not in self.analysed and id(fn.node) not in foreign:
                functions.analyse_standalone(self, fn)
        xla = any(path.split(".")[0] == "torch_xla" for path in self.prepass.imports.values())
        self.emit(FileIntent(self.module, self.prepass.cpu_evidence, self.portable_uses, self.prepass.multi_gpu,
                             xla))

    def emit(self, fact: object) -> None:
        if self.foreign and type(fact) not in _CROSSING:
            return  # another module's own habits (its GPU assumptions, its timers) are judged in its own file
        if not self.muted or (self.muted == self.first_pass and isinstance(fact, (Operation, ModuleCall))):
            self._emit(fact)

    def scope_of(self, node: Optional[cst.CSTNode]) -> Scope:
        scopes = self.prepass.scopes
        return scopes.get(id(node) if node is not None else 0) or scopes[0]

    def tensor_names(self) -> set[str]:
        """Names the current function uses as only a tensor can be used."""
        return self.scope_of(self.current_function).tensor_names

    def moved_names(self) -> set[str]:
        """Names the current function sends to a device (`x.to(device)`)."""
        return self.scope_of(self.current_function).moved_names

    def module_names(self) -> set[str]:
        """Names used as only a module can be, in the current function or at module level."""
        return self.scope_of(self.current_function).module_names | self.prepass.scopes[0].module_names

    def in_test(self) -> bool:
        """Is the current function a test (`test_*`), or defined inside one, or called by one?"""
        names = [self.context.function or ""] + [name for _, name in self.context.calls]
        if self.current_function is not None:
            names.append(self.enclosing.get(id(self.current_function)) or "")
        return any(n.rsplit(".", 1)[-1].startswith("test") for n in names)

    def saved_here(self, path: cst.CSTNode) -> bool:
        """Does this file `torch.save` to that path? The same expression anywhere (a pack hook saves to
        `name`, its unpack hook loads `name`), or a path with the same string parts (`"ckpt/%s_%d.pth" % ...`)."""
        text = " ".join(self.module.code_for_node(path).split())
        if text in self.prepass.saved_anywhere:
            return True
        template = path_template(path)
        return bool(template) and template in self.prepass.saved_templates

    def clock_ends(self) -> set[str]:
        return self.scope_of(self.current_function).clock_ends

    def consumer(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The subtraction or assignment a call feeds."""
        return self.prepass.consumers.get(id(node))

    def code(self, node: cst.CSTNode) -> str:
        return LazyCode(self.module, node)

    def operand(self, node: cst.CSTNode, value: Value) -> Operand:
        return Operand(node, value, self.code(node))

    # ------------------------------------------------------------ the two dispatchers

    def eval(self, node: Optional[cst.CSTNode], state: State) -> Value:
        if node is None:
            return UNKNOWN
        handler = EVAL.get(type(node))
        if handler is None:
            return UNKNOWN
        value = handler(self, node, state)
        if state.moved and type(value) is Module:
            moved = state.moved.get(value.ident)
            if moved is not None:
                if moved.where != value.where:  # an alias of a module moved in place since: where, and why
                    return replace(value, where=moved.where, moved=True, why=moved.why)
            elif value.attrs:
                return with_moved_members(value, state.moved)
        return value

    def exec_suite(self, suite: cst.BaseSuite, state: State) -> State:
        return exec_block(self, suite.body, state)

    def exec_block(self, body: Sequence[cst.BaseStatement | cst.BaseSmallStatement], state: State) -> State:
        return exec_block(self, body, state)

    # ------------------------------------------------------------ names

    def assign_name(self, name: str, value: Value, state: State, line: cst.CSTNode) -> None:
        if "." in name:
            base, _, attr = name.rpartition(".")
            self.store_attribute(base, attr, value, state, line)
            return
        if name in self.dotted_bases:  # a new object: what was known of the old one's attributes is not
            prefix = name + "."
            for key in [k for k in state.env if k.startswith(prefix)]:
                del state.env[key]
        state.env[name] = value

    def store(self, target: cst.CSTNode, value: Value, state: State, line: cst.CSTNode) -> bool:
        """Bind `value` to the expression `target` (a name, attribute or subscript) if it can be bound."""
        if not storable(target):
            return False
        assign(self, target, value, state, line)
        return True

    def store_attribute(self, base: str, attr: str, value: Value, state: State, line: cst.CSTNode) -> None:
        owner = self.lookup(base, state)
        if isinstance(owner, Module):
            value = self.module_member(value, attr, line)
        if isinstance(owner, (Module, Instance)):
            self.assign_name(base, owner.with_attr(attr, value), state, line)
        else:
            state.env[f"{base}.{attr}"] = value
            self.dotted_bases.add(base.split(".", 1)[0])

    def module_member(self, value: Value, attr: str, line: cst.CSTNode) -> Value:
        """What storing `value` as a module's attribute makes of it: a module is registered; a plain
        tensor, or a plain list of modules, set while the module is built stays where it is."""
        if isinstance(value, Module):
            return replace(value, registered=True)
        if not self.constructing:
            return value
        if isinstance(value, Tensor) and not value.parameter:
            return replace(value, attr_node=line, attr_name=attr)  # a plain attribute: it will not move
        if isinstance(value, Seq):
            members = list(value.items or ()) + [value.elem]
            if any(isinstance(m, Module) and not m.registered and not m.stateless for m in members):
                tag = (line, attr)
                mark: Callable[[Value], Value] = \
                    lambda m: replace(m, plain_container=tag) if isinstance(m, Module) else m  # noqa: E731
                return replace(value, plain_attr=tag, elem=mark(value.elem),
                               items=tuple(mark(m) for m in value.items) if value.items is not None else None)
        return value

    def lookup(self, name: str, state: State) -> Value:
        value = state.env.get(name)
        if value is not None:
            return value
        if "." in name:
            base, _, attr = name.rpartition(".")
            return attribute(self, self.lookup(base, state), attr, state, name)
        if name in self.globals and state.env is not self.globals:
            return self.globals[name]
        builtin = _BUILTINS.get(name)
        if builtin is None and self.star_modules and name[:1].isupper():
            return Ref(path=f"{self.star_modules[-1]}.{name}")  # a class from `from models import *`
        return builtin or UNKNOWN

    # ------------------------------------------------------------ what computations do

    def operation(self, node: cst.CSTNode, name: str, operands: list[Operand], state: State, indexing: bool = False,
                  reduce: bool = False) -> Value:
        """A computation over tensors that must share a device."""
        if any(o.value is CRASHED for o in operands):
            return CRASHED  # downstream of a reported crash: `(gpu - cpu) / cpu` is one bug, not two
        tensors = [o for o in operands if isinstance(o.value, Tensor)]
        if state.unavailable:
            # `if use_cuda: ... else: <here>`: without CUDA the selected device is the cpu
            tensors = [Operand(o.node, replace(o.value, where=CPU), o.label) if o.value.device is not None
                       and o.value.device.kind == "selected" else o for o in tensors]
        if len(tensors) >= 2:
            self.emit(Operation(node, name, tuple(tensors), self.context, indexing))
            if any(classify(a.value, b.value, indexing, self.context.params_on_device)
                   for a, b in pairs(tensors, indexing)):
                return CRASHED  # reported once: nothing downstream of it is known
        if not tensors:
            return UNKNOWN
        self.note_gpu_work(node, [t.value for t in tensors], state)
        return result_tensor(cast("list[Tensor]", [t.value for t in tensors]), reduce)

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

    def host_sync(self, node: cst.CSTNode, how: str, operand: Operand, state: State) -> None:
        self.note_sync(state)
        frame = self.loops[-1] if self.loops else None
        in_loop = frame is not None and frame.training
        every_step = in_loop and self.if_depth == cast(LoopFrame, frame).if_depth
        if operand.value.device is not None and operand.value.device.is_gpu:
            self.emit(HostSync(node, how, operand, in_loop, every_step, self.context))

    def gpu_assumption(self, node: cst.CSTNode, what: str, state: State, use: Optional[cst.CSTNode] = None) -> None:
        """`use`: the expression that assumes the GPU, when `node` is the literal it got its device from."""
        self.emit(GpuAssumption(node, what, "device", state.guarded, self.context, state.switched,
                                use if use is not node else None))

    def module_call_fact(self, node: cst.CSTNode, module_node: cst.CSTNode, module: Value,
                         inputs: list[tuple[cst.CSTNode, Value]]) -> bool:
        """Emit a ModuleCall; True when an input is on another device than the module."""
        data = node.args[0].value if type(node) is cst.Call and node.args and node.args[0].keyword is None \
            and not node.args[0].star else None
        tensors = [Operand(arg_node, _as_data(member) if arg_node is data else member, self.code(arg_node))
                   for arg_node, value in inputs for member in tensors_in(value)]
        if not tensors or not isinstance(module, (Module, Located)) or getattr(module, "moves_inputs", False):
            return False
        self.emit(ModuleCall(node, Operand(module_node, module, self.code(module_node)), tuple(tensors),
                             self.context))
        # reported once: nothing downstream of a mismatched call is known
        return any(classify_module_input(module, t.value, self.context.in_module_method) for t in tensors)

    def escape(self, args: Args, state: State) -> None:
        """Modules handed to code we cannot see may be moved there: their device is unknown after."""
        for arg_node, value in args.all():
            if isinstance(value, Module) and value.where is not None and not value.stateless:
                name = dotted(arg_node)
                if name:
                    self.assign_name(name, replace(value, where=None), state, arg_node)

    def iterate(self, iterable: Value, node: cst.CSTNode) -> Value:
        """What one step of `for x in iterable` binds."""
        if isinstance(iterable, Loader):
            if iterable.where is None:
                return UNKNOWN
            note = "a DataLoader batch is on cpu" if iterable.where == CPU else ""
            return Tensor(why=iterable.why + ((node, note),), where=iterable.where, collated=True,
                          maybe_object=iterable.custom_collate)
        if isinstance(iterable, Seq):
            if iterable.items is not None and iterable.kind != "dict":
                return join_all(list(iterable.items))
            return iterable.elem
        if isinstance(iterable, Tensor):
            return replace(iterable, scalar=False, fresh=False, derived=True)
        if isinstance(iterable, Module):
            return iterable  # iterating a ModuleList
        if isinstance(iterable, Located):
            return Located(where=iterable.where)
        return UNKNOWN

    # ------------------------------------------------------------ functions of this file

    def invoke(self, fn: Function, args: Args, node: cst.CSTNode, state: State,
               receiver_node: Optional[cst.CSTNode]) -> Value:
        return functions.invoke(self, fn, args, node, state, receiver_node)

    def find_method(self, cls: Optional[Class], name: str) -> Optional[cst.FunctionDef]:
        return functions.find_method(cls, name, self.classes)

    def call_method_of(self, receiver: Value, name: str, values: list[Value], node: cst.CSTNode,
                       state: State) -> Value:
        """Call `receiver.name(*values)`, a method of a class of this file (UNKNOWN if it has none)."""
        cls = self.classes.get(getattr(receiver, "cls", None) or "")
        method = functions.find_method(cls, name, self.classes)
        fn = self.functions.get(id(method)) if method is not None else None
        if fn is None:
            return UNKNOWN
        args = Args()
        args.positional = [(node, value) for value in values]
        return self.invoke(replace(fn, bound=receiver), args, node, state, None)

    def call_super(self, site: CallSite) -> Value:
        return functions.call_super(self, site)

    def cpu_only_inputs(self, fdef: cst.FunctionDef, args: Args, bound: bool) -> set[int]:
        """id() of the argument nodes of a call of `fdef` that it needs on the cpu (a lengths tensor it packs)."""
        return functions.cpu_only_inputs(self, fdef, args, bound)


def with_moved_members(module: Module, moved: dict[int, Module]) -> Module:
    """A module holding a module moved in place since (`wrapper = Wrapper(model)`, then `model.cuda()`):
    its parameters moved with it. Where all that owns parameters moved to one device, the module is there;
    a part moved and a part not: no one device."""
    attrs: list[tuple[str, Value]] = []
    changed = False
    for name, member in module.attrs:
        if type(member) is Module and member.ident in moved and moved[member.ident].where != member.where:
            member, changed = replace(member, where=moved[member.ident].where, moved=True), True
        attrs.append((name, member))
    if not changed:
        return module
    owners = [m for _, m in attrs if type(m) is Module and not m.stateless
              or isinstance(m, Tensor) and m.parameter]
    places = {m.where for m in owners}
    where = places.pop() if len(places) == 1 else None
    moved_member = next(m for _, m in attrs if type(m) is Module and m.moved and m.where == where) \
        if where is not None else None
    return replace(module, attrs=tuple(attrs), where=where, moved=True,
                   why=moved_member.why if moved_member is not None else module.why)


def _as_data(value: Value) -> Value:
    """A module's first input is its data, never packed-sequence lengths: a batch left on the host is judged
    there (a later input of unknown role is not: the model may want it on the cpu)."""
    return replace(value, host_batch=False) if isinstance(value, Tensor) and value.host_batch else value


def result_tensor(tensors: list[Tensor], reduce: bool = False) -> Tensor:
    """The result of an operation on `tensors` (which agree): on their device."""
    # The most telling operand: a concrete device over a parameter's, a non-scalar over a scalar.
    def rank(t: Tensor) -> tuple[bool, bool, bool, bool]:
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
