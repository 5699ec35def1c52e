"""The walk over statements: one function per statement type, each `(interp, node, state) -> state`.

Branches are walked on copies of the state and joined; loops are iterated to a
fixed point with facts muted, then walked once more to report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Literal, Optional, Sequence, cast

import libcst as cst

from devlint.static.analysis.assignment import assign, exec_ann_assign, exec_assign
from devlint.static.analysis.contexts import exec_with
from devlint.static.analysis.definitions import body_nodes, find_method, tests_none
from devlint.static.analysis.expressions import binary, unrolled_modules
from devlint.static.analysis.guards import (
    as_condition, extension_flags, flag_paths, idle_cpu_paths, is_skip_marker, learns, pin_flag, polarity, same_place,
    switch_choice, truth_of)
from devlint.static.analysis.narrowing import (
    decided_type, module_test, no_tensor_where, not_a_tensor, off_cpu_where, type_test)
from devlint.static.analysis.imports import exec_project_import, project_cuda_package
from devlint.static.analysis.launchers import sets_up_nccl
from devlint.static.analysis.prepass import device_move
from devlint.static.analysis.state import LoopFrame, Returned, State
from devlint.core.facts import DiscardedMove
from devlint.core.torch_catalogue import views as api
from devlint.static.semantics.builtins import GPU_RANGE
from devlint.static.semantics.containers import loader_like
from devlint.static.semantics.devices import named_as_dtype, only_a_parameter
from devlint.static.semantics.modules import is_module_base
from devlint.static.syntax import attr_path, dotted, op_text
from devlint.core.values import (
    UNKNOWN, Availability, Class, Const, Function, Instance, Loader, Located, Module, Ref, Seq,
    Tensor, Unknown, Value, on_cpu, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.walker import Walker

MAX_LOOP_ITERATIONS = 3


def exec_block(interp: Walker, body: Sequence[cst.BaseStatement | cst.BaseSmallStatement], state: State) -> State:
    # At module level, functions called (and analysed later) see the module's names as they are now.
    module_level = not interp.frames.stack
    if module_level:  # (a branch's own names: `PHASE = "test"` under `if __name__ == "__main__":`, then a call)
        interp.frames.globals = state.env
    for stmt in body:
        if state.dead:
            break
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if state.dead:
                    break
                handler = SMALL.get(type(small))
                if handler is not None:
                    handler(interp, small, stmt, state)
            continue
        if isinstance(stmt, cst.BaseSmallStatement):  # the body of a one-line suite: `if flag: b = x`
            handler = SMALL.get(type(stmt))
            if handler is not None:
                handler(interp, stmt, stmt, state)
            continue
        execute = EXEC.get(type(stmt))
        if execute is not None:
            state = execute(interp, stmt, state)
            if module_level:
                interp.frames.globals = state.env
    return state


# ---------------------------------------------------------------- simple statements


def exec_aug_assign(interp: Walker, small: cst.AugAssign, line: cst.CSTNode, state: State) -> None:
    left = interp.eval(small.target, state)
    right = interp.eval(small.value, state)
    # `running = torch.tensor(0.0); running += loss`: the 0-dim tensor is the result here, not an input: torch
    # lets a cpu scalar into a GPU op only as an input (an in-place op writes where its target lives)
    into_cpu_scalar = isinstance(left, Tensor) and left.scalar and on_cpu(left.where) \
        and isinstance(right, Tensor) and right.where is not None and right.where.is_gpu
    if into_cpu_scalar:
        left = replace(cast(Tensor, left), scalar=False)
    result = binary(interp, small, op_text(small.operator), left, right, small.target, small.value, state)
    if into_cpu_scalar and isinstance(result, Tensor):
        result = replace(result, scalar=True)  # (still 0-dim, for what follows)
    assign(interp, small.target, result, state, line)


def exec_return(interp: Walker, small: cst.Return, line: cst.CSTNode, state: State) -> None:
    value = interp.eval(small.value, state) if small.value is not None else Const(value=None)
    if interp.frames.returns:
        interp.frames.returns[-1].append(Returned(value, state.env.get("self"), state.guarded))
    state.dead = True


def exec_raise(interp: Walker, small: cst.Raise, line: cst.CSTNode, state: State) -> None:
    if small.exc is not None:
        interp.eval(small.exc, state)
    state.dead = True


def exec_assert(interp: Walker, small: cst.Assert, line: cst.CSTNode, state: State) -> None:
    test = truth_of(interp, small.test, state)
    if learns(test, True) is True:
        state.guarded = True
    if type(small.test) is cst.Name and small.test.value == "False":
        state.dead = True


def exec_break(interp: Walker, small: cst.Break, line: cst.CSTNode, state: State) -> None:
    if interp.frames.loops:
        interp.frames.loops[-1].breaks.append(state.copy())
    state.dead = True


def exec_continue(interp: Walker, small: cst.Continue, line: cst.CSTNode, state: State) -> None:
    if interp.frames.loops:
        interp.frames.loops[-1].continues.append(state.copy())
    state.dead = True


def exec_import(interp: Walker, node: cst.Import | cst.ImportFrom, line: cst.CSTNode, state: State) -> None:
    """Imported names are `Ref`s to their dotted path: `torch.zeros` is known wherever it is bound;
    the project's own modules give their names (devlint.static.analysis.imports)."""
    bound = exec_project_import(interp, node, state)
    if type(node) is cst.Import:
        for alias in node.names:
            full = attr_path(alias.name)
            if full.split(".")[0] in api.CUDA_ONLY_LIBRARIES or project_cuda_package(interp, full):
                state.guarded = True  # `import tensorrt`: what follows runs with an NVIDIA GPU or not at all
            # an import's `as` name is a Name (a Tuple or List only follows a `with`'s `as`)
            if (cast(cst.Name, alias.asname.name).value if alias.asname is not None else full.split(".")[0]) in bound:
                continue
            if api.is_cuda_extension(full):
                state.guarded = True  # `import fused_adam_cuda`, no module of the project: a CUDA build's `.so`
            if alias.asname is not None:
                state.env[cast(cst.Name, alias.asname.name).value] = Ref(path=full)
            else:
                top = full.split(".")[0]
                state.env[top] = Ref(path=top)
        return
    # `from .models import Net`: the project's own code, ".models.Net" (no library's path starts with a dot)
    node = cast(cst.ImportFrom, node)  # not an Import: the other kind
    module = "." * len(node.relative) + (attr_path(node.module) if node.module is not None else "")
    if module.split(".")[0] in api.CUDA_ONLY_LIBRARIES or (not bound and api.is_cuda_extension(module.lstrip("."))) \
            or project_cuda_package(interp, module):  # (`from pointops import knn`, built by a setup.py here)
        state.guarded = True  # `from triton import jit`, `from fused_ops_cuda import fused_adam` (a compiled one)
    if type(node.names) is cst.ImportStar:
        if not module.startswith(api.LIBRARY_PREFIXES) and not bound:
            interp.tables.star_modules.append(module)  # `from models import *`: where unbound class names come from
        return
    for alias in cast("Sequence[cst.ImportAlias]", node.names):  # not a star
        name = attr_path(alias.name)
        as_name = cast(cst.Name, alias.asname.name).value if alias.asname is not None else name
        if as_name in bound or _same_name_defined_here(module, name, state.env.get(as_name)):
            continue
        state.env[as_name] = Ref(path=f"{module}.{name}" if module.strip(".") else module + name)


