"""Python itself: builtins (`zip`, `list`, `print`, `float`...), list and dict methods, `super()`,
and the calls that never return (`sys.exit`)."""

from __future__ import annotations

import posixpath
from typing import cast

from devlint.core.torch_catalogue import views as api
from devlint.static.semantics.callsite import CallSite
from devlint.static.semantics.containers import element, join_all
from devlint.static.semantics.modules import register_by_hand
from devlint.static.syntax import dotted
from devlint.core.values import (
    DEVICE_COUNT, INTEGER, SELECTED, UNKNOWN, Availability, Const, DeviceCount, DeviceValue, Instance, Loader, Located,
    Module, Ref, Seq, Super, Tensor, Unknown,
    Value, const_device, join, replace,
)


def _on_gpu(value: Value) -> bool:
    return isinstance(value, Tensor) and value.where is not None and value.where.is_gpu


def builtin_iter(site: CallSite) -> Value:
    first = site.args.first()
    if isinstance(first, Loader):
        return replace(first, iterator=True)
    return first if isinstance(first, (Seq, Tensor)) else UNKNOWN


def builtin_next(site: CallSite) -> Value:
    first = site.args.first()
    return site.walk.iterate(first, site.node) if isinstance(first, (Loader, Seq, Tensor)) else UNKNOWN


def builtin_enumerate(site: CallSite) -> Value:
    first = site.args.first()
    return Seq(kind="list", elem=Seq(kind="tuple", items=(Const(value=0), site.walk.iterate(first, site.node))))


def builtin_zip(site: CallSite) -> Value:
    items = tuple(site.walk.iterate(v, site.node) for _, v in site.args.positional)
    return Seq(kind="list", elem=Seq(kind="tuple", items=items))


def builtin_sequence(site: CallSite) -> Value:
    """`list(x)`, `tuple(x)`, `sorted(x)`...: a list of what iterating x yields."""
    if not site.node.args and site.name in ("list", "tuple"):
        return Seq(kind=site.name, items=())  # `tuple()`: empty (a 0-dim shape, `torch.zeros(tuple())`)
    first = site.args.first()
    if isinstance(first, Seq):
        return Seq(kind="list", elem=first.elem, items=first.items if site.name != "sorted" else None)
    if isinstance(first, (Loader, Tensor)):
        return Seq(kind="list", elem=site.walk.iterate(first, site.node))
    return UNKNOWN


def builtin_print(site: CallSite) -> Value:
    """`print(loss)` of a GPU tensor waits for the GPU."""
    for arg_node, value in site.args.positional:
        site.facts.shown(site.node, "print", site.operand(arg_node, value), site.state)
    return Const(value=None)


def builtin_number(site: CallSite) -> Value:
    """`float(loss)` of a tensor off the cpu (or of unknown device) waits for the GPU, as `.item()` does."""
    _read_as_number(site, f"{site.name}()")
    given = site.args.first()
    text = given.value if isinstance(given, Const) and type(given.value) in (str, int, float) else None
    if site.name == api.FLOAT_CAST and text is not None:
        try:  # `best = float("inf")`: a number, that a tensor replaces in the loop (the join keeps the tensor)
            return Const(value=float(cast("str | int | float", text)), node=site.node)
        except ValueError:
            return UNKNOWN
    return INTEGER if site.name in api.INTEGER_CASTS else UNKNOWN  # (`y[int(total * p)]`: one element)


def math_function(site: CallSite) -> Value:
    """`math.sqrt(var)` of a tensor: Python's math reads it as a float (`Tensor.__float__`), as `float()` does."""
    _read_as_number(site, f"{site.path}()")
    return UNKNOWN


def _read_as_number(site: CallSite, how: str) -> None:
    """The first argument read as a Python number: a host copy of a tensor off the cpu, a sync."""
    first = site.args.first()
    if isinstance(first, (Tensor, Located)) and (first.device is None or first.device.kind != api.CPU_TYPE):
        site.facts.host_sync(site.node, how, site.operand(site.args.positional[0][0], first), site.state)
    elif isinstance(first, Unknown) and site.args.positional \
            and (dotted(site.args.positional[0][0]) or "") in site.file.tensor_names():
        site.facts.note_sync(site.state)  # a name used as a tensor, of unknown device: as `.item()` on it


