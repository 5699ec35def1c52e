"""A function its own file never calls, seen from the run's other files: what every caller passes it.

Such a function is analysed on symbolic parameters: a `device` parameter may be a GPU, a tensor parameter may be
anywhere. Where the run holds its callers and each of them passes the same evident thing for a parameter (the
literal `'cpu'`, `scores.to("cpu")`, `x.cuda()`, `t.numpy()`), the parameter is that, with the calls as its why.
An argument read from a variable is not evident (its value is the caller's walk's to know): then, as for a
caller hidden from the text, the parameter stays symbolic. Calls from tests alone do not count: a test runs a
helper on whatever its machine has, not on the device the code is used with.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Callable, Optional, Union

import libcst as cst

from devlint.core.devices import CPU, Device, cuda, parse_device_string
from devlint.core.torch_catalogue import views as api
from devlint.core.values import Const, DeviceValue, HostArray, Located, Tensor, Unknown, Value, replace
from devlint.static.analysis.project_imports import script_bytes
from devlint.static.project.call_sites import CallText, run_call_sites, subclassed
from devlint.static.syntax import argument_for, dotted

if TYPE_CHECKING:
    from devlint.static.analysis.walker import Walker
    from devlint.static.analysis.project_imports import ProjectImports


class Passed(enum.Enum):
    """What kind of thing an evident argument is."""

    DEVICE = "a device"
    TENSOR = "a tensor"
    HOST = "a host value"


Evident = tuple[Passed, Optional[Device]]
Binder = Callable[[cst.Param, Value], Value]


def _keep(param: cst.Param, symbolic: Value) -> Value:
    return symbolic


def from_callers(interp: Walker, fdef: cst.FunctionDef, method: bool, bound: bool,
                 constructor: Optional[str] = None) -> Binder:
    """(param, its symbolic value) -> what the run's callers pass it, where they all agree on an evident thing.
    `method`: a method's calls are `x.name(...)`; `bound`: the first parameter is self; `constructor`: the class
    whose calls (`Cls(...)`) run this `__init__`."""
    name, project = constructor or fdef.name.value, interp.tables.project  # (this file's: walks go elsewhere)
    if project is None or not _asks_callers(project, name, constructor):
        return _keep
    plist = list(fdef.params.posonly_params) + list(fdef.params.params)
    positions = {param.name.value: i for i, param in enumerate(plist[1:] if bound else plist)}
    found: list[Optional[list[CallText]]] = []  # the sites, looked up when a parameter first asks

    def sites() -> Optional[list[CallText]]:
        if not found:
            found.append(run_sites(project, name, method, constructor))
        return found[0]

    def bind(param: cst.Param, symbolic: Value) -> Value:
        typed = isinstance(symbolic, (DeviceValue, Tensor))
        if not typed and type(symbolic) not in (Unknown, Located):
            return symbolic  # what no caller can make evident (a setting, a callable)
        calls = sites()
        if calls and isinstance(symbolic, DeviceValue) and _defaults_to_none(param) \
                and all(_left_out(site.call, param.name.value, positions.get(param.name.value)) for site in calls):
            # `def __init__(self, name, device=None)` that no call in the run gives a device: always the default
            return Const(value=None, node=param.default)
        agreed = _agreed(calls, param.name.value, positions.get(param.name.value), project.checked) \
            if calls else None
        if agreed is None:
            if isinstance(symbolic, DeviceValue) and symbolic.literal is not None and calls \
                    and _always_passed(calls, param.name.value, positions.get(param.name.value)):
                # `def __init__(self, device="cuda")` that every caller hands its own device: the default is
                # never read, and what they pass is their walks' to judge
                return replace(symbolic, literal=None, literal_guarded=True)
            return symbolic
        (kind, where), note = agreed
        if not typed and kind is Passed.DEVICE:
            return symbolic  # (a parameter of unknown kind given devices: what it does with them, its walk tells)
        why = ((param, note),)
        if kind is Passed.HOST:
            return HostArray(why=why)
        if kind is Passed.TENSOR:
            return Tensor(why=why, where=where, from_param=param.name.value if typed else None)
        # (every call passes its device: a hardcoded default, `device="cuda"`, is never read)
        return DeviceValue(why=why, where=where)
    return bind


def _asks_callers(project: ProjectImports, name: str, constructor: Optional[str]) -> bool:
    return bool(project.checked) and not (name.startswith("__") and constructor is None) and name != "forward"


def run_sites(project: ProjectImports, name: str, method: bool,
              constructor: Optional[str] = None) -> Optional[list[CallText]]:
    """The calls of the function (or method, or class: `constructor`) named `name` in the run's files (`project`:
    the checked file's), none in a test; None where there are none (or a subclass's `super().__init__(...)` calls
    it unseen)."""
    if not _asks_callers(project, name, constructor):
        return None
    read: dict[str, str] = {}
    own = str(project.importer)
    calls = run_call_sites(project.checked, script_bytes, name, method and constructor is None, own, read)
    if calls and not method:  # (its own file calls it by its name: `ext.nms_gpu(...)` there is another's)
        calls = [site for site in calls if not (site.qualified and site.path == own)]
    if constructor and calls and subclassed(project.checked, script_bytes, constructor, read):
        calls = None  # a subclass's `super().__init__(...)` calls it too, with what the text does not show
    project.used.update(read)  # the cache entry depends on the callers' text
    return None if not calls or all(site.in_test for site in calls) else calls


def _agreed(sites: list[CallText], name: str, position: Optional[int],
            shown: dict[str, str]) -> Optional[tuple[Evident, str]]:
    """The evident thing every call passes for the parameter, and the note that says so."""
    seen: Optional[Evident] = None
    for site in sites:
        call = site.call
        argument = argument_for(call, name, position) if call is not None else None
        factories = not site.switches_default  # (under `torch.set_default_device("cuda")` a factory makes cuda)
        found = evident(argument, factories) if argument is not None else None
        if found is None and type(argument) is cst.Name:
            found = evident(site.binding(argument.value), factories)  # `preds = preds.cpu()` ... `decode(preds)`
        if found is None or (seen is not None and found != seen):
            return None
        seen = found
    if seen is None:
        return None
    first = sites[0]
    more = f" and {len(sites) - 1} more" if len(sites) > 1 else ""
    what = seen[0].value if seen[0] is Passed.HOST else f"it on {seen[1]}"
    return seen, f"every call in the run passes {what}: {shown.get(first.path, first.path)}:{first.line}{more}"


def _always_passed(sites: list[CallText], name: str, position: Optional[int]) -> bool:
    return all(site.call is not None and argument_for(site.call, name, position) is not None for site in sites)


def _defaults_to_none(param: cst.Param) -> bool:
    return type(param.default) is cst.Name and param.default.value == "None"


def _left_out(call: Optional[cst.Call], name: str, position: Optional[int]) -> bool:
    """Does the call surely leave the parameter out (no `*args`, no `**kwargs` that may hold it)?"""
    if call is None or any(arg.star for arg in call.args):
        return False
    return argument_for(call, name, position) is None


def evident(node: Union[cst.BaseExpression, None], factories: bool = True) -> Optional[Evident]:
    """What an argument is on its face, without its file: a device literal, a tensor moved to a literal
    device, a host conversion, a factory given no device (`factories`: its file keeps the cpu the default).
    None for anything a variable decides."""
    if isinstance(node, cst.SimpleString):
        text = node.evaluated_value
        where = parse_device_string(text) if isinstance(text, str) else None
        return (Passed.DEVICE, where) if where is not None else None
    if not isinstance(node, cst.Call):
        return None
    if dotted(node.func) in api.DEVICE_CONSTRUCTORS and node.args and not node.args[0].keyword:
        found = evident(node.args[0].value)
        return found if found is not None and found[0] is Passed.DEVICE else None
    if dotted(node.func) in api.CPU_RESULTS or factories and _made_on_cpu(node):
        return Passed.TENSOR, CPU
    if not isinstance(node.func, cst.Attribute):
        return None
    method, receiver = node.func.attr.value, node.func.value
    if method in api.HOST_CONVERSION_METHODS or method in api.HOST_SYNC_METHODS:
        return Passed.HOST, None
    if method in api.MOVES_TO_CPU:
        return Passed.TENSOR, CPU
    if method in api.MOVES_TO_GPU:
        index = node.args[0].value if node.args else None
        return Passed.TENSOR, cuda(index.evaluated_value if isinstance(index, cst.Integer) else None)
    if method in api.MOVES_TO_ARGUMENT:
        target = next((a.value for a in node.args if a.keyword is None or a.keyword.value == "device"), None)
        found = evident(target)
        return (Passed.TENSOR, found[1]) if found is not None and found[0] is Passed.DEVICE else None
    if method in api.SAME_TENSOR_METHODS:
        found = evident(receiver, factories)
        return found if found is not None and found[0] is Passed.TENSOR else None
    return None


def _made_on_cpu(call: cst.Call) -> bool:
    """`torch.zeros(n)`, `torch.tensor([[y, 3.0]])`: a factory given no device (nor `**options` that may hold one),
    and for `torch.tensor` data written out (given a tensor, it copies it where it is)."""
    path = dotted(call.func)
    if path not in api.FACTORIES or path in api.SAMPLING_FACTORIES or path in api.INDEX_BUILT_FACTORIES \
            or any(arg.star or arg.keyword is not None and arg.keyword.value in ("device", "out") for arg in call.args):
        return False
    return path not in api.DATA_FOLLOWING_FACTORIES or bool(call.args) and type(call.args[0].value) in (
        cst.List, cst.Tuple, cst.Integer, cst.Float)
