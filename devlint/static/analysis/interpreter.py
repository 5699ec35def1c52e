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

from typing import TYPE_CHECKING, Callable, Optional, Sequence, cast

import libcst as cst

from devlint.static.analysis import functions, standalone
from devlint.static.analysis.assignment import assign, storable
from devlint.static.analysis.attributes import attribute
from devlint.static.analysis.definitions import by_shape, find_method, local_names, registered_by_hand
from devlint.static.analysis.emitter import Emitter
from devlint.static.analysis.expressions import EVAL
from devlint.static.analysis.frames import Frames
from devlint.static.analysis.imports import project_attribute
from devlint.static.analysis.project_imports import ProjectImports
from devlint.static.analysis.state import State, where_missing
from devlint.static.analysis.statements import exec_block
from devlint.static.analysis.tables import FileQuestions, FileTables
from devlint.core.torch_catalogue import views as api
from devlint.core.devices import SELECTED
from devlint.core.facts import FileIntent, Operand, Operation
from devlint.core.mixing import classify, pairs
from devlint.static.semantics.callsite import Args
from devlint.static.semantics.containers import join_all, map_members
from devlint.static.semantics.devices import selected_is_cpu
from devlint.static.semantics.opaque import FOLLOWS_INPUTS
from devlint.static.semantics.registry import BUILTIN_NAMES
from devlint.static.syntax import dotted
from devlint.core.values import (
    CPU, CRASHED, UNKNOWN, ArgsNamespace, Builtin, Class, Function, HostArray, Instance, Loader, Located, Module, Ref,
    Seq, Tensor, Unknown, Value, join_device, replace,
)

if TYPE_CHECKING:
    from devlint.static.semantics.callsite import CallSite

_BUILTINS: dict[str, Value] = {name: Builtin(name=name) for name in BUILTIN_NAMES}
_BUILTINS.update({name: Ref(path=name) for name in ("exit", "quit")})


