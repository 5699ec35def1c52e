"""The walk over expressions: one function per expression type, each `(interp, node, state) -> Value`."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable, Optional, Union, cast

import libcst as cst

from devlint.static.analysis.assignment import assign, eval_slices, unmoved_item
from devlint.static.analysis.attributes import attribute
from devlint.static.analysis.calls import eval_call
from devlint.static.analysis.guards import (
    boolean, comparison_guard, count_guard_branch, learns, negate, polarity, truth_of, world_size_guard,
)
from devlint.static.analysis.narrowing import decided_type, maybe_array_where_not, not_a_tensor, type_test
from devlint.static.analysis.state import Returned, where_missing
from devlint.core.torch_catalogue import views as api
from devlint.core.torch_catalogue.records import CPU_TYPE, CUDA_TYPE
from devlint.static.semantics.builtins import GPU_RANGE
from devlint.static.semantics.containers import const_key, element, join_all, make_seq, tensors_in
from devlint.static.semantics.devices import as_device, built_cuda
from devlint.static.syntax import dotted, op_text, string_value
from devlint.core.values import (
    CRASHED, INTEGER, SELECTED, UNKNOWN, Availability, Const, DeviceValue, HostArray, Instance, Integer,
    LambdaFunction, Located, Module, Seq, Tensor, Unknown, Value, cuda, join, join_choice, on_cpu, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.state import State
    from devlint.static.analysis.walker import Walker

# ---------------------------------------------------------------- names and literals


def eval_name(interp: Walker, node: cst.Name, state: State) -> Value:
    if node.value in ("True", "False", "None"):
        return Const(value={"True": True, "False": False, "None": None}[node.value], node=node,
                     guarded=state.guarded)
    return interp.lookup(node.value, state)


def eval_attribute(interp: Walker, node: cst.Attribute, state: State) -> Value:
    name = dotted(node)
    if name is not None and name in state.env:
        return state.env[name]
    base = interp.eval(node.value, state)
    return attribute(interp, base, node.attr.value, state, name, node)


def eval_string(interp: Walker, node: cst.SimpleString, state: State) -> Value:
    try:
        return Const(value=string_value(node), node=node, guarded=state.guarded)
    except Exception:  # noqa: BLE001 - a string libcst cannot evaluate is just a string
        return UNKNOWN


def eval_unknown(interp: Walker, node: cst.CSTNode, state: State) -> Value:
    return UNKNOWN


def eval_formatted_string(interp: Walker, node: cst.FormattedString, state: State) -> Value:
    for part in node.parts:
        if type(part) is cst.FormattedStringExpression:
            value = interp.eval(part.expression, state)
            interp.facts.shown(part, "an f-string", interp.file.operand(part.expression, value), state)
    first = node.parts[0] if node.parts else None
    if type(first) is cst.FormattedStringText and first.value.startswith("cuda:"):
        # f'cuda:{local_rank}': the launcher chose a GPU; its index is unknown here
        index = node.parts[1] if len(node.parts) == 2 and first.value == "cuda:" else None
        return built_cuda(node, index.expression if type(index) is cst.FormattedStringExpression else None, node,
                          state.guarded)
    return UNKNOWN


def eval_integer(interp: Walker, node: cst.Integer, state: State) -> Value:
    try:
        return Const(value=int(node.value, 0), node=node, guarded=state.guarded)
    except ValueError:  # `0777`-style literals Python 3 rejects
        return Const(value=0, node=node)


def eval_float(interp: Walker, node: cst.Float, state: State) -> Value:
    try:
        return Const(value=float(node.value.replace("_", "")), node=node)
    except ValueError:
        return Const(value=0.0, node=node)


def eval_imaginary(interp: Walker, node: cst.Imaginary, state: State) -> Value:
    return Const(value=1j, node=node)


# ---------------------------------------------------------------- containers


def eval_sequence(interp: Walker, node: Union[cst.Tuple, cst.List, cst.Set], state: State) -> Value:
    """A tuple, list or set display."""
    kind = {cst.Tuple: "tuple", cst.List: "list", cst.Set: "set"}[type(node)]
    items: list[Value] = []
    known = True
    for member in node.elements:
        value = interp.eval(member.value, state)
        if type(member) is cst.StarredElement:
            known = False
            value = element(value)
        items.append(value)
    return make_seq(kind, items if known else None, items)


def eval_dict(interp: Walker, node: cst.Dict, state: State) -> Value:
    keys, items = [], []
    for member in node.elements:
        if type(member) is cst.DictElement:
            key = interp.eval(member.key, state)
            keys.append(key.value if isinstance(key, Const) else None)
            items.append(interp.eval(member.value, state))
        else:
            items.append(element(interp.eval(member.value, state)))
            keys.append(None)
    return Seq(kind="dict", items=tuple(items), keys=tuple(keys), elem=join_all(items))


def _comprehension_state(interp: Walker, node: cst.BaseComp, state: State) -> State:
    inner = state.copy()
    comp: Optional[cst.CompFor] = node.for_in
    while comp is not None:
        iterable = interp.eval(comp.iter, inner)
        assign(interp, comp.target, interp.iterate(iterable, comp), inner, comp)
        if isinstance(iterable, Seq) and iterable.kind == GPU_RANGE:
            inner.guarded = True
        for cond in comp.ifs:
            interp.eval(cond.test, inner)
        comp = comp.inner_for_in
    return inner


def eval_list_comp(interp: Walker, node: cst.BaseSimpleComp, state: State) -> Value:
    _move_each(interp, node, state)
    inner = _comprehension_state(interp, node, state)
    kind = "generator" if type(node) is cst.GeneratorExp else "list"
    made = Seq(kind=kind, elem=interp.eval(node.elt, inner))
    _ran_here(inner, state)
    return made


# modules a loop or a comprehension over a list of them is run on one by one
_MOST_UNROLLED = 8


def unrolled_modules(iterable: Value) -> tuple[Module, ...]:
    """The modules `for m in [D, G, bce]:` (or a comprehension) runs on one by one, so that what it moves in place
    is moved: those with an identity (a loss has none to move); none where the list holds other things."""
    items = iterable.items if isinstance(iterable, Seq) else None
    if not items or len(items) > _MOST_UNROLLED or not all(isinstance(v, Module) for v in items):
        return ()
    return tuple(v for v in cast("tuple[Module, ...]", items) if v.ident)


def _move_each(interp: Walker, node: cst.BaseSimpleComp, state: State) -> None:
    """`[x.cuda() for x in [D, G, bce]]`: the element runs on each module in turn, and what it moves in place is
    moved (the comprehension itself is then walked as any other, on their join)."""
    comp = node.for_in
    if comp.inner_for_in is not None or comp.ifs:
        return
    interp.facts.muted += 1
    try:
        for module in unrolled_modules(interp.eval(comp.iter, state.copy())):
            each = state.copy()
            assign(interp, comp.target, module, each, comp)
            interp.eval(node.elt, each)
            state.moved.update(each.moved)
    finally:
        interp.facts.muted -= 1


def _ran_here(inner: State, state: State) -> None:
    """A comprehension's body ran on this path: the GPU work it queued, the syncs it made, the modules it
    moved in place (`[m.to(device) for m in models]` moves each of them)."""
    state.timing = inner.timing
    state.moved.update(inner.moved)


def eval_dict_comp(interp: Walker, node: cst.DictComp, state: State) -> Value:
    inner = _comprehension_state(interp, node, state)
    interp.eval(node.key, inner)
    made = Seq(kind="dict", elem=interp.eval(node.value, inner))
    _ran_here(inner, state)
    return made


# ---------------------------------------------------------------- operators


def eval_lambda(interp: Walker, node: cst.Lambda, state: State) -> Value:
    return LambdaFunction(node=node, env=state.env)


def eval_await(interp: Walker, node: cst.Await, state: State) -> Value:
    return interp.eval(node.expression, state)


def eval_yield(interp: Walker, node: cst.Yield, state: State) -> Value:
    """`yield x`: a value the generator hands out (what iterating a call of it binds)."""
    if type(node.value) is cst.From:
        value = interp.iterate(interp.eval(node.value.item, state), node)
    else:
        value = interp.eval(node.value, state) if node.value is not None else Const(value=None)
    if interp.frames.returns:
        interp.frames.returns[-1].append(Returned(value, state.env.get("self"), state.guarded, yielded=True))
    return UNKNOWN  # what `send()` gives back


def eval_named_expr(interp: Walker, node: cst.NamedExpr, state: State) -> Value:
    value = interp.eval(node.value, state)
    assign(interp, node.target, value, state, node)
    return value


def eval_if_exp(interp: Walker, node: cst.IfExp, state: State) -> Value:
    test = truth_of(interp, node.test, state)
    if isinstance(test, Const) and isinstance(test.value, bool):
        # `"cuda" if cuda else "cpu"` after `cuda = True`: a constant flag picks one side (Pytorch-VAE-tutorial)
        return interp.eval(node.body if test.value else node.orelse, state)
    direction = polarity(test)
    then_state, else_state = state.copy(), state.copy()
    for branch, outcome in ((then_state, True), (else_state, False)):
        known = learns(test, outcome)
        branch.guarded = branch.guarded or known is True
        branch.unavailable = branch.unavailable or known is False  # `x.numpy() if not on_gpu else ...`
    tested = type_test(interp, node.test, state)
    decided = decided_type(interp, node.test, state)
    if decided is not None:  # `x.clone() if isinstance(x, torch.Tensor) else np.copy(x)` given a tensor
        return interp.eval(node.body if decided else node.orelse, then_state if decided else else_state)
    not_a_tensor(tested, else_state)
    maybe_array_where_not(interp, node.test, state, else_state)
    # (on the path that knows CUDA is missing, the selected device is the cpu: `x if not on_gpu else x.cpu()`)
    missing = then_state.unavailable != else_state.unavailable
    body = where_missing(interp.eval(node.body, then_state), missing and then_state.unavailable)
    orelse = where_missing(interp.eval(node.orelse, else_state), missing and else_state.unavailable)
    if direction is not None and isinstance(body, Const) and isinstance(orelse, Const) \
            and isinstance(body.value, bool) and isinstance(orelse.value, bool) and body.value != orelse.value:
        # `True if avail else False` (only an Availability has a polarity)
        return Availability(positive=direction if body.value else not direction,
                            backend=cast(Availability, test).backend)
    for kept, dropped, positive in ((body, orelse, direction), (orelse, body, not direction)):
        if direction is not None and isinstance(dropped, Const) and dropped.value in (False, None, 0) \
                and type(kept) in (Unknown, Located):
            # `pin_memory if torch.cuda.is_available() else False`: true only with a GPU, a check where it is tested
            return Availability(positive=bool(positive), backend=cast(Availability, test).backend)
    if direction is not None:
        device_body, device_else = as_device(body), as_device(orelse)
        if device_body is not None and device_else is not None:
            return DeviceValue(why=((node, ""),), where=join_choice(device_body, device_else, True))
    return join(body, orelse, availability_split=direction is not None)


def eval_unary(interp: Walker, node: cst.UnaryOperation, state: State) -> Value:
    if type(node.operator) is cst.Not:
        value = truth_of(interp, node.expression, state)
        if isinstance(value, Availability):
            return negate(value)
        if isinstance(value, Const):
            return Const(value=not value.value, node=node)
        return UNKNOWN
    value = interp.eval(node.expression, state)
    if isinstance(value, (Tensor, Located)):
        return value
    if type(node.operator) is cst.Minus and isinstance(value, Const) and isinstance(value.value, (int, float)) \
            and not isinstance(value.value, bool):
        return Const(value=-value.value, node=node)  # `x[-1]`
    if type(value) is Integer:
        return value
    return UNKNOWN


def eval_boolean(interp: Walker, node: cst.BooleanOperation, state: State) -> Value:
    left = truth_of(interp, node.left, state)
    right_state = state.copy()
    conjunction = type(node.operator) is cst.And
    if conjunction and learns(left, True) is True:
        right_state.guarded = True
    if not conjunction and learns(left, False) is True:
        right_state.guarded = True  # `not avail or x`: x runs where CUDA is
    right = interp.eval(node.right, right_state)
    check = boolean(left, right, conjunction)
    if check is not None:
        return check
    if not conjunction:
        if isinstance(left, Const) and not left.value:
            return right
        if isinstance(left, (Tensor, Module, DeviceValue)):
            return join(left, right)
    if isinstance(left, Const) and isinstance(right, Const):
        return Const(value=None)
    return UNKNOWN if conjunction else join(left, right)


def eval_comparison(interp: Walker, node: cst.Comparison, state: State) -> Value:
    left = interp.eval(node.left, state)
    result: Value = UNKNOWN
    for target in node.comparisons:
        right = interp.eval(target.comparator, state)
        op = target.operator
        guard = comparison_guard(left, op, right)
        folded = _fold(left, op, right)
        world = world_size_guard(left, op, right, interp.file)
        if folded is not None and len(node.comparisons) == 1:
            result = folded  # `"cpu" not in ["cpu"]`: a parameter's known value decides the branch
        elif world is not None:
            result = world
        elif guard is not None:
            result = Availability(positive=guard, branch=count_guard_branch(left, op, right))
        elif isinstance(left, (Tensor, Located)) or isinstance(right, (Tensor, Located)):
            if type(op) not in (cst.Is, cst.IsNot, cst.In, cst.NotIn):
                result = binary(interp, node, op_text(op), left, right, node.left, target.comparator, state)
        left = right
    return result


_INT_COMPARISONS: dict[type, Callable[[int, int], bool]] = {
    cst.Equal: operator.eq, cst.NotEqual: operator.ne, cst.LessThan: operator.lt, cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge}


_NONE_TESTS = (cst.Is, cst.IsNot, cst.Equal, cst.NotEqual)


def _fold(left: Value, op: cst.BaseCompOp, right: Value) -> Optional[Const]:
    """A comparison of known strings: `device == "cpu"` where `device` is the constant "cpu"; of known
    whole numbers: `len(boxes) == 0` for a caller's empty list."""
    if isinstance(right, Const) and right.value is None and type(op) in _NONE_TESTS and _never_none(left):
        # `if device is not None: x = x.to(device)` where the caller passed a device: only that branch runs
        return Const(value=type(op) in (cst.IsNot, cst.NotEqual))
    if isinstance(left, Const) and isinstance(right, Const) and type(left.value) is bool and type(right.value) is bool \
            and type(op) in (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot):  # `if torch.is_tensor(x) != True:`
        return Const(value=(left.value == right.value) == (type(op) in (cst.Equal, cst.Is)))
    if isinstance(left, Const) and left.value is None and isinstance(right, Const) and right.value is None \
            and type(op) in _NONE_TESTS:  # (`device == None` tests what `device is None` does)
        return Const(value=type(op) in (cst.Is, cst.Equal))  # `if pivot is None: return` where the caller passed none
    if isinstance(left, Const) and isinstance(right, Const) and type(left.value) is int and type(right.value) is int \
            and (type(op) in (cst.Equal, cst.NotEqual) or type(op) in _INT_COMPARISONS and _computed(left, right)):
        # (`n >= 0` of `n = x.get_device()` for a cpu `x`: a number the walk computed, not a setting's default)
        return Const(value=_INT_COMPARISONS[type(op)](left.value, right.value))
    if not (isinstance(left, Const) and isinstance(left.value, str)):
        return None
    if isinstance(right, Const) and isinstance(right.value, str):
        if type(op) in (cst.Equal, cst.NotEqual):
            return Const(value=(left.value == right.value) == (type(op) is cst.Equal))
    elif isinstance(right, Seq) and right.items is not None and type(op) in (cst.In, cst.NotIn) \
            and all(isinstance(v, Const) and isinstance(v.value, str) for v in right.items):
        constants = cast("tuple[Const, ...]", right.items)  # (all Const: checked above)
        return Const(value=any(v.value == left.value for v in constants) == (type(op) is cst.In))
    elif isinstance(right, Seq) and right.kind == "dict" and right.keys is not None and type(op) in (cst.In, cst.NotIn):
        # `if name not in self._data:` of a dict whose every key is known (a store filled by name)
        return Const(value=(left.value in right.keys) == (type(op) is cst.In))
    return None


