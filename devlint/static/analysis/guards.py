"""Guards: what makes GPU code safe on a path.

An availability check (`torch.cuda.is_available()`, a flag derived from it,
`device_count() > 0`, `device.type == "cuda"`), an early exit, or a skip
marker that runs a test only where CUDA is. Values that carry such a
condition are `Availability`; `polarity` says which way they point.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Callable, Optional, cast

import libcst as cst

from devlint.core.devices import CPU, Device
from devlint.core.torch_catalogue import views as api
from devlint.static.analysis.prepass import device_move
from devlint.static.syntax import children, dotted
from devlint.core.facts import UncalledCheck
from devlint.core.values import (
    SELECTED, UNKNOWN, Availability, Const, DeviceCount, DeviceType, DeviceValue, Instance,
    Located, Module, Ref, Seq, SkipMarker, Tensor, Unknown, Value, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.state import State
    from devlint.static.analysis.walker import Walker
    from devlint.static.semantics.callsite import FileView


def as_condition(value: Value) -> Value:
    """A value tested for truth: `if torch.cuda.device_count():` is an availability check."""
    return Availability(positive=True) if isinstance(value, DeviceCount) and not value.world else value


def truth_of(interp: Walker, node: cst.BaseExpression, state: State) -> Value:
    """`node` evaluated for its truth (`if`, `while`, `assert`, `not`, `and`/`or`, `a if c else b`). A GPU
    tensor's truth is read on the host (`Tensor.__bool__` is `.item()`): it waits for the queued work."""
    value = interp.eval(node, state)
    if isinstance(value, Tensor) and value.where is not None and value.where.is_gpu:
        interp.facts.note_sync(state)
    if isinstance(value, Ref) and value.path in api.AVAILABILITY:
        # `if torch.cuda.is_available:`: a function, always true (the GPU branch runs everywhere)
        interp.facts.emit(UncalledCheck(node, value.path, interp.frames.context))
        return Const(value=True)
    return as_condition(value)


def polarity(value: Value) -> Optional[bool]:
    """True: being true means an accelerator is available. False: it means it is not.
    Branching on it chooses a device (the join of the branches is the selected device)."""
    if isinstance(value, Availability) and value.choice:
        return value.positive
    return None


def learns(value: Value, outcome: bool, backend: str = api.CUDA_TYPE) -> Optional[bool]:
    """What the path where `value` was `outcome` knows of CUDA: True available, False missing."""
    if not isinstance(value, Availability) or value.backend != backend:
        return None
    return value.learns(outcome)


def negate(value: Availability) -> Availability:
    return Availability(positive=not value.positive, backend=value.backend, choice=value.choice,
                        branch={"then": "else", "else": "then"}.get(value.branch, value.branch),
                        holds=None if value.holds is None else not value.holds)


def boolean(left: Value, right: Value, conjunction: bool) -> Optional[Availability]:
    """`left and right` / `left or right` as an availability check, or None when neither side is one.

    A conjunction that is true makes each side true; a disjunction that is false makes each side
    false: that is what the branch on that outcome learns."""
    left, right = as_condition(left), as_condition(right)
    checks = [v for v in (left, right) if isinstance(v, Availability)]
    if not checks:
        return None
    backends = {v.backend for v in checks}
    backend = api.CUDA_TYPE if backends <= {api.CUDA_TYPE} else sorted(backends - {api.CUDA_TYPE})[0]
    choice = all(v.choice for v in checks)
    if len(checks) == 2 and all(v.branch == "both" for v in checks) and checks[0].positive == checks[1].positive \
            and (checks[0].positive == conjunction):
        return Availability(positive=checks[0].positive, backend=backend, choice=choice)  # exact
    outcome = conjunction  # the outcome of the whole that fixes each side
    for check in checks:
        known = learns(check, outcome, check.backend)
        if known is not None:
            positive = known if outcome else not known
            return Availability(positive=positive, backend=backend, choice=choice,
                                branch="then" if conjunction else "else")
    return None