class Interpreter:
    """The walk over one file: its state in three objects with one owner each (`tables`: what it learns of
    the file, `frames`: where it is, `facts`: what it says, tables.py, frames.py, emitter.py), the read-only
    view of them that semantics handlers get (`file`), and the verbs every part of the walk uses. The parts
    type it as `walker.Walker`, a protocol: none of them imports this module, which imports them."""

    def __init__(self, module: cst.Module, emit: Callable[[object], None],
                 project: Optional[ProjectImports] = None) -> None:
        self.tables = FileTables(module, project)
        self.frames = Frames()
        self.facts = Emitter(emit, module, self.frames, self.tables.demo_only)
        self.file = FileQuestions(self.tables, self.frames, lambda path, name: project_attribute(self, path, name))

    # ------------------------------------------------------------ driving

    def run(self) -> None:
        tables, frames = self.tables, self.frames
        state = State()
        # a script that sets up an NCCL group has GPUs; so has a project whose every script demands CUDA (a test
        # module whose folder's conftest.py skips it without CUDA, a project that builds CUDA kernels only, a Cog
        # predictor its cog.yaml serves on GPUs)
        project = tables.project
        state.guarded = tables.prepass.scopes[0].nccl_setup or (project is not None and (
            project.gpu_required() or project.skipped_without_gpu() or project.builds_cuda_kernels()
            or project.served_on_gpu()))
        frames.globals = state.env
        end = exec_block(self, tables.module.body, state)
        frames.globals = end.env
        tables.moved_at_end = end.moved
        tables.module_default_device = end.default_device
        if end.default_device is None and tables.project is not None and tables.project.gpu_default_from_importer():
            tables.module_default_device = SELECTED  # its functions run after the importer's switch, or without it
        prepass = tables.prepass
        called = prepass.called_names
        foreign = tables.project.foreign_functions if tables.project is not None else ()
        for fn in list(tables.functions.values()):
            if id(fn.node) in foreign:
                continue
            name = cast(cst.FunctionDef, fn.node).name.value  # every Function here was made from its def
            if (name == "forward" and not _plain_owner(tables, fn)) or (id(fn.node) not in tables.analysed
                                                                      and name not in called):
                standalone.analyse_standalone(self, fn)
        # the rest, callers first: one the file never calls as its own (`Exp.train`, whose name only
        # `self.model.train()` uses) before what it calls (`vali(loader)` then sees the loader it is given)
        rest = sorted(tables.functions.values(),
                      key=lambda f: cast(cst.FunctionDef, f.node).name.value in prepass.own_called)
        for fn in rest:
            if id(fn.node) not in foreign and (id(fn.node) not in tables.analysed or tables.demo_only.get(id(fn.node))):
                standalone.analyse_standalone(self, fn)
        xla = any(path.split(".")[0] == "torch_xla" for path in prepass.imports.values())
        gpu_in_run = tables.project.run_mentions_gpu() if tables.project is not None else True
        self.facts.emit(FileIntent(tables.module, prepass.cpu_evidence, self.facts.portable_uses, prepass.multi_gpu,
                                   xla, prepass.only_cuda_variables, gpu_in_run))

    # ------------------------------------------------------------ the two dispatchers

    def eval(self, node: Optional[cst.CSTNode], state: State) -> Value:
        if node is None:
            return UNKNOWN
        handler = EVAL.get(type(node))
        if handler is None:
            return UNKNOWN
        value = handler(self, node, state)
        if state.moved and type(value) is Module:  # (the hot path: most values are no module)
            value = self.current(value, state)
        # the path that learnt CUDA is missing reads what is on the selected device as on the cpu (what it
        # holds is unchanged: an object's own place outlives the path)
        return where_missing(value, True) if state.unavailable else value

    @staticmethod
    def current(value: Value, state: State) -> Value:
        """A module as it is now: an alias of one moved in place since has its place, and why."""
        if state.moved and type(value) is Module:
            moved = state.moved.get(value.ident)
            if moved is not None:
                if moved.where != value.where:
                    value = replace(value, where=moved.where, moved=True, why=moved.why)
            elif value.attrs:
                value = with_moved_members(value, state.moved)
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
        if name in self.tables.dotted_bases:  # a new object: what was known of the old one's attributes is not
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
        if isinstance(owner, Tensor) and attr in api.STORAGE_ATTRIBUTES and isinstance(value, (Tensor, Located)):
            # `token.data = token.data.cuda()`: the tensor keeps its identity and takes the storage, and its device
            self.assign_name(base, replace(owner, where=value.device, why=value.why), state, line)
            return
        if isinstance(owner, Module):
            previous = owner.attr(attr)
            value = self.module_member(value, attr, line)
            if self.frames.constructing and isinstance(previous, Tensor) and previous.parameter \
                    and isinstance(value, Tensor) and not value.parameter:
                # `self.queue = F.normalize(self.queue)` of a registered buffer in `__init__`: `Module.__setattr__`
                # keeps it one, which `.to()` moves later (set after a move, in `forward`, it stays where it was made)
                value = replace(value, parameter=True, attr_node=None, attr_name=None)
            if isinstance(value, Module) and value.moved and not value.stateless and None not in (
                    value.where, owner.where) and value.where != owner.where and not self.frames.constructing:
                # `self.model = self.model.to("cpu")` of a wrapper on another device: its parts are now on two, so
                # the whole is on neither (each part is judged where its own forward calls it)
                owner = replace(owner, where=None)
                moved = state.moved.get(owner.ident) if owner.ident is not None else None
                if moved is not None:  # (the move of the whole that the walk replays on every read of it)
                    state.moved[owner.ident] = replace(moved, where=None)
        if isinstance(owner, (Module, Instance)):
            self.assign_name(base, owner.with_attr(attr, value), state, line)
        else:
            if isinstance(owner, ArgsNamespace) and not isinstance(value, (Unknown, Located)):
                # `args.use_cuda = torch.cuda.is_available() and not args.no_cuda`: the namespace handed on holds it
                # (not a value of unknown kind: `args.gpu = gpu` of a spawned worker's rank says nothing of a GPU,
                # and the ImageNet example's `if args.gpu is not None:` moves would pair with the model's paths)
                options = ((attr, value),) + tuple(option for option in owner.options if option[0] != attr)
                self.assign_name(base, replace(owner, options=options), state, line)
            state.env[f"{base}.{attr}"] = value
            self.tables.dotted_bases.add(base.split(".", 1)[0])
            if "." in base and (attr == "data" or isinstance(owner, Tensor) and owner.parameter):
                self._parameter_replaced(base.rpartition(".")[0], value, state, line)

    def _parameter_replaced(self, holder_name: str, value: Value, state: State, line: cst.CSTNode) -> None:
        """`cell.weight_ih.data = gru.weight_ih_l0.data`: the module's parameter now lives where that does."""
        holder = self.lookup(holder_name, state)
        if not isinstance(holder, Module) or holder.stateless:
            return
        where = join_device(holder.where, value.device) if isinstance(value, (Tensor, Located)) else None
        if where != holder.where:
            self.assign_name(holder_name, replace(holder, where=where), state, line)

    def module_member(self, value: Value, attr: str, line: cst.CSTNode) -> Value:
        """What storing `value` as a module's attribute makes of it: a module is registered; a plain
        tensor, or a plain list of modules, set while the module is built stays where it is."""
        if isinstance(value, Module):
            return replace(value, registered=True)
        if not self.frames.constructing:
            return value
        if isinstance(value, Tensor) and not value.parameter:
            cls = self._constructed_class()
            if cls is not None and cls.by_shape:
                return value  # a from-scratch model's weights: nothing registers them, nothing moves them
            if cls is not None and attr in self.tables.own_moves(cls):
                return replace(value, parameter=True)  # its class's own `to()` moves it with the module
            return replace(value, attr_node=line, attr_name=attr)  # a plain attribute: it will not move
        if isinstance(value, Seq):
            # (its items where known: their join, `elem`, is a module with weights unless all are weightless)
            members = list(value.items) if value.items is not None else [value.elem]
            holder = self._constructed_class()
            if holder is not None and by_shape(holder):
                return value  # a plain class's list (`Chain([Scale(2), Cos()])`): it registers nothing anyway
            node = holder.node if holder is not None else None
            if node is not None and attr in self.tables.syntax(registered_by_hand, node) \
                    or holder is not None and attr in self.tables.own_moves(holder):
                # its members are registered one by one in a loop over it, or moved by the class's own `cuda()`
                # (`self.mats = [m.cuda() for m in self.mats]`): they move with the module
                registered = map_members(value, lambda m: replace(m, parameter=True) if isinstance(m, Tensor) else m)
                return replace(cast(Seq, registered), hand_registered=True)
            if any(isinstance(m, Module) and not m.registered and not m.stateless for m in members):
                tag = (line, attr)
                mark: Callable[[Value], Value] = \
                    lambda m: replace(m, plain_container=tag) if isinstance(m, Module) else m  # noqa: E731
                return replace(value, plain_attr=tag, elem=mark(value.elem),
                               items=tuple(mark(m) for m in value.items) if value.items is not None else None)
        return value

    def _constructed_class(self) -> Optional[Class]:
        """The class whose method is being walked (its `__init__`, building it), if one of the file's."""
        fdef = self.frames.current_function
        fn = self.tables.functions.get(id(fdef)) if fdef is not None else None
        return self.tables.classes.get(fn.owner) if fn is not None and fn.owner else None

    def lookup(self, name: str, state: State) -> Value:
        value = state.env.get(name)
        if value is not None:
            return value
        if "." in name:
            base, _, attr = name.rpartition(".")
            return attribute(self, self.lookup(base, state), attr, state, name)
        names = self.frames.globals
        if name in names and state.env is not names:
            function = self.frames.current_function
            if function is not None and name in self.tables.syntax(local_names, function):
                return UNKNOWN  # assigned in the function, so local: read before that, it is no global's value
            return names[name]
        builtin = _BUILTINS.get(name)
        star_modules = self.tables.star_modules
        if builtin is None and star_modules and name in api.CONVENTIONAL_MODULE_NAMES:
            return Ref(path=api.CONVENTIONAL_MODULE_NAMES[name])  # `torch`, `nn` from `from utils import *`
        if builtin is None and star_modules and name[:1].isupper():
            return Ref(path=f"{star_modules[-1]}.{name}")  # a class from `from models import *`
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
            tensors = [Operand(o.node, replace(o.value, where=CPU), o.label)
                       if selected_is_cpu(o.value.device, state) else o for o in tensors]
        if len(tensors) >= 2:
            context = self.frames.context
            self.facts.emit(Operation(node, name, tuple(tensors), context, indexing))
            if any(classify(a.value, b.value, indexing, context.params_on_device)
                   for a, b in pairs(tensors, indexing)):
                return CRASHED  # reported once: nothing downstream of it is known
        if not tensors:
            return UNKNOWN
        self.facts.note_gpu_work(node, [t.value for t in tensors], state)
        return result_tensor(cast("list[Tensor]", [t.value for t in tensors]), reduce)

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
            if iterable.where is None and not iterable.host_items and not iterable.item_devices:
                return UNKNOWN
            note = "a DataLoader batch is on cpu" if iterable.where == CPU else ""
            batch = Tensor(why=iterable.why + ((node, note),), where=iterable.where, collated=True,
                           maybe_object=iterable.custom_collate)
            if iterable.host_items:
                return Seq(kind="tuple", items=tuple(HostArray(why=batch.why) if host else batch
                                                     for host in iterable.host_items))
            if iterable.item_devices:
                return Seq(kind="tuple", items=tuple(replace(batch, where=where) for where in iterable.item_devices))
            return batch
        if isinstance(iterable, Seq):
            if iterable.items is not None and iterable.kind != "dict":
                return join_all(list(iterable.items))
            return iterable.elem
        if isinstance(iterable, Tensor):
            # the steps of a cpu `torch.linspace(...)` are 0-dim: they combine with a tensor on any device
            steps = iterable.where is not None and iterable.where.kind == CPU.kind and _one_dim_made(iterable)
            return replace(iterable, scalar=steps, fresh=False, derived=True)
        if isinstance(iterable, Module):
            return iterable.element()  # iterating a ModuleList
        if isinstance(iterable, Located):
            return Located(where=iterable.where)
        return UNKNOWN

    # ------------------------------------------------------------ functions of this file

    def invoke(self, fn: Function, args: Args, node: cst.CSTNode, state: State,
               receiver_node: Optional[cst.CSTNode]) -> Value:
        return functions.invoke(self, fn, args, node, state, receiver_node)

    def read_property(self, fn: Function, node: cst.CSTNode, state: State) -> Value:
        return functions.invoke(self, fn, Args(), node, state, None, getter=True)

    def call_method_of(self, receiver: Value, name: str, values: list[Value], node: cst.CSTNode,
                       state: State) -> Value:
        """Call `receiver.name(*values)`, a method of a class of this file (UNKNOWN if it has none)."""
        tables = self.tables
        cls = tables.classes.get(getattr(receiver, "cls", None) or "")
        method = find_method(cls, name, tables.classes)
        fn = tables.functions.get(id(method)) if method is not None else None
        if fn is None:
            return UNKNOWN
        args = Args()
        args.positional = [(node, value) for value in values]
        return self.invoke(replace(fn, bound=receiver), args, node, state, None)

    def call_super(self, site: CallSite) -> Value:
        return functions.call_super(self, site)

    def class_object(self, cls: Class) -> Value:
        return functions.class_summary(self, cls)


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


