"""One fast walk over the whole module before the interpretation.

It collects what the flow-sensitive walk needs to know ahead of time: the names
called anywhere (a function called somewhere is analysed at its call sites),
per-function scopes (names used as only a tensor can be, names subtracted
from as clocks are, generators), and the expression each call feeds.
libcst's visitors are slow; this walks dataclass fields directly.
"""

from __future__ import annotations

import builtins
from typing import Any, Callable, Optional, Sequence, Union, cast

import libcst as cst

from devlint.core.torch_catalogue import views as api
from devlint.static.analysis.launchers import is_nccl as _is_nccl, sets_up_nccl
from devlint.static.semantics.containers import const_key
from devlint.static.syntax import GETTERS, NODE_KINDS, attr_path, children, dotted, field_getter, target_names


class Scope:
    """What the pre-pass knows about the names of one function (or the module)."""

    __slots__ = ("tensor_names", "host_names", "module_names", "moved_names", "clock_ends", "generator", "called_names",
                 "library_calls", "keyword_inputs", "saved_to", "met_names", "compared_names",
                 "numpy_receivers", "nccl_setup", "converted_names", "_conversions", "coarse_names", "size_names",
                 "_sizes", "filled_names", "rebound_names", "_through_calls", "global_names", "moved_keys")

    def __init__(self) -> None:
        self.tensor_names: set[str] = set()  # used in a way only a tensor can be
        self.host_names: set[str] = set()  # handed to numpy, PIL or OpenCV: host data
        self.module_names: set[str] = set()  # used as only an nn.Module can be (`.eval()`, `.parameters()`)
        self.called_names: set[str] = set()  # called (`session(x)`): no tensor, whatever a guess said
        self.moved_names: set[str] = set()  # sent to a device: `x.to(device)`, `x.cuda()`
        # what a move is made to meet: `p.add_(x.cuda())`, `p + x.cuda()` move x to where p already is
        self.met_names: set[str] = set()
        self.numpy_receivers: list[cst.CSTNode] = []  # `<e>.numpy()`: each e
        self.clock_ends: set[str] = set()  # left operand of a subtraction: `end - start`
        self.generator = False
        # (callee's dotted name, names of its arguments), resolved after the walk
        self.library_calls: list[tuple[str, list[str]]] = []
        # (callee `m` of `m(k=x)` or `m.forward(k=x)`, the dotted names given by keyword), resolved after the walk
        self.keyword_inputs: list[tuple[str, list[str]]] = []
        self.saved_to: set[str] = set()  # the source text of where `torch.save` writes (`path`, `buf`, `"m.pt"`)
        # its body sets up an NCCL group, whatever the path (`init_process_group("nccl")` at its top level): it
        # runs with GPUs, before that call too (DETR's `set_device(gpu)` comes first)
        self.nccl_setup = False
        # rebound to a tensor made of themselves (`bounds = torch.tensor(bounds)`): as a parameter, data to
        # convert; what the body does with the name afterwards tells nothing of what the caller gives
        self.converted_names: set[str] = set()
        self._conversions: list[tuple[str, str]] = []  # (name, callee) of each `name = callee(name, ...)`
        # rounded to whole seconds (`int(elapsed)`, `timedelta(seconds=elapsed)`): a run's length, not a benchmark
        self.coarse_names: set[str] = set()
        # names in a size a torch factory is given (`torch.arange(height * width)`): numbers, not tensors
        self.size_names: set[str] = set()
        self._sizes: list[tuple[str, cst.BinaryOperation]] = []  # (callee, an arithmetic positional argument)
        # (callee, names given to a function whose result the argument is, with no copy to the host between):
        # `plt.imshow(denorm(img).permute(1, 2, 0))` hands `img` to matplotlib as it is
        self._through_calls: list[tuple[str, list[str]]] = []
        self.filled_names: set[str] = set()  # whose items are written: `d["x"] = ...`, `batch[k] = ...`
        self.rebound_names: set[str] = set()  # assigned as a whole: `d = {}`
        # the keys of a name's items sent to a device: `batch["image"].to(device)` (None: a computed key)
        self.moved_keys: dict[str, set[object]] = {}
        self.global_names: set[str] = set()  # declared `global`
        # compared with a number where a branch is taken (`if sigma_min <= 0:`): one value, a number as a rule
        self.compared_names: set[str] = set()