def guess_flag(attr: str) -> Value:
    """An option or attribute of unknown origin, judged by its name (`args.cuda`, `cfg.device`)."""
    polarity = api.flag_polarity(attr)
    if polarity is not None:
        return Availability(positive=polarity)
    if api.looks_like_device_name(attr):
        return DeviceValue(where=SELECTED)
    return UNKNOWN


def _option_guard(op: cst.BaseCompOp, number: int, positive: bool) -> Optional[bool]:
    """A GPU option (an index, -1 for the cpu; or a count, 0 for the cpu) compared with a number: which side
    chose a GPU (`gpu > -1`, `gpu >= 0`, `n_gpu > 0`, `gpu != -1`); None for a comparison that says neither."""
    chose = {cst.GreaterThan: number >= -1, cst.GreaterThanEqual: number >= 0, cst.NotEqual: number == -1}
    declined = {cst.LessThan: number <= 0, cst.LessThanEqual: number == -1, cst.Equal: number == -1}
    if chose.get(type(op), False):
        return positive
    if declined.get(type(op), False):
        return not positive
    return None


def world_size_guard(left: Value, op: cst.BaseCompOp, right: Value, file: FileView) -> Optional[Availability]:
    """`world_size > 1` of an NCCL group: several processes, each with a GPU. `world_size == 1` says nothing
    when true (one process, GPU or not) and, when false, that there are several. In a program that sets up
    NCCL, `"RANK" in os.environ` asks whether a launcher started it as one of such processes."""
    if type(op) in (cst.In, cst.NotIn) and isinstance(left, Const) and left.value in api.LAUNCHER_ENV \
            and isinstance(right, Ref) and right.path == api.ENVIRON and file.nccl_backend:
        launched = type(op) is cst.In
        return Availability(positive=launched, branch="then" if launched else "else", choice=False)
    if not (isinstance(left, DeviceCount) and left.world and isinstance(right, Const) and type(right.value) is int):
        return None
    several = {cst.GreaterThan: 1, cst.GreaterThanEqual: 2, cst.NotEqual: 1}
    single = {cst.Equal: 1, cst.LessThan: 2, cst.LessThanEqual: 1}
    if several.get(type(op)) == right.value:
        return Availability(positive=True, branch="then", choice=False)
    if single.get(type(op)) == right.value:
        return Availability(positive=False, branch="else", choice=False)
    return None


_TRUE_TEXTS = frozenset({"true", "1", "yes", "y", "on"})
_FALSE_TEXTS = frozenset({"false", "0", "no", "n", "off"})


