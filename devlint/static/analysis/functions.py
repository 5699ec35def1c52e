"""Functions and classes of the file being checked.

A function is analysed at each call site with the caller's argument values
(memoised on them), and once on its own with symbolic parameters when nobody
in the file calls it (and always for `forward`: standalone.py). A class's
`__init__` gives its instances their attributes; `self` in other methods is
that summary.
Parameters are bound in one place, `bind_arguments`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, Union, cast, overload

import libcst as cst

from devlint.static.analysis.callers import from_callers
from devlint.static.analysis.definitions import (
    annotated_params, decorator_name, find_method, forget_rebound_globals, given_annotation, is_static, local_names,
    number_params, positional_names, wraps_one_cuda_call)
from devlint.static.analysis.guards import is_skip_marker
from devlint.static.analysis.host_flow import data_params, numpy_inputs
from devlint.static.analysis.prepass import Scope
from devlint.static.analysis.shared_self import keep_shared, shared_key, shared_summary
from devlint.static.analysis.state import Returned, State
from devlint.static.analysis.summary import Summary, changed_objects, escaping_moves
from devlint.static.analysis.tables import MAX_CALL_DEPTH
from devlint.core.facts import Context
from devlint.core.torch_catalogue import views as api
from devlint.static.semantics.callsite import Args, CallSite
from devlint.static.semantics.containers import dict_entry, join_all, tensors_in
from devlint.static.semantics.modules import helpers_placed, torch_base_device
from devlint.static.syntax import dotted
from devlint.core.values import (
    INTEGER, SELECTED, UNKNOWN, Availability, Class, Const, Device, DeviceValue, Function, Instance,
    LambdaFunction, Loader, Located, Module, Seq, SkipMarker, Tensor, Unknown, Value, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.state import LoopFrame, Timing
    from devlint.static.analysis.summary import Filled, Moves
    from devlint.static.analysis.walker import Walker

    # what open_frame saves: the frames' (context, current function, loops, if depth, constructing), and the
    # emitter's (foreign, portable uses or None)
    Frame = tuple[Context, Optional[cst.FunctionDef], list[LoopFrame], int, int, int, Optional[int]]


# ---------------------------------------------------------------- calls


def invoke(interp: Walker, fn: Function, args: Args, node: cst.CSTNode, state: State,
           receiver_node: Optional[cst.CSTNode], getter: bool = False) -> Value:
    """Call a function of this file: its body, analysed with these arguments (memoised). `getter`: a
    property read (`obj.prop`), which runs the decorated getter; a property is called no other way."""
    fdef = fn.node
    stack = interp.frames.stack
    unseen = fdef is None or id(fdef) in stack or interp.tables.too_deep(len(stack), fdef) or not getter and any(
        decorator_name(d).endswith(api.PROPERTY_DECORATORS) for d in fdef.decorators)
    bound = fn.bound if fdef is None or not is_static(fdef) else None
    params = None if unseen else bind_arguments(interp, cast(cst.FunctionDef, fdef), bound, state, args=args)
    if params is None:
        # a body not walked here, given GPU values, is GPU work (a walked one tells what it queued: a helper
        # that moves a GPU module to the cpu queues none)
        interp.facts.note_gpu_work(node, [v for _, v in args.all()], state)
        return UNKNOWN
    fdef = cast(cst.FunctionDef, fdef)  # (walked: it has one)
    _note_caller(interp, fdef, args, node)
    past = len(stack) >= MAX_CALL_DEPTH  # a small helper past the depth: its result, not its findings (its
    interp.facts.muted += past  # caller's base classes were cut there: what it says would rest on half a walk)
    try:
        summary = _called(interp, summarise(interp, fn, params, state, node), fdef, node, state)
    finally:
        interp.facts.muted -= past
    # Methods change their object: the caller sees the new attributes.
    if fn.bound is not None and summary.final_self is not None and receiver_node is not None:
        name = dotted(receiver_node)
        if name and isinstance(summary.final_self, (Module, Instance)):
            interp.assign_name(name, summary.final_self, state, node)
    elif fn.bound is None and fdef.name.value == "__init__" and isinstance(summary.final_self, (Module, Instance)):
        _base_init(interp, args, summary.final_self, state)
    for param, filled in summary.filled:
        refill(interp, fdef, bound, args, param, filled, state, node)
    return summary.result


def _base_init(interp: Walker, args: Args, base_self: Value, state: State) -> None:
    """`BaseModel.__init__(self, opt)` in a subclass's `__init__`, as `super().__init__(opt)`: the attributes it
    set are this object's."""
    given = args.find(0, "self")
    me = state.env.get("self")
    if given is not None and type(given[0]) is cst.Name and given[0].value == "self" \
            and isinstance(me, (Module, Instance)):
        state.env["self"] = _with_attrs_of(me, base_self)