class PrePass:
    """Called names, per-function scopes, and the subtraction or assignment each call feeds."""

    def __init__(self, module: cst.Module) -> None:
        self.called_names: set[str] = set()
        # called as a function of this file may be: `name(...)`, `self.name(...)`, `cls.name(...)` (not
        # `self.model.train()`, a member's method)
        self.own_called: set[str] = set()
        self.passed_names: set[str] = set()  # names handed to a call as arguments (callbacks, hooks, collate_fn)
        self.scopes: dict[int, Scope] = {0: Scope()}  # id(FunctionDef) -> scope; 0: the module
        self.consumers: dict[int, cst.CSTNode] = {}  # id(call) -> the subtraction or assignment it feeds
        self.coarse_nodes: set[int] = set()  # id() of what `int(...)`, `round(...)`, `timedelta(...)` are given
        self.imports: dict[str, str] = {}  # a name bound by an import anywhere -> its dotted path
        # Evidence that the file means to run without a GPU too: strong (an availability check, a device
        # option, a GPU switch), weak (a device variable, `x.device`: a hardcoded one is a device variable
        # too); a multi-GPU program (DataParallel, DDP, NCCL) needs strong evidence.
        self.strong_evidence = self.weak_evidence = self.multi_gpu = False
        # the device variables weak evidence rests on (`.to(device)`), and per device-named target whether every
        # assignment to it is a cuda constant (`device = torch.device("cuda")`); evidence of another kind
        self._device_variables: set[str] = set()
        self._cuda_constant: dict[str, bool] = {}
        self._other_weak_evidence = False
        self._placement_tests: list[tuple[str, Scope]] = []  # (x, its scope) of each `if x.is_cuda:`
        self._device_attributes: list[cst.Attribute] = []  # `x.device`: evidence unless x is a module (`torch.device`)
        self.saved_templates: set[str] = set()  # the string parts of where torch.save writes, anywhere
        self.saved_anywhere: set[str] = set()  # where torch.save writes, as written, anywhere in the file
        # a plain name -> what it is assigned anywhere, where that may be a path (`pred_fn = os.path.join(...)`)
        self.assigned: dict[str, list[cst.BaseExpression]] = {}
        self._opened: dict[str, cst.BaseExpression] = {}  # `with open(path, "wb") as f`: f -> path
        self._other_saves: list[tuple[str, cst.Call, Scope]] = []  # `x.save(...)` calls, torch's under another name?
        self.nccl_backend = False  # "nccl" is given to a call or assigned: the process group is NCCL's
        self.gpu_default_switch = False  # the default device may be switched to a GPU (`torch.set_default_device`)
        self.built_by: dict[str, str] = {}  # a name -> the callee whose call it was assigned (`nn.MSELoss`)
        self._trains: dict[int, bool] = {}  # id(loop body) -> has_training_call
        # (nodes, their scope): a function's body has its own
        self.scopes[0].nccl_setup = sets_up_nccl(module.body)
        pending: list[tuple[list[cst.CSTNode], Scope]] = [([module], self.scopes[0])]
        while pending:
            roots, scope = pending.pop()
            self._walk(roots, scope, pending)
        for scope in self.scopes.values():
            self._resolve_library_calls(scope)
        # the module-level names a function declares `global` and assigns (`global device; device = ...`): which
        # binding another function reads depends on whether that one ran first, which no walk of the module's
        # statements can tell (read now: the scopes of imported modules join these later)
        self.rebound_globals = frozenset(
            name for key, scope in self.scopes.items() if key for name in scope.global_names & scope.rebound_names)
        for callee, call, scope in self._other_saves:
            if self._path_of(callee) in api.SAVE or callee in api.FILE_MOVES and self.saved_anywhere:
                self._note_save(call, scope)
        # only attributes of a dotted name are kept
        if any(cast(str, dotted(node.value)).split(".")[0] not in self.imports for node in self._device_attributes):
            self.weak_evidence = self._other_weak_evidence = True

    def _walk(self, roots: list[cst.CSTNode], scope: Scope, pending: list[tuple[list[cst.CSTNode], Scope]]) -> None:
        notes, getters, pruned = _NOTES, GETTERS, _PRUNED  # by exact type: isinstance goes through ABCMeta
        stack = list(roots)
        push, extend = stack.append, stack.extend
        while stack:
            node = stack.pop()
            kind = type(node)
            if kind in pruned:
                continue
            if kind is cst.If and _never(cast(cst.If, node).test):
                if cast(cst.If, node).orelse is not None:  # `if False:` (a debug print switched off): dead code
                    push(cast(cst.CSTNode, cast(cst.If, node).orelse))
                continue
            if kind is cst.FunctionDef:
                fdef = cast(cst.FunctionDef, node)
                inner = self.scopes[id(node)] = Scope()
                inner.nccl_setup = sets_up_nccl(fdef.body.body)
                pending.append((children(fdef.body), inner))
                extend(fdef.decorators)
                push(fdef.params)
                continue
            note = notes.get(kind)
            if note is not None:
                note(self, node, scope)
            getter = getters.get(kind) or field_getter(kind, node)
            for value in getter(node):  # children(node), inlined: the hottest loop of the pre-pass
                value_kind = type(value)
                if value_kind is tuple or value_kind is list:
                    extend(value)
                elif value_kind in NODE_KINDS and value_kind not in pruned:
                    push(value)

    def trains(self, body: cst.CSTNode) -> bool:
        """has_training_call, once per loop body: a loop is walked again each time its function is."""
        known = self._trains.get(id(body))
        if known is None:
            known = self._trains[id(body)] = has_training_call(body)
        return known

    @property
    def cpu_evidence(self) -> bool:
        """Does the file show it means to run without a GPU too?"""
        return self.strong_evidence or self._switched() or (self.weak_evidence and not self.multi_gpu)

    @property
    def only_cuda_variables(self) -> bool:
        """Are device variables that only ever hold cuda constants (`device = torch.device("cuda")`, `cuda:{rank}`)
        all the file shows of running without a GPU? Such a variable is a hardcoded GPU under a name."""
        return self.cpu_evidence and not self.strong_evidence and not self._switched() \
            and not self._other_weak_evidence and bool(self._device_variables) \
            and all(self._cuda_constant.get(name) is True for name in self._device_variables)

    def _switched(self) -> bool:
        return any(base not in scope.tensor_names for base, scope in self._placement_tests)

    def _note_call(self, node: cst.Call, scope: Scope) -> None:
        func = node.func
        kind = type(func)
        callee: Optional[str] = None
        if kind is cst.Name:
            callee = cast(cst.Name, func).value
            self.called_names.add(callee)
            self.own_called.add(callee)
            scope.called_names.add(callee)
        elif kind is cst.Attribute:
            callee = self._note_method_call(node, cast(cst.Attribute, func), scope)
        names: list[Optional[str]] = []  # the dotted names among the positional arguments, and in lists or tuples there
        keywords: list[str] = []  # the dotted names given by keyword
        for arg in node.args:  # one pass: every call in the file comes here
            value = arg.value
            value_kind = type(value)
            if value_kind is cst.Name:
                self.passed_names.add(cast(cst.Name, value).value)
            elif value_kind is cst.SimpleString and _is_nccl(value):
                self.nccl_backend = True  # `init_process_group("nccl")`, `add_argument(..., default="nccl")`
            if callee is None or arg.star:
                continue
            if arg.keyword is not None:
                keyword = dotted(value) if value_kind is cst.Name or value_kind is cst.Attribute else None
                if keyword:
                    keywords.append(keyword)
                continue
            if value_kind is cst.Name or value_kind is cst.Attribute:
                names.append(dotted(value))
            elif value_kind is cst.BinaryOperation:
                scope._sizes.append((callee, cast(cst.BinaryOperation, value)))
            elif value_kind is cst.Call:
                given = _given_as_is(cast(cst.Call, value))
                if given:
                    scope._through_calls.append((callee, given))
            elif value_kind is cst.List or value_kind is cst.Tuple:
                names.extend(dotted(element.value) for element in cast("Union[cst.List, cst.Tuple]", value).elements)
        self._note_evidence(node, callee, scope)
        if callee:
            scope.library_calls.append((callee, [n for n in names if n]))
            if keywords:
                scope.keyword_inputs.append((callee[:-len(api.FORWARD_SUFFIX)] if callee.endswith(api.FORWARD_SUFFIX)
                                             else callee, keywords))
            if callee.endswith("save") and callee.rsplit(".", 1)[0] in ("torch", "th"):
                self._note_save(node, scope)
            elif callee.endswith(".save") or callee in api.FILE_MOVES:
                # `t.save` of `import torch as t`: told once the imports are all read (a file moved into place,
                # `os.replace(tmp, path)`, is saved there where the file saves one)
                self._other_saves.append((callee, node, scope))
            elif callee.rsplit(".", 1)[-1] in api.SETS_DEFAULT_DEVICE and _to_gpu_default(node):
                self.gpu_default_switch = True

    def _note_method_call(self, node: cst.Call, func: cst.Attribute, scope: Scope) -> Optional[str]:
        """`base.attr(...)`: what it shows of `base` (a module, moved, converted to numpy); its dotted callee."""
        attr = func.attr.value
        self.called_names.add(attr)
        base = dotted(func.value)
        if base in ("self", "cls"):
            self.own_called.add(attr)
        to_numpy = attr == "numpy"
        if to_numpy:
            scope.numpy_receivers.append(func.value)
        if not base:
            held = dotted(func.value.value) if type(func.value) is cst.Subscript else None
            if held and device_move(node):  # `batch["image"].to(device)`
                scope.moved_keys.setdefault(held, set()).add(const_key(cast(cst.Subscript, func.value)))
            return None
        if to_numpy:
            scope.host_names.add(base)
        elif attr in api.MODULE_ONLY_METHODS:
            scope.module_names.add(base)
        elif device_move(node):
            scope.moved_names.add(base)
        if attr in api.TENSOR_ONLY_ATTRS and base != "self":  # (`self.new()`: a class's own method)
            scope.tensor_names.add(base)  # `x.dim()`: only a tensor has the method
        if any(_moved_name(arg.value) for arg in node.args):
            scope.met_names.add(base)
        return f"{base}.{attr}"

    def _note_evidence(self, node: cst.Call, callee: Optional[str], scope: Scope) -> None:
        """What a call shows of the file's intent (a device option, a device variable) and of its clocks (a
        duration rounded to whole seconds)."""
        if callee in api.WHOLE_SECONDS_CALLS and len(node.args) == 1 or (callee or "").endswith(api.TIMEDELTA):
            for arg in node.args:
                self.coarse_nodes.add(id(arg.value))
                if type(arg.value) is cst.Name:
                    scope.coarse_names.add(arg.value.value)
        choice = _device_choice(node)
        if choice == "option":
            self.strong_evidence = True
        elif choice == "count":
            self.weak_evidence = self._other_weak_evidence = True
        elif choice is not None:
            self.weak_evidence = True
            self._device_variables.add(choice)

    def _note_with(self, node: cst.With, scope: Scope) -> None:
        for item in node.items:
            if item.asname is not None and type(item.asname.name) is cst.Name:
                opened = opened_path(item.item)
                if opened is not item.item:
                    self._opened[item.asname.name.value] = opened

    def _note_save(self, node: cst.Call, scope: Scope) -> None:
        target = _save_target(node)
        if type(target) is cst.Name and target.value in self._opened:
            # `torch.save(model, f)` in `with open(path, "wb") as f:`: written to `f` (a load from a handle of that
            # name reads it back) and to `path`
            self.saved_anywhere.add(target.value)
            target = self._opened[target.value]
        target = opened_path(target) if target is not None else None
        if target is not None:
            scope.saved_to.add(_source(target))
            self.saved_anywhere.add(_source(target))
            template = path_template(target)
            if template:
                self.saved_templates.add(template)

    def _note_test(self, node: cst.If | cst.IfExp | cst.While, scope: Scope) -> None:
        for comparison in _comparisons(node.test):
            sides = [comparison.left] + [c.comparator for c in comparison.comparisons]
            if any(type(side) in (cst.Integer, cst.Float) for side in sides):
                scope.compared_names.update(side.value for side in sides if type(side) is cst.Name)
        test = dotted(node.test.expression if type(node.test) is cst.UnaryOperation else node.test)
        last = (test or "").rsplit(".", 1)[-1]
        if last == api.TENSOR_PLACEMENT_TEST and "." in (test or ""):
            # `if not x.is_cuda: x = x.cuda()` asks where a tensor is (GPU-first code), `if args.is_cuda:` is a
            # switch: which one is told by what x is, known once the whole file is read
            self._placement_tests.append(((test or "").rsplit(".", 1)[0], scope))
        elif last.lower() in api.GPU_COUNT_NAMES:
            self.weak_evidence = True  # `if args.gpus > 1:` how many GPUs, often a switch for DDP only
        elif api.flag_polarity(last) is not None:
            self.strong_evidence = True  # `if args.cuda:` a switch for the GPU

    def _note_attribute(self, node: cst.Attribute, scope: Scope) -> None:
        if node.attr.value == "device" and dotted(node.value):
            self._device_attributes.append(node)
        name = dotted(node.value) if node.attr.value in api.TENSOR_ONLY_PROPERTIES else None  # (called: a method's)
        if name:
            scope.tensor_names.add(name)

    def _note_subscript(self, node: cst.Subscript, scope: Scope) -> None:
        # `x[:, 0]`, `x[..., 1:]`: an index of several dimensions (a list takes one; `steps[:-1]` may be a list)
        name = dotted(node.value) if len(node.slice) > 1 else None
        if name:
            scope.tensor_names.add(name)

    def _note_binary(self, node: cst.BinaryOperation, scope: Scope) -> None:
        for one, other in ((node.left, node.right), (node.right, node.left)):
            met = dotted(other) if _moved_name(one) else None
            if met:
                scope.met_names.add(met)
        if type(node.operator) is cst.Subtract:
            name = dotted(node.left)
            if name:
                scope.clock_ends.add(name)
            if type(node.left) is cst.Call:
                self.consumers[id(node.left)] = node
            left = node.left
            if type(left) is cst.BinaryOperation and type(left.operator) is cst.Add and type(left.right) is cst.Call:
                self.consumers[id(left.right)], self.consumers[id(left)] = left, node  # `total + time() - t0`
        if type(node.operator) in _ARRAY_ONLY_OPERATORS:
            for operand in (node.left, node.right):  # `bounds[3:] - bounds[:3]`: no list subtracts
                sliced = dotted(operand.value) if type(operand) is cst.Subscript and any(
                    type(element.slice) is cst.Slice for element in operand.slice) else None  # (not `cfg["dim"]`)
                if sliced:
                    scope.tensor_names.add(sliced)

    def _note_global(self, node: cst.Global, scope: Scope) -> None:
        scope.global_names.update(name.name.value for name in node.names)

    def _note_assign(self, node: cst.Assign, scope: Scope) -> None:
        if len(node.targets) == 1 and type(node.targets[0].target) is cst.Name and type(node.value) in _PATH_SHAPES:
            self.assigned.setdefault(node.targets[0].target.value, []).append(node.value)
        for assigned in node.targets:
            if type(assigned.target) is cst.Subscript and type(assigned.target.value) is cst.Name:
                scope.filled_names.add(assigned.target.value.value)
            else:
                scope.rebound_names.update(target_names(assigned.target))  # `d = {}`, `d, n = ...`
            name = dotted(assigned.target)
            if name and api.looks_like_device_name(name):
                self._cuda_constant[name] = self._cuda_constant.get(name, True) and _is_cuda_constant(node.value)
        if type(node.value) is cst.BinaryOperation:
            self.consumers[id(node.value)] = node  # `elapsed = time.time() - start`
        if _is_nccl(node.value):
            self.nccl_backend = True  # `args.dist_backend = "nccl"`
        elif type(node.value) is cst.Call:
            self.consumers[id(node.value)] = node
            call = node.value
            while type(call.func) is cst.Attribute and type(call.func.value) is cst.Call:
                call = call.func.value  # `nn.CrossEntropyLoss().to(device)`
            target, built = dotted(node.targets[0].target), dotted(call.func)
            if len(node.targets) == 1 and target and built:
                self.built_by[target] = built  # `criterion = nn.CrossEntropyLoss()`
                if call is node.value and call.args and call.args[0].keyword is None \
                        and dotted(call.args[0].value) == target:
                    scope._conversions.append((target, built))

    def _note_yield(self, node: cst.Yield, scope: Scope) -> None:
        scope.generator = True

    def _note_import(self, node: cst.Import | cst.ImportFrom, scope: Optional[Scope] = None) -> None:
        if type(node) is cst.Import:  # (an import's `as` name is a Name)
            for alias in node.names:
                full = attr_path(alias.name)
                self.imports[cast(cst.Name, alias.asname.name).value if alias.asname else full.split(".")[0]] = \
                    full if alias.asname else full.split(".")[0]
        elif type(node) is cst.ImportFrom and not node.relative and node.module is not None \
                and type(node.names) is not cst.ImportStar:
            module = attr_path(node.module)
            for alias in cast("Sequence[cst.ImportAlias]", node.names):
                name = attr_path(alias.name)
                self.imports[cast(cst.Name, alias.asname.name).value if alias.asname else name] = f"{module}.{name}"

    def _resolve_library_calls(self, scope: Scope) -> None:
        """Arguments of torch's operations are tensors; arguments of numpy, PIL, OpenCV are host data."""
        for callee, names in scope.library_calls:
            path = self._path_of(callee)
            if path in api.DEVICE_CHECKS:
                self.strong_evidence = True
            elif path in api.MULTI_GPU:
                self.multi_gpu = True
            if path.startswith(api.HOST_LIBRARY_PREFIXES) or self._host_object(callee):
                scope.host_names.update(names)
            elif is_tensor_operation(path) or self._torch_module(callee):
                scope.tensor_names.update(names)  # what torch computes on, or a torch module is given
            elif path in api.SIZED_FACTORIES:
                scope.size_names.update(name for name in names if "." not in name)  # `torch.zeros(n)`
        scope.library_calls = []
        for callee, names in scope._through_calls:
            if self._path_of(callee).startswith(api.HOST_LIBRARY_PREFIXES) or self._host_object(callee):
                scope.host_names.update(names)
        scope._through_calls = []
        for callee, size in scope._sizes:
            if self._path_of(callee) in api.SIZED_FACTORIES:
                scope.size_names.update(_arithmetic_names(size))
        scope._sizes = []
        for name, callee in scope._conversions:
            if self._path_of(callee) in api.DATA_FOLLOWING_FACTORIES:
                scope.converted_names.add(name)
        scope._conversions = []
        for callee, names in scope.keyword_inputs:
            if callee in scope.module_names:
                # `model(input_ids=ids)`, `model.forward(x=batch)`: a module's named inputs are tensors (an object
                # whose `.to()` moves it in place, a BatchEncoding, is handed over as `**inputs`)
                scope.tensor_names.update(n for n in names if n not in scope.module_names)
        scope.keyword_inputs = []

    def _path_of(self, callee: str) -> str:
        """The dotted path a call's callee names, its first name resolved through the file's imports."""
        head, _, rest = callee.partition(".")
        return self.imports.get(head, head) + ("." + rest if rest else "")

    def _host_object(self, callee: str) -> bool:
        """`ax.imshow` of `ax = plt.gca()`: a method of an object a host library built takes host data."""
        base = callee.rpartition(".")[0]
        built = self.built_by.get(base) if base else None
        return built is not None and self._path_of(built).startswith(api.HOST_LIBRARY_PREFIXES)

    def _torch_module(self, callee: str) -> bool:
        """Is `callee` a name the file binds to a torch.nn module (`criterion = nn.MSELoss()`)?"""
        built = self.built_by.get(callee)
        if built is None:
            return False
        head, _, rest = built.partition(".")
        path = self.imports.get(head, head) + ("." + rest if rest else "")
        return path.startswith("torch.nn.") and path.rsplit(".", 1)[-1][:1].isupper()


