"""`nn.Module`: construction on the cpu, `.to()/.cuda()` in place, parameters and buffers that
follow the module, wrappers, and calling a module on inputs that must be on its device."""

from __future__ import annotations

from typing import Optional, cast

import libcst as cst

from devlint.core.facts import Operand, UnregisteredModule
from devlint.static.semantics import opaque, optim
from devlint.core.torch_catalogue import views as api
from devlint.core.torch_catalogue.records import CPU_TYPE, Member
from devlint.static.semantics.callsite import Args, CallSite
from devlint.static.semantics.containers import dict_entry, join_all, tensors_in
from devlint.static.semantics.devices import device_argument, keeps_device, move_target, target_why
from devlint.static.semantics.tensors import reduces_to_one
from devlint.static.syntax import dotted, names_in, positional_names
from devlint.core.values import (
    CPU, CRASHED, SELECTED, UNKNOWN, Attributes, Class, Const, Device, DeviceValue, HostArray, Instance, Located,
    Module, Ref, Seq, Tensor, Unknown, Value, Why, join_device, replace,
)


def is_torch_module_class(path: str) -> bool:
    """`torch.nn.Linear`: a class of torch.nn (not Parameter, init, functional, utils...)."""
    return path.startswith(api.MODULE_CLASSES_PREFIX) and path.rsplit(".", 1)[-1][:1].isupper() \
        and not any(path.startswith(p) for p in api.NOT_MODULES)


def is_module_base(base: Value) -> bool:
    """Does subclassing `base` make an nn.Module?"""
    if isinstance(base, Ref):
        return base.path in api.MODULE_BASES or is_torch_module_class(base.path)
    if isinstance(base, Class):
        return base.is_module
    return False


def torch_base_device(site: CallSite, bases: tuple[Value, ...]) -> Optional[Device]:
    """`ScaledNorm(16, device=dev)` of `class ScaledNorm(nn.LayerNorm)`, or its `super().__init__(..., device=d)`:
    torch's own `__init__` makes the parameters on `device=`. None: no torch base with parameters, or no device."""
    given = site.args.keywords.get("device") or next(
        ((n, v) for n, v in site.args.positional  # `super().__init__(n_in, n_out, bias, device)`
         if isinstance(v, DeviceValue) or (dotted(n) or "").rsplit(".", 1)[-1] == "device"), None)
    if given is None or not _torch_base(bases):
        return None
    return device_argument(site.facts, given[1], site.state, given[0])


def _torch_base(bases: tuple[Value, ...], depth: int = 0) -> bool:
    for base in bases:
        if isinstance(base, Ref) and base.path in api.MODULES_WITH_PARAMETERS:
            return True
        if isinstance(base, Class) and depth < 8 and _torch_base(base.bases, depth + 1):
            return True
    return False