def _moves_itself(interp: Walker, method: str) -> bool:
    """Does a class of the file (no module) define this move in place, returning nothing (`Batch.to`)?"""
    classes = interp.tables.classes
    for cls in classes.values():
        found = None if cls.is_module else find_method(cls, method, classes)
        if found is not None and not any(type(node) is cst.Return and node.value is not None
                                         for node in body_nodes(found)):
            return True
    return False


def _already_there(receiver: Value, moved: Value, call: cst.Call) -> bool:
    """`x.to(device)` of a tensor known to be on `device` already, naming nothing but the device: a no-op, so
    nothing is lost when its result is thrown away (LAVIS's multimodal_search.py moves features that
    `load_feat()` returned moved)."""
    if not (isinstance(receiver, (Tensor, Located)) and isinstance(moved, (Tensor, Located))
            and receiver.where is not None):
        return False
    others = [a for a in call.args[1:] if a.keyword is None or a.keyword.value not in _PLACEMENT_KEYWORDS]
    inferred = isinstance(receiver, Tensor) and receiver.inferred
    return receiver.where == moved.where and device_move(call) and not others and not inferred \
        and (not call.args or call.args[0].keyword is None or call.args[0].keyword.value in _PLACEMENT_KEYWORDS)


_PLACEMENT_KEYWORDS = frozenset({"device", "non_blocking", "copy"})