def _computed(*sides: Const) -> bool:
    """Is one side a number a call gave (`x.get_device()`), not a literal handed down as a setting (`num_layers=18`,
    whose branches a run may well take the other way)?"""
    return any(type(side.node) is cst.Call for side in sides)


def _never_none(value: Value) -> bool:
    """A device someone wrote (not a parameter's, which may be its default None)."""
    return isinstance(value, DeviceValue) and value.where is not None and value.where.kind != "param" \
        and not value.maybe_none


_INT_OPERATORS = frozenset({"+", "-", "*", "//", "%", "+=", "-=", "*="})
_ARRAY_OPERATORS = frozenset({"+", "-", "*", "/", "//", "**", "+=", "-=", "*=", "/="})


def _one_cpu_element(container: Tensor, indices: list[tuple[cst.BaseExpression, Value]], node: cst.Subscript) -> bool:
    """`x[0]`, `table[i]` with an int, `table[t]` with t 0-dim (`timesteps[i]`): one element of a 1-d cpu
    tensor, 0-dim, which mixes with anything (a collated batch's `batch[0]` is a member, not an element; its `y[j]`
    in a loop over `range(len(y))` is one). A row (`corners[0, :]`) is none."""
    return bool(indices) and all(type(element.slice) is cst.Index for element in node.slice) \
        and all(v.scalar if isinstance(v, Tensor) else _is_int(v) or _named_index(n, v) for n, v in indices) \
        and (not container.collated or all(type(v) is Integer for _, v in indices)) \
        and container.where is not None and container.where.kind == CPU_TYPE