def _truth_text(value: object) -> Optional[bool]:
    """What a flag written as text says (`'True'`, `'false'`, `'1'`), or None for other text."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    return True if text in _TRUE_TEXTS else False if text in _FALSE_TEXTS else None


def _names_nccl(value: Value) -> bool:
    text = value.value if isinstance(value, Const) else getattr(value, "path", "").rsplit(".", 1)[-1]
    return isinstance(text, str) and text.lower() == api.NCCL_BACKEND


def comparison_guard(left: Value, op: cst.BaseCompOp, right: Value) -> Optional[bool]:
    """The polarity of `left op right` as a CUDA check, or None when it is none."""
    if isinstance(left, DeviceCount) and left.world:
        return None  # world_size_guard's
    if type(op) in (cst.Equal, cst.Is) and any(_names_nccl(v) for v in (left, right)):
        return True  # `dist.get_backend() == dist.Backend.NCCL`, `== "nccl"`: NCCL runs on GPUs only
    if isinstance(left, DeviceCount) and isinstance(right, Const) and isinstance(right.value, int):
        return _device_count_guard(op, right.value)
    if isinstance(left, DeviceCount) and type(op) in (cst.GreaterThan, cst.GreaterThanEqual):
        return True  # `device_count() > rank`: at least one GPU on that path
    if isinstance(left, Availability) and isinstance(right, Const) and type(right.value) is int:
        return _option_guard(op, right.value, left.positive)  # `if opt.gpu > -1:`, `if n_gpu > 0:`
    if isinstance(left, Availability) and isinstance(right, Const) and type(right.value) is bool \
            and type(op) in (cst.Is, cst.Equal, cst.IsNot, cst.NotEqual):  # `if args.cuda is True:`
        return left.positive if right.value == (type(op) in (cst.Is, cst.Equal)) else not left.positive
    if isinstance(left, Availability) and isinstance(right, Const) and right.value is None:
        # `if args.gpu is not None:` the user chose a GPU
        if type(op) in (cst.IsNot, cst.NotEqual):
            return left.positive
        if type(op) in (cst.Is, cst.Equal):
            return not left.positive
    if isinstance(left, Availability) and isinstance(right, Const) and _truth_text(right.value) is not None \
            and type(op) in (cst.Equal, cst.NotEqual):
        # `args.cuda = args.cuda == 'True'`: an option read as text, made a flag (pytorch-wgan)
        said = cast(bool, _truth_text(right.value))
        return left.positive if said == (type(op) is cst.Equal) else not left.positive
    if isinstance(right, Seq) and right.items and all(isinstance(v, Const) for v in right.items) \
            and type(op) in (cst.In, cst.NotIn):
        texts = {cast(Const, v).value for v in right.items}
        if texts == {api.CPU_TYPE}:
            return type(op) is cst.NotIn  # `device not in ["cpu"]`
        if all(isinstance(t, str) and t.startswith(api.CUDA_TYPE) for t in texts):
            return True if type(op) is cst.In else None
        return None
    text = right.value if isinstance(right, Const) else None
    if isinstance(left, DeviceValue) and isinstance(right, DeviceValue) and right.where is not None \
            and right.where.kind == api.CPU_TYPE:
        text = api.CPU_TYPE  # `self.device == _CPU_DEVICE`, a torch.device("cpu") constant
    subject = left
    if isinstance(left, Const) and isinstance(right, (DeviceType, DeviceValue, Unknown, Located)):
        text, subject = left.value, right
    if isinstance(text, str) and text.lower() in api.GPU_OPTION_TEXTS:
        text = api.CUDA_TYPE  # `args.device == "gpu"`: the user's words for CUDA
    if isinstance(subject, (Unknown, Located)) and isinstance(text, str) and text.startswith(api.CUDA_TYPE):
        # `args.device == "cuda"`, `x.device.type == "cuda"`, `device_type == "cuda"` (a parameter),
        # `"cuda" in device`: checked by hand
        if type(op) in (cst.Equal, cst.Is, cst.In):
            return True
    if isinstance(subject, (DeviceType, DeviceValue)) and isinstance(text, str):
        wants_cuda = text.startswith(api.CUDA_TYPE)
        if type(op) in (cst.Equal, cst.Is):
            return True if wants_cuda else (False if text == api.CPU_TYPE else None)
        if type(op) in (cst.NotEqual, cst.IsNot):
            return True if text == api.CPU_TYPE else None
        if type(op) is cst.In and text == api.CUDA_TYPE:
            return True
    return None


def count_guard_branch(left: Value, op: cst.BaseCompOp, right: Value) -> str:
    """Which path of a device-count comparison learns of CUDA: `device_count() > 1` (or `> rank`) false is one
    GPU as well as none, so only its true path does ("then"); `> 0`, `== 0`, `< 1` tell both ("both")."""
    if not isinstance(left, DeviceCount) or left.world or type(op) not in (cst.GreaterThan, cst.GreaterThanEqual):
        return "both"
    n = right.value if isinstance(right, Const) and type(right.value) is int else None
    exact = n == 0 if type(op) is cst.GreaterThan else n == 1
    return "both" if exact else "then"


def _device_count_guard(op: cst.BaseCompOp, n: int) -> Optional[bool]:
    if type(op) is cst.GreaterThan:
        return True if n >= 0 else None
    if type(op) is cst.GreaterThanEqual:
        return True if n >= 1 else None
    if type(op) is cst.NotEqual:
        return True if n == 0 else None
    if type(op) in (cst.Equal, cst.LessThanEqual):
        return False if n == 0 else None
    if type(op) is cst.LessThan:
        return False if n == 1 else None
    return None


def mentions_gpu(decorator_source: str) -> bool:
    """A project's own test decorator that names cuda or a GPU (`@RunIf(min_cuda_gpus=1)`) runs
    (or mocks) the test only where a GPU is."""
    text = decorator_source.lower()
    return (api.CUDA_TYPE in text or "gpu" in text) and "autocast" not in text and "amp" not in text


def is_skip_marker(interp: Walker, decorator: cst.Decorator, state: State) -> bool:
    """Does this decorator run the test (or class) only where CUDA is?"""
    if mentions_gpu(interp.tables.module.code_for_node(decorator.decorator)):
        return True
    saved = interp.facts.muted
    interp.facts.muted += 1
    try:
        value = interp.eval(decorator.decorator, state)
    finally:
        interp.facts.muted = saved
    return isinstance(value, SkipMarker)


def same_place(interp: Walker, test: cst.BaseExpression, then_state: State, else_state: State,
               statement: Optional[cst.If] = None) -> None:
    """`if self.window.data.type() == img.data.type():` (or `a.device == b.device`): where the test holds,
    the first is where the second is (pytorch_ssim reuses its window only then)."""
    conjuncts = _conjuncts(test)
    for comparison in conjuncts:
        if len(comparison.comparisons) != 1:
            continue
        op = comparison.comparisons[0].operator
        state = then_state if type(op) in (cst.Equal, cst.Is) else else_state if type(op) in (
            cst.NotEqual, cst.IsNot) and len(conjuncts) == 1 else None
        comparator = comparison.comparisons[0].comparator
        first, second = place_subject(comparison.left), place_subject(comparator)
        if state is None or first is None:
            continue
        # `x.device == y.device`, or `x.device != torch.device(self._device)` (ignite: where it fails, x is there)
        mine, theirs = interp.lookup(first, state), interp.lookup(second, state) if second is not None \
            else interp.eval(comparator, state)
        if isinstance(theirs, DeviceValue) and theirs.where is not None and isinstance(mine, (Tensor, Located)) \
                and mine.device != theirs.where:
            interp.assign_name(first, replace(mine, where=theirs.where, cpu_path=None) if isinstance(mine, Tensor)
                               else replace(mine, where=theirs.where), state, comparison)
            continue
        if isinstance(mine, (Tensor, Located)) and isinstance(theirs, (Tensor, Located)) \
                and mine.device != theirs.device:
            interp.assign_name(first, replace(mine, where=theirs.device), state, comparison)
            if statement is not None:
                _siblings_placed(interp, first, (mine.device, theirs.device), state, statement)


def flag_paths(test: cst.BaseExpression, then_state: State, else_state: State) -> None:
    """`if flag: x = x.cuda()` then `if flag: y = x + w.cuda()`: a tensor that stayed on the cpu where `flag`
    was false is not on the cpu in a branch where it is true (nor the other way round). Its device there is
    the other path's, which the join forgot: unknown, never a mix; in a branch where the flag is as it was on
    the cpu path, it is on the cpu. `flag > 0`, `flag is True`, `not flag` test the same flag."""
    tested = flag_test(test)
    if tested is None:
        return
    flag, said = tested
    for branch, outcome in ((then_state, said), (else_state, not said)):
        for name, value in list(branch.env.items()):
            if isinstance(value, (Module, Instance)):  # `self.centroids`, set under `if self.use_gpu > 0:`
                for attr, held in value.attrs:
                    if _other_path(held, flag, outcome):
                        value = value.with_attr(attr, replace(held, cpu_path=None))
                branch.env[name] = value
            elif _other_path(value, flag, outcome):
                branch.env[name] = replace(value, cpu_path=None)
            elif _other_path(value, flag, not outcome):
                # `if num_gpus: x = x.cuda()` ... `if num_gpus: x = x.cpu()`: where the flag is as it was when x
                # stayed on the cpu, x is on the cpu (the path it stayed on still recorded, for the joins after)
                branch.env[name] = replace(value, where=CPU, maybe_cpu=None)


def idle_cpu_paths(statement: cst.If, placement: bool, sides: tuple[State, State], joined: State) -> None:
    """Forget the path where a tensor stayed on the cpu when that path says nothing of a GPU: a placement test
    (`if x.is_cuda: h = h.cuda()` leaves h on the cpu exactly where x is there), or a branch that moves nothing
    while the other moves the tensor to a device chosen at run time (`if not cfg.DEBUG: x = x.to(device)`: the
    flag that skips the move is the one that made `device` the cpu). A branch that moves its siblings (`if
    args.fast: x = x.to(device)` beside `x, y = x.to(device), y.to(device)`) is a GPU path that forgot one."""
    for name, value in list(joined.env.items()):
        path = value.cpu_path if type(value) is Tensor else None
        if path is None or path[0] is not statement.test:
            continue
        moved = sides[0 if path[1] == "false" else 1].env.get(name)
        suite = statement.body if path[1] == "true" else statement.orelse
        chosen = isinstance(moved, Tensor) and moved.where is not None and moved.where.kind in ("selected", "param")
        if placement or chosen and not _moves_any(suite):
            joined.env[name] = replace(value, cpu_path=None)


def _moves_any(suite: Optional[cst.CSTNode]) -> bool:
    stack: list[cst.CSTNode] = [suite] if suite is not None else []
    while stack:
        node = stack.pop()
        if type(node) is cst.Call and type(node.func) is cst.Attribute and device_move(node):
            return True
        stack.extend(children(node))
    return False


def _other_path(value: Value, flag: str, outcome: bool) -> bool:
    """A tensor left on the cpu on the path where `flag` was not `outcome`."""
    path = value.cpu_path if type(value) is Tensor else None
    if path is None:
        return False
    recorded = flag_test(path[0])
    return recorded is not None and recorded[0] == flag and ((path[1] == "true") == recorded[1]) != outcome


def flag_test(test: cst.CSTNode) -> Optional[tuple[str, bool]]:
    """The flag a test reads and the flag's value where the test holds: `use_gpu`, `self.use_gpu > 0`,
    `args.cuda is True`, `n_gpu != 0` are (name, True); `not use_gpu`, `n_gpu == 0` are (name, False)."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = flag_test(test.expression)
        return (inner[0], not inner[1]) if inner is not None else None
    if type(test) is cst.Comparison:
        compared = _compared_flag(test)
        name = dotted(compared[0]) if compared is not None else None
        return (name, compared[1]) if compared is not None and name is not None else None
    name = dotted(test) if isinstance(test, cst.BaseExpression) else None
    return (name, True) if name is not None else None