def refill(interp: Walker, fdef: cst.FunctionDef, bound: Optional[Value], args: Args, param: str, filled: Value,
            state: State, node: cst.CSTNode) -> None:
    """`to_gpu(batch)` whose body writes `d["x"] = d["x"].cuda()`: the caller's `batch` holds what the callee
    left in its parameter (fastMRI's `input_cuda(input)` before `model(input)`)."""
    names = positional_names(fdef)[1 if bound is not None else 0:]
    position = names.index(param) if param in names else None
    given = args.find(position, param)
    name = dotted(given[0]) if given is not None else None
    if name is not None:
        interp.assign_name(name, filled, state, node)


def _note_caller(interp: Walker, fdef: cst.FunctionDef, args: Args, node: cst.CSTNode) -> None:
    """A library function that only the file's self-test calls (under `if __name__ == "__main__":`), with toy
    tensors made on the cpu (`labels = torch.randint(0, 5, (10,))`), is called elsewhere with whatever its
    users have: the demo's call does not stand for its callers. (A script's own top-level calls do.)"""
    demo = not interp.frames.stack and id(node) in interp.tables.self_test_calls() and any(
        t.where is not None and t.where.kind == api.CPU_TYPE
        for _, v in args.all() for t in tensors_in(v))
    interp.tables.demo_only[id(fdef)] = demo and interp.tables.demo_only.get(id(fdef), True)


def summarise(interp: Walker, fn: Function, params: dict[str, Value], state: State,
              node: cst.CSTNode) -> Summary:
    """Analyse fn's body with `params`, once per distinct arguments and path conditions."""
    key: Optional[tuple[object, ...]]
    key = (id(fn.node), tuple(params.items()), state.guarded, state.unavailable, state.cuda_index,
           bool(interp.facts.muted),
           state.timing.key(), (state.ranks is not None, state.device_chosen))
    try:
        cached = interp.tables.memo.get(key)
    except TypeError:  # an unhashable argument value: no memo
        cached, key = None, None
    shared = shared_key(interp, cast(cst.FunctionDef, fn.node), params, key) if cached is None and key else None
    if shared is not None:
        cached = shared_summary(interp, shared, next(iter(params.values())))
    if cached is None:
        told = interp.facts.told
        result, final_self, end = analyse_body(interp, fn, params, state, node)
        moved = escaping_moves(state, end, [result, final_self, *params.values()], interp.frames.globals)
        cached = _summary(result, final_self, state.timing, end.timing, moved,
                          guards=end.guarded and not state.guarded, ranks=(end.ranks, state.ranks),
                          chose=end.device_chosen and not state.device_chosen,
                          default=(end.default_device,) if end.default_device != state.default_device else None,
                          filled=_filled(interp, fn, params, end))
        if shared is not None:
            keep_shared(interp, shared, cached, next(iter(params.values())), said=interp.facts.told != told)
    if key is not None:
        interp.tables.memo[key] = cached
    return cached


