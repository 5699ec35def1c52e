"""`with` blocks: the device contexts of torch, and context managers written in the file.

`with torch.cuda.device(1):` changes what plain 'cuda' means inside; `with
torch.device("cuda"):` sets the default device. A context manager of the file
(a class with `__enter__`/`__exit__`, or a `@contextmanager` generator) runs
its entry before the block and its exit after it: a timer helper's clock
reads bracket the block's GPU work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, Union, cast

import libcst as cst

from devlint.static.analysis import functions
from devlint.static.analysis.assignment import assign
from devlint.static.analysis.definitions import find_method, is_static
from devlint.static.analysis.state import State
from devlint.core.torch_catalogue.records import CPU_TYPE
from devlint.static.semantics.callsite import Args, CallSite
from devlint.static.syntax import dotted
from devlint.core.values import (
    UNKNOWN, Device, DeviceContext, DeviceValue, Function, Instance, Module, Value, const_device, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.state import Timing
    from devlint.static.analysis.walker import Walker

    Statements = list[Union[cst.BaseStatement, cst.BaseSmallStatement]]

Exit = Callable[[State], object]  # what it returns is ignored


def exec_with(interp: Walker, node: cst.With, state: State) -> State:
    saved_index, saved_default = state.cuda_index, state.default_device
    exits: list[Exit] = []
    placing = False  # a context given a device: what the block builds or touches may be placed there
    for with_item in node.items:
        value, on_exit = _enter(interp, with_item.item, state)
        if on_exit is not None:
            exits.append(on_exit)
        if isinstance(value, DeviceContext):
            if value.index is not None or value.unknown:
                state.cuda_index = value.index
        elif isinstance(value, DeviceValue) and type(with_item.item) is cst.Call:
            state.default_device = value.where  # `with torch.device('cuda'):`
        elif type(with_item.item) is cst.Call:
            given = _device_given(interp, with_item.item, state)
            if given is not None:
                state.default_device = given  # `with init_on_device(device):` builds its modules there
                placing = True
        if with_item.asname is not None:
            assign(interp, with_item.asname.name, UNKNOWN if isinstance(value, DeviceContext) else value, state,
                   node)
    state = interp.exec_suite(node.body, state)
    if placing:
        _placed_by_context(state)
    for on_exit in reversed(exits):
        if not state.dead:
            on_exit(state)
    state.cuda_index, state.default_device = saved_index, saved_default
    return state


def _placed_by_context(state: State) -> None:
    """After a block under such a context, the modules around it are where the context put what they built
    in it (nanotron's pipeline blocks build their layers lazily, inside it): not known to be on the cpu."""
    for value in list(state.env.values()):
        if isinstance(value, Module) and value.ident and value.where is not None and value.where.kind == CPU_TYPE:
            state.moved[value.ident] = replace(value, where=None)


def _device_given(interp: Walker, call: cst.Call, state: State) -> Optional[Device]:
    """The device a context manager is given (`init_on_device(device)`, `params_on(device=d)`): accelerate's
    and nanotron's contexts create the block's parameters there."""
    for arg in call.args:
        keyword = arg.keyword.value if arg.keyword is not None else None
        if type(arg.value) in (cst.Name, cst.Attribute) or keyword == "device":
            value = interp.eval(arg.value, state)
            where = value.where if isinstance(value, DeviceValue) else const_device(value) if keyword == "device" \
                else None
            if where is not None:
                return where
    return None


def _enter(interp: Walker, item: cst.BaseExpression, state: State) -> tuple[Value, Optional[Exit]]:
    """Evaluate a with-item; for a context manager of this file, run its entry and say how to exit."""
    generator = _generator_context(interp, item, state)
    if generator is not None:
        return _enter_generator(interp, generator, cast(cst.Call, item), state)  # a generator context is a call
    value = interp.eval(item, state)
    if isinstance(value, Instance):
        cls = interp.tables.classes.get(value.cls)
        enter, leave = (find_method(cls, name, interp.tables.classes) for name in ("__enter__", "__exit__"))
        if enter is not None and leave is not None:
            entered = _call_method(interp, enter, value, item, state)
            return (value if entered is UNKNOWN else entered), (
                lambda after: _call_method(interp, leave, value, item, after))
    return value, None


def _call_method(interp: Walker, method: cst.FunctionDef, receiver: Value, node: cst.CSTNode,
                 state: State) -> Value:
    fn = interp.tables.functions.get(id(method))
    if fn is None:
        return UNKNOWN
    return interp.invoke(replace(fn, bound=receiver), Args(), node, state, None)


def _generator_context(interp: Walker, item: cst.BaseExpression, state: State) -> Optional[Function]:
    """`timer.stage("x")` where `stage` is a `@contextmanager` generator of this file."""
    if not (type(item) is cst.Call and dotted(item.func)):
        return None
    callee = interp.eval(item.func, state)
    if isinstance(callee, Function) and callee.node is not None and any(
            (dotted(d.decorator) or "").endswith("contextmanager") for d in callee.node.decorators) \
            and _split_at_yield(callee.node) is not None:
        return callee
    return None


def _enter_generator(interp: Walker, fn: Function, item: cst.Call, state: State) -> tuple[Value, Exit]:
    """Run the generator up to its `yield` now; the rest runs at the end of the block."""
    fdef = cast(cst.FunctionDef, fn.node)  # a def with a top-level `yield` (_generator_context)
    before, after = cast("tuple[Statements, Statements]", _split_at_yield(fdef))
    site = CallSite(interp, item, state)
    bound = fn.bound if fn.bound is not None and not is_static(fdef) else None
    params = functions.bind_arguments(interp, fdef, bound, state, args=site.args) or {}
    inner, saved = functions.open_frame(interp, fn, params, state, item)
    inner = interp.exec_block(before, inner)
    functions.close_frame(interp, saved)
    state.timing = _handed_back(interp, inner, state)

    def leave(after_block: State) -> None:
        resumed = inner.copy()
        resumed.timing = after_block.timing.copy()
        frame_saved = functions.open_frame(interp, fn, {}, after_block, item)[1]
        end = interp.exec_block(after, resumed)
        functions.close_frame(interp, frame_saved)
        after_block.timing = _handed_back(interp, end, after_block)

    return UNKNOWN, leave


def _handed_back(interp: Walker, inner: State, outer: State) -> Timing:
    """The outer path's measurement after the generator ran: the generator's clock reads count."""
    timing = inner.timing.copy()
    if timing.clocks > outer.timing.clocks:
        timing.depth, timing.lap = len(interp.frames.loops), False
    else:
        timing.depth, timing.lap = outer.timing.depth, outer.timing.lap
    return timing


def _split_at_yield(fdef: cst.FunctionDef) -> Optional[tuple[Statements, Statements]]:
    """The statements before the generator's one top-level `yield`, and those after it
    (a `try: yield` / `finally:` around it counts as top level)."""
    body: Statements = list(fdef.body.body) if type(fdef.body) is cst.IndentedBlock else []
    for i, stmt in enumerate(body):
        if _is_yield(stmt):
            return body[:i], body[i + 1:]
        if type(stmt) is cst.Try and type(stmt.body) is cst.IndentedBlock:
            inner: Statements = list(stmt.body.body)
            for j, sub in enumerate(inner):
                if _is_yield(sub):
                    tail: Statements = list(stmt.finalbody.body.body) if stmt.finalbody is not None else []
                    return body[:i] + inner[:j], inner[j + 1:] + tail + body[i + 1:]
    return None


def _is_yield(stmt: cst.CSTNode) -> bool:
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    value = cast("Union[cst.Expr, cst.Assign]", small).value if type(small) in (cst.Expr, cst.Assign) else None
    return type(value) is cst.Yield