def _named_index(node: cst.BaseExpression, value: Value) -> bool:
    """`self.sigmas[self.step_index]` of an index no walk knows (a property's; None until a method sets it), named as
    one is: an int."""
    return isinstance(value, (Unknown, Const)) and _index_named(node)


def _index_named(node: cst.BaseExpression) -> bool:
    """`step_index`, `self.step_index + 1`."""
    if type(node) is cst.BinaryOperation:
        return any(_index_named(side) for side in (node.left, node.right)) \
            and all(_index_named(side) or type(side) is cst.Integer for side in (node.left, node.right))
    return (dotted(node) or "").rsplit(".", 1)[-1].lower().endswith(api.INDEX_NAME_SUFFIXES)


def _element_of(interp: Walker, index: cst.BaseExpression, state: State) -> bool:
    """`used[order[j]]` with an int `j`, `ids[ranks[r, q]]`: one element of a tensor, 0-dim as a rule (a sort's
    order, an argsort), and a 0-dim integer index selects as a Python int does, from any device."""
    if type(index) is not cst.Subscript or not all(type(e.slice) is cst.Index for e in index.slice):
        return False
    if dotted(index.value) is not None and isinstance(interp.eval(index.value, state), Seq):
        return False  # `entities[0]` of a list of tensors: a whole tensor, not one element
    inners = [cast(cst.Index, e.slice).value for e in index.slice]
    if any(type(inner) not in (cst.Name, cst.Integer) for inner in inners):
        return False
    values = [interp.eval(inner, state) for inner in inners]
    return all(_is_int(v) or type(v) is Unknown for v in values)  # (`j += 1` in a loop: a number nobody knows)