def _called(interp: Walker, summary: Summary, fdef: cst.FunctionDef, call: cst.CSTNode, state: State) -> Summary:
    """What the caller's path takes from a call: its clock reads, syncs and GPU work (another module's seen
    as the call itself), and the objects it moved."""
    project = interp.tables.project
    if project is not None and id(fdef) in project.foreign_functions:
        summary = summary.seen_from(call)
    summary.apply_timing(state, len(interp.frames.loops))
    summary.apply_moves(state)
    return summary


def call_super(interp: Walker, site: CallSite) -> Value:
    """`super().name(...)` in a method: the first base class's `name` that the walk knows, run on `self`
    (in this file or another module's); what it does to `self` (attributes, moves) the caller sees."""
    me = getattr(site.receiver, "receiver", None)
    tables, frames = interp.tables, interp.frames
    current = tables.functions.get(id(frames.current_function)) if frames.current_function is not None else None
    owner = tables.classes.get(current.owner) if current is not None and current.owner else None
    if owner is None or not isinstance(me, (Module, Instance)) or len(frames.stack) >= MAX_CALL_DEPTH:
        return UNKNOWN
    method = next((found for base in owner.bases if isinstance(base, Class) and base.node is not owner.node
                   for found in [find_method(base, site.name, tables.classes)] if found is not None), None)
    fn = tables.functions.get(id(method)) if method is not None else None
    if method is None and site.name == "__init__" and isinstance(me, Module):
        where = torch_base_device(site, owner.bases)  # `super().__init__(n, n, device=device)` of an nn.Linear
        if where is not None:
            site.state.env["self"] = replace(me, where=where, why=((site.node, ""),))
        return UNKNOWN
    if fn is None or method is None or id(method) in frames.stack:  # (fn is None wherever method is)
        return UNKNOWN
    params = bind_arguments(interp, method, me, site.state, args=site.args)
    if params is None:
        return UNKNOWN
    summary = _called(interp, summarise(interp, replace(fn, bound=me), params, site.state, site.node), method,
                      site.node, site.state)
    if isinstance(summary.final_self, (Module, Instance)) and site.name == "__init__":
        site.state.env["self"] = _with_attrs_of(me, summary.final_self)
    return summary.result


def _with_attrs_of(me: Value, base_self: Value) -> Value:
    """`self` after the base's `__init__`: the attributes it set, on this object (its class kept)."""
    attrs = dict(getattr(me, "attrs", ()))
    attrs.update(getattr(base_self, "attrs", ()))
    return replace(me, attrs=tuple(attrs.items()))


def call_lambda(interp: Walker, fn: LambdaFunction, site: CallSite) -> Value:
    """`(lambda: a @ b)()`: the body, evaluated where the lambda was written, on the caller's path."""
    stack = interp.frames.stack
    if len(stack) >= MAX_CALL_DEPTH or id(fn.node) in stack:
        return UNKNOWN
    node = cast(cst.Lambda, fn.node)  # every LambdaFunction has its node (eval_lambda)
    params = bind_arguments(interp, node, None, site.state, args=site.args)
    if params is None:
        return UNKNOWN
    state = site.state.copy()
    state.env = dict(fn.env if fn.env is not None else interp.frames.globals)
    state.env.update(params)
    stack.append(id(fn.node))
    try:
        result = interp.eval(node.body, state)
    finally:
        stack.pop()
    site.state.timing = state.timing
    return result


def _summary(result: Value, final_self: Optional[Value], before: Timing, after: Timing, moved: Moves = (),
             guards: bool = False, ranks: tuple[Optional[cst.CSTNode], Optional[cst.CSTNode]] = (None, None),
             chose: bool = False, default: Optional[tuple[Optional[Device]]] = None, filled: Filled = ()) -> Summary:
    clock = after.clock if after.clocks > before.clocks else None
    synced = after.syncs > before.syncs and after.synced
    work = after.work if after.works > before.works and after.work is not None else None
    end, start = ranks  # an NCCL group the callee set up, or a `set_device` it ran
    return Summary(result, final_self, clock, synced, work, moved, guards,
                   end if end is not None and start is None else None, chose, default, filled,
                   trained=after.trained and not before.trained)