_EMPTY = cst.Module(body=[])
_CPU_OPTIONS = api.DEVICE_OPTIONS - api.GPU_COUNT_NAMES  # options that choose the device (a count does not)


def _to_gpu_default(call: cst.Call) -> bool:
    """`torch.set_default_device(device)`, `torch.set_default_tensor_type("torch.cuda.FloatTensor")`: a switch
    that may make the default a GPU (not `set_default_device("cpu")`, `set_default_tensor_type(torch.DoubleTensor)`)."""
    if not call.args:
        return False
    text = cst.Module([]).code_for_node(call.args[0].value).lower()
    if (dotted(call.func) or "").endswith(api.TENSOR_TYPE_SWITCH):
        return api.CUDA_TYPE in text
    return text.strip("'\"") != api.CPU_TYPE


def _save_target(call: cst.Call) -> Optional[cst.BaseExpression]:
    """Where `torch.save(obj, f)` writes: its second positional argument or `f=`."""
    target = [a.value for a in call.args if a.keyword is None][1:2] or \
        [a.value for a in call.args if a.keyword is not None and a.keyword.value == "f"]
    return target[0] if target else None


def _names_in(node: cst.CSTNode) -> set[str]:
    """The names a saved value holds as they are (`{'generator': generator}`), not those it reads from
    (`model.embedding.weight.data.cpu()` holds a host copy, not `model`)."""
    stack, names = [node], set()
    while stack:
        item = stack.pop()
        if type(item) is cst.Name:
            names.add(item.value)
        elif type(item) not in (cst.Attribute, cst.Call, cst.Subscript):
            stack.extend(children(item))
    return names