def torch_module(site: CallSite) -> Value:
    """`nn.Linear(4, 2)`: created on the cpu (or `device=`, or the default device)."""
    args, state, path = site.args, site.state, site.path
    if path not in api.MODULES_WITH_PARAMETERS:
        # A loss, an activation, pooling: no parameters, it runs wherever its input is.
        weight = args.get("weight")
        reduces = path.endswith(api.LOSS_CLASS_SUFFIX) and reduces_to_one(args)
        return Module(why=weight.why, where=weight.device, stateless=weight.device is None, ident=id(site.node),
                      any_device_inputs=api.ANY_DEVICE_ARGS.get(path, ()), reduces=reduces)
    if path in api.MODULE_CONTAINERS:
        # nn.Sequential(*layers): wherever its layers are
        given: list[Value] = []
        for arg_node, v in args.positional + args.star:  # `nn.ModuleList([pool, linear])`: each member, where known
            given.extend((v.items if v.items is not None else (v.elem,)) if isinstance(v, Seq) else (v,))
            _plain_list_registered(site, arg_node, v)
        members = [m for m in given if not (isinstance(m, Module) and m.stateless)]
        # (a member of unknown class moved to a device, `Model().to(device)`, is there too)
        devices = {m.where for m in members if isinstance(m, (Module, Located))}
        attrs = _named_members(args) if path in api.NAMED_MODULE_CONTAINERS else ()
        if given and not members:  # only poolings, activations, losses: no parameters, it runs anywhere
            return Module(why=((site.node, ""),), where=None, attrs=attrs, stateless=True, ident=id(site.node))
        classes = {m.cls if isinstance(m, Module) else None for m in members}
        member = join_all(members) if len(classes) == 1 and None not in classes else None
        member = member if isinstance(member, Module) and member.cls is not None else None
        if members and all(isinstance(m, (Module, Located)) for m in members) and len(devices) == 1:
            return Module(why=members[0].why + ((site.node, ""),), where=devices.pop(), attrs=attrs,
                          ident=id(site.node), member=member)
        return Module(why=((site.node, ""),), where=None, attrs=attrs, ident=id(site.node), member=member)
    where: Optional[Device] = CPU
    if "device" in args.keywords:
        where = device_argument(site.facts, args.keywords["device"][1], state, site.node)
    elif args.starstar:
        # nn.Linear(a, b, **factory_kwargs): the dict's device; none in dicts whose keys we know: the cpu;
        # else unknown (it may hold one)
        entries = [dict_entry(v, "device") for _, v in args.starstar]
        entry = next((e for e in entries if e is not None), None)
        known = all(isinstance(v, Seq) and v.keys is not None and None not in v.keys for _, v in args.starstar)
        if entry is not None:
            where = device_argument(site.facts, entry, state, site.node)
        elif not known:
            where = None
        elif state.default_device is not None:
            where = state.default_device
    elif state.default_device is not None:
        where = state.default_device
    return Module(why=((site.node, "created on cpu"),), where=where, ident=id(site.node))


def _named_members(args: Args) -> tuple[tuple[str, Value], ...]:
    """`nn.ModuleDict(dict(wte=..., h=...))`: its members by name, as attributes (`self.transformer.wte`)."""
    first = args.positional[0][1] if args.positional else None
    if isinstance(first, Seq) and first.keys is not None and first.items is not None \
            and all(isinstance(k, str) for k in first.keys):
        return tuple(zip(cast("tuple[str, ...]", first.keys), first.items))  # (str keys: checked)
    return ()


def parameter(site: CallSite) -> Value:
    """`nn.Parameter(t)`: on t's device, and it follows its module."""
    first = site.args.first("data")
    if isinstance(first, (Tensor, Located)):
        scalar = isinstance(first, Tensor) and first.scalar  # `nn.Parameter(torch.tensor(0.0))`: still 0-dim
        return Tensor(why=first.why, where=first.device, parameter=True, scalar=scalar)
    return Tensor(where=None, parameter=True)


def wrapper(site: CallSite) -> Value:
    """DataParallel, DDP, torch.compile: the wrapped module's device (DP/DDP move their inputs)."""
    first = site.args.first("module")
    if site.path in api.INPUT_MOVING_WRAPPERS and isinstance(first, (Module, Located)):
        # the same object for moves: `nn.DataParallel(model).to(device)` moves `model` too
        # (`net.module` is the wrapped module: DataParallel's own name for it)
        held = (("module", first),) if isinstance(first, Module) else ()
        return Module(why=first.why, where=first.device, moves_inputs=True, ident=getattr(first, "ident", 0),
                      attrs=held)
    if site.path in api.INPUT_MOVING_WRAPPERS and isinstance(first, Unknown):
        # a model from a factory nobody can follow (`models.create(name)`): still one that moves its inputs
        return Module(why=((site.node, ""),), where=None, moves_inputs=True, ident=id(site.node))
    return first if isinstance(first, (Module, Located)) else UNKNOWN


def trace(site: CallSite) -> Value:
    """`torch.jit.trace(model, example)`, `writer.add_graph(model, example)`: a module call."""
    key = site.path or site.name
    module_pos, input_pos = api.TRACE_CALLS[key]
    args = site.args
    if len(args.positional) > input_pos:
        module_node, module = args.positional[module_pos]
        input_node, value = args.positional[input_pos]
        site.facts.module_call_fact(site.node, module_node, module, [(input_node, value)])
    if key in api.WEIGHT_EXPORTS:
        site.facts.note_sync(site.state)  # `torch.onnx.export`: the weights it writes are copied to the host
    return UNKNOWN


