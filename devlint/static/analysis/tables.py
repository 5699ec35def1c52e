"""What the walk learns of the file and keeps (`FileTables`), and the read-only questions about it that the
semantics handlers may ask (`FileQuestions`, the `FileView` of devlint.static.semantics.callsite)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, AbstractSet, Callable, Mapping, Optional, TypeVar, cast

import libcst as cst

from devlint.core.facts import Operand
from devlint.core.torch_catalogue import views as api
from devlint.core.values import Attributes, Class, Const, Function, Ref, Value
from devlint.static.analysis.definitions import (
    body_nodes, bound_to, derived_names, find_method, handed_to_members, host_params, moved_by_own_move,
    moved_on_entry, positional_names, sent_params)
from devlint.static.analysis.prepass import PrePass, Scope, opened_path, path_template
from devlint.static.analysis.slice_bounds import bound_only_params
from devlint.static.project.checkpoints import into_module_weights
from devlint.static.project.layout import Target
from devlint.static.syntax import LazyCode, argument_for, children, dotted

if TYPE_CHECKING:
    from devlint.core.facts import Context
    from devlint.core.values import Device, Module, Value
    from devlint.static.analysis.frames import Frames
    from devlint.static.analysis.project_imports import ProjectImports
    from devlint.static.analysis.summary import Summary
    from devlint.static.semantics.callsite import Args

    # functions.summarise's key: the function, its arguments, and the path conditions it depends on
    MemoKey = tuple[int, tuple[tuple[str, Value], ...], bool, bool, Optional[int], bool, tuple[bool, bool, bool],
                    tuple[bool, bool]]


_RELEASED = re.compile(api.RELEASED_CHECKPOINT_NAME)
T = TypeVar("T", bound=cst.CSTNode)
# how deep the walk follows calls into the functions it can see; past it, a helper of SMALL_FUNCTION_LINES
# statements or fewer still is (too_deep)
MAX_CALL_DEPTH = 6
SMALL_FUNCTION_LINES = 8


class FileTables:
    """The file's tables: what the walk learns of the file (and of the project modules it imports) and keeps
    for the rest of the walk. Each table has one writer:

    - made here and only read after: `module`, `project`, `prepass` (`imports._walk_module` adds an imported
      module's scopes and consumers to the pre-pass's tables);
    - the definitions, `statements.py` (`exec_function_def`, `exec_class_def`, `exec_import`), and
      `walked.replay` for a module walked before: `functions`, `classes`, `guarded_classes`,
      `defined_guarded`, `closures` (`imports._walk_module` too: an imported module's functions),
      `enclosing`, `star_modules`;
    - `Interpreter.store_attribute`: `dotted_bases`;
    - `Interpreter.run`, after the module level: `moved_at_end`, `module_default_device`;
    - `functions.py`, its memos: `memo`, `analysed`, `class_summaries`, `imported_layers`, and `demo_only`;
    - `standalone.py`, the attributes a class's setter methods give it: `late_attributes`;
    - `shared_self.py`, the memo of another module's methods that do the same to every object: `shared_memo`,
      and what each touches of its object: `self_attributes`;
    - `FileQuestions.self_placed_inputs`, its memo: `self_placed_params`;
    - `FileTables.syntax`, its memo of questions of a node's syntax alone: `syntax_memo`.
    """

    __slots__ = ("module", "project", "prepass", "functions", "classes", "guarded_classes", "defined_guarded",
                 "closures", "defaults", "enclosing", "star_modules", "dotted_bases", "moved_at_end",
                 "module_default_device", "memo", "analysed", "class_summaries", "self_placed_params",
                 "imported_layers", "demo_only", "shared_memo", "self_attributes", "_self_test_calls", "_literal_calls",
                 "_helper_saved", "_names_read", "syntax_memo", "late_attributes", "_own_moves", "_small",
                 "_set_from_outside")

    def __init__(self, module: cst.Module, project: Optional[ProjectImports]) -> None:
        self.module = module
        self.project = project  # the project's other modules, or None: this file alone
        self.prepass = PrePass(module)
        self._names_read: Optional[set[str]] = None
        # what a syntax question gave for a node, by (question, id(node))
        self.syntax_memo: dict[tuple[Callable[..., frozenset[str]], int], frozenset[str]] = {}
        self.functions: dict[int, Function] = {}  # id(FunctionDef) -> value
        self.classes: dict[str, Class] = {}
        self.guarded_classes: set[str] = set()  # decorated with a skip-unless-CUDA marker
        self.defined_guarded: set[int] = set()  # id(FunctionDef) of functions defined where CUDA was known
        self.closures: dict[int, dict[str, Value]] = {}  # id(FunctionDef) -> the names it sees around it
        # id(Param) -> what its default named when the `def` ran (`def plot(xs=X_train)`: the X_train of then)
        self.defaults: dict[int, Value] = {}
        self.enclosing: dict[int, Optional[str]] = {}  # id(nested FunctionDef) -> the function around it
        self.star_modules: list[str] = []  # the project's modules imported with `*`
        self.dotted_bases: set[str] = set()  # names whose attributes have entries of their own (`data.x`)
        self.moved_at_end: dict[int, Module] = {}  # the modules moved in place by the module level (functions see them)
        self.module_default_device: Optional[Device] = None  # torch.set_default_device at module level
        self.memo: dict[MemoKey, Summary] = {}  # functions.summarise: a function's body per arguments
        self.analysed: set[int] = set()  # id(FunctionDef) of the functions whose body was walked
        self.class_summaries: dict[str, Value] = {}  # class name -> `self` as its methods see it
        self.late_attributes: dict[str, Attributes] = {}  # class name -> what its setter methods give `self`
        self._own_moves: dict[str, set[str]] = {}  # class name -> the attributes its own `to`/`cuda` moves
        # id(FunctionDef) (and of the class running it) -> parameters it places itself
        self.self_placed_params: dict[object, set[str]] = {}
        self.imported_layers: dict[str, bool] = {}  # class name -> its __init__ builds a layer of an imported class
        # id(FunctionDef) -> whether every call of it so far is the module level's, given tensors made on the cpu
        # (a self-test under `if __name__ == "__main__":`): such a function is analysed standalone too
        self.demo_only: dict[int, bool] = {}
        self.shared_memo: dict[tuple[object, ...], Summary] = {}  # shared_self.shared_key -> the walk's summary
        # id(FunctionDef) -> the attributes it touches on `self`, None: it uses `self` otherwise
        self.self_attributes: dict[int, Optional[frozenset[str]]] = {}
        self._self_test_calls: Optional[set[int]] = None
        self._literal_calls: Optional[list[cst.Call]] = None
        self._helper_saved: Optional[frozenset[str]] = None
        self._small: dict[int, bool] = {}  # id(FunctionDef) -> small_function's answer
        self._set_from_outside: Optional[frozenset[str]] = None

    def own_moves(self, cls: Class) -> AbstractSet[str]:
        """`definitions.moved_by_own_move` of a class, read once per file (a module stores attributes many times)."""
        found = self._own_moves.get(cls.name)
        if found is None:
            found = self._own_moves[cls.name] = moved_by_own_move(cls, self.classes)
        return found

    def too_deep(self, depth: int, fdef: cst.FunctionDef) -> bool:
        """A call at this depth is not followed (its result unknown), but for a helper of a few lines: asteroid's
        `get_device(wav)` six calls down from a test, left unknown, made `input_device` read as a device chosen at
        run time. Recursion is never followed, so a chain of small helpers ends."""
        return depth >= MAX_CALL_DEPTH and (depth >= 2 * MAX_CALL_DEPTH or not self.small_function(fdef))

    def small_function(self, fdef: cst.FunctionDef) -> bool:
        """A function of a few lines: cheap enough to follow past the call depth."""
        found = self._small.get(id(fdef))
        if found is None:
            lines = 0
            for node in body_nodes(fdef):
                lines += type(node) is cst.SimpleStatementLine
                if lines > SMALL_FUNCTION_LINES:
                    break
            found = self._small[id(fdef)] = lines <= SMALL_FUNCTION_LINES
        return found

    def set_from_outside(self) -> AbstractSet[str]:
        """The attribute names the module assigns on another object than `self` (`self.func.drive = x[:, i]`,
        an owner setting its member's input before each call): made when first asked."""
        if self._set_from_outside is None:
            self._set_from_outside = frozenset(_set_from_outside(self.module))
        return self._set_from_outside

    def names_read(self) -> AbstractSet[str]:
        """The names the file reads somewhere (made when first asked: only an interval's end asks)."""
        if self._names_read is None:
            self._names_read = _names_read(self.module)
        return self._names_read

    def literal_calls(self) -> list[cst.Call]:
        """The calls of the module given a string literal (a path handed to a helper that saves there)."""
        if self._literal_calls is None:
            self._literal_calls = [call for call in _calls_in(self.module)
                                   if any(type(arg.value) is cst.SimpleString for arg in call.args)]
        return self._literal_calls

    def helper_saved(self) -> frozenset[str]:
        """The paths, as written (whitespace folded), that the file hands a function of its own that `torch.save`s to
        that parameter (`write_prompts(prompts_file)` of `def write_prompts(path): torch.save(prompts, path)`)."""
        if self._helper_saved is None:
            savers: dict[str, tuple[int, str]] = {}  # a saving function's name -> (its parameter's position, name)
            for fn in self.functions.values():
                fdef = cast(cst.FunctionDef, fn.node)
                names = positional_names(fdef)[1 if fn.owner else 0:]
                saved = self.prepass.scopes.get(id(fdef))
                for position, name in enumerate(names):
                    if saved is not None and name in saved.saved_to:
                        savers[fdef.name.value] = (position, name)
            found: set[str] = set()
            for call in _calls_in(self.module) if savers else ():
                callee = call.func.attr.value if type(call.func) is cst.Attribute else getattr(call.func, "value", None)
                given = argument_for(call, savers[callee][1], savers[callee][0]) if callee in savers else None
                if given is not None:
                    found.add(" ".join(self.module.code_for_node(given).split()))
            self._helper_saved = frozenset(found)
        return self._helper_saved

    def self_test_calls(self) -> AbstractSet[int]:
        """id() of the calls under the module's `if __name__ == "__main__":` (its self-test or demo)."""
        if self._self_test_calls is None:
            self._self_test_calls = set()
            for statement in self.module.body:
                if type(statement) is cst.If and _main_guard(statement.test):
                    self._self_test_calls.update(id(n) for n in _calls_in(statement.body))
        return self._self_test_calls

    def syntax(self, question: Callable[[T], frozenset[str]], node: T) -> frozenset[str]:
        """`question(node)` (a function of the node's syntax alone, `local_names`), asked once per node."""
        key = (question, id(node))
        found = self.syntax_memo.get(key)
        if found is None:
            found = self.syntax_memo[key] = question(node)
        return found

    def scope_of(self, node: Optional[cst.CSTNode]) -> Scope:
        """What the pre-pass learnt of a function (`node`), or of the module level (None)."""
        scopes = self.prepass.scopes
        return scopes.get(id(node) if node is not None else 0) or scopes[0]


def _main_guard(test: cst.BaseExpression) -> bool:
    """`__name__ == "__main__"`."""
    return type(test) is cst.Comparison and type(test.left) is cst.Name and test.left.value == "__name__" \
        and len(test.comparisons) == 1 and type(test.comparisons[0].operator) is cst.Equal \
        and type(test.comparisons[0].comparator) is cst.SimpleString \
        and test.comparisons[0].comparator.evaluated_value == "__main__"


def _calls_in(node: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Call:
            found.append(current)
        stack.extend(children(current))
    return found


def _set_from_outside(module: cst.Module) -> set[str]:
    found: set[str] = set()
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if type(node) is cst.Assign:
            found.update(t.target.attr.value for t in node.targets if type(t.target) is cst.Attribute
                         and not (type(t.target.value) is cst.Name and t.target.value.value == "self"))
        stack.extend(children(node))
    return found


def _names_read(module: cst.Module) -> set[str]:
    """Every name the module reads: any use but being bound (an assignment's plain target, a definition's or a
    parameter's name, an import's)."""
    read: set[str] = set()
    bound: set[int] = set()
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if type(node) is cst.Assign:
            bound.update(id(t.target) for t in node.targets if type(t.target) is cst.Name)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Param)):
            bound.add(id(node.name))
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            continue
        elif type(node) is cst.Name and id(node) not in bound:
            read.add(node.value)
        stack.extend(children(node))
    return read


class FileQuestions:
    """Read-only questions about the file and where the walk is in it: the `FileView` a semantics handler
    gets (`site.file`). It owns nothing; only `self_placed_inputs` fills a memo of the tables (and may have a
    project module read, through `member`, to see a helper it calls)."""

    __slots__ = ("_tables", "_frames", "_member")

    def __init__(self, tables: FileTables, frames: Frames,
                 member: Callable[[str, str], Optional[Value]] = lambda path, name: None) -> None:
        self._tables, self._frames = tables, frames
        self._member = member  # `M.name` of a project module `M` (imports.project_attribute: reads it if need be)

    @property
    def context(self) -> Context:
        return self._frames.context

    @property
    def classes(self) -> Mapping[str, Class]:
        return self._tables.classes

    @property
    def functions(self) -> Mapping[int, Function]:
        return self._tables.functions

    def globals(self) -> Mapping[str, Value]:
        """The module-level names of the module being walked."""
        return self._frames.globals

    def loop_depth(self) -> int:
        """How many loops of the current function the walk is in."""
        return len(self._frames.loops)

    def find_method(self, cls: Optional[Class], name: str) -> Optional[cst.FunctionDef]:
        return find_method(cls, name, self._tables.classes)

    def self_placed_inputs(self, fdef: cst.FunctionDef, args: Args, bound: bool) -> set[int]:
        """id() of the argument nodes of a call of `fdef` bound to parameters that it places itself: hands to a
        cpu-only argument (`pack_padded_sequence(x, lengths)`: a caller is right to keep those on the cpu), or
        sends to a device (`samples = samples.to(device=self.device)`: the caller's device does not matter)."""
        host = self.placed_params(fdef)
        if not host:
            return set()
        names = positional_names(fdef)[1 if bound else 0:]
        out = {id(node) for (node, _), name in zip(args.positional, names) if name in host}
        out.update(id(node) for name, (node, _) in args.keywords.items() if name in host)
        return out

    def handed_to_members(self, fdef: cst.FunctionDef) -> list[tuple[str, str, str]]:
        """(member, parameter, slot) for each parameter `fdef` only hands on to a member's call (definitions)."""
        return [cast("tuple[str, str, str]", tuple(entry.split("\t")))
                for entry in self._tables.syntax(handed_to_members, fdef)]

    def placed_params(self, fdef: cst.FunctionDef) -> set[str]:
        """`fdef`'s parameters it places itself: reads on the host, or sends to a device."""
        memo = self._tables.self_placed_params
        host = memo.get(id(fdef))
        if host is None:
            host = memo[id(fdef)] = self._host_params(fdef, None) | self._tables.scope_of(fdef).moved_names \
                | sent_params(fdef) | self._sent_by_helpers(fdef)
        return host

    def _host_params(self, fdef: cst.FunctionDef, owner: Optional[Class]) -> set[str]:
        """`fdef`'s parameters it uses only on the host, or only as bounds, or moves before any use; `owner`: the
        class whose object runs it (a subclass's, for a base class's method reached through `super()`), else the
        class it is defined in.
        (Only these pass through a submodule: one that sends a copy of its input to the GPU may still use the
        input where it is.)"""
        memo = self._tables.self_placed_params
        key = ("host", id(fdef), id(owner.node) if owner is not None else None)
        host = memo.get(key)
        if host is None:
            memo[key] = set()  # (a forward handing its input to a method of its own class: no loop)
            host = memo[key] = host_params(fdef) | bound_only_params(fdef, self._method_of(fdef)) \
                | moved_on_entry(fdef) | self._placed_by_members(fdef, owner)
        return host

    def _placed_by_members(self, fdef: cst.FunctionDef, owner: Optional[Class]) -> set[str]:
        """Parameters a module's method hands to a submodule of its object whose forward uses them on the host
        (`self.conv(x, lengths)`, where the conv's forward reads the lengths so), or to a method of its class or
        a base class (`super().forward(x, lengths)`) that does."""
        classes = self._tables.classes
        fn = self._tables.functions.get(id(fdef))
        home = self._module_env(fdef)  # (another module's: its names, not this file's, which may reuse them)
        named = home.get(fn.owner) if home is not None and fn is not None and fn.owner else None
        cls = owner or (named if isinstance(named, Class) else
                        classes.get(fn.owner) if fn is not None and fn.owner else None)
        init = find_method(cls, "__init__", classes) if cls is not None else None
        if cls is None or init is None:
            return set()
        members = _member_classes(init)
        env = self._tables.closures.get(id(init)) or home or self._frames.globals
        params = set(positional_names(fdef))
        found: set[str] = set()
        for call in _calls_in(fdef.body):
            callee, runner = self._member_callee(call.func, cls, members, env)
            if callee is None or callee is fdef:
                continue
            placed, names = self._host_params(callee, runner), positional_names(callee)[1:]
            found.update(arg.value.value for i, arg in enumerate(call.args)
                         if type(arg.value) is cst.Name and arg.value.value in params
                         and bound_to(arg, i, names) in placed)
        return found

    def _module_env(self, fdef: cst.FunctionDef) -> Optional[Mapping[str, Value]]:
        """The names of the project module that defines `fdef`, where that is another module than this file."""
        project = self._tables.project
        file = project.module_file.get(id(fdef)) if project is not None else None
        return project.envs.get(Target(None, file).key) if project is not None and file is not None else None

    def _member_callee(self, func: cst.BaseExpression, cls: Class, members: dict[str, str],
                       env: Mapping[str, Value]) -> tuple[Optional[cst.FunctionDef], Optional[Class]]:
        """What `self.conv(...)` (a submodule's forward), `self.step(...)` or `super().forward(...)` runs, and
        the class of the object that runs it (None: the callee's own)."""
        if type(func) is not cst.Attribute:
            return None, None
        classes, receiver, name = self._tables.classes, func.value, func.attr.value
        if type(receiver) is cst.Call and dotted(receiver.func) == "super":
            bases = [b for b in cls.bases if isinstance(b, Class) and b.node is not cls.node]
            return next((m for m in (find_method(b, name, classes) for b in bases) if m is not None), None), cls
        if type(receiver) is not cst.Name or receiver.value != "self":
            return None, None
        if name in members:
            member = env.get(members[name]) or classes.get(members[name])
            return (find_method(member, "forward", classes), None) if isinstance(member, Class) else (None, None)
        return find_method(cls, name, classes), cls

    def _sent_by_helpers(self, fdef: cst.FunctionDef) -> set[str]:
        """Parameters `fdef` hands to a function of the project that sends them to a device (`index =
        to_gpu(index)`, `at.totensor(rois)` of another module): where its caller put them does not matter."""
        derived, _ = derived_names(fdef, set(positional_names(fdef)))  # (`feats, n = graph; to_gpu(feats)`)
        env = self._tables.closures.get(id(fdef), self._frames.globals)
        found: set[str] = set()
        for call in _calls_in(fdef.body):
            handed = [(i, arg) for i, arg in enumerate(call.args)
                      if not arg.star and type(arg.value) is cst.Name and arg.value.value in derived]
            callee = self._function_at(call.func, env) if handed else None
            if callee is None or callee is fdef:
                continue
            sent, names = sent_params(callee), positional_names(callee)
            found.update(derived[cast(cst.Name, arg.value).value] for i, arg in handed
                         if bound_to(arg, i, names) in sent)
        return found

    def _method_of(self, fdef: cst.FunctionDef) -> Callable[[str], Optional[cst.FunctionDef]]:
        """The methods of fdef's class, by name."""
        fn = self._tables.functions.get(id(fdef))
        cls = self._tables.classes.get(fn.owner) if fn is not None and fn.owner else None
        return lambda name: find_method(cls, name, self._tables.classes) if cls is not None else None

    def _function_at(self, func: cst.BaseExpression, env: Mapping[str, Value]) -> Optional[cst.FunctionDef]:
        """The plain function a call's callee names: `to_gpu` of this module, `at.totensor` of a project module
        (read now if the walk has not read it yet, as a call of it would be); None for anything else (a method,
        a library's)."""
        if type(func) is cst.Name:
            value = env.get(func.value)
        elif type(func) is cst.Attribute and type(func.value) is cst.Name:
            ref = env.get(func.value.value)
            value = self._member(ref.path, func.attr.value) if isinstance(ref, Ref) else None
        else:
            return None
        return value.node if isinstance(value, Function) and value.owner is None and value.node is not None else None

    def tensor_names(self) -> set[str]:
        """Names the current function uses as only a tensor can be used."""
        return self._tables.scope_of(self._frames.current_function).tensor_names

    def converted_to_numpy(self, node: cst.CSTNode) -> bool:
        """Is the value of `node` turned into numpy right there (`torch.load(path).numpy()`)?"""
        scope = self._tables.scope_of(self._frames.current_function)
        return any(receiver is node for receiver in scope.numpy_receivers)

    def parameters(self) -> set[str]:
        """The names of the current function's parameters (none at module level)."""
        function = self._frames.current_function
        if function is None:
            return set()
        params = function.params
        every = (*params.posonly_params, *params.params, *params.kwonly_params, params.star_arg, params.star_kwarg)
        return {p.name.value for p in every if isinstance(p, cst.Param)}

    def moved_names(self) -> set[str]:
        """Names the current function sends to a device (`x.to(device)`)."""
        return self._tables.scope_of(self._frames.current_function).moved_names

    def moved_keys(self, name: str) -> Optional[set[object]]:
        """The keys of `name`'s items that the current function sends to a device (`batch["x"].to(device)`)."""
        scope = self._tables.scope_of(self._frames.current_function)
        return None if name in scope.filled_names else scope.moved_keys.get(name)

    def called_names(self) -> set[str]:
        """Names the current function calls (`session(x)`): objects, not tensors."""
        return self._tables.scope_of(self._frames.current_function).called_names

    def met_names(self) -> set[str]:
        """Names the current function moves something to meet: `p.add_(x.cuda())`."""
        return self._tables.scope_of(self._frames.current_function).met_names

    def module_names(self) -> set[str]:
        """Names used as only a module can be, in the current function or at module level."""
        tables = self._tables
        return tables.scope_of(self._frames.current_function).module_names | tables.prepass.scopes[0].module_names

    def clock_ends(self) -> AbstractSet[str]:
        return self._tables.scope_of(self._frames.current_function).clock_ends

    def in_test(self) -> bool:
        """Is the current function a test (`test_*`), or defined inside one, or called by one?"""
        frames = self._frames
        names = [frames.context.function or ""] + [name for _, name in frames.context.calls]
        if frames.current_function is not None:
            names.append(self._tables.enclosing.get(id(frames.current_function)) or "")
        return any(n.rsplit(".", 1)[-1].startswith("test") for n in names)

    def in_test_module(self) -> bool:
        """Is this file a test module (`test_*.py`, `*_test.py`, `conftest.py`, a file under `tests/`)? Its helpers
        read what its tests wrote, on the machine that runs them."""
        project = self._tables.project
        return project is not None and project.test_module()

    def saved_here(self, path: cst.CSTNode) -> bool:
        """Does this file `torch.save` to that path? The same expression anywhere (a pack hook saves to
        `name`, its unpack hook loads `name`), or a path with the same string parts (`"ckpt/%s_%d.pth" % ...`)."""
        tables = self._tables
        path = opened_path(cast(cst.BaseExpression, path))  # `torch.load(open(path, "rb"))`
        named = tables.prepass.assigned.get(path.value, ()) if type(path) is cst.Name else ()
        for expression in (path, *named[:len(named) == 1]):  # (`filename = os.path.join(d, NAME)` assigned once)
            if expression is path and self._callers_path(path):
                continue
            text = " ".join(tables.module.code_for_node(expression).split())
            if text in tables.prepass.saved_anywhere or text in tables.helper_saved():
                return True
        template = self._template(path)
        if bool(template) and template in tables.prepass.saved_templates:
            return True
        # `best = self._train(3)` ... `torch.load(best)`: the path a function of the file returns after saving to it;
        # `trainer.checkpoint_callback.best_model_path`: the checkpoint the run's trainer wrote
        source = named[0] if len(named) == 1 else path
        return type(source) is cst.Attribute and source.attr.value in api.RUN_CHECKPOINT_PATHS \
            or type(source) is cst.Call and self._returns_saved(source.func)

    def saves_to_memory(self) -> bool:
        """Does this file `torch.save` into an in-memory buffer (`buffer = io.BytesIO()`, `torch.save(x, buffer)`)?
        Then the bytes it loads through `io.BytesIO(data)` are the ones it wrote (a worker's results, sent back)."""
        prepass = self._tables.prepass
        return any(type(value) is cst.Call and (dotted(value.func) or "").endswith(_BUFFER)
                   for name in prepass.saved_anywhere for value in prepass.assigned.get(name, ()))

    def own_weights(self, load: cst.CSTNode, optimizer: Callable[[cst.BaseExpression], bool]) -> bool:
        """Does the load read weights into a module (`optimizer(receiver)`: known to be none) of a project whose
        every weights writer saves them from the cpu (project_imports.weights_written_from_cpu)?"""
        project = self._tables.project
        body = self._frames.current_function or self._tables.module
        return project is not None and into_module_weights(body, load, optimizer) \
            and project.weights_written_from_cpu()

    def _callers_path(self, path: cst.CSTNode) -> bool:
        """`def load(self, model_path): torch.load(model_path)`: a parameter of the loading function that it
        does not save to itself is whatever file its callers name, not the one another function saves to under a
        parameter of the same name (tez's `save(model_path)` and `load(model_path)`)."""
        current = self._frames.current_function
        # (as the pre-pass keeps a save's path: `str(path)`)
        written = " ".join(self._tables.module.code_for_node(path).split()) if type(path) is cst.Call else ""
        while type(path) is cst.Call and len(path.args) == 1 and dotted(path.func) in _PATH_WRAPPERS:
            path = path.args[0].value  # `torch.load(str(path))`: the parameter, as a string
        if type(path) is not cst.Name or current is None or id(current) not in self._tables.prepass.scopes:
            return False
        parameters = {param.name.value for param in [*current.params.params, *current.params.kwonly_params]}
        scope = self._tables.scope_of(current)  # (rebound: `if model_path is None: model_path = self.model_path`)
        return path.value in parameters and not {path.value, written} & scope.saved_to \
            and path.value not in scope.rebound_names

    def _returns_saved(self, func: cst.BaseExpression) -> bool:
        tables = self._tables
        callee = self._function_at(func, self._frames.globals)
        current = self._frames.current_function
        owner = tables.functions[id(current)].owner if current is not None and id(current) in tables.functions \
            else None
        if callee is None and owner is not None and type(func) is cst.Attribute and dotted(func.value) == "self":
            callee = find_method(tables.classes.get(owner), func.attr.value, tables.classes)
        if callee is None or id(callee) not in tables.prepass.scopes:
            return False
        saved = tables.scope_of(callee).saved_to
        return any(type(node) is cst.Return and type(node.value) is cst.Name and node.value.value in saved
                   for node in body_nodes(callee))

    def _template(self, path: cst.CSTNode) -> str:
        """The string parts of a path, of what it names where it is a name assigned once (`pred_fn =
        os.path.join(root, ".saved_pred_" + run_id)` ... `torch.load(pred_fn)`)."""
        named = self._tables.prepass.assigned.get(path.value, ()) if type(path) is cst.Name else ()
        return path_template(named[0] if len(named) == 1 else path)

    def released(self, path: cst.CSTNode, value: Value) -> bool:
        """Is the file named as published weights (`vgg16-397923af.pth`)? Those hold cpu tensors. Its value
        tells (`os.path.join(root, 'vgg16-...pth')` of strings, here or in a config module), else the string parts
        of the expression (an f-string with the file's name)."""
        text = value.value if isinstance(value, Const) and isinstance(value.value, str) else path_template(path)
        if text.endswith(api.DATASET_CACHE_FILES):
            return True  # torchvision's MNIST cache (`processed/test.pt`): the dataset's cpu tensors
        return _RELEASED.fullmatch(text.split("|")[-1].rsplit("/", 1)[-1]) is not None

    def saved_as(self, path: str) -> bool:
        """Does this file `torch.save` to that very path (a literal, given to the function that loads it), itself
        or through a function of the project it hands the path to (`train(..., best_model_save_path="best.pt")`)?"""
        return path in self._tables.prepass.saved_templates or self._saved_by_helper(path)

    def _saved_by_helper(self, path: str) -> bool:
        env = self._frames.globals
        for call in self._tables.literal_calls():
            handed = [(i, arg) for i, arg in enumerate(call.args)
                      if type(arg.value) is cst.SimpleString and arg.value.evaluated_value == path]
            callee = self._function_at(call.func, env) if handed else None
            if callee is None or id(callee) not in self._tables.prepass.scopes:
                continue
            saved = self._tables.scope_of(callee).saved_to
            names = positional_names(callee)
            if any(bound_to(arg, i, names) in saved for i, arg in handed):
                return True
        return False

    @property
    def nccl_backend(self) -> bool:
        """Does the file, or its project's launcher, set up its process group with NCCL (`backend="nccl"`,
        `args.dist_backend = "nccl"`)?"""
        project = self._tables.project
        return self._tables.prepass.nccl_backend or (project is not None and project.nccl_project())

    def saved_beside(self, path: cst.CSTNode) -> bool:
        """Does a script beside this one, or a module it imports, `torch.save` (no state dict) to a path with the
        same string parts?"""
        project = self._tables.project
        template = self._template(path)
        return project is not None and bool(template) and project.saved_beside(template)

    def project_module(self, path: str) -> bool:
        """Is `path` (`pkg.losses`) a module of the project, whatever its walk could tell of its names?"""
        project = self._tables.project
        return project is not None and path in project.targets

    def sets_gpu_default(self, path: str) -> bool:
        """Does the project module `path` make CUDA the default tensor type (what its builders build is on a GPU)?"""
        project = self._tables.project
        return project is not None and project.sets_gpu_default(path)

    def shipped(self, path: cst.CSTNode) -> bool:
        """Is the file one the package ships beside its code (`os.path.join(os.path.dirname(__file__), "rnet.pt")`,
        as written or assigned to the name loaded in this function)? Its authors' own loading code reads it
        as it is wherever the package runs, the cpu included."""
        if _mentions_file(path):
            return True
        fdef = self._frames.current_function
        if type(path) is not cst.Name or fdef is None:
            return False
        name = path.value
        return any(type(node) is cst.Assign and _mentions_file(node.value) and any(
            dotted(target.target) == name for target in node.targets) for node in body_nodes(fdef))

    def coarse(self, node: cst.CSTNode) -> bool:
        """Is what `node` computes rounded to whole seconds: given to `int()`, `round()` or `timedelta()`, itself
        or through the name it is assigned to (`total = time.time() - start` ... `timedelta(seconds=int(total))`)?"""
        prepass = self._tables.prepass
        if id(node) in prepass.coarse_nodes:
            return True
        assign = prepass.consumers.get(id(node))
        names = self._tables.scope_of(self._frames.current_function).coarse_names
        return type(assign) is cst.Assign and any(dotted(t.target) in names for t in assign.targets)

    def consumer(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The subtraction or assignment a call feeds."""
        return self._tables.prepass.consumers.get(id(node))

    def never_read(self, name: str) -> bool:
        return name not in self._tables.names_read()

    def code(self, node: cst.CSTNode) -> str:
        return LazyCode(self._tables.module, node)

    def operand(self, node: cst.CSTNode, value: Value) -> Operand:
        return Operand(node, value, LazyCode(self._tables.module, node))


_BUFFER = "BytesIO"
_PATH_WRAPPERS = frozenset({"str", "os.fspath", "Path", "pathlib.Path"})


def _member_classes(init: cst.FunctionDef) -> dict[str, str]:
    """`self.conv = MaskConv(...)` in an `__init__`: attribute -> the class name it is made from."""
    found: dict[str, str] = {}
    for node in body_nodes(init):
        if type(node) is cst.Assign and len(node.targets) == 1 and type(node.value) is cst.Call \
                and type(node.value.func) is cst.Name:
            target = node.targets[0].target
            if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == "self":
                found[target.attr.value] = node.value.func.value
    return found


def _mentions_file(node: cst.CSTNode) -> bool:
    """`__file__` anywhere in the expression."""
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.Name and current.value == "__file__":
            return True
        stack.extend(children(current))
    return False