def _compared_flag(test: cst.Comparison) -> Optional[tuple[cst.BaseExpression, bool]]:
    """`flag > 0`, `flag is True`, `n == 0`: the expression compared and its truth where the test holds."""
    if len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    said = _FLAG_COMPARISONS.get((type(target.operator), _literal(target.comparator)))
    return (test.left, said) if said is not None else None


def _literal(node: cst.BaseExpression) -> object:
    if type(node) is cst.Integer:
        return _integer(node)
    return {"True": True, "False": False}.get(node.value, "") if type(node) is cst.Name else ""


_FLAG_COMPARISONS: dict[tuple[type, object], bool] = {
    (cst.GreaterThan, 0): True, (cst.NotEqual, 0): True, (cst.GreaterThanEqual, 1): True,
    (cst.Equal, 0): False, (cst.LessThan, 1): False, (cst.LessThanEqual, 0): False,
    (cst.Is, True): True, (cst.Equal, True): True, (cst.Is, False): False, (cst.Equal, False): False,
    (cst.IsNot, False): True, (cst.IsNot, True): False, (cst.NotEqual, False): True,
}


def pin_flag(interp: Walker, node: cst.BaseExpression, test: Value, then_state: State, else_state: State) -> None:
    """`if self.use_gpu: make_mask(x.cuda(), use_gpu=self.use_gpu)`: in each branch of a test that chooses the
    device (`test`, its value), the flag it reads is known (the callee's own `if use_gpu:` takes the caller's
    branch), and after `if use_gpu: return ...` it is false."""
    tested = flag_test(node)
    if tested is None or not isinstance(test, Availability) or not test.choice or test.holds is not None \
            or type(node) is cst.Comparison and type(node.left) not in (cst.Name, cst.Attribute):
        return
    flag, said = tested
    value = interp.lookup(flag, then_state)
    if not isinstance(value, Availability):
        value = Availability(positive=test.positive == said, backend=test.backend)
    for branch, outcome in ((then_state, said), (else_state, not said)):
        interp.assign_name(flag, replace(value, holds=outcome), branch, node)