def call_module(site: CallSite, module: Value) -> Value:
    """`model(x)`: the inputs must be on the module's device; the output is there too."""
    args = site.args
    _unregistered(site, module)
    if isinstance(module, Module) and module.of_classes and module.cls is None:
        walked = _each_class(site, module)
        if walked is not None:
            return walked
    own_call = _method_of_class(site, module, "__call__")
    if own_call is not None and id(own_call) in site.file.functions:
        # `class Sampler(nn.Module): def __call__(self, x)`: calling it runs that, not forward
        return site.walk.invoke(replace(site.file.functions[id(own_call)], bound=module), args, site.node,
                                site.state, None)
    forward = _forward(site, module)
    placing = _handed_on(site, module, forward) or forward
    host_inputs = site.file.self_placed_inputs(placing, args, bound=True) if placing is not None else set()
    host_inputs |= _placed_by_members(site, module, forward, args)
    if isinstance(module, Module) and module.any_device_inputs:
        found = [args.find(position, keyword) for position, keyword in module.any_device_inputs]
        host_inputs |= {id(f[0]) for f in found if f is not None}
    inputs = [(n, v) for n, v in args.positional + list(args.keywords.values()) if id(n) not in host_inputs] + [
        (n, v.elem if isinstance(v, Seq) else v) for n, v in args.star + args.starstar]  # (`encoder(*inputs)`)
    if any(v is CRASHED for _, v in inputs):
        return CRASHED  # given what a reported crash made: its output is not judged again
    if forward is not None:
        inputs = [(n, v) for n, v in inputs if not _placed_part_by_part(v)]
    callee = site.receiver_node if site.name == "forward" and site.receiver_node is not None else site.node.func
    if site.facts.module_call_fact(site.node, callee, module, inputs):
        return CRASHED  # reported once: what follows from it is not judged again
    site.facts.note_gpu_work(site.node, [module] + [v for _, v in inputs], site.state)
    if forward is not None:
        fn = replace(site.file.functions[id(forward)], bound=module)
        result = site.walk.invoke(fn, args, site.node, site.state, None)
        if type(result) is Unknown and module.device is not None and module.device.concrete:
            # a forward we could not follow to the end: its output still lives where the module computes
            return Located(why=module.why + ((site.node, "the module's output"),), where=module.device)
        return result
    operands = [site.operand(n, t) for n, v in inputs for t in tensors_in(v)]
    if not operands and any(isinstance(v, HostArray) for _, v in inputs):
        return UNKNOWN  # given only numpy, a model we cannot see may well compute on the host (a statistical model)
    if isinstance(module, Module) and module.stateless and len(operands) >= 2 or _handed_a_loss(site, module) \
            and len(operands) == 2:
        # a loss or an activation computes on its inputs as they are: they must share a device (a `criterion` given
        # by the caller too, given an input and a target: a CTC loss's lengths may be anywhere)
        result = site.walk.operation(site.node, site.file.code(site.node.func), operands, site.state)
        reduces = module.reduces if isinstance(module, Module) else True
        return result if not isinstance(result, Tensor) else replace(result, scalar=reduces)
    device = _computes_on(module, operands)
    # A module's output lives where it computes: on its device (or its inputs', for a stateless one). A value
    # of unknown kind called with data may be no module at all (a tokenizer: its BatchEncoding moves itself);
    # one of several classes of the project, each with a call of its own, may return anything (grad-cam's
    # methods, each a `__call__` that returns numpy): where its inputs are is only a guess
    several = isinstance(module, Module) and module.of_classes and module.cls is None
    # a callable parameter never used as a module (`heatmap_to_coord(output, bbox, idx=i)`): a module or a plain
    # function (one that returns numpy), called where its callers are not walked: its result is a guess
    handed = type(module) is Located and module.where is not None and module.where.kind == "param" \
        and dotted(site.node.func) not in site.file.module_names()
    return Tensor(why=module.why + ((site.node, "the module's output"),), where=device, derived=True,
                  maybe_object=not isinstance(module, Module),
                  inferred=several and module.device is None or handed)