def builtin_min_max(site: CallSite) -> Value:
    """`max(acc, best)`: the builtin compares its arguments and reads each comparison's truth (`Tensor.__bool__`):
    a tensor off the cpu among them is read on the host, a sync."""
    args = site.args.positional
    for arg_node, value in args if len(args) > 1 else ():
        if isinstance(value, (Tensor, Located)) and value.device is not None and value.device.is_gpu:
            site.facts.host_sync(site.node, f"`{site.name}()`", site.operand(arg_node, value), site.state)
            break
    return UNKNOWN


def builtin_super(site: CallSite) -> Value:
    me = site.state.env.get("self")
    return Super(receiver=me) if me is not None else UNKNOWN


def super_method(site: CallSite) -> Value:
    """`super().__init__(dim)`: the base class's method, run on this object (its attributes become ours)."""
    return site.walk.call_super(site)


def builtin_dict(site: CallSite) -> Value:
    args = site.args
    if args.keywords:
        items = [v for _, v in args.keywords.values()]
        return Seq(kind="dict", items=tuple(items), keys=tuple(args.keywords), elem=join_all(items))
    first = args.first()
    return first if isinstance(first, Seq) else UNKNOWN


def builtin_str(site: CallSite) -> Value:
    first = site.args.first()
    return first if isinstance(first, DeviceValue) else UNKNOWN


def builtin_range(site: CallSite) -> Value:
    """`range(torch.cuda.device_count())`: its loop runs only where there is a GPU."""
    if any(isinstance(v, DeviceCount) for _, v in site.args.positional):
        return Seq(kind=GPU_RANGE, elem=UNKNOWN)
    return Seq(kind="list", elem=INTEGER)  # `for i in range(n)`: `table[i]` is one element


GPU_RANGE = "range over the GPUs"


def builtin_len(site: CallSite) -> Value:
    """`len([])`, `len((a, b))`: the length of a sequence whose items are known (a branch on it is decided)."""
    first = site.args.first()
    if isinstance(first, Seq) and first.items is not None and first.kind in ("list", "tuple"):
        return Const(value=len(first.items))
    if isinstance(first, Availability):
        return first  # `len(opt.gpu_ids)` of the GPUs the user chose: some exactly when the choice is a GPU
    if isinstance(first, Ref) and first.path in api.PER_GPU_SEQUENCES:
        return DEVICE_COUNT  # `len(torch.cuda.default_generators)`: one generator per GPU
    return UNKNOWN


def builtin_other(site: CallSite) -> Value:
    return UNKNOWN


def builtin_hasattr(site: CallSite) -> Value:
    """`hasattr(x, "device")` of a tensor: true (the code's branch for tensors runs); `hasattr(x, "parameters")`:
    false. Of anything else (an object that may be a tensor), unknown."""
    args = site.args.positional
    if len(args) != 2 or not _surely_tensor(args[0][1]) or not isinstance(args[1][1], Const):
        return UNKNOWN
    name = args[1][1].value
    if not isinstance(name, str) or name.startswith("_"):
        return UNKNOWN
    if api.is_tensor_method(name) or name in api.TENSOR_ONLY_ATTRS:
        return Const(value=True)
    return Const(value=False) if name in api.MODULE_ONLY_METHODS else UNKNOWN


def builtin_isinstance(site: CallSite) -> Value:
    """`isinstance(x, torch.Tensor)` of a tensor: true (`if not isinstance(arr, torch.Tensor): arr =
    torch.from_numpy(arr)` leaves a tensor it is given as it is)."""
    args = site.args.positional
    if len(args) == 2 and _surely_tensor(args[0][1]) and isinstance(args[1][1], Ref) \
            and args[1][1].path in api.TENSOR_CLASSES:
        return Const(value=True)
    return UNKNOWN


def torch_is_tensor(site: CallSite) -> Value:
    """`torch.is_tensor(x)`: as `isinstance(x, torch.Tensor)`."""
    args = site.args.positional
    return Const(value=True) if len(args) == 1 and _surely_tensor(args[0][1]) else UNKNOWN