def _filled(interp: Walker, fn: Function, params: dict[str, Value], end: State) -> Filled:
    """The parameters whose items the body wrote, with what they hold at its end (when that changed)."""
    if end.dead:
        return ()
    scope = interp.tables.scope_of(fn.node)
    written = scope.filled_names - scope.rebound_names  # (a dict of its own, made in the body, is not the caller's)
    filled = tuple((name, end.env[name]) for name in sorted(written & params.keys())
                   if name in end.env and end.env[name] != params[name])
    return filled + changed_objects(cast(cst.FunctionDef, fn.node), fn.bound is not None, params, end,
                                    scope.rebound_names | {name for name, _ in filled})


@overload
def bind_arguments(interp: Walker, fdef: Union[cst.FunctionDef, cst.Lambda], bound: Optional[Value],
                   state: State, args: Args) -> Optional[dict[str, Value]]: ...


@overload
def bind_arguments(interp: Walker, fdef: cst.FunctionDef, bound: Optional[Value], state: None, *,
                   symbolic: Callable[[cst.Param], Value]) -> dict[str, Value]: ...


def bind_arguments(interp: Walker, fdef: Union[cst.FunctionDef, cst.Lambda], bound: Optional[Value],
                   state: Optional[State], args: Optional[Args] = None,
                   symbolic: Optional[Callable[[cst.Param], Value]] = None) -> Optional[dict[str, Value]]:
    """Parameter name -> value: `bound` for the first (self), then the call's arguments and the defaults,
    or, without a call (`args` None), `symbolic(param)` for each. None when positions are unknown."""
    params: dict[str, Value] = {}
    plist = list(fdef.params.posonly_params) + list(fdef.params.params)
    if bound is not None and plist:
        params[plist[0].name.value] = bound
        plist = plist[1:]
    star, starstar = fdef.params.star_arg, fdef.params.star_kwarg
    if args is None:
        make = cast("Callable[[cst.Param], Value]", symbolic)  # given wherever args is not (the overloads)
        for param in plist + list(fdef.params.kwonly_params):
            params[param.name.value] = make(param)
        extra_positional: Value = UNKNOWN
    else:
        spread = _spread(args) if plist or type(star) is cst.Param else []  # (to no positional: nothing, or raises)
        if spread is None:
            return None  # *args at the call: positions unknown
        state = cast(State, state)  # a call's arguments come with its path (the overloads)
        positional = [v for _, v in args.positional] + spread
        if len(positional) > len(plist) and type(star) is not cst.Param:
            return None  # more arguments than it takes: the call raises TypeError, its body never runs
        for i, param in enumerate(plist):
            params[param.name.value] = positional[i] if i < len(positional) else _keyword_or_default(
                interp, param, args, state)
        for param in fdef.params.kwonly_params:
            params[param.name.value] = _keyword_or_default(interp, param, args, state)
        extra_positional = join_all(positional[len(plist):])
    if type(star) is cst.Param:  # (`forward(self, *inputs)` given `h, t`: the tuple of them)
        items = tuple(positional[len(plist):]) if args is not None else None
        params[star.name.value] = Seq(kind="tuple", items=items, elem=extra_positional)
    if starstar is not None:  # (`def create(**kwargs)` given `config=cfg`: {"config": cfg})
        params[starstar.name.value] = args.extra_keywords({p.name.value for p in plist} | {
            p.name.value for p in fdef.params.kwonly_params}) if args is not None else Seq(kind="dict", elem=UNKNOWN)
    if args is None:
        return params
    # A value passed in keeps its device; inside, it comes from the caller.
    # (asked once per function, not at each call: the pre-walk's syntax memo)
    numbers = interp.tables.syntax(number_params, fdef) if type(fdef) is cst.FunctionDef else frozenset()
    wholes = interp.tables.syntax(_whole_params, fdef) if type(fdef) is cst.FunctionDef else frozenset()
    # (`epoch: int | None` given `self.current_epoch`, a number nobody here knows: a whole number)
    return {k: (replace(v, from_param=k, scalar=v.scalar or k in numbers) if isinstance(v, Tensor) and k != "self"
                else INTEGER if type(v) in (Unknown, Located) and k in wholes else v) for k, v in params.items()}