def _is_int(value: Value) -> bool:
    return type(value) is Integer or (isinstance(value, Const) and type(value.value) is int)


def eval_binary(interp: Walker, node: cst.BinaryOperation, state: State) -> Value:
    left = interp.eval(node.left, state)
    right = interp.eval(node.right, state)
    return binary(interp, node, op_text(node.operator), left, right, node.left, node.right, state)


def binary(interp: Walker, node: cst.CSTNode, op: str, left: Value, right: Value, left_node: cst.CSTNode,
           right_node: cst.CSTNode, state: State) -> Value:
    """`left op right`: list concatenation, string building, or an operation on tensors."""
    if isinstance(left, Seq) and isinstance(right, Seq) and op in ("+", "+="):  # `preds += [out]` too
        items = (left.items + right.items) if left.items is not None and right.items is not None else None
        joined = make_seq(left.kind, list(items) if items is not None else None, [left.elem, right.elem])
        # as `append` does: remember a GPU member that a loop's join would forget
        gpu = [m for m in list(left.gpu_members) + list(tensors_in(right)) if m.device is not None and m.device.is_gpu]
        return replace(joined, gpu_members=tuple(gpu[-1:])) if gpu else joined
    for seq, count in ((left, right), (right, left)):
        if op == "*" and isinstance(seq, Seq) and seq.kind in ("list", "tuple") \
                and type(count) in (Const, Integer, Unknown):
            # `[0] * n`: the same members, n times (a count is a number: a list times a tensor is the tensor's op);
            # `[torch.zeros(1)] * nl` holds placeholders, each replaced before use (yolov5's grids): unknown
            members = [seq.elem, *(seq.items or ())]
            return Seq(kind=seq.kind, elem=UNKNOWN) if tensors_in(seq) else make_seq(seq.kind, None, members)
    if isinstance(left, Const) and isinstance(right, Const) and op == "+" \
            and isinstance(left.value, str) and isinstance(right.value, str):
        return Const(value=left.value + right.value, node=node, guarded=state.guarded)
    if isinstance(left, Const) and isinstance(left.value, str) and left.value.startswith(CUDA_TYPE) and op == "+":
        return DeviceValue(why=((node, ""),), where=cuda(None), literal=left.node, literal_guarded=left.guarded)
    if isinstance(left, Const) and isinstance(left.value, str) and left.value.startswith(CUDA_TYPE + ":") \
            and op == "%":
        # "cuda:%d" % rank: as f"cuda:{rank}"
        return built_cuda(node, right_node, left.node, left.guarded or state.guarded)
    if isinstance(left, Const) and isinstance(left.value, str) and op == "%":
        for shown in tensors_in(right):  # `"prob: %.4f" % p`: a str, made of the tensor's value read on the host
            interp.facts.shown(node, "%-formatting", interp.file.operand(right_node, shown), state)
        return UNKNOWN
    if left is CRASHED or right is CRASHED:
        return CRASHED  # downstream of a reported crash: `(gpu - cpu) / cpu` is one bug, not two
    if _is_int(left) and _is_int(right) and op in _INT_OPERATORS:
        return INTEGER  # `-1 - idx` of a loop index: still one element's index
    if op in _ARRAY_OPERATORS and (_array_and_guess(left, right) or _array_and_guess(right, left)):
        return HostArray(why=(left if isinstance(left, HostArray) else right).why + ((node, ""),))
    left, right = _moved_operand(left, right), _moved_operand(right, left)
    for zero_dim, other in ((left, right), (right, left)):
        if isinstance(zero_dim, Tensor) and zero_dim.scalar and on_cpu(zero_dim.where) and type(other) in (
                Unknown, Located):
            # a 0-dim cpu tensor goes wherever the other operand is (`k ** t / torch.log(torch.tensor(k))`)
            return Located(where=other.device) if type(other) is Located else UNKNOWN
    operands = [interp.file.operand(n, v) for n, v in ((left_node, left), (right_node, right)) if isinstance(v, Tensor)]
    if not operands:
        if isinstance(left, Located) or isinstance(right, Located):
            return Located(where=(left.device or right.device))
        if (isinstance(left, HostArray) or isinstance(right, HostArray)) and op in _ARRAY_OPERATORS:
            # `(1.0 - beta) / np.array(n)`: numpy's arithmetic keeps an array (with its dimensions) on the host
            return HostArray(why=(left if isinstance(left, HostArray) else right).why + ((node, ""),))
        return UNKNOWN
    return interp.operation(node, op, operands, state)