def _dtype_cast(call: cst.Call) -> bool:
    """`x.to(torch.float16)`, `x.to(self.dtype)`, `x.to(dtype=d)`: a cast that keeps the device: thrown away, it
    is a dead line, not a lost move (lit-llama's `self.quant_weight.to(dtype)`)."""
    if cast(cst.Attribute, call.func).attr.value not in api.MOVES_TO_ARGUMENT:
        return False
    if any(a.keyword is not None and a.keyword.value == "device" for a in call.args):
        return False
    first = next((a.value for a in call.args if a.keyword is None), None)
    return bool(call.args) if first is None else named_as_dtype(first)  # (keywords only: `dtype=`, `memory_format=`)


def _same_name_defined_here(module: str, name: str, current: Optional[Value]) -> bool:
    """`from utils.timer import Timer` after this file's own `class Timer`, where the project cannot find
    utils.timer: the file's definition of that name (the class it copied, or the module pasted above it) is
    the best account of the name there is; an opaque Ref would forget it. A library's name is the library's."""
    defined = current.name if isinstance(current, Class) else current.qualname if isinstance(current, Function) \
        else None
    return defined == name and not f"{module}.".startswith(api.LIBRARY_PREFIXES)


def exec_expression(interp: Walker, small: cst.Expr, line: cst.CSTNode, state: State) -> None:
    """An expression statement. `x.to(device)` alone: in place for a module, thrown away for a tensor."""
    expr = small.value
    if type(expr) is cst.SimpleString:
        return  # a docstring: evaluating it (a compile) would change nothing
    if not (type(expr) is cst.Call and type(expr.func) is cst.Attribute
            and expr.func.attr.value in api.MOVE_METHODS):
        interp.eval(expr, state)
        return
    receiver_node = expr.func.value
    while type(receiver_node) is cst.Call and type(receiver_node.func) is cst.Attribute \
            and receiver_node.func.attr.value in api.SAME_DEVICE_METHODS_MODULE:
        receiver_node = receiver_node.func.value  # net.eval().cuda()
    receiver = interp.eval(receiver_node, state)
    name = dotted(receiver_node)
    # a custom collate_fn's batch may be an object that moves itself, unless the function uses it as a tensor
    # (a name used as a tensor may hold an object of a class here that moves itself: `Batch.to()` returns None)
    # (a parameter of this function only guessed to be a tensor, used as none here, may be a graph batch that
    # moves itself: torch_geometric's `Batch.to` works in place)
    guessed = isinstance(receiver, Tensor) and only_a_parameter(receiver) and name in interp.file.parameters() \
        and name not in interp.file.tensor_names() or name in interp.file.called_names()  # (`session(x)`: a model)
    tensor = isinstance(receiver, Tensor) and not receiver.maybe_object and not guessed or (
        isinstance(receiver, (Unknown, Located, Tensor)) and name is not None and name in interp.file.tensor_names()
        and not _moves_itself(interp, expr.func.attr.value))
    if tensor:
        moved = interp.eval(expr, state)
        # `torch.zeros(1).to(device)` alone: a tensor nobody holds, made to be moved (a CUDA warm-up)
        warm_up = type(receiver_node) is cst.Call and isinstance(receiver, Tensor) and receiver.fresh
        if not warm_up and not _already_there(receiver, moved, expr) and not _dtype_cast(expr):
            interp.facts.emit(DiscardedMove(line, interp.file.operand(receiver_node, receiver), expr.func.attr.value,
                                            interp.frames.context))
        return
    moved = interp.eval(expr, state)
    if name is not None and isinstance(receiver, Tensor) and isinstance(moved, Tensor):
        interp.assign_name(name, replace(moved, maybe_object=True), state, line)  # it may have moved itself
    elif name is not None and isinstance(receiver, (Unknown, Located, Module)):
        if isinstance(moved, Located):
            # moved in place: a module of unseen origin (`pickle.load(...)` on one path), one object from here on,
            # named by this move (a helper that moves it again moves every alias: PyTorch-RL's `to_device`)
            moved = Module(why=moved.why, where=moved.where, moved=True, ident=id(expr))
        if isinstance(moved, Module):
            interp.assign_name(name, moved, state, line)


# Any: each handler takes the node type it is registered for.
SMALL: dict[type, Callable[[Walker, Any, cst.CSTNode, State], None]] = {
    cst.Expr: exec_expression, cst.Assign: exec_assign, cst.AnnAssign: exec_ann_assign,
    cst.AugAssign: exec_aug_assign, cst.Return: exec_return, cst.Raise: exec_raise, cst.Assert: exec_assert,
    cst.Import: exec_import, cst.ImportFrom: exec_import, cst.Break: exec_break, cst.Continue: exec_continue,
}


