"""What an `if` test says of a value: of its type (`isinstance(x, torch.Tensor)`, `isinstance(x, np.ndarray)`,
`np.isscalar(x)`: decided where the value tells, or narrowing it in each branch) and of its place (`x.is_cuda`,
`x.device.type == "cpu"`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, cast

import libcst as cst

from devlint.core.torch_catalogue import views as api
from devlint.static.analysis.guards import place_subject
from devlint.static.syntax import dotted
from devlint.static.semantics.devices import only_a_parameter
from devlint.core.values import (
    UNKNOWN, Function, HostArray, Module, Ref, Seq, Tensor, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.state import State
    from devlint.static.analysis.walker import Walker


def type_test(interp: Walker, test: cst.BaseExpression, state: State) -> Optional[tuple[str, bool]]:
    """(x, True) for `torch.is_tensor(x)` / `isinstance(x, torch.Tensor)`, (x, False) for
    `isinstance(x, np.ndarray)`; None for any other test."""
    if not (type(test) is cst.Call and test.args):
        return None
    callee = interp.eval(test.func, state)
    path = callee.path if isinstance(callee, Ref) else (test.func.value if type(test.func) is cst.Name else "")
    subject = dotted(test.args[0].value)
    kind = getattr(interp.eval(test.args[1].value, state), "path", "") if len(test.args) > 1 else ""
    if subject is None:
        return None
    if path == api.IS_TENSOR_FUNCTION or (path == "isinstance" and kind == api.TENSOR_CLASS):
        return subject, True
    if path == "isinstance" and kind == "numpy.ndarray":
        return subject, False
    return None


def maybe_array_where_not(interp: Walker, test: cst.BaseExpression, state: State, else_state: State) -> None:
    """`torch.zeros_like(b) if b.dtype is torch.float32 else np.zeros_like(b)` (`==` too): the code dispatches
    on the type, so where the test is false, b may be a numpy array: a host library given it is not judged
    (a tensor of another dtype keeps its device)."""
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return
    left, target = test.left, test.comparisons[0]
    if type(target.operator) not in (cst.Is, cst.Equal) or type(left) is not cst.Attribute \
            or left.attr.value != api.DTYPE_KEYWORD:
        return
    subject = dotted(left.value)
    dtype = interp.eval(target.comparator, state)
    current = else_state.env.get(subject) if subject is not None else None
    if isinstance(dtype, Ref) and dtype.path in api.TORCH_DTYPES and isinstance(current, Tensor):
        else_state.env[cast(str, subject)] = replace(current, inferred=True)


def module_test(interp: Walker, test: cst.BaseExpression, state: State) -> Optional[str]:
    """x for `isinstance(x, nn.Module)`; None for any other test."""
    if type(test) is not cst.Call or len(test.args) != 2 or dotted(test.func) != "isinstance":
        return None
    kind = getattr(interp.eval(test.args[1].value, state), "path", "")
    answer = api.TYPE_TEST_ANSWERS.get(kind)
    return dotted(test.args[0].value) if answer is not None and answer[2] else None


def decided_type(interp: Walker, test: cst.BaseExpression, state: State) -> Optional[bool]:
    """A type test the subject's value answers (`isinstance(x, list)`, `np.isscalar(x)`, `isinstance(x,
    torch.Tensor)`...): a tensor a caller passed (not a parameter only guessed to be one, nor an object that
    may be something else) or a host array; None when the value does not say."""
    if type(test) is cst.Comparison:
        return _decided_type_of(interp, test, state)
    if type(test) is not cst.Call or not test.args or test.args[0].star \
            or (dotted(test.func) or "").rsplit(".", 1)[-1] not in _TYPE_TEST_NAMES:
        return None  # (asked of every `if`: no evaluating again a test that names no type test)
    callee = interp.eval(test.func, state)
    path = callee.path if isinstance(callee, Ref) else (test.func.value if type(test.func) is cst.Name else "")
    return _answered(interp, path, test.args[0].value, [a.value for a in test.args[1:]], state)


def _decided_type_of(interp: Walker, test: cst.Comparison, state: State) -> Optional[bool]:
    """`type(image) is Image.Image` (`==`, `is not`, `!=`): as `isinstance`, for the classes it knows (a tensor
    is never a PIL image)."""
    left = test.left
    if len(test.comparisons) != 1 or type(left) is not cst.Call or dotted(left.func) != "type" \
            or len(left.args) != 1 or left.args[0].star:
        return None
    operator = type(test.comparisons[0].operator)
    if operator not in (cst.Is, cst.Equal, cst.IsNot, cst.NotEqual):
        return None
    answer = _answered(interp, "isinstance", left.args[0].value, [test.comparisons[0].comparator], state)
    return None if answer is None else answer == (operator in (cst.Is, cst.Equal))


def _answered(interp: Walker, path: str, subject_node: cst.BaseExpression, kinds: list[cst.BaseExpression],
              state: State) -> Optional[bool]:
    subject = interp.eval(subject_node, state)
    guessed = only_a_parameter(subject)
    if isinstance(subject, Tensor) and not subject.maybe_object and not subject.inferred and not guessed:
        side = 0
    elif isinstance(subject, HostArray):
        side = 1
    elif isinstance(subject, Module) and not guessed:
        side = 2  # `if isinstance(net, nn.Module):` given a module (d2lzh's evaluate_accuracy)
    elif type(subject) is Function and subject.node is not None and subject.bound is None:
        side = 3  # ... given a plain function of the file's
    elif isinstance(subject, Seq) and subject.kind in ("list", "tuple", "dict"):
        side = 5 if subject.kind == "dict" else 4  # a list the caller built (`utils.cuda([D, G, bce])`)
    else:
        return None
    if path in api.SCALAR_TESTS and not kinds:
        return False if side < 2 else None
    if path != "isinstance" or len(kinds) != 1:
        return None
    answers = _type_answers(interp, kinds[0], state)
    if any(answer is None for answer in answers):
        return None
    return any(cast("tuple[bool, ...]", answer)[side] for answer in answers)


_TYPE_TEST_NAMES = frozenset({"isinstance"} | {path.rsplit(".", 1)[-1] for path in api.SCALAR_TESTS})


def no_tensor_where(interp: Walker, test: cst.BaseExpression, state: State, then_state: State) -> None:
    """`if not isinstance(batch, list): batch = batch.to(device)`: where `isinstance(x, list)` (or another class
    no tensor is) holds, x is none, whatever the loader's tensors said."""
    if type(test) is not cst.Call or len(test.args) != 2 or dotted(test.func) != "isinstance":
        return
    subject, answers = dotted(test.args[0].value), _type_answers(interp, test.args[1].value, state)
    if subject is not None and answers and all(answer is not None and not any(answer[:4]) for answer in answers) \
            and isinstance(then_state.env.get(subject), Tensor):
        then_state.env[subject] = UNKNOWN


def _type_answers(interp: Walker, kinds: cst.BaseExpression, state: State) -> list[Optional[tuple[bool, ...]]]:
    """What `isinstance(x, kinds)` answers, per class named (`(list, tuple)` is two), for each kind of value
    (`TYPE_TEST_ANSWERS`); None for a class it does not know."""
    elements = [e.value for e in kinds.elements] if type(kinds) is cst.Tuple else [kinds]
    return [api.TYPE_TEST_ANSWERS.get(getattr(interp.eval(e, state), "path", "") or (dotted(e) or ""))
            for e in elements]


def not_a_tensor(tested: Optional[tuple[str, bool]], else_state: State) -> None:
    """`x.clone() if isinstance(x, torch.Tensor) else np.copy(x)`: where the test is false, x is no tensor."""
    if tested is not None and tested[1] and tested[0] in else_state.env:
        else_state.env[tested[0]] = UNKNOWN


def off_cpu_where(test: cst.BaseExpression, then_state: State, else_state: State) -> None:
    """`if latent.device.type == "cpu": latent = latent.to(device)` (or `if x.is_cuda:`): where the test says x is off
    the cpu, the cpu it may have had on some path (`torch.from_numpy` of an array) is gone."""
    found = _placement_subject(test)
    if found is None:
        return
    subject, cpu_when_true = found
    branch = else_state if cpu_when_true else then_state
    value = branch.env.get(subject)
    if type(value) is Tensor and value.where is None and (value.maybe_cpu is not None or value.cpu_path is not None):
        branch.env[subject] = replace(value, maybe_cpu=None, cpu_path=None)


def _placement_subject(test: cst.BaseExpression) -> Optional[tuple[str, bool]]:
    """(x, whether x is on the cpu where the test holds) for `x.is_cuda` and `x.device.type == "cpu"` (`!=`, or
    "cuda"); None for any other test."""
    if type(test) is cst.Attribute and test.attr.value == api.TENSOR_PLACEMENT_TEST:
        subject = dotted(test.value)
        return (subject, False) if subject else None
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return None
    left, target = test.left, test.comparisons[0]
    equal = type(target.operator) in (cst.Equal, cst.Is)
    if type(left) is not cst.Attribute or left.attr.value != "type" or type(target.comparator) is not cst.SimpleString \
            or (not equal and type(target.operator) not in (cst.NotEqual, cst.IsNot)):
        return None
    subject, kind = place_subject(left.value), target.comparator.evaluated_value  # `x` of `x.device`
    if subject is None or kind not in (api.CPU_TYPE, api.CUDA_TYPE):
        return None
    return subject, equal == (kind == api.CPU_TYPE)