def _moved_operand(value: Value, other: Value) -> Value:
    """`pred == y` after `y = y.cuda()` of a batch's `y` of unknown kind: what meets a tensor in arithmetic after a
    move to a device is a tensor there (a number has no `.cuda()`)."""
    if type(value) is Located and isinstance(other, Tensor) and value.where is not None and value.where.concrete \
            and any(type(node) is cst.Call and type(node.func) is cst.Attribute
                    and node.func.attr.value in api.MOVES_TO_GPU | api.MOVES_TO_ARGUMENT for node, _ in value.why):
        return Tensor(why=value.why, where=value.where, derived=True)
    return value


def _array_and_guess(array: Value, other: Value) -> bool:
    """A numpy array with a parameter only guessed to be a tensor, as is (`w / w.sum() * n_classes`, where
    `n_classes` also went to `F.one_hot(labels, n_classes)`): numpy arithmetic is given numbers."""
    if not isinstance(array, HostArray) or other.device is None or other.device.kind != "param":
        return False
    return type(other) is Located or (isinstance(other, Tensor) and other.from_param is not None and not other.derived)


def eval_subscript(interp: Walker, node: cst.Subscript, state: State) -> Value:
    container = interp.eval(node.value, state)
    indices = eval_slices(interp, node, state)
    if isinstance(container, Seq) and container.kind == "dict" and len(indices) == 1 \
            and isinstance(indices[0][1], DeviceValue):
        return _per_device_item(container, indices[0][1], node)
    if isinstance(container, Seq):
        return _seq_subscript(container, node)
    if isinstance(container, Tensor) and container.scalar and container.derived and indices \
            and all(_is_int(v) for _, v in indices):
        # `loss.data[0]` of a 0-dim result: torch before 0.4 gave a Python number (what `.item()` gives now),
        # today it raises IndexError on every device. Either way no tensor comes out.
        return UNKNOWN
    if isinstance(container, Tensor):
        # (`ids.to(device)` of a value not known to be a tensor is one where it indexes a tensor)
        moved = [(s, _moved_operand(v, container)) for s, v in indices]
        tensor_indices = [(s, v) for s, v in moved if isinstance(v, Tensor) and not _element_of(interp, s, state)]
        if any(type(s) is cst.Comparison for s, _ in tensor_indices) and container.device is not None \
                and container.device.is_gpu:
            interp.facts.note_sync(state)  # `d[d < 0.5]`: a boolean mask, whose count the host waits for
        if tensor_indices:
            operand = interp.file.operand
            operands = [operand(node.value, container)] + [operand(s, v) for s, v in tensor_indices]
            result = interp.operation(node, "[]", operands, state, indexing=True)
            if isinstance(result, Tensor):
                return replace(result, where=container.where, scalar=_one_cpu_element(container, indices, node))
            return result
        return replace(container, scalar=_one_cpu_element(container, indices, node), fresh=False, derived=True)
    host_item = unmoved_item(interp, node, container)
    if host_item is not None:
        return host_item
    if isinstance(container, Located):
        return Located(where=container.where)
    if isinstance(container, HostArray):
        return container  # `obs[None]`, `arr[:, 0]`: numpy's, on the host
    if isinstance(container, Instance) and len(indices) == 1:
        # `x, t = dataset[i]` of a dataset of this project: what its `__getitem__` returns
        return interp.call_method_of(container, "__getitem__", [indices[0][1]], node, state)
    if isinstance(container, Module):  # nn.Sequential / ModuleList indexing: one member (a slice: another)
        return container if type(node.slice[0].slice) is cst.Slice else container.element()
    key = const_key(node)
    if isinstance(container, Unknown) and isinstance(key, str) and api.looks_like_device_name(key):
        # `cfg["device"]`: the device a configuration chose
        return DeviceValue(why=((node, ""),), where=SELECTED)
    polarity = api.flag_polarity(key) if isinstance(key, str) and isinstance(container, (Unknown, Located)) else None
    if polarity is not None:
        return Availability(positive=polarity)  # `if conf["use_gpu"]:`, as `if args.use_gpu:`
    return UNKNOWN