# ---------------------------------------------------------------- branches


def exec_if(interp: Walker, node: cst.If, state: State) -> State:
    test = truth_of(interp, node.test, state)
    if isinstance(test, Const) and test.value in (False, None, 0) and not isinstance(test.value, float):
        # `USE_CUDA = False` ... `if USE_CUDA:`: the branch never runs
        return exec_else(interp, node, state)
    if isinstance(test, Const) and test.value is True and interp.frames.current_function is not None:
        # `if len(boxes) == 0: return ...` given an empty list: only the branch runs (a folded comparison)
        return interp.exec_suite(node.body, state)
    decided = decided_type(interp, node.test, state)
    if decided is not None:  # `if isinstance(x, list):` given a tensor: only the branch the value takes runs
        return interp.exec_suite(node.body, state) if decided else exec_else(interp, node, state)
    switch = switch_choice(node.test)  # the user's GPU option, read once: a choice, and what each branch knows
    chosen = switch if not isinstance(test, (Availability, Const)) else None
    if chosen is not None and chosen[0] is not None and chosen[1] is not None:
        test = Availability(positive=chosen[0])  # `if len(opt.gpu_ids) > 0:`: the user's choice, as `if use_gpu:`
    if isinstance(test, Availability) and test.holds is not None:
        return _exec_known_check(interp, node, test.holds, learns(test, test.holds) is True, state)
    direction = polarity(test)
    then_state, else_state = state.copy(), state.copy()
    if switch is not None and not _placement_test(interp, node.test, state):
        then_state.switched = else_state.switched = True
    for branch, outcome in ((then_state, True), (else_state, False)):
        known = learns(test, outcome)
        if known is None and chosen is not None and chosen[not outcome]:
            known = True  # `if params.num_gpus == 1:`: this branch has the GPU the user chose (the other may too)
        if known is True:
            branch.guarded = True
        elif known is False:
            branch.unavailable = True  # (its reads of the selected device are the cpu: Walker.eval)
            branch.timing.work = None  # without CUDA, what looked like GPU work ran on the cpu
    for branch, suite in ((then_state, node.body), (else_state, getattr(node.orelse, "body", None))):
        if isinstance(suite, cst.IndentedBlock) and sets_up_nccl(suite.body):
            branch.guarded = True  # `if distributed: set_device(rank); init_process_group("nccl")`: GPUs there
    narrow(interp, node.test, state, then_state, else_state)
    pin_flag(interp, node.test, test, then_state, else_state)
    same_place(interp, node.test, then_state, else_state, node)
    interp.frames.if_depth += 1
    then_state = interp.exec_suite(node.body, then_state)
    if node.orelse is not None:
        if type(node.orelse) is cst.If:
            else_state = exec_if(interp, node.orelse, else_state)
        else:
            else_state = interp.exec_suite(node.orelse.body, else_state)
    interp.frames.if_depth -= 1
    split = direction is not None
    joined = then_state.join(else_state, availability_split=split, branch=None if split else node.test)
    if not split:
        idle_cpu_paths(node, _placement_test(interp, node.test, state), (then_state, else_state), joined)
    return joined


def _exec_known_check(interp: Walker, node: cst.If, holds: bool, learnt: bool, state: State) -> State:
    """`if lengths.is_cuda:` given lengths moved to cuda by the caller: only the branch it takes runs, guarded
    where that branch is the one on cuda; what follows the `if` knows of CUDA what it knew before (the move
    that put the tensor there is no check)."""
    branch = state.copy()
    branch.guarded = branch.guarded or learnt
    end = interp.exec_suite(node.body, branch) if holds else exec_else(interp, node, branch)
    if not end.dead and end.guarded != state.guarded:
        end = end.copy()
        end.guarded = state.guarded
    return end


def exec_else(interp: Walker, node: cst.If, state: State) -> State:
    if type(node.orelse) is cst.If:
        return exec_if(interp, node.orelse, state)
    if node.orelse is not None:
        return interp.exec_suite(node.orelse.body, state)
    return state


def _placement_test(interp: Walker, test: cst.BaseExpression, state: State) -> bool:
    """`if not x.is_cuda:` of a tensor x asks where it is: no switch the code sets for the GPU."""
    if type(test) is cst.UnaryOperation:
        test = test.expression
    return type(test) is cst.Attribute and test.attr.value == api.TENSOR_PLACEMENT_TEST \
        and isinstance(interp.eval(test.value, state), Tensor)