def _siblings_placed(interp: Walker, first: str, devices: tuple[Optional[Device], Optional[Device]], state: State,
                     statement: cst.If) -> None:
    """`if self.mean.device != x.device: self.mean = ...; self.var = ...`: where the test fails, `self.mean` is on
    x's device, and so is every tensor its object keeps beside it on the same device that the statement moves
    with it (the statistics moved together: Dive-into-DL's BatchNorm)."""
    base, _, name = first.rpartition(".")
    holder = interp.lookup(base, state) if base else None
    was, now = devices
    if was is None or not isinstance(holder, (Module, Instance)):
        return
    together = _attributes_set(statement, base)
    for attr, value in holder.attrs:
        if attr != name and attr in together and isinstance(value, Tensor) and value.where == was:
            interp.assign_name(f"{base}.{attr}", replace(value, where=now), state, statement.test)


def _attributes_set(statement: cst.If, base: str) -> set[str]:
    """The attributes of `base` that the statement's branches assign (`self.var = ...`)."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [statement.body] + ([statement.orelse] if statement.orelse is not None else [])
    while stack:
        node = stack.pop()
        if type(node) is cst.AssignTarget and type(node.target) is cst.Attribute \
                and dotted(node.target.value) == base:
            found.add(node.target.attr.value)
        elif type(node) not in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            stack.extend(children(node))
    return found


def _conjuncts(test: cst.BaseExpression) -> list[cst.Comparison]:
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        return _conjuncts(test.left) + _conjuncts(test.right)
    return [test] if type(test) is cst.Comparison else []


def place_subject(node: cst.BaseExpression) -> Optional[str]:
    """`x` in `x.device`, `x.type()`, `x.data.type()`: the tensor whose place the expression says."""
    if type(node) is cst.Call and not node.args and type(node.func) is cst.Attribute \
            and node.func.attr.value in api.PLACE_METHODS:
        node = node.func.value
    elif type(node) is cst.Attribute and node.attr.value in api.PLACE_ATTRIBUTES:
        node = node.value
    else:
        return None
    if type(node) is cst.Attribute and node.attr.value == "data":
        node = node.value
    return dotted(node)


IMPORT_FAILURES = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def extension_flags(handler: cst.ExceptHandler, entry: State, body_end: State, handled: State, out: State) -> None:
    """`try: import fused_cuda` / `except ImportError as e: SKIP_TEST = e`: where the try imported a CUDA-only
    module (its body became guarded), a flag set in the handler says whether it imported: true means the
    import failed (`skipIf(SKIP_TEST)` runs the test with CUDA only), false for `HAS_EXT = False`. Only one
    side tells: a failed import says nothing of the GPU."""
    caught = handler.type
    names = [dotted(e.value) for e in caught.elements] if type(caught) is cst.Tuple else \
        [dotted(caught)] if caught is not None else ["BaseException"]
    if entry.guarded or not body_end.guarded or not any((n or "").split(".")[-1] in IMPORT_FAILURES for n in names):
        return
    for stmt in handler.body.body if isinstance(handler.body, cst.IndentedBlock) else ():
        small = stmt.body if type(stmt) is cst.SimpleStatementLine else ()
        for line in small:
            if type(line) is not cst.Assign or len(line.targets) != 1 or type(line.targets[0].target) is not cst.Name:
                continue
            name = line.targets[0].target.value
            value, imported = handled.env.get(name), body_end.env.get(name)
            given = line.value
            if isinstance(imported, Ref) or not (type(given) is cst.Name and (
                    given.value in ("True", "False", "None") or handler.name is not None
                    and given.value == dotted(handler.name.name))):
                continue  # `fused_cuda = None`: the fallback of the name imported, no flag; `msg = str(e)`
            failed = not (isinstance(value, Const) and not value.value)  # `= e`, `= True`: set when it failed
            out.env[name] = Availability(positive=not failed, branch="then" if not failed else "else", choice=False)


# ---------------------------------------------------------------- the user's GPU option


def switch_choice(test: cst.BaseExpression) -> Optional[tuple[Optional[bool], Optional[bool]]]:
    """What the branches of a test of the user's GPU option know: (then, else), each True where the option names
    a GPU, False where it names the cpu, None where it may be either. `if len(opt.gpu_ids) > 0:` (a list of ids,
    empty for the cpu), `if args.gpu_id >= 0:` (-1 for the cpu), `if params.num_gpus == 1:` (a GPU; its else
    may be several). None: no such test."""
    negated = type(test) is cst.UnaryOperation and type(test.operator) is cst.Not
    if negated:
        test = cast(cst.UnaryOperation, test).expression
    if type(test) is cst.Comparison and len(test.comparisons) == 1 \
            and type(_literal(test.comparisons[0].comparator)) is bool:  # `if args.cuda is True:`
        compared = _compared_flag(test)
        if compared is None:
            return None
        negated, test = negated is compared[1], compared[0]
    compare: Optional[Callable[[int], bool]] = None
    if type(test) is cst.Comparison and len(test.comparisons) == 1:
        number, operator = _integer(test.comparisons[0].comparator), _OPERATORS.get(type(test.comparisons[0].operator))
        if number is None or operator is None:
            return None
        compare, test = (lambda value: operator(value, number)), test.left
    if type(test) is cst.Call and dotted(test.func) in api.INTEGER_CASTS and len(test.args) == 1:
        test = test.args[0].value  # `int(opt.gpus[0]) >= 0`: the option as a number
    counted = type(test) is cst.Call and dotted(test.func) == "len" and len(test.args) == 1
    if counted:
        test = cast(cst.Call, test).args[0].value
    element = type(test) is cst.Subscript and _integer_index(test) == 0
    if element:  # `opt.gpus[0] >= 0`: the first id of a list of them, -1 for the cpu (FairMOT's `--gpus`)
        test = cast(cst.Subscript, test).value
    name = (dotted(test) or "").rsplit(".", 1)[-1]
    flag = api.flag_polarity(name)
    if flag is None:
        return None
    then: Optional[bool]
    orelse: Optional[bool]
    if compare is None:
        then, orelse = flag, not flag
    else:
        reading = "count" if counted or api.counts_gpus(name) and not element \
            else "id" if element or "id" in name.lower().split("_") else None
        samples = [s for kind, found in _OPTION_VALUES.items() if reading in (None, kind) for s in found]
        then, orelse = (_all_same([gpu for value, gpu in samples if compare(value) == side]) for side in (True, False))
        if flag is False:
            then, orelse = (None if v is None else not v for v in (then, orelse))
    return (orelse, then) if negated else (then, orelse)


def _integer_index(node: cst.Subscript) -> Optional[int]:
    elements = node.slice
    if len(elements) != 1 or type(elements[0].slice) is not cst.Index:
        return None
    return _integer(elements[0].slice.value)


def _all_same(values: list[bool]) -> Optional[bool]:
    return values[0] if values and all(v == values[0] for v in values) else None


def _integer(node: cst.BaseExpression) -> Optional[int]:
    if type(node) is cst.Integer:
        return node.evaluated_value  # `0x0d0a1a0a`, `1_000`: Python's reading of the literal
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus and type(node.expression) is cst.Integer:
        return -node.expression.evaluated_value
    return None


# the values a GPU option takes, and whether each names a GPU: a count of GPUs (0: none) or an id (-1: the cpu)
_OPTION_VALUES = {"count": ((0, False), (1, True), (2, True), (3, True)),
                  "id": ((-1, False), (0, True), (1, True), (2, True))}
_OPERATORS: dict[type, Callable[[int, int], bool]] = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge, cst.LessThan: operator.lt, cst.LessThanEqual: operator.le}