def _whole_params(fdef: cst.FunctionDef) -> frozenset[str]:
    """Parameters annotated `int` (or `int | None`), not named as a GPU count or switch."""
    return frozenset(name for name in annotated_params(fdef, _WHOLES, optional=True)
                     if api.flag_polarity(name) is None)


def _spread(args: Args) -> Optional[list[Value]]:
    """The values a call's `*seq` passes after its positional arguments, where the sequence is known item by
    item (`self.update(*inputs)` of a `*inputs` parameter); [] without one, None where they are unknown."""
    if not args.star:
        return []
    if len(args.star) > 1:
        return None
    seq = args.star[0][1]
    return list(seq.items) if isinstance(seq, Seq) and seq.items is not None and seq.kind in ("tuple", "list") \
        else None


def _keyword_or_default(interp: Walker, param: cst.Param, args: Args, state: State) -> Value:
    name = param.name.value
    if name in args.keywords:
        return args.keywords[name][1]
    for _, extra in args.starstar:  # `Block(**cfg)`: the dict's entry, or unknown where its keys are
        if not isinstance(extra, Seq) or extra.keys is None or None in extra.keys:
            return UNKNOWN
        entry = dict_entry(extra, name)
        if entry is not None:
            return entry
    if param.default is not None:
        bound = interp.tables.defaults.get(id(param))  # a name's value when the `def` ran
        return bound if bound is not None else interp.eval(param.default, state)
    return UNKNOWN


def analyse_body(interp: Walker, fn: Function, params: dict[str, Value], caller: Optional[State],
                 call_node: Optional[cst.CSTNode]) -> tuple[Value, Optional[Value], State]:
    """Walk fn's body with `params` bound: (result, final self, end state)."""
    fdef = cast(cst.FunctionDef, fn.node)  # a function of this file has its node (statements.py makes it)
    state, saved = open_frame(interp, fn, params, caller, call_node)
    try:
        end = interp.exec_suite(fdef.body, state)
    except RecursionError:
        end = state
    returned = close_frame(interp, saved)
    if not end.dead:
        returned.append(Returned(Const(value=None), end.env.get("self"), end.guarded))
    else:  # every path returned: the function learnt of the GPU what all of them did
        end = end.copy()
        end.guarded = bool(returned) and all(r.guarded for r in returned)
    return _result(interp, fdef, returned), _final_self(returned), end


def open_frame(interp: Walker, fn: Function, params: dict[str, Value], caller: Optional[State],
               call_node: Optional[cst.CSTNode]) -> tuple[State, Frame]:
    """Enter fn: its state (the caller's path conditions and measurement, `params` bound) and the
    walk's frame, saved to be restored by `close_frame`."""
    fdef = cast(cst.FunctionDef, fn.node)  # (as in analyse_body)
    tables, frames, facts = interp.tables, interp.frames, interp.facts
    tables.analysed.add(id(fdef))
    state = _entry_state(interp, fn, fdef, params, caller)
    foreign = tables.project is not None and id(fdef) in tables.project.foreign_functions
    saved = (frames.context, frames.current_function, frames.loops, frames.if_depth, frames.constructing,
             facts.foreign, facts.portable_uses if foreign else None)
    if foreign:
        facts.foreign += 1  # another module's code: only what the caller's values do there is reported
    if fdef.name.value == "__init__":
        frames.constructing += 1
    calls = frames.context.calls + (((call_node, fn.qualname),) if call_node is not None else ())
    owner = tables.classes.get(fn.owner) if fn.owner else None
    # while a module is being built (its __init__ and what that calls) it is on the cpu: nothing moved it yet
    in_module = not frames.constructing and (frames.context.in_module_method or bool(owner and owner.is_module))
    on_device = in_module or (frames.context.params_on_device if call_node is not None and frames.stack
                              else not _host_side(interp, fdef, owner))
    frames.context = Context(function=fn.qualname, calls=calls, in_module_method=in_module,
                             params_on_device=on_device)
    frames.current_function = fdef
    frames.loops, frames.if_depth = [], 0
    frames.stack.append(id(fdef))
    frames.returns.append([])
    return state, saved