def _state_dict_of(saved: cst.BaseExpression) -> Optional[str]:
    """`net` of `net.state_dict()`."""
    if type(saved) is cst.Call and type(saved.func) is cst.Attribute and type(saved.func.value) is cst.Name:
        return saved.func.value.value
    return None


def opened_path(node: cst.BaseExpression) -> cst.BaseExpression:
    """The path of `open(path, "rb")`: the file a handle reads or writes (else the expression itself)."""
    if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "open" and node.args \
            and node.args[0].keyword is None:
        return node.args[0].value
    return node


def path_template(node: cst.CSTNode) -> str:
    """The string parts of a path expression, in order (`"ckpt/%s_%d.pth" % (name, epoch)` ->
    `ckpt/%s_%d.pth`): two paths with the same parts name the same kind of file (a handle's mode aside)."""
    if isinstance(node, cst.BaseExpression):
        node = opened_path(node)
    parts: list[str] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.SimpleString:
            parts.append(current.value.strip("'\"rbRBuUfF"))
        elif type(current) is cst.FormattedStringText:
            parts.append(current.value)
        else:
            stack.extend(reversed(children(current)))
    text = "|".join(parts)
    if text.startswith("./"):
        text = text[2:]  # `'./model.pth'` is `'model.pth'`
    if not any(c.isalnum() for c in text):
        # no string in it: `tmp.name`, `self.ckpt_path`: the attribute names the kind of file; so does the
        # project's helper that builds it (`ckpt_path(epoch)`, `self.path_for(step)`), not a library's
        if type(node) is cst.Attribute:
            return f".{node.attr.value}"
        helper = dotted(node.func) if type(node) is cst.Call else None
        own = helper is not None and ("." not in helper and helper not in _BUILTIN_NAMES or helper.startswith("self."))
        return f"{helper}()" if own else ""
    return text


