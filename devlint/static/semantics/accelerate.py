"""Hugging Face Accelerate: `accelerator.prepare(model, optimizer, loader)` places the model on
`accelerator.device` (the GPU where there is one, as a device selected at run time) and sends the loader's
batches there; what the training loop makes itself stays where it makes it."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.core.devices import Device
from devlint.core.torch_catalogue import views as api
from devlint.core.values import SELECTED, UNKNOWN, Const, DeviceValue, Loader, Module, Ref, Seq, Value, replace
from devlint.static.semantics.callsite import CallSite
from devlint.static.semantics.modules import moved_in_place
from devlint.static.syntax import dotted


def accelerator(site: CallSite) -> Value:
    """`Accelerator(...)`: the object (a path its attributes extend), unless it is told to place nothing."""
    args = site.evaluate_arguments()
    for keyword, unplaced in api.ACCELERATOR_UNPLACED.items():
        given = args.get(keyword)
        if keyword in args.keywords and not (isinstance(given, Const) and given.value is not unplaced):
            return UNKNOWN  # `cpu=True`, `device_placement=False`, or a flag the walk cannot read
    return Ref(why=((site.node, ""),), path=api.ACCELERATOR)


def device_of(node: Optional[cst.CSTNode]) -> DeviceValue:
    """`accelerator.device`: the device it selected."""
    if node is None:
        return DeviceValue(where=SELECTED)
    return DeviceValue(why=((node, "the accelerator's device"),), where=replace(SELECTED, name=dotted(node)))


def prepare(site: CallSite) -> Value:
    """`model, opt, loader = accelerator.prepare(model, opt, loader)`: each given back, placed."""
    func = site.node.func if type(site.node) is cst.Call else None
    owner = dotted(func.value) if type(func) is cst.Attribute else None
    where = replace(SELECTED, name=f"{owner}.device" if owner else None)
    placed = [_placed(site, node, value, where) for node, value in site.args.positional]
    if len(placed) == 1:
        return placed[0]
    return Seq(kind="tuple", items=tuple(placed))


def _placed(site: CallSite, node: cst.CSTNode, value: Value, where: Device) -> Value:
    step = ((site.node, "placed by `prepare`"),)
    if isinstance(value, Module) and not value.stateless:
        return moved_in_place(site, value, where, dotted(node), step)  # in place, as `model.to(device)` moves it
    if isinstance(value, Loader):
        return replace(value, where=where, why=value.why + step)
    return value


def same(site: CallSite) -> Value:
    """`accelerator.unwrap_model(model)`, `accelerator.gather(t)`: where the value was."""
    return site.args.first()


FUNCTIONS = {
    **{path: accelerator for path in api.ACCELERATOR_CLASSES},
    **{path: prepare for path in api.ACCELERATOR_PREPARE},
    **{path: same for path in api.ACCELERATOR_SAME},
}