def _entry_state(interp: Walker, fn: Function, fdef: cst.FunctionDef, params: dict[str, Value],
                 caller: Optional[State]) -> State:
    """The state fn's body starts in: the names it sees, `params` bound, the caller's path conditions and
    measurement (or, analysed on its own, the module level's)."""
    tables, names = interp.tables, interp.frames.globals
    state = State()
    state.env = dict(tables.closures.get(id(fdef), names))
    if tables.project is None or id(fdef) not in tables.project.foreign_functions:
        # (another module's function forgot them at the end of its module's walk, with its importers)
        forget_rebound_globals(state.env, tables.prepass.rebound_globals)
    for name in tables.syntax(local_names, fdef):
        state.env.pop(name, None)  # its own names start unbound: none is the global of that name (Python's rule)
    state.env.update(params)
    state.default_device = tables.module_default_device
    if caller is None and state.default_device is None and tables.prepass.gpu_default_switch:
        # the file switches the default device in a function (`main()` under `--cuda`): one analysed on its own
        # (a model only a library calls) may run after the switch, its factories wherever the default is
        state.default_device = SELECTED
    if caller is not None:
        state.moved = dict(caller.moved)
        state.guarded, state.cuda_index, state.default_device = caller.guarded, caller.cuda_index, \
            caller.default_device
        state.unavailable = caller.unavailable  # called where CUDA is missing: its body runs without it too
        state.ranks, state.device_chosen = caller.ranks, caller.device_chosen
        # the measurement in progress goes on inside (its loop depth and laps are the caller's business)
        state.timing = caller.timing.copy()
        state.timing.depth, state.timing.lap = 0, False
    elif tables.moved_at_end:  # analysed on its own (a callback): the module level's moves have happened
        state.moved = dict(tables.moved_at_end)
    if tables.scope_of(fdef).nccl_setup or caller is None and wraps_one_cuda_call(fdef):
        state.guarded = True  # it sets up an NCCL group: it runs with GPUs; or it is a GPU call's wrapper
    if fn.owner in tables.guarded_classes or isinstance(names.get("pytestmark"), SkipMarker) or any(
            is_skip_marker(interp, d, state) for d in fdef.decorators):
        state.guarded = True  # a test that only runs where CUDA is
    if caller is None and (id(fdef) in tables.defined_guarded or _gpu_named(fdef.name.value) or (
            fn.owner is not None and _gpu_named(fn.owner))
            or tables.project is not None and tables.project.gpu_required()):
        # analysed on its own: defined where CUDA was required, or CUDA code by name (`cuda_timestamp`), or in a
        # project whose scripts all demand CUDA
        state.guarded = True
    return state


def _gpu_named(name: str) -> bool:
    """`cuda()`, `cuda_timestamp`, `class CUDAAccelerator`, `setup_gpu`: CUDA code by its own name."""
    low = name.lower()
    return "cuda" in low or "gpu" in low.replace("gpus", "gpu")


def close_frame(interp: Walker, saved: Frame) -> list[Returned]:
    """Leave the function entered by `open_frame`: its returns."""
    frames = interp.frames
    returned = frames.returns.pop()
    frames.stack.pop()
    (frames.context, frames.current_function, frames.loops, frames.if_depth, frames.constructing,
     interp.facts.foreign, portable_uses) = saved
    if portable_uses is not None:
        interp.facts.portable_uses = portable_uses  # another module's devices say nothing of this file's intent
    return returned