_BUILTIN_NAMES = frozenset(dir(builtins))


def _source(node: cst.CSTNode) -> str:
    return " ".join(_EMPTY.code_for_node(node).split())


def _moved_name(node: cst.CSTNode) -> bool:
    """`x.cuda()`, `x.to(device)` of a dotted name."""
    return type(node) is cst.Call and type(node.func) is cst.Attribute and dotted(node.func.value) is not None \
        and device_move(node)


def device_move(call: cst.Call) -> bool:
    """`x.cuda()`, `x.to(device)`, `x.to("cuda")`, `x.to(device=d)`: not a dtype change."""
    attr = cast(cst.Attribute, call.func).attr.value  # a method call
    if attr in api.MOVES_TO_GPU:
        return True
    if attr not in api.MOVES_TO_ARGUMENT or not call.args:
        return False
    arg = call.args[0]
    if arg.keyword is not None:  # `x.to(dtype=torch.float64, device=d)`
        return any(a.keyword is not None and a.keyword.value == "device" for a in call.args)
    if type(arg.value) is cst.SimpleString:
        return api.CUDA_TYPE in arg.value.value or api.MPS_TYPE in arg.value.value
    name = dotted(arg.value)
    return bool(name) and api.looks_like_device_name(cast(str, name))


def _device_choice(call: cst.Call) -> Optional[str]:
    """"option" for `parser.add_argument("--no-cuda")`, "count" for `--gpus N`; the variable's name for
    `.to(device)`, `zeros(..., device=args.device)`; None for anything else."""
    func = call.func
    if type(func) is cst.Attribute and func.attr.value == "add_argument":
        flags = {arg.value.value.strip("'\"").lstrip("-").replace("-", "_").lower()
                 for arg in call.args if type(arg.value) is cst.SimpleString}
        return "option" if flags & _CPU_OPTIONS else "count" if flags & api.GPU_COUNT_NAMES else None
    candidates = [a.value for a in call.args if a.keyword is not None and a.keyword.value == "device"]
    if type(func) is cst.Attribute and func.attr.value == "to" and call.args:
        candidates.append(call.args[0].value)
    return next((name for name in map(dotted, candidates) if name and api.looks_like_device_name(name)), None)


