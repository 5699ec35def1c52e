"""Calls into code devlint cannot see: imported functions, methods of values of unknown kind.

What they do to devices is unknown, so their results are unknown; but what
they are given tells something: a module handed to them may be moved there, a
GPU value given to them means GPU work, and a project function may well wait
for the GPU (a validation run ends with `.cpu()`).
"""

from __future__ import annotations

from devlint.semantics import torch_api as api
from devlint.semantics.callsite import CallSite
from devlint.semantics.devices import unknown_to
from devlint.values import CPU, UNKNOWN, Located, Seq, Tensor, Value


def unknown_function(site: CallSite) -> Value:
    """An imported function: `utils.train_epoch(model, loader)`."""
    args, state = site.args, site.state
    site.walk.escape(args, state)
    site.walk.note_gpu_work(site.node, [v for _, v in args.all()], state)
    return UNKNOWN


def unknown_callee(site: CallSite) -> Value:
    """A call of a value of unknown kind (`fn(x)` where fn is a parameter)."""
    site.walk.escape(site.args, site.state)
    site.walk.note_gpu_work(site.node, [v for _, v in site.args.all()], site.state)
    return UNKNOWN


def unknown_method(site: CallSite) -> Value:
    """`obj.method(...)` on a value of unknown kind (or only known to live on a device)."""
    name, receiver, state, walk = site.name, site.receiver, site.state, site.walk
    args = site.args
    walk.escape(args, state)
    located = isinstance(receiver, Located)
    if name in ("to", "cuda"):
        return unknown_to(site)
    if name in api.SAME_DEVICE_METHODS_MODULE and located:
        return receiver
    if name == "cpu":
        return Located(why=((site.node, ""),), where=CPU)
    if name in api.SYNC_METHODS and receiver is not UNKNOWN:
        if receiver.device is not None and receiver.device.is_gpu:
            walk.note_sync(state)
    if name in ("item", "tolist", "numpy") and site.receiver_name and site.receiver_name in walk.tensor_names():
        walk.note_sync(state)
    if name == "items" and located:
        return Seq(kind="list", elem=Seq(kind="tuple", items=(UNKNOWN, receiver)))
    if name == "synchronize":
        walk.note_sync(state)
    if name in ("backward", "step") or located:
        walk.note_gpu_work(site.node, [receiver] + [v for _, v in args.all()], state)
    elif args.positional or args.keywords:
        walk.note_gpu_work(site.node, [v for _, v in args.all()], state)
    if located and name not in api.METADATA_METHODS:
        if name in api.TENSOR_ONLY_ATTRS:
            return Tensor(why=receiver.why, where=receiver.where, derived=True)  # only a tensor has this method
        return Located(where=receiver.where)
    return UNKNOWN