def _host_side(interp: Walker, fdef: cst.FunctionDef, owner: Optional[Class]) -> bool:
    """Code whose parameters need not be on the device: the data pipeline (a Dataset's methods, a
    collate function, a transform's `__call__`), a function whose inputs go to numpy, PIL or OpenCV,
    or a callback handed to other code."""
    name = fdef.name.value
    if owner is not None and (owner.is_dataset or (name == "__call__" and not owner.is_module)):
        return True
    if owner is not None and owner.is_module and name == "__init__":
        return True  # a module is built on the cpu from what it is given (`item_pre` weights), then moved whole
    if owner is None and name in interp.tables.prepass.passed_names:
        return True  # a callback (a collate_fn, a hook, vmap's function): called with data we cannot see
    if name in ("__getitem__", "__iter__", "__next__", "__len__") or "collate" in name.lower():
        return True
    params = set(positional_names(fdef))
    scope = interp.tables.scope_of(fdef)
    if scope.numpy_receivers and data_params(fdef) & numpy_inputs(fdef, scope.numpy_receivers):
        return True  # `.numpy()` of what a parameter computes, never moved to the cpu: its inputs are host data
    # a parameter that only torch computes on (`F.one_hot(labels)`, beside `np.power(beta, counts)`) is
    # a tensor meant for the device: the numpy inputs are the function's settings, not its data
    return bool(params & scope.host_names) and not params & (scope.tensor_names - scope.host_names)


def _result(interp: Walker, fdef: cst.FunctionDef, returned: list[Returned]) -> Value:
    if interp.tables.scope_of(fdef).generator:
        yielded = [r.value for r in returned if r.yielded]
        return Seq(kind="generator", elem=join_all(yielded) if yielded else UNKNOWN)
    values = [r.value for r in returned if not r.yielded]
    if not values:
        return UNKNOWN
    answer = _gpu_answer([r for r in returned if not r.yielded])
    if answer is not None:
        return answer
    if len(values) > 1 and all(isinstance(v, Const) and v.value is None for v in values[1:]) \
            and not isinstance(values[0], Const):
        return values[0]
    # `if torch.cuda.is_available(): return x.cuda()` / `return x`: the selected-device idiom
    split = len({r.guarded for r in returned}) > 1
    return join_all(values, availability_split=split)


def _gpu_answer(returned: list[Returned]) -> Optional[Value]:
    """A helper that answers a GPU question by its paths: `True` only where a GPU is known (`if not
    dist.is_initialized(): return False` ... `return True`) is a check that its caller's `if` learns from."""
    known = [r.value for r in returned if r.guarded]
    other = [r.value for r in returned if not r.guarded]
    if not known or not other:
        return None
    if all(_is_const(v, True) for v in known) and all(_is_const(v, False) for v in other):
        return Availability(positive=True, branch="then", choice=False)
    return None


def _is_const(value: Value, wanted: object) -> bool:
    return isinstance(value, Const) and type(value.value) is type(wanted) and value.value == wanted


def _final_self(returned: list[Returned]) -> Optional[Value]:
    selves = [r.self_value for r in returned if r.self_value is not None]
    final = selves[-1] if selves else None
    if isinstance(final, (Module, Instance)):
        # a flag the method tested is known only on the path that tested it (`if self.cuda: return ...`)
        for name, value in final.attrs:
            if isinstance(value, Availability) and value.holds is not None:
                final = final.with_attr(name, replace(value, holds=None))
    return final