def _unregistered(site: CallSite, module: Value) -> None:
    """A member of a plain list or dict called (DEV107). Not one moved where it was made, `[nn.Linear(...).to(
    device) for ...]`, or built on the device: kept out of the registry on purpose, with an optimizer of its own
    or none (StyleGAN-nada's frozen CLIP losses)."""
    if isinstance(module, Module) and module.plain_container is not None and not module.moved \
            and (module.where is None or module.where.kind == api.CPU_TYPE):
        assigned, attribute = module.plain_container
        site.emit(UnregisteredModule(site.node, site.operand(site.node.func, module), attribute, assigned,
                                     site.context))


def _placed_part_by_part(value: Value) -> bool:
    """A batch dict or tuple whose tensors are on several devices (`{"images": imgs.to(device), "lengths": n}`):
    its caller placed each part; the forward walked with it judges each where it is used (lengths read as ints)."""
    if not isinstance(value, Seq):
        return False
    return len({t.where for t in tensors_in(value) if isinstance(t, Tensor) and t.where is not None}) > 1


def _computes_on(module: Value, operands: list[Operand]) -> Optional[Device]:
    """Where a module we cannot follow computes, given these inputs."""
    device = module.device
    if isinstance(module, Module) and module.moves_inputs and (device is None or not device.is_gpu):
        # DataParallel gathers its outputs on device_ids[0]: a GPU wherever there is one (without one it runs the
        # module where it is, on the cpu): the selected device, whatever its inputs were
        return SELECTED
    if device is not None and device.concrete:
        return device
    # where the module computes is unknown here: where its inputs are (else the call fails). Not a batch the
    # code left on the host while it moved its siblings (`targets.to(device)` beside `model(inputs)`): a
    # model that takes it so moves it itself (DataParallel: 3D-ResNets' train_epoch)
    tensors = [cast(Tensor, o.value) for o in operands]  # (operands are tensors: tensors_in)
    known = [t.where for t in tensors if t.where is not None and not t.host_batch]
    device = next((d for d in known if d.concrete), known[0] if known else device)
    if device is not None and device.kind == CPU_TYPE and not (isinstance(module, Module) and module.stateless):
        # given cpu data, a module of unknown place may be a DataParallel (its outputs on cuda:0) or one that
        # moves its inputs itself: only GPU inputs say where it computes (a loss computes on them)
        return None
    return device


def _method_of_class(site: CallSite, module: Value, name: str) -> Optional[cst.FunctionDef]:
    """`name` of a module class defined in this file (or a base of it defined here)."""
    file = site.file
    if isinstance(module, Module) and module.cls is not None and module.cls in file.classes:
        return file.find_method(file.classes[module.cls], name)
    return None


# classes whose forwards are walked one by one where a module may be of any of them (more: its output is a guess)
MOST_CLASSES_WALKED = 4


def _each_class(site: CallSite, module: Module) -> Optional[Value]:
    """`model = CLAM_MB(...) if multi else CLAM_SB(...)`, then `model(x)`: each class's forward runs on its own copy
    of the path, and what follows holds after any of them (their results joined). None where a class, or its
    forward, is not the file's (a library's model may return anything)."""
    file = site.file
    by_forward: dict[int, str] = {}
    for name in module.of_classes:
        cls = file.classes.get(name)
        forward = file.find_method(cls, "forward") if cls is not None else None
        if forward is None or id(forward) not in file.functions:
            return None
        by_forward.setdefault(id(forward), name)  # (subclasses that keep their base's forward: walked once)
    if len(by_forward) > MOST_CLASSES_WALKED:
        return None
    paths = [site.state.copy() for _ in by_forward]
    results = [call_module(site.on_path(path), replace(module, cls=name, of_classes=()))
               for name, path in zip(by_forward.values(), paths)]
    site.state.take_either(paths)
    return join_all(results)