def _never(test: cst.BaseExpression) -> bool:
    """`False`, `0`: a test that never holds."""
    return type(test) is cst.Name and test.value == "False" or type(test) is cst.Integer and test.value == "0"


def _arithmetic_names(node: cst.BaseExpression) -> list[str]:
    """The plain names an arithmetic expression of names and numbers combines (`height * width + 1`)."""
    found: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.BinaryOperation:
            stack.extend((current.left, current.right))
        elif type(current) is cst.Name:
            found.append(current.value)
    return found


def _given_as_is(call: cst.Call) -> list[str]:
    """The names a plain function's call is given, under tensor methods that keep the place (`denorm(img)` in
    `denorm(img).permute(1, 2, 0)`); none where a method copies to the host on the way (`.cpu()`, `.numpy()`)."""
    node: cst.BaseExpression = call
    while type(node) is cst.Call and type(node.func) is cst.Attribute:
        if node.func.attr.value in api.TO_HOST_METHODS:
            return []
        node = node.func.value
    if type(node) is not cst.Call or type(node.func) is not cst.Name:
        return []
    return [arg.value.value for arg in node.args if type(arg.value) is cst.Name and arg.keyword is None]


def _is_cuda_constant(node: cst.BaseExpression) -> bool:
    """`"cuda"`, `f"cuda:{rank}"`, `"cuda:{}".format(rank)`, `"cuda:%d" % rank`, `torch.device("cuda", rank)`: a
    GPU named in the code, whatever its index."""
    if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "format":
        return _is_cuda_constant(node.func.value)
    if type(node) is cst.Call and node.args:
        return (dotted(node.func) or "").rsplit(".", 1)[-1] == "device" and _is_cuda_constant(node.args[0].value)
    if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Modulo, cst.Add):
        return _is_cuda_constant(node.left)
    if type(node) is cst.SimpleString:
        return node.value.strip("'\"rbRBuU").startswith(api.CUDA_TYPE)
    if type(node) is cst.FormattedString:
        first = node.parts[0] if node.parts else None
        return type(first) is cst.FormattedStringText and first.value.startswith(api.CUDA_TYPE)
    return False


