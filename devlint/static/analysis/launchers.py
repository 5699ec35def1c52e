"""Distributed launches: where a body sets up a process group on GPUs, what follows runs with GPUs."""

from __future__ import annotations

from typing import Sequence, Union

import libcst as cst

from devlint.core.torch_catalogue import views as api
from devlint.static.syntax import dotted


def is_nccl(node: cst.BaseExpression) -> bool:
    return type(node) is cst.SimpleString and node.value[1:-1] == api.NCCL_BACKEND


def sets_up_nccl(body: Sequence[Union[cst.BaseStatement, cst.BaseSmallStatement]]) -> bool:
    """`dist.init_process_group("nccl", ...)` (or `backend="nccl"`) as a statement of this body itself; the
    backend may be a name the body set to "nccl" before (`args.dist_backend = "nccl"`, DeiT's and DETR's set-up).
    NVML started (`pynvml.nvmlInit()`) says as much: a GPU is there."""
    nccl_names: set[str] = set()
    for statement in body:
        if type(statement) is not cst.SimpleStatementLine:
            continue
        for small in statement.body:
            if type(small) is cst.Assign and is_nccl(small.value):
                nccl_names.update(filter(None, (dotted(t.target) for t in small.targets)))
                continue
            call = getattr(small, "value", None)
            if type(call) is not cst.Call:
                continue
            if (dotted(call.func) or "").endswith(api.INIT_PROCESS_GROUP_NAME) and any(
                    is_nccl(a.value) or dotted(a.value) in nccl_names for a in call.args):
                return True
            if type(small) is cst.Expr and _launcher_on_gpus(call):
                return True
            if type(small) is cst.Expr and (dotted(call.func) or "").rsplit(".", 1)[-1] == api.NVML_INIT_NAME:
                return True  # a GPU-memory benchmark's `pynvml.nvmlInit()`: the driver is there
    return False


def _launcher_on_gpus(call: cst.Call) -> bool:
    """A launcher's helper given `backend="nccl"` (not an option's `default="nccl"`), or mmcv's and mmengine's
    `init_dist(launcher, **cfg.dist_params)` given no backend by name: it selects the rank's GPU whatever the
    backend (`torch.cuda.set_device`); one named a cpu backend (`backend="gloo"`) may run without a GPU."""
    backends = [a.value for a in call.args if a.keyword is not None and a.keyword.value == api.BACKEND_KEYWORD]
    if backends:
        return any(is_nccl(value) for value in backends)
    return (dotted(call.func) or "").rsplit(".", 1)[-1] in api.GPU_DIST_SETUP