def _forward(site: CallSite, module: Value) -> Optional[cst.FunctionDef]:
    """The `forward` of a module class defined in this file, if that is what is called."""
    file = site.file
    if isinstance(module, Module) and module.cls is not None and module.cls in file.classes:
        forward = file.find_method(file.classes[module.cls], "forward")
        if forward is not None and id(forward) in file.functions:
            return forward
    return None


def _placed_by_members(site: CallSite, module: Value, forward: Optional[cst.FunctionDef], args: Args) -> set[int]:
    """id() of the arguments bound to parameters the forward only hands on to a member whose forward places them
    (VIBE's `self.regressor(feature, J_regressor=J_regressor)`, whose forward moves it to its features' device)."""
    if forward is None or not isinstance(module, Module):
        return set()
    names = positional_names(forward)[1:]
    placed: set[int] = set()
    for member, param, slot in site.file.handed_to_members(forward):
        inner = _forward(site, module.attr(member) or UNKNOWN)
        if inner is None:
            continue
        inner_names = positional_names(inner)[1:]
        bound = inner_names[int(slot)] if slot.isdigit() and int(slot) < len(inner_names) else slot
        if bound not in site.file.placed_params(inner):
            continue
        given = args.find(names.index(param) if param in names else None, param)
        if given is not None:
            placed.add(id(given[0]))
    return placed


def _handed_on(site: CallSite, module: Value, forward: Optional[cst.FunctionDef]) -> Optional[cst.FunctionDef]:
    """A wrapper's `forward(self, *args, **kwargs)` that ends in `return self.module(*args, **kwargs)`, its inputs
    used nowhere else (pysot's `DistModule` broadcasts buffers first): the wrapped member's forward, which takes
    every input (and may move them itself)."""
    if forward is None or not isinstance(module, Module):
        return None
    params = forward.params
    body = [s for s in getattr(forward.body, "body", ()) if not _docstring(s)]
    if len(params.params) != 1 or params.kwonly_params or type(params.star_arg) is not cst.Param or not body:
        return None
    star = {params.star_arg.name.value} | ({params.star_kwarg.name.value} if params.star_kwarg else set())
    if any(star & names_in(statement) for statement in body[:-1]):
        return None
    small = body[-1].body[0] if type(body[-1]) is cst.SimpleStatementLine and len(body[-1].body) == 1 else None
    call = small.value if type(small) is cst.Return else None
    if type(call) is not cst.Call or type(call.func) is not cst.Attribute or dotted(call.func.value) != "self" \
            or not call.args or call.args[0].star != "*":
        return None
    return _forward(site, module.attr(call.func.attr.value) or UNKNOWN)


def _docstring(statement: cst.CSTNode) -> bool:
    return type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
        and type(statement.body[0]) is cst.Expr and type(statement.body[0].value) is cst.SimpleString


# ---------------------------------------------------------------- module methods
# (a method's receiver is of the kind its table is for: registry.METHODS; its node is known)


def module_move(site: CallSite) -> Value:
    """`model.to(device)`: moves the module in place, and returns it."""
    module = cast(Module, site.receiver)
    where: Optional[Device]
    if site.name in api.MOVES_TO_CPU:
        where = CPU
    elif keeps_device(site):
        return module
    else:
        where = move_target(site)
    if module.stateless:
        return module
    why = target_why(site.args) + ((site.node, f"moved to {where}" if where else ""),)
    moved = moved_in_place(site, module, where, site.receiver_name, why)
    optim.module_moved(site, moved, where)
    return moved


def moved_in_place(site: CallSite, module: Module, where: Optional[Device], name: Optional[str],
                   why: Why) -> Module:
    """`model.to(device)`, `accelerator.prepare(model)`: the object moves, and every alias of it sees it (the name
    `name`, the objects it holds, a submodule the code also holds by a name)."""
    moved = replace(module, where=where, moved=True, attrs=helpers_placed(module, where, site.node),
                    why=module.why + why)
    if name:
        site.walk.assign_name(name, moved, site.state, site.node)
    if module.ident:
        site.state.moved[module.ident] = moved
    named = {v.ident for scope in (site.state.env, site.file.globals()) for v in scope.values()
             if isinstance(v, Module) and v.ident}
    _move_submodules(site, module, where, named, 0)
    return moved


