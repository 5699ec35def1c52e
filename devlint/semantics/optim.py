"""torch.optim: an optimizer keeps its state (momentum, Adam's moments) beside its module's parameters.

`optimizer.load_state_dict(...)` casts the loaded state to the device the
parameters are on *then*; `model.to(device)` afterwards moves the parameters
but not that state, and the first `step()` mixes devices. Building the
optimizer before `model.to()` is fine: Module.to keeps the Parameter objects.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from devlint.facts import OptimizerStateLeftBehind
from devlint.semantics.callsite import CallSite
from devlint.syntax import dotted
from devlint.values import UNKNOWN, Device, Module, Optimizer, Value


def is_optimizer_class(path: str) -> bool:
    namespace, _, name = path.rpartition(".")
    return namespace in ("torch.optim", "torch.optim.sparse_adam") and name[:1].isupper()


def optimizer(site: CallSite) -> Value:
    """`torch.optim.Adam(model.parameters(), ...)`: whose parameters it updates."""
    site.args
    return Optimizer(why=((site.node, ""),), owner=_owner(site.node.args[0].value) if site.node.args else None)


def _owner(node: cst.BaseExpression):
    """`model` in `model.parameters()`, `[{"params": model.parameters()}]`, `model.net.parameters()`."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and node.func.attr.value in ("parameters", "named_parameters"):
        return dotted(node.func.value)
    if isinstance(node, (cst.List, cst.Tuple)) and node.elements:
        return _owner(node.elements[0].value)
    if isinstance(node, cst.Dict):
        for element in node.elements:
            if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString) \
                    and element.key.value.strip("'\"") == "params":
                return _owner(element.value)
    return None


def load_state_dict(site: CallSite) -> Value:
    """`optimizer.load_state_dict(ckpt["optimizer"])`: the state goes where the parameters are now."""
    opt: Optimizer = site.receiver
    module = site.walk.lookup(opt.owner, site.state) if opt.owner else None
    where = module.device if isinstance(module, Module) else None
    site.update_receiver(replace(opt, loaded=site.node, loaded_where=where))
    return UNKNOWN


def optimizer_other(site: CallSite) -> Value:
    return UNKNOWN


def module_moved(site: CallSite, module: Module, where: Device) -> None:
    """After `model.to(where)`: optimizers of model whose state was loaded elsewhere are left behind."""
    name = site.receiver_name
    if not name or where is None:
        return
    for key, value in list(site.state.env.items()):
        if isinstance(value, Optimizer) and value.owner == name and value.loaded is not None \
                and value.loaded_where is not None and value.loaded_where.kind == "cpu" \
                and where.concrete and where.kind != "cpu":
            site.emit(OptimizerStateLeftBehind(value.loaded, key, site.operand(site.receiver_node, module), site.node,
                                               site.context))
            site.state.env[key] = replace(value, loaded=None)


OPTIMIZER_METHODS = {"load_state_dict": load_state_dict}