def result_tensor(tensors: list[Tensor], reduce: bool = False) -> Tensor:
    """The result of an operation on `tensors` (which agree): on their device."""
    # The most telling operand: a 0-dim cpu one never decides (it goes wherever the other is, even a
    # place we do not know); then a known device over an unknown one, a concrete one over a parameter's.
    def rank(t: Tensor) -> tuple[bool, bool, bool, bool]:
        where = t.where
        return (
            not (t.scalar and where is not None and where.kind == "cpu"),
            where is not None,
            where is not None and where.concrete,
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
        inferred=all(t.inferred for t in tensors),  # `255 * mask` of a value that may be an array: may be one too
    )


def _plain_owner(tables: FileTables, fn: Function) -> bool:
    """A method of a class that is a module by its `forward` only (`class Adaline:`): its forward is a
    method like any other, analysed with its callers' arguments where the file calls it."""
    cls = tables.classes.get(fn.owner) if fn.owner else None
    return cls is not None and cls.by_shape


def _one_dim_made(tensor: Tensor) -> bool:
    """Made by a factory whose result is always 1-D (`torch.linspace`, `torch.arange`), as is?"""
    steps = [node for node, note in tensor.why  # past `tqdm(steps)` and the assignments that named it
             if FOLLOWS_INPUTS not in note and type(node) is not cst.SimpleStatementLine]
    if not steps:
        return False
    made = steps[-1]
    return type(made) is cst.Call and (dotted(made.func) or "").rsplit(".", 1)[-1] in api.ONE_DIM_FACTORIES
