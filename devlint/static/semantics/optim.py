"""torch.optim: an optimizer keeps its state (momentum, Adam's moments) beside its module's parameters.

`optimizer.load_state_dict(...)` casts the loaded state to the device the
parameters are on *then*; `model.to(device)` afterwards moves the parameters
but not that state, and the first `step()` mixes devices. Building the
optimizer before `model.to()` is fine: Module.to keeps the Parameter objects.
"""

from __future__ import annotations

from typing import Optional, cast

import libcst as cst

from devlint.core.facts import OptimizerStateLeftBehind
from devlint.static.semantics.callsite import CallSite
from devlint.static.syntax import dotted, names_in
from devlint.core.values import UNKNOWN, Device, Instance, Located, Module, Optimizer, Value, replace
from devlint.core.torch_catalogue import views as api
from devlint.core.torch_catalogue.records import CPU_TYPE


def is_optimizer_class(path: str) -> bool:
    namespace, _, name = path.rpartition(".")
    return namespace in api.OPTIMIZER_NAMESPACES and name[:1].isupper() \
        or bool(namespace) and name in api.OTHER_OPTIMIZERS


def optimizer(site: CallSite) -> Value:
    """`torch.optim.Adam(model.parameters(), ...)`: whose parameters it updates."""
    site.evaluate_arguments()
    return Optimizer(why=((site.node, ""),), owner=_owner(site.node.args[0].value) if site.node.args else None)


def _owner(node: cst.BaseExpression) -> Optional[str]:
    """`model` in `model.parameters()`, `[{"params": model.parameters()}]`, `model.net.parameters()`."""
    if type(node) is cst.Call and type(node.func) is cst.Attribute \
            and node.func.attr.value in api.PARAMETER_METHODS:
        return dotted(node.func.value)
    if isinstance(node, (cst.List, cst.Tuple)) and node.elements:  # (libcst subclasses neither)
        return _owner(node.elements[0].value)
    if type(node) is cst.Dict:
        for element in node.elements:
            if type(element) is cst.DictElement and type(element.key) is cst.SimpleString \
                    and element.key.value.strip("'\"") == "params":
                return _owner(element.value)
    return None


def load_state_dict(site: CallSite) -> Value:
    """`optimizer.load_state_dict(ckpt["optimizer"])`: the state goes where the parameters are now."""
    opt = cast(Optimizer, site.receiver)  # the receiver of an Optimizer method (registry.METHODS)
    module = site.walk.lookup(opt.owner, site.state) if opt.owner else None
    where = module.device if isinstance(module, (Module, Located)) else None
    site.update_receiver(replace(opt, loaded=site.node, loaded_where=where))
    return UNKNOWN


def owner_rebound(env: dict[str, Value], name: str, made: cst.Call) -> None:
    """`model = build(cfg)` after `opt = SGD(model.parameters())`: the name holds another model now (a call that
    does not name it: not `model.float()`, `DataParallel(model)`); the optimizer keeps the parameters it was built
    on (where its state will be loaded), whatever moves the new one."""
    owned = [key for key, value in env.items() if type(value) is Optimizer and value.owner is not None
             and (value.owner == name or value.owner.startswith(name + "."))]
    if owned and name not in names_in(made):
        for key in owned:
            env[key] = replace(cast(Optimizer, env[key]), owner=None)


def optimizer_other(site: CallSite) -> Value:
    return UNKNOWN


def module_moved(site: CallSite, module: Module, where: Optional[Device]) -> None:
    """After `model.to(where)`: optimizers of model whose state was loaded elsewhere are left behind."""
    name = site.receiver_name
    if not name or where is None:
        return
    if not (where.concrete and where.kind != CPU_TYPE):
        return
    env = site.state.env
    for key, value in list(env.items()):
        if isinstance(value, Optimizer) and _left_behind(value, value.owner, name):
            _report(site, module, value, key)
            env[key] = replace(value, loaded=None)
        elif isinstance(value, Instance):
            # `self.optimizer` of `self.model`, held by an object: `learner.model.to(device)`
            for attr, held in value.attrs:
                owner = held.owner if isinstance(held, Optimizer) else None
                opt = cast(Optimizer, held)  # (it is one where it has an owner)
                if owner and owner.startswith("self.") and _left_behind(opt, f"{key}.{owner[5:]}", name):
                    _report(site, module, opt, f"{key}.{attr}")
                    env[key] = value = value.with_attr(attr, replace(held, loaded=None))


def _left_behind(opt: Optimizer, owner: Optional[str], moved: str) -> bool:
    """Its state was loaded while its module was on the cpu, and that module is the one moving now."""
    return owner == moved and opt.loaded is not None and opt.loaded_where is not None \
        and opt.loaded_where.kind == CPU_TYPE


def _report(site: CallSite, module: Value, opt: Optimizer, label: str, unplaced: bool = False) -> None:
    # (_left_behind saw it loaded; a method's receiver node is known)
    site.emit(OptimizerStateLeftBehind(cast(cst.CSTNode, opt.loaded), label,
                                       site.operand(cast(cst.CSTNode, site.receiver_node), module), site.node,
                                       site.context, unplaced=unplaced))


def unplaced_moved(site: CallSite, moved: Value, where: Optional[Device]) -> None:
    """`model = get_net(cfg)` (a factory devlint cannot see), its optimizer's state loaded, then
    `model.to(device)`: the move says the model was not on `device` when the state was loaded (else why move
    it), so the state stays where the model was. Only a model this function made: a parameter may have been
    moved by the caller, and the move here be a no-op."""
    name = site.receiver_name
    if not name or "." in name or where is None or not (where.concrete and where.kind != CPU_TYPE) \
            or name in site.file.parameters():
        return
    for key, value in list(site.state.env.items()):
        if isinstance(value, Optimizer) and value.owner == name and value.loaded is not None \
                and value.loaded_where is None:
            _report(site, moved, value, key, unplaced=True)
            site.state.env[key] = replace(value, loaded=None)


OPTIMIZER_METHODS = {"load_state_dict": load_state_dict}