def is_tensor_operation(path: str) -> bool:
    """`torch.cat`, `F.cross_entropy`: a torch function whose arguments are tensors (not a factory)."""
    namespace, _, function = path.rpartition(".")
    return namespace + "." in api.TORCH_OP_NAMESPACES and function[:1].islower() and path not in api.NOT_OPS \
        and path not in api.FACTORIES and path not in api.LIKE_FACTORIES and path not in api.CPU_RESULTS


def has_training_call(node: cst.CSTNode) -> bool:
    """Does a loop body call `.backward()` or `.step()` (outside nested definitions)?"""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if type(current) is cst.Call and type(current.func) is cst.Attribute \
                and current.func.attr.value in api.LAUNCHING_METHODS:
            return True
        if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.SimpleString or kind is cst.Name:
            continue
        stack.extend(children(current))
    return False


# Not walked: leaves, and what holds nothing the walk needs (`Tuple[int, int]` in a type hint is no tensor).
_PRUNED = frozenset({cst.Name, cst.Lambda, cst.Annotation, cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary,
                     cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.Newline, cst.EmptyLine, cst.Comment})

# operators a list (or a tuple) does not take, where a tensor or an array does (`+` joins lists, `*` repeats them)
_ARRAY_ONLY_OPERATORS = (cst.Subtract, cst.Divide, cst.FloorDivide, cst.MatrixMultiply, cst.Power)