def _surely_tensor(value: Value) -> bool:
    return isinstance(value, Tensor) and not value.maybe_object and not value.inferred and not value.collated


def builtin_getattr(site: CallSite) -> Value:
    """`getattr(torch, device_type)`: the backend module of the chosen device, whichever it is;
    `torch.accelerator` stands for it (`synchronize`, `device_count`, `is_available` mean the same)."""
    first = site.args.first()
    if isinstance(first, Ref) and first.path == "torch" and len(site.args.positional) > 1:
        name = site.args.positional[1][1]
        if isinstance(name, Const) and isinstance(name.value, str):
            return Ref(path=f"torch.{name.value}") if name.value in api.BACKEND_MODULES else UNKNOWN
        return Ref(path="torch.accelerator")
    return UNKNOWN


def builtin_setattr(site: CallSite) -> Value:
    """`setattr(self, "fc%i" % i, fc)` on a module: `self.add_module` by another name."""
    positional = site.args.positional
    if len(positional) == 3 and isinstance(positional[0][1], Module) and isinstance(positional[2][1], Module):
        owner = dotted(positional[0][0])
        if owner is not None:
            register_by_hand(site, owner, positional[0][1], positional[2][0], positional[2][1])
    return Const(value=None)


def builtin_exec(site: CallSite) -> Value:
    """`exec(open("configurator.py").read())`: code we cannot see may rebind any name (nanoGPT's
    configurator sets globals from the command line), so a device named by a string is the user's choice."""
    env = site.state.env
    for name, value in list(env.items()):
        if isinstance(value, Const) and isinstance(value.value, str) and const_device(value) is not None:
            env[name] = DeviceValue(why=((site.node, "may be set by the code `exec` runs"),), where=SELECTED)
    return UNKNOWN


def no_return(site: CallSite) -> Value:
    """`sys.exit()`, `pytest.skip()`: the path ends here."""
    site.evaluate_arguments()
    site.state.dead = True
    return UNKNOWN


BUILTINS = {
    "iter": builtin_iter, "next": builtin_next, "enumerate": builtin_enumerate, "zip": builtin_zip,
    **{name: builtin_sequence for name in ("list", "tuple", "sorted", "reversed", "set")},
    "print": builtin_print, **{name: builtin_number for name in ("float", "int", "bool")},
    "super": builtin_super, "exec": builtin_exec, "dict": builtin_dict, "str": builtin_str, "range": builtin_range,
    "getattr": builtin_getattr, "setattr": builtin_setattr,
    "len": builtin_len,
    "isinstance": builtin_isinstance, "hasattr": builtin_hasattr,
    "min": builtin_min_max, "max": builtin_min_max,
    **{name: builtin_other for name in ("callable", "sum", "abs", "round", "map", "filter", "any", "all", "open",
                                        "repr", "format", "type", "id", "vars")},
}
def copied(site: CallSite) -> Value:
    """`copy.deepcopy(net)`: a copy where `net` is; a module's copy is another object (its moves are its own)."""
    original = site.args.first()
    if isinstance(original, Module):
        return replace(original, ident=id(site.node), why=original.why + ((site.node, "copied"),))
    return original


def progress_bar(site: CallSite) -> Value:
    """`tqdm(loader)`: iterated, what the loader (or list) yields; a bar over anything else is unknown."""
    wrapped = site.args.first(api.PROGRESS_BAR_ITERABLE)
    if isinstance(wrapped, Loader) or (isinstance(wrapped, Seq) and wrapped.kind in ("list", "tuple")):
        return wrapped
    return UNKNOWN


def path_join(site: CallSite) -> Value:
    """`os.path.join(ROOT, 'vgg16-397923af.pth')` of strings: the path (a checkpoint's name tells what it holds)."""
    parts = [value for _, value in site.args.positional]
    if parts and not site.args.star and all(isinstance(p, Const) and isinstance(p.value, str) for p in parts):
        return Const(value=posixpath.join(*(cast(str, cast(Const, p).value) for p in parts)), node=site.node)
    return UNKNOWN