def _per_device_item(container: Seq, key: DeviceValue, node: cst.Subscript) -> Value:
    """`self._tables[device]` of a cache keyed by device (a lookup table built on the cpu, moved to each device it
    is asked for): its tensors are on that device, or unknown where the key's device is."""
    item = _seq_subscript(container, node)
    if key.where is None or not tensors_in(item):
        return UNKNOWN if tensors_in(item) else item
    why = key.why + ((node, "a cache keyed by device"),)
    if isinstance(item, Tensor):
        return replace(item, why=why, where=key.where)
    if isinstance(item, Seq) and isinstance(item.elem, Tensor) and all(isinstance(i, Tensor) for i in item.items or ()):
        return replace(item, elem=replace(item.elem, why=why, where=key.where), items=None if
                       item.items is None else tuple(replace(i, why=why, where=key.where)
                                                     for i in item.items))
    return UNKNOWN


def _seq_subscript(container: Seq, node: cst.Subscript) -> Value:
    key = const_key(node)
    if container.items is not None and key is not None:
        if container.keys is not None:
            for k, v in zip(container.keys, container.items):
                if k == key:
                    return v
            return container.elem
        if isinstance(key, int) and -len(container.items) <= key < len(container.items):
            return container.items[key]
    if type(node.slice[0].slice) is cst.Slice:
        return container
    return container.elem


# each handler takes the node type it is keyed by: no one type for them all
EVAL: dict[type[cst.CSTNode], Callable[[Walker, Any, State], Value]] = {
    cst.Name: eval_name, cst.Attribute: eval_attribute, cst.SimpleString: eval_string,
    cst.ConcatenatedString: eval_unknown, cst.FormattedString: eval_formatted_string, cst.Integer: eval_integer,
    cst.Float: eval_float, cst.Imaginary: eval_imaginary, cst.Tuple: eval_sequence, cst.List: eval_sequence,
    cst.Set: eval_sequence, cst.Dict: eval_dict, cst.ListComp: eval_list_comp, cst.SetComp: eval_list_comp,
    cst.GeneratorExp: eval_list_comp, cst.DictComp: eval_dict_comp, cst.Lambda: eval_lambda,
    cst.Await: eval_await, cst.NamedExpr: eval_named_expr, cst.IfExp: eval_if_exp, cst.UnaryOperation: eval_unary,
    cst.BooleanOperation: eval_boolean, cst.Comparison: eval_comparison, cst.BinaryOperation: eval_binary,
    cst.Subscript: eval_subscript, cst.Call: eval_call, cst.Yield: eval_yield,
}