# Any: each note takes the node type it is registered for.
_NOTES: dict[type, Callable[[PrePass, Any, Scope], None]] = {
    cst.Call: PrePass._note_call, cst.Import: PrePass._note_import, cst.ImportFrom: PrePass._note_import,
    cst.If: PrePass._note_test, cst.IfExp: PrePass._note_test, cst.While: PrePass._note_test,
    cst.Attribute: PrePass._note_attribute, cst.Subscript: PrePass._note_subscript,
    cst.BinaryOperation: PrePass._note_binary, cst.Assign: PrePass._note_assign, cst.Yield: PrePass._note_yield,
    cst.With: PrePass._note_with, cst.Global: PrePass._note_global}


_PATH_SHAPES = (cst.Call, cst.BinaryOperation, cst.FormattedString, cst.SimpleString, cst.ConcatenatedString)


def save_templates(tree: cst.Module, state_dicts: bool = False) -> set[str]:
    """The path templates a module `torch.save`s to, of what is not a state dict (a module's tensors are
    on its device; other saved values are the data a pipeline's next step loads); `state_dicts`: of those too
    (a script that never names a GPU has its modules on the cpu)."""
    found: set[str] = set()
    assigned: dict[str, list[cst.BaseExpression]] = {}  # a name -> what it is assigned (`save_path = './x.pth'`)
    modules: set[str] = set()  # names used as only a module is (`generator.train()`)
    saves: list[cst.Call] = []
    stack: list[cst.CSTNode] = [tree]
    while stack:
        node = stack.pop()
        if type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name:
            assigned.setdefault(node.targets[0].target.value, []).append(node.value)
        elif type(node) is cst.Call and (dotted(node.func) or "").rsplit(".", 1)[0] in ("torch", "th") \
                and (dotted(node.func) or "").endswith(".save"):
            saves.append(node)
        elif type(node) is cst.Call and type(node.func) is cst.Attribute and type(node.func.value) is cst.Name \
                and node.func.attr.value in api.MODULE_ONLY_METHODS:
            modules.add(node.func.value.value)
        stack.extend(children(node))
    for node in saves:
        target, saved = _save_target(node), node.args[0].value if node.args else None
        if type(target) is cst.Name and len(assigned.get(target.value, ())) == 1:
            target = assigned[target.value][0]  # a path named once: what it names
        if saved is not None and not state_dicts and _names_in(saved) & modules:
            continue  # `{'generator': generator, ...}`: a checkpoint of whole modules, on their device
        if target is not None and saved is not None and ("state_dict" not in _source(saved) or state_dicts and (
                _state_dict_of(saved) in assigned)):  # (a model the script builds, not one it is handed)
            template = path_template(target)
            if template:
                found.add(template)
    return found


def _comparisons(test: cst.BaseExpression) -> list[cst.Comparison]:
    """The comparisons a branch's test is made of (`a <= 0 or b <= 0`, `not x > 1`)."""
    if type(test) is cst.BooleanOperation:
        return _comparisons(test.left) + _comparisons(test.right)
    if type(test) is cst.UnaryOperation:
        return _comparisons(test.expression)
    return [test] if type(test) is cst.Comparison else []