def narrow(interp: Walker, test: cst.BaseExpression, state: State, then_state: State, else_state: State) -> None:
    """`if torch.is_tensor(x)`, `isinstance(x, torch.Tensor)`: x is a tensor in the branch, and none in the
    other; `isinstance(x, np.ndarray)` (or a flag set to it: `is_numpy = isinstance(...)`): x is host data."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        narrow(interp, test.expression, state, else_state, then_state)  # `if not isinstance(x, torch.Tensor):`
        return
    flag_paths(test, then_state, else_state)
    off_cpu_where(test, then_state, else_state)
    tested = type_test(interp, test, state)
    not_a_tensor(tested, else_state)
    no_tensor_where(interp, test, state, then_state)
    none_test(test, then_state, else_state)
    module = module_test(interp, test, state)
    if module is not None and isinstance(else_state.env.get(module), (Module, Located)):
        else_state.env[module] = UNKNOWN  # `else:` of `isinstance(net, nn.Module)`: a plain function (d2lzh)
    if tested is None and type(test) is cst.Name:
        flag = _flag_definition(interp, test.value)
        tested = type_test(interp, flag, state) if flag is not None else None
    if tested is None:
        return
    subject, is_tensor = tested
    if not is_tensor and subject in then_state.env:
        then_state.env[subject] = UNKNOWN  # a numpy array here, whatever the callers passed elsewhere
    elif is_tensor:
        current = then_state.env.get(subject)
        if isinstance(current, (Unknown, Located)) or current is None:
            then_state.env[subject] = Tensor(where=current.device if current else None, from_param=subject)
            # the current function's pre-pass scope learns it (as if the code said so)
            interp.tables.scope_of(interp.frames.current_function).tensor_names.add(subject)


def none_test(test: cst.BaseExpression, then_state: State, else_state: State) -> None:
    """`if x is not None:` / `if x is None:`: on the path where it is None, x is nothing on any device (the
    value two paths gave it, a tensor on one, is the other path's)."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1 or not tests_none(test):
        return
    target, name = test.comparisons[0], dotted(test.left)
    if name is None:
        return
    none_path = {cst.IsNot: else_state, cst.Is: then_state}.get(type(target.operator))
    if none_path is not None and name in none_path.env:
        none_path.env[name] = Const(value=None, node=test)


def _flag_definition(interp: Walker, name: str) -> Optional[cst.BaseExpression]:
    """The call a flag of the current function was set to (`is_numpy = isinstance(box, np.ndarray)`)."""
    function = interp.frames.current_function
    body = function.body.body if function is not None and type(function.body) is cst.IndentedBlock else ()
    found: cst.BaseExpression | Literal[False] | None = None
    for stmt in body:
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.Assign and len(small.targets) == 1 \
                        and type(small.targets[0].target) is cst.Name and small.targets[0].target.value == name:
                    found = small.value if found is None else False  # set twice: no single meaning
    return found or None


def exec_try(interp: Walker, node: cst.Try, state: State) -> State:
    entry = state.copy()
    body_end = interp.exec_suite(node.body, state)
    out = body_end
    if node.orelse is not None:
        out = interp.exec_suite(node.orelse.body, out)
    flagged: list[tuple[cst.ExceptHandler, State]] = []
    for handler in node.handlers:
        h = entry.join(body_end) if not body_end.dead else entry.copy()
        h.dead = False
        if handler.name is not None:
            assign(interp, handler.name.name, UNKNOWN, h, handler)
        handled = interp.exec_suite(handler.body, h)
        flagged.append((handler, handled))
        out = out.join(handled)
    for handler, handled in flagged:
        extension_flags(handler, entry, body_end, handled, out)
    if node.finalbody is not None:
        dead = out.dead
        out.dead = False
        out = interp.exec_suite(node.finalbody.body, out)
        out.dead = out.dead or dead
    return out


def exec_match(interp: Walker, node: cst.Match, state: State) -> State:
    interp.eval(node.subject, state)
    out: Optional[State] = None
    for case in node.cases:
        s = interp.exec_suite(case.body, state.copy())
        out = s if out is None else out.join(s)
    return state.join(out) if out is not None else state


# ---------------------------------------------------------------- loops


def exec_for(interp: Walker, node: cst.For, state: State) -> State:
    iterable = interp.eval(node.iter, state)
    if isinstance(iterable, Instance):
        # an object of a class of the project: what its `__iter__` yields (a prefetching loader's GPU batches)
        generated = interp.call_method_of(iterable, "__iter__", [], node, state)
        iterable = generated if isinstance(generated, Seq) else iterable
    element = interp.iterate(iterable, node)
    modules = unrolled_modules(iterable)
    if modules:
        _move_each(interp, node, state, modules)
    training = isinstance(iterable, Loader) or loader_like(iterable) or interp.tables.prepass.trains(node.body)

    def bind(s: State) -> None:
        assign(interp, node.target, element, s, node)
        if isinstance(iterable, Seq) and iterable.kind == GPU_RANGE:
            s.guarded = True  # `for i in range(torch.cuda.device_count()):` runs only with GPUs

    out = loop(interp, node.body, state, bind, training, runs_once=_runs_once(node.iter), every_key=_every_key(node))
    if node.orelse is not None:
        out = interp.exec_suite(node.orelse.body, out)
    return out


def _every_key(node: cst.For) -> Optional[tuple[str, str, str]]:
    """`for key in batch.keys():`, `for key in batch:`, `for key in list(batch)`: (key, batch, "dict");
    `for n in range(N):` (n, "", "list")."""
    iterable, kind = node.iter, "dict"
    if type(iterable) is cst.Call and not iterable.args and type(iterable.func) is cst.Attribute \
            and iterable.func.attr.value == "keys":
        iterable = iterable.func.value
    elif type(iterable) is cst.Call and dotted(iterable.func) == "list" and len(iterable.args) == 1:
        iterable = iterable.args[0].value
    elif type(iterable) is cst.Call and dotted(iterable.func) == api.COUNTING_RANGE and len(iterable.args) == 1:
        # `for n in range(len(preds)):` or `range(N)`: any list it indexes whose entries are rewritten from themselves
        return (node.target.value, "", "list") if type(node.target) is cst.Name else None
    held = dotted(iterable)
    return (node.target.value, held, kind) if type(node.target) is cst.Name and held else None


def _runs_once(iterable: cst.BaseExpression) -> bool:
    """`for epoch in range(epochs)`, `for m in [g, d]`: the body runs at least once (a run of no epochs is no
    run), so what follows the loop is what the body left (`train(model)` that moves the model, in every epoch)."""
    if type(iterable) in (cst.List, cst.Tuple):
        return bool(cast("cst.List | cst.Tuple", iterable).elements)
    if type(iterable) is not cst.Call or type(iterable.func) is not cst.Name \
            or iterable.func.value != api.COUNTING_RANGE or not iterable.args or len(iterable.args) > 2:
        return False
    stop = iterable.args[-1].value
    start = iterable.args[0].value if len(iterable.args) == 2 else cst.Integer("0")
    if type(stop) is cst.Integer:
        return type(start) is cst.Integer and int(start.value, 0) < int(stop.value, 0)
    return type(start) is cst.Integer and int(start.value, 0) <= 1  # `range(n)`, `range(1, n + 1)`


def _move_each(interp: Walker, node: cst.For, state: State, modules: tuple[Module, ...]) -> None:
    """`for m in [generator, discriminator]: m.to(device)`: the body runs on each module in turn, and what it
    moves in place is moved (the loop itself is then walked as any other, on their join)."""
    interp.facts.muted += 1
    try:
        for module in modules:
            each = state.copy()
            assign(interp, node.target, module, each, node)
            each = interp.exec_suite(node.body, each)
            state.moved.update(each.moved)
    finally:
        interp.facts.muted -= 1


def exec_while(interp: Walker, node: cst.While, state: State) -> State:
    def bind(s: State) -> None:
        if learns(truth_of(interp, node.test, s), True) is True:
            s.guarded = True

    out = loop(interp, node.body, state, bind, interp.tables.prepass.trains(node.body))
    if node.orelse is not None:
        out = interp.exec_suite(node.orelse.body, out)
    return out


def loop(interp: Walker, body: cst.BaseSuite, entry: State, bind: Callable[[State], None],
         training: bool, runs_once: bool = False, every_key: Optional[tuple[str, str, str]] = None) -> State:
    """Iterate the body (muted) to a fixed point of the loop head, then walk it once more to report.

    A loop met while facts are already muted (inside an outer loop's fixed-point
    pass, or a muted call) is walked once: the outer pass that repeats it carries its
    effects round, and a second walk per pass would make nested loops cost 2^depth.
    """
    frame = LoopFrame(training=training, if_depth=interp.frames.if_depth, every_key=every_key)
    interp.frames.loops.append(frame)
    head = entry.copy()
    if interp.facts.muted:
        s = head.copy()
        _next_iteration(interp, s)
        bind(s)
        end = interp.exec_suite(body, s)
        interp.frames.loops.pop()
        for c in frame.continues:
            end = end.join(c)
        return _loop_exit(end if runs_once and not end.dead else head.join(end), frame, entry, training)
    interp.facts.muted += 1
    for i in range(MAX_LOOP_ITERATIONS):
        frame.breaks, frame.continues = [], []
        s = head.copy()
        _next_iteration(interp, s)
        bind(s)
        if i == 0:
            interp.facts.first_pass = interp.facts.muted
        end = interp.exec_suite(body, s)
        interp.facts.first_pass = None
        new_head = head.join(end)
        for c in frame.continues:
            new_head = new_head.join(c)
        if new_head.same(head):
            break
        head = new_head
    interp.facts.muted -= 1
    frame.breaks, frame.continues = [], []
    s = head.copy()
    _next_iteration(interp, s)
    bind(s)
    end = interp.exec_suite(body, s)
    interp.frames.loops.pop()
    if runs_once and not end.dead:  # after its last pass: where some pass ended, or continued
        for c in frame.continues:
            end = end.join(c)
        return _loop_exit(end, frame, entry, training)
    return _loop_exit(head.join(end), frame, entry, training)


def _loop_exit(out: State, frame: LoopFrame, entry: State, training: bool) -> State:
    for b in frame.breaks:
        out = out.join(b)
    out.dead = False
    if training and out.timing.clock is not None and out.timing.clock is entry.timing.clock:
        out.timing.trained = True  # a measurement of a training run: its last queued step is noise
    return out


def _next_iteration(interp: Walker, state: State) -> None:
    # A clock read inside this loop body, seen again at the next iteration: lap timing.
    if state.timing.clock is not None and state.timing.depth >= len(interp.frames.loops):
        state.timing.lap = True


# ---------------------------------------------------------------- definitions


def exec_function_def(interp: Walker, node: cst.FunctionDef, state: State, owner: Optional[str] = None) -> State:
    qual = f"{owner}.{node.name.value}" if owner else node.name.value
    interp.tables.functions.setdefault(id(node), Function(node=node, qualname=qual, owner=owner))
    if state.guarded:
        interp.tables.defined_guarded.add(id(node))  # after `assert torch.cuda.is_available()`: it runs with a GPU
    if interp.frames.current_function is not None:
        interp.tables.closures[id(node)] = state.env
        interp.tables.enclosing[id(node)] = interp.frames.context.function
    for deco in node.decorators:
        interp.eval(deco.decorator, state)
    _bind_defaults(interp, node, state)
    if owner is None:
        state.env[node.name.value] = interp.tables.functions[id(node)]
    return state


def _bind_defaults(interp: Walker, node: cst.FunctionDef, state: State) -> None:
    """A default is evaluated once, when the `def` runs: `def plot(xs=X_train)` keeps the X_train of then, not
    the one `X_train = X_train.to(device)` binds later (mrdbourke's workflow notebook). Only names are read
    here; a call or a literal is read at each call, as before."""
    params = node.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        default = param.default
        if default is not None and type(default) in (cst.Name, cst.Attribute) and dotted(default) is not None \
                and dotted(default) not in ("None", "True", "False"):
            interp.tables.defaults[id(param)] = interp.lookup(cast(str, dotted(default)), state)


def exec_class_def(interp: Walker, node: cst.ClassDef, state: State) -> State:
    name = node.name.value
    bases = [interp.eval(b.value, state) for b in node.bases]
    autograd = any(isinstance(b, Ref) and b.path in api.AUTOGRAD_FUNCTION_BASES for b in bases)
    registered = any(is_module_base(b) for b in bases)
    is_module = not autograd and (registered or any(  # (a LightningModule's hook: one through an unseen base)
        type(s) is cst.FunctionDef and s.name.value in ("forward", api.LIGHTNING_MODULE_HOOK) for s in class_body(node))
        or _holds_parameters(interp, node, state))
    # a `forward` makes a module of a class whose bases are unknown (a base from an unseen library); one whose
    # bases are all known to be none (`class MLP():`) is used as a model, but registers nothing
    by_shape = is_module and not registered and all(_plain_base(b, arg.value) for b, arg in zip(bases, node.bases))
    is_dataset = any(isinstance(b, Ref) and (b.path in api.DATASET_BASES or b.path.startswith(api.DATASET_PREFIXES))
                     or isinstance(b, Class) and b.is_dataset for b in bases) or (
        not is_module and _dataset_by_shape(node))
    cls = Class(node=node, name=name, is_module=is_module, by_shape=by_shape, is_dataset=is_dataset,
                bases=tuple(bases))
    if interp.frames.importing is None or name not in interp.tables.classes:  # the checked file's own class wins
        interp.tables.classes[name] = cls
    if any(is_skip_marker(interp, d, state) for d in node.decorators) or _init_requires_cuda(interp, node, state):
        interp.tables.guarded_classes.add(name)
    state.env[name] = cls
    for stmt in class_body(node):
        if type(stmt) is cst.FunctionDef:
            exec_function_def(interp, stmt, state, owner=name)
    return state


def _holds_parameters(interp: Walker, node: cst.ClassDef, state: State) -> bool:
    """`self.bias = nn.Parameter(...)` in its `__init__`: only a module holds parameters (one whose nn.Module
    base comes through a class nobody can see, `class RelativeMHA(MultiHeadAttention):`)."""
    init = next((s for s in class_body(node) if type(s) is cst.FunctionDef and s.name.value == "__init__"), None)
    if init is None:
        return False
    made = [n.value for n in body_nodes(init) if type(n) is cst.Assign and type(n.value) is cst.Call
            and any(type(t.target) is cst.Attribute and dotted(t.target.value) == "self" for t in n.targets)]
    return any(isinstance(ref := interp.eval(call.func, state), Ref) and ref.path in api.PARAMETER_CLASSES
               for call in made if dotted(call.func) is not None)


def _plain_base(base: Value, node: cst.BaseExpression) -> bool:
    """A base known not to be an nn.Module: `object` or a project class that is none."""
    return isinstance(base, Class) and not base.is_module or type(node) is cst.Name and node.value == "object"


def _init_requires_cuda(interp: Walker, node: cst.ClassDef, state: State) -> bool:
    """An `assert` among its `__init__`'s statements that CUDA is there (`assert torch.cuda.is_available()`, as
    the walk reads availability checks), or an `if not ...: raise`: no instance exists without a GPU, so its
    methods run with one (nnU-Net's GPU benchmark trainers)."""
    init = next((s for s in class_body(node) if type(s) is cst.FunctionDef and s.name.value == "__init__"), None)
    if init is None or type(init.body) is not cst.IndentedBlock:
        return False
    tests = [small.test for statement in init.body.body if type(statement) is cst.SimpleStatementLine
             for small in statement.body if type(small) is cst.Assert]
    # `if not torch.cuda.is_available(): raise NotImplementedError("CPU training is not supported")`
    tests += [statement.test.expression for statement in init.body.body if type(statement) is cst.If
              and statement.orelse is None and type(statement.test) is cst.UnaryOperation
              and type(statement.test.operator) is cst.Not and _raises(statement.body)]
    # only a library's check is asked here: evaluating a call of the project's own would analyse it out of place
    checks = [t for t in tests if type(t) is cst.Call and isinstance(interp.eval(t.func, state), Ref)]
    return any(learns(as_condition(interp.eval(check, state)), True) is True for check in checks)


def _raises(suite: cst.BaseSuite) -> bool:
    last = suite.body[-1] if type(suite) is cst.IndentedBlock and suite.body else None
    return type(last) is cst.SimpleStatementLine and type(last.body[-1]) is cst.Raise


def _dataset_by_shape(node: cst.ClassDef) -> bool:
    """A dataset by what it is, not by its base: named one (`class WikiKG90MDataset(object)`), or
    implementing the map-style protocol. Its files are data the package downloads or preprocesses."""
    if node.name.value.endswith(api.DATASET_CLASS_SUFFIX):
        return True
    methods = {s.name.value for s in class_body(node) if type(s) is cst.FunctionDef}
    return api.DATASET_PROTOCOL <= methods


def class_body(node: cst.ClassDef) -> list[cst.BaseStatement]:
    body = node.body
    return list(body.body) if type(body) is cst.IndentedBlock else []


EXEC: dict[type, Callable[[Walker, Any, State], State]] = {  # Any: as SMALL's
    cst.If: exec_if, cst.For: exec_for, cst.While: exec_while, cst.With: exec_with, cst.Try: exec_try,
    cst.TryStar: exec_try, cst.Match: exec_match, cst.FunctionDef: exec_function_def,
    cst.ClassDef: exec_class_def,
}