def symbolic_param(interp: Walker, param: cst.Param, scope: Scope, is_forward: bool) -> Value:
    """What a parameter is, from its name, annotation and use, when no caller says."""
    name = param.name.value
    annotation = interp.eval(param.annotation.annotation, State()) if param.annotation else UNKNOWN
    given = interp.eval(given_annotation(param.annotation.annotation), State()) if param.annotation else UNKNOWN
    path = getattr(given, "path", "")  # (`weight: Optional[torch.Tensor] = None`: a tensor when given)
    if path in api.LOADERS:
        return Loader(why=((param, "a DataLoader yields cpu batches"),))
    if path in api.DEVICE_CONSTRUCTORS:
        return DeviceValue(where=SELECTED)
    if getattr(annotation, "name", None) == _WHOLE:
        return INTEGER  # `timestep: int`: `table[timestep]` is one element
    if getattr(given, "name", None) in api.NUMBER_ANNOTATIONS and api.flag_polarity(name) is None:
        # `sigma_min: float`, `temp: float | None`, `epoch: int | None` when given: a number (`torch.tensor(sigma_min)`
        # is 0-dim; `table[epoch]` one element); not a GPU count or switch (`n_gpus: Optional[int] = None`)
        return INTEGER if getattr(given, "name", None) == _WHOLE else UNKNOWN
    if api.flag_polarity(name) is True:
        return Availability(positive=True)
    if api.looks_like_device_name(name):
        # `def sample(n, device="cuda")`: whatever callers pass, the default assumes a GPU when they pass none
        default = param.default
        text = _default_device_text(default)
        hardcoded = isinstance(text, str) and text.startswith(api.CUDA_TYPE)
        return DeviceValue(why=((param, ""),), where=SELECTED, literal=default if hardcoded else None,
                           literal_guarded=not hardcoded, maybe_none=default is not None and dotted(default) == "None")
    symbolic = Device("param", param=name)
    tensor = path in ("torch.Tensor", "torch.FloatTensor", "torch.LongTensor") or (
        name in scope.tensor_names and name not in scope.converted_names and name not in scope.size_names) or (
        is_forward and param.default is None and not name.endswith(api.SIZE_NAME_SUFFIXES))
    if tensor:
        return Tensor(why=((param, ""),), where=symbolic, from_param=name)
    if name in scope.compared_names:
        return UNKNOWN  # `if sigma_max <= 0: raise ...`: a number (`torch.tensor(sigma_max)` is 0-dim)
    return Located(why=((param, ""),), where=symbolic)


_WHOLE = "int"  # the builtin type of an annotation (`t: int`)
_WHOLES = frozenset({_WHOLE})


def _default_device_text(default: Optional[cst.BaseExpression]) -> object:
    """The text of a device default: `device="cuda"`, `device=torch.device("cuda")`."""
    if type(default) is cst.Call and (dotted(default.func) or "").rsplit(".", 1)[-1] == "device" and default.args:
        default = default.args[0].value
    return default.evaluated_value if type(default) is cst.SimpleString else None


# ---------------------------------------------------------------- classes


def class_summary(interp: Walker, cls: Class) -> Value:
    """`self` as the methods of a class see it: the attributes __init__ gives it."""
    tables = interp.tables
    cached = tables.class_summaries.get(cls.name)
    if cached is not None:
        return cached
    base: Value = Module(why=(), where=Device("param", param="self"), cls=cls.name) if cls.is_module \
        else Instance(cls=cls.name)
    tables.class_summaries[cls.name] = base  # recursion guard
    init = find_method(cls, "__init__", tables.classes)
    if init is not None and id(init) in tables.functions:
        fn = replace(tables.functions[id(init)], bound=base)
        scope = tables.scope_of(init)
        passed = from_callers(interp, init, False, True, constructor=cls.name)
        params = bind_arguments(interp, init, base, None,
                                symbolic=lambda p: passed(p, symbolic_param(interp, p, scope, False)))
        interp.facts.muted += 1
        try:
            _, final_self, _ = analyse_body(interp, fn, params, None, None)
        finally:
            interp.facts.muted -= 1
        tables.analysed.discard(id(init))
        if isinstance(final_self, (Module, Instance)):
            if isinstance(final_self, Module):  # (the plain objects it holds hold its own layers: there too)
                where = Device("param", param="self")
                final_self = replace(final_self, where=where, attrs=helpers_placed(final_self, where))
            base = final_self
    tables.class_summaries[cls.name] = base
    return base