def helpers_placed(module: Module, where: Optional[Device], node: Optional[cst.CSTNode] = None) -> Attributes:
    """`self.stepper = Stepper(self.emb, self.w)`: a plain object the module holds, holding the module's own
    submodules and parameters, holds the same objects: where the module is, moved in place with it (`node`: the
    move; fast_abs_rl's decoders)."""
    own = {v.ident for _, v in module.attrs if isinstance(v, Module) and v.ident}
    step = ((node, "moved with the module holding it"),) if node is not None else ()

    def placed(value: Value) -> Value:
        if isinstance(value, Module) and value.ident in own and not value.stateless or \
                isinstance(value, Tensor) and value.parameter:
            return replace(value, where=where, why=value.why + step)
        return value
    return tuple((name, replace(v, attrs=tuple((n, placed(m)) for n, m in v.attrs)) if isinstance(v, Instance) else v)
                 for name, v in module.attrs)


def _move_submodules(site: CallSite, module: Module, where: Optional[Device], named: set[int], depth: int) -> None:
    """`Wrapper(enc, dec).to(device)` moves the `dec` it holds, the same object as the caller's `dec`: a
    submodule the code also holds by a name sees it (a few levels down). One its holder's `__init__` made is
    no such object: another instance's is made by the same line, and only its own holder moved."""
    if depth > 2:
        return
    for _, value in module.attrs:
        if isinstance(value, Module) and value.ident and not value.stateless:
            if value.ident in named:
                site.state.moved[value.ident] = replace(
                    value, where=where, moved=True, why=value.why + ((site.node, "moved with the module holding it"),))
            _move_submodules(site, value, where, named, depth + 1)


def module_same(site: CallSite) -> Value:
    """`model.eval()`, `model.half()`: the module itself."""
    return site.receiver


def module_parameters(site: CallSite) -> Value:
    module = cast(Module, site.receiver)
    if api.MODULE_MEMBERS[site.name] is Member.NAMED_PARAMETERS:
        return Seq(kind="list", elem=Seq(kind="tuple", items=(UNKNOWN, Tensor(where=module.where, parameter=True))))
    if api.MODULE_MEMBERS[site.name] is Member.SUBMODULES:
        return Seq(kind="list", elem=Module(why=module.why, where=module.where, registered=True))
    return Seq(kind="list", elem=Tensor(why=module.why, where=module.where, parameter=True))


def module_register(site: CallSite) -> Value:
    """`register_buffer(name, t)`, `register_parameter`, `add_module`: a member that follows the module."""
    module = cast(Module, site.receiver)
    args = site.args
    if len(args.positional) < 2 or not site.receiver_name:
        return UNKNOWN
    key, value = args.positional[0][1], args.positional[1][1]
    member = api.MODULE_MEMBERS[site.name]
    if member is Member.SUBMODULE and isinstance(value, Module):
        module, value = register_by_hand(site, site.receiver_name, module, args.positional[1][0], value)
    if not (isinstance(key, Const) and isinstance(key.value, str)):
        return UNKNOWN
    if member is Member.BUFFER and isinstance(value, Tensor):
        value = replace(value, parameter=True, attr_node=None)
    elif member is Member.BUFFER and type(value) is Unknown:
        # a buffer is a tensor (or None) whatever built it (`args.code.H.float()`): it moves with the module
        value = Tensor(why=((site.node, "a buffer: where the module is"),), where=module.where, parameter=True)
    elif member is Member.PARAMETER:
        value = Tensor(where=module.where, parameter=True)
    site.walk.assign_name(site.receiver_name, module.with_attr(key.value, value), site.state, site.node)
    return UNKNOWN