def keyword_record(site: CallSite) -> Value:
    """`SimpleNamespace(device="cpu", batch=8)`: an object whose attributes are those keywords (a test's `args`)."""
    args = site.args
    if args.positional or args.star or args.starstar:
        return UNKNOWN
    return Instance(attrs=tuple((name, value) for name, (_, value) in args.keywords.items()))


FUNCTIONS = {**{path: no_return for path in api.NO_RETURN}, **{path: copied for path in api.COPIES},
             **{path: progress_bar for path in api.PROGRESS_BARS},
             **{path: keyword_record for path in api.KEYWORD_RECORDS}, "os.path.join": path_join,
             api.IS_TENSOR_FUNCTION: torch_is_tensor}


# ---------------------------------------------------------------- list and dict methods


def seq_append(site: CallSite) -> Value:
    """`history.append(loss)`: the list now holds it (and remembers a GPU member the join would forget)."""
    receiver = cast(Seq, site.receiver)  # (a Seq method)
    args = site.args
    if not args.positional:
        return UNKNOWN
    value = args.positional[-1][1]
    members = tuple(receiver.items or ()) + receiver.gpu_members
    if isinstance(value, (Tensor, Located)) and value.device is not None and value.device.is_gpu:
        members += (value if isinstance(value, Tensor) else Tensor(why=value.why, where=value.device),)
    gpu = tuple(m for m in members if _on_gpu(m))
    elem = _extended(receiver, value)
    if not site.update_receiver(Seq(kind=receiver.kind, elem=elem, gpu_members=gpu[-1:])):
        return UNKNOWN
    return Const(value=None)


def seq_extend(site: CallSite) -> Value:
    receiver = cast(Seq, site.receiver)  # (a Seq method)
    if not site.args.positional:
        return UNKNOWN
    other = site.args.positional[0][1]
    if not site.update_receiver(Seq(kind=receiver.kind, elem=_extended(receiver, element(other)))):
        return UNKNOWN
    return Const(value=None)


def _extended(receiver: Seq, member: Value) -> Value:
    """The members of a list after adding `member`: an empty list takes what it is given."""
    return join(receiver.elem, member) if receiver.items or receiver.elem is not UNKNOWN else member


def seq_items(site: CallSite) -> Value:
    return Seq(kind="list", elem=Seq(kind="tuple", items=(UNKNOWN, cast(Seq, site.receiver).elem)))


def seq_values(site: CallSite) -> Value:
    return Seq(kind="list", elem=cast(Seq, site.receiver).elem)


def seq_get(site: CallSite) -> Value:
    receiver = cast(Seq, site.receiver)  # (a Seq method)
    if not site.args.positional:
        return UNKNOWN
    key = site.args.positional[0][1]
    if receiver.keys is not None and isinstance(key, Const):
        for k, v in zip(receiver.keys, cast("tuple[Value, ...]", receiver.items)):  # (constant keys: known items)
            if k == key.value:
                return v
    return receiver.elem


def seq_other(site: CallSite) -> Value:
    return UNKNOWN


def dict_rekeyed(site: CallSite) -> Value:
    """`d.update(...)`, `d.setdefault(k, v)`, `d.pop(k)`: the dict's keys are no longer known (what `k in d` asks);
    what it holds may be anything it held, or what it is given."""
    receiver = cast(Seq, site.receiver)  # (a Seq method)
    if receiver.kind == "dict" and receiver.keys is not None:
        given = [v.elem if isinstance(v, Seq) else v for _, v in site.args.all() if isinstance(v, (Tensor, Seq))]
        site.update_receiver(Seq(kind="dict", elem=join_all([receiver.elem, *given])))
    return seq_get(site) if site.name == "pop" else UNKNOWN


SEQ_METHODS = {
    "append": seq_append, "add": seq_append, "insert": seq_append, "extend": seq_extend,
    "items": seq_items, "values": seq_values, "get": seq_get, "pop": dict_rekeyed,
    "update": dict_rekeyed, "setdefault": dict_rekeyed, "popitem": dict_rekeyed, "clear": dict_rekeyed,
}