def module_hold(site: CallSite) -> Value:
    """`group.append(m)` on a module container: it is where its members are (an empty `Ensemble()` filled
    with modules loaded onto the device is there, not on the cpu where it was made)."""
    module = cast(Module, site.receiver)
    if not site.args.positional:
        return UNKNOWN
    given = site.args.positional[-1][1]
    members = [given.elem if isinstance(given, Seq) else given] if site.name == api.MODULE_CONTAINER_EXTEND else [given]
    where = module.where
    for member in members:
        if not (isinstance(member, Module) and member.stateless):
            where = join_device(where, member.device) if isinstance(member, Module) else None
    if where != module.where:
        site.update_receiver(replace(module, where=where))
    return Const(value=None)


def register_by_hand(site: CallSite, owner_name: str, module: Module, node: cst.CSTNode,
                     value: Module) -> tuple[Module, Module]:
    """`self.add_module(name, fc)`, `setattr(self, name, fc)` for what a plain list also holds
    (`self.fcs.append(fc)`): the module registers its members by hand, so the list's are registered.
    Returns the owner and the member as they are now."""
    value = replace(value, registered=True, plain_container=None)
    module = replace(module, attrs=tuple((name, _registered_members(member)) for name, member in module.attrs))
    site.walk.assign_name(owner_name, module, site.state, site.node)
    name = dotted(node)
    if name is not None and "." not in name:
        site.walk.assign_name(name, value, site.state, site.node)
    return module, value


def _plain_list_registered(site: CallSite, arg_node: cst.CSTNode, given: Value) -> None:
    """`self.registered = nn.ModuleList(self.blocks)` (or `list(self.blocks.values())`): the plain list's modules
    are registered by the container; `self.blocks[i]` is one of them."""
    held = arg_node
    while type(held) is cst.Call and len(held.args) <= 1:
        func = held.func  # `list(d.values())`, `tuple(blocks)`: the same members
        if type(func) is cst.Name and func.value in _SAME_MEMBERS and held.args:
            held = held.args[0].value
        elif type(func) is cst.Attribute and func.attr.value in _SAME_MEMBERS and not held.args:
            held = func.value
        else:
            break
    name = dotted(held)
    if name is not None and held is not arg_node:
        given = site.walk.lookup(name, site.state)
    registered = _registered_members(given)
    if name is not None and registered is not given:
        site.walk.assign_name(name, registered, site.state, site.node)


_SAME_MEMBERS = frozenset({"list", "tuple", "values"})


def _registered_members(member: Value) -> Value:
    if isinstance(member, Seq) and member.plain_attr is not None and isinstance(member.elem, Module):
        return replace(member, plain_attr=None, elem=replace(member.elem, registered=True, plain_container=None),
                       items=None, hand_registered=True)
    return member


def _handed_a_loss(site: CallSite, callee: Value) -> bool:
    """`criterion(out, y)` of a `criterion` parameter: the caller's loss (not an object of the project's own class,
    which may align its inputs), given an input and a target (a CTC loss's lengths may be anywhere)."""
    return type(callee) is Located and callee.where is not None and callee.where.kind == "param" \
        and opaque.names_a_loss(site.node.func) and len(site.args.positional) == 2


def module_forward(site: CallSite) -> Value:
    """`policy.forward(state)`: the module's call (its hooks aside), named by the module."""
    return call_module(site, site.receiver)


def module_metadata(site: CallSite) -> Value:
    return UNKNOWN


def module_state_dict(site: CallSite) -> Value:
    """`model.state_dict()`: its parameters and buffers, by name, where the module is."""
    module = cast(Module, site.receiver)
    return Seq(kind="dict", elem=Tensor(why=module.why, where=module.where, parameter=True))


def module_other(site: CallSite) -> Value:
    """Another method of a module we cannot see (`vae.encode(x)`, `model.generate(ids)`): given tensors,
    it computes where the module is (or its inputs are); else what it returns is unknown."""
    module = cast(Module, site.receiver)
    values = [v for _, v in site.args.all()]
    site.facts.note_gpu_work(site.node, values, site.state)
    if site.name in api.WAITING_LIBRARY_METHODS and module.cls is None:
        site.facts.note_sync(site.state)  # a library model's `generate(ids)`: it returns when its last step is done
    tensors = [t for v in values for t in tensors_in(v)]
    if not tensors or module.stateless:
        return UNKNOWN
    if module.cls is not None or module.of_classes:
        # a class of this file has its methods analysed: this is an attribute holding a callable we
        # cannot see (`self.matcher = Matcher(...)`), or a method of one of several classes (CloserLookFewShot's
        # `model.set_forward(x)`, each moving its input itself)
        return opaque.follows_inputs(site)
    # its data: the first argument, or the tensors given by keyword (`model.generate(input_ids=ids, attention_mask=m)`)
    given = site.args.positional[:1] or list(site.args.keywords.values())
    data: list[tuple[cst.CSTNode, Value]] = [
        (node, v) for node, v in given if isinstance(v, Tensor) and v.where is not None and v.where.kind == CPU_TYPE]
    if data and module.moved and module.where is not None and module.where.concrete and module.where.kind != CPU_TYPE:
        # `vae.to(device); vae.encode(x)`: a method of a module sent to a device, given data left on the cpu,
        # computes with the module's parameters as `vae(x)` does (a module's attribute may be any callable:
        # the other way round is not judged)
        if site.facts.module_call_fact(site.node, cast(cst.CSTNode, site.receiver_node), module, data):
            return CRASHED
    where = module.where if module.where is not None and module.where.concrete else next(
        (t.where for t in tensors if t.where is not None), None)
    if where is not None:
        where = replace(where, implicit=False)  # computed, not made here without device=
    # (the model's own API, not its forward: it may hand back numpy or an object of arrays, as EfficientZero's
    # `initial_inference` does in eval mode: numpy's conversions of it are not judged, `.numpy()` of it is)
    return Tensor(why=module.why + ((site.node, "computed by the module"),), where=where, derived=True,
                  inferred=True, maybe_object=True)


def data_parallel(site: CallSite) -> Value:
    """`nn.parallel.data_parallel(module, input, device_ids)`: the output is gathered where the module is
    (`device_ids[0]`); it takes the input there itself."""
    module = site.args.first("module")
    found = site.args.find(1, "inputs")
    data = found[1] if found else UNKNOWN
    where = module.device if isinstance(module, (Module, Located)) else None
    if where is None and isinstance(data, (Tensor, Located)):
        where = data.device
    site.facts.note_gpu_work(site.node, [module, data], site.state)
    return Tensor(why=((site.node, "gathered where the module is"),), where=where, derived=True)


def from_pretrained(site: CallSite) -> Value:
    """`nn.Embedding.from_pretrained(weights)`: a module whose weight is `weights`, so on its device."""
    weights = site.args.first("embeddings")
    where = weights.device if isinstance(weights, (Tensor, Located)) else None
    return Module(why=getattr(weights, "why", ()) + ((site.node, "a module made of these weights"),), where=where,
                  ident=id(site.node))


FUNCTIONS = {
    **{path: from_pretrained for path in api.PRETRAINED_MODULE_CONSTRUCTORS},
    **{path: parameter for path in api.PARAMETER_CLASSES},
    "torch.nn.parallel.data_parallel": data_parallel,
    **{path: wrapper for path in api.MODULE_WRAPPERS},
    **{path: trace for path in api.TRACE_CALLS},
}
MODULE_METHODS = {
    **{name: module_move for name in api.MOVE_METHODS},
    **{name: module_same for name in api.SAME_DEVICE_METHODS_MODULE},
    **{name: module_parameters for name, member in api.MODULE_MEMBERS.items()
       if member in (Member.PARAMETERS, Member.NAMED_PARAMETERS, Member.EACH, Member.SUBMODULES)},
    **{name: module_register for name, member in api.MODULE_MEMBERS.items()
       if member in (Member.BUFFER, Member.PARAMETER, Member.SUBMODULE)},
    **{name: module_hold for name in api.MODULE_CONTAINER_METHODS},
    "forward": module_forward,
    "state_dict": module_state_dict,
    **{name: module_metadata for name, member in api.MODULE_MEMBERS.items() if member is Member.NO_DEVICE},
}
