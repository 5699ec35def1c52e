"""`torch.cuda`, `torch.accelerator` and test skip markers: availability checks, the calls that
need a GPU (DEV203), the current device, synchronisation and CUDA events."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from devlint.core.facts import EventElapsed, GpuAssumption
from devlint.core.torch_catalogue import views as api
from devlint.core.torch_catalogue.records import CUDA_TYPE
from devlint.static.semantics.callsite import Args, CallSite
from devlint.static.semantics.containers import map_members
from devlint.static.semantics.devices import as_device
from devlint.core.values import (
    DEVICE_COUNT, INTEGER, SELECTED, UNKNOWN, Availability, Const, CudaEvent, DeviceContext, DeviceCount, DeviceValue,
    Function, Instance, Module, Ref, Seq, SkipMarker, Value, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.state import State


def availability(site: CallSite) -> Value:
    return Availability(positive=True, backend=api.ACCELERATOR_CHECKS.get(site.path, CUDA_TYPE))


def current_accelerator(site: CallSite) -> Value:
    site.evaluate_arguments()
    return DeviceValue(why=((site.node, ""),), where=SELECTED)


def device_count(site: CallSite) -> Value:
    return DEVICE_COUNT


def group_initialized(site: CallSite) -> Value:
    """`dist.is_initialized()` in a program that sets up NCCL: true only where every process has a GPU."""
    if site.file.nccl_backend:
        return Availability(positive=True, branch="then", choice=False)
    return UNKNOWN


def world_size(site: CallSite) -> Value:
    return DeviceCount(world=True) if site.file.nccl_backend else UNKNOWN


def skip_marker(site: CallSite) -> Value:
    """`pytest.mark.skipif(not torch.cuda.is_available(), ...)`, `unittest.skipUnless(...)`."""
    args = site.args
    condition = args.first("condition")
    runs_when = site.path in api.SKIP_UNLESS_DECORATORS  # skipUnless(c) runs the test when c is true
    if isinstance(condition, Availability) and condition.backend == CUDA_TYPE \
            and condition.learns(runs_when) is True:
        return SkipMarker()
    return UNKNOWN


def init_process_group(site: CallSite) -> Value:
    """`init_process_group(backend="nccl")`: NCCL runs on CUDA only, so what follows has a GPU."""
    given = site.args.find(0, "backend")
    backend = given[1] if given is not None else UNKNOWN
    # a backend from the configuration (`backend=cfg.backend`) of a program that names NCCL as its backend (the
    # config's default, an option's): the group is NCCL's
    configured = given is not None and not isinstance(backend, Const) and site.file.nccl_backend
    if isinstance(backend, Const) and backend.value == api.NCCL_BACKEND or configured:
        site.state.guarded = True
        if not site.state.device_chosen:  # no `set_device` yet: plain 'cuda' is GPU 0 in every process
            site.state.ranks = site.node
    return UNKNOWN


def spawn_workers(site: CallSite) -> Value:
    """`mp.spawn(worker, args=(...), nprocs=torch.cuda.device_count())`: one process per GPU, each running
    `worker(rank, *args)`; without a GPU there is none. So the worker is analysed as called there, with a GPU
    (LLMs-from-scratch's DDP-script.py, pytorch/examples' imagenet `main_worker`). Another count says nothing."""
    args = site.args
    worker, nprocs = args.first("fn"), args.find(2, "nprocs")
    if not isinstance(worker, Function) or nprocs is None or not isinstance(nprocs[1], DeviceCount) \
            or nprocs[1].world:
        return UNKNOWN
    call = Args()
    call.positional.append((site.node, INTEGER))  # the process's rank: its GPU's index
    given = args.find(1, "args")
    if given is not None and isinstance(given[1], Seq) and given[1].items is not None:
        call.positional.extend((given[0], item) for item in given[1].items)
    elif given is not None:
        return UNKNOWN  # arguments we cannot spread: the worker is left to its own analysis
    state = site.state.copy()
    state.guarded = True
    site.walk.invoke(worker, call, site.node, state, None)
    return UNKNOWN


def is_cuda_api(path: str) -> bool:
    return path.startswith("torch.cuda.") and path not in api.CUDA_SAFE


def cuda_api(site: CallSite) -> Value:
    """Any `torch.cuda.*` call that is not always safe without a GPU."""
    args, path, state = site.args, site.path, site.state
    if path in api.CUDA_NEEDS_GPU:
        site.emit(GpuAssumption(site.node, path, "cuda-api", state.guarded, site.context, state.switched))
    if path in api.SYNCHRONIZE:
        synchronize(site)
        return UNKNOWN
    if path in api.CUDA_EVENT:
        return CudaEvent()
    if path in api.SET_DEVICE:
        # what follows a GPU's selection runs with that GPU or not at all: the selection is what is reported
        # (DEV203) where nothing guards it, not every use after it (a DDP worker's `set_device(rank)`)
        state.ranks, state.device_chosen, state.guarded = None, True, True
        value = args.first()
        device = as_device(value)
        given = args.find(0, "device")
        if given is not None and type(given[0]) in (cst.Name, cst.Attribute) and not isinstance(value, DeviceValue):
            # `set_device(rank)`: the GPU the code chooses at run time, whatever this walk's caller gave (the
            # `f"cuda:{rank}"` beside it is the same one)
            state.cuda_index = None
            return UNKNOWN
        state.cuda_index = device.index if device is not None and device.kind == CUDA_TYPE else (
            value.value if isinstance(value, Const) and isinstance(value.value, int) else None)
        return UNKNOWN
    if path in api.DEVICE_CONTEXTS:
        value = args.first()
        device = as_device(value)
        if isinstance(value, Const) and isinstance(value.value, int):
            return DeviceContext(index=value.value)
        if device is not None and device.kind == CUDA_TYPE:
            return DeviceContext(index=device.index)
        return DeviceContext(index=None, unknown=True)
    return UNKNOWN


def synchronize(site: CallSite) -> None:
    """`torch.cuda.synchronize()`: the GPU is idle, and every recorded event has completed."""
    site.facts.note_sync(site.state)
    complete_events(site.state)


def complete_events(state: State) -> None:
    """The host waited for the GPU (`torch.cuda.synchronize()`, or `loss.item()` of a GPU tensor, which waits
    for everything queued before it): every event recorded so far has completed."""

    def complete(value: Value) -> Value:
        return replace(value, synced=True) if isinstance(value, CudaEvent) and value.recorded is not None else value

    for name, value in list(state.env.items()):
        if isinstance(value, (CudaEvent, Seq)):
            state.env[name] = map_members(value, complete)
        elif isinstance(value, (Instance, Module)) and any(isinstance(v, CudaEvent) for _, v in value.attrs):
            # a timer's events kept on the object (`self.end.record(); torch.cuda.synchronize()`)
            state.env[name] = replace(value, attrs=tuple((k, complete(v)) for k, v in value.attrs))


def backend_synchronize(site: CallSite) -> Value:
    """`torch.accelerator.synchronize()`: a wait, on whichever accelerator runs."""
    site.evaluate_arguments()
    synchronize(site)
    return UNKNOWN


# ---------------------------------------------------------------- CUDA events


def event_record(site: CallSite) -> Value:
    if site.receiver_name:
        site.walk.assign_name(site.receiver_name, CudaEvent(recorded=site.node, synced=False), site.state, site.node)
    return UNKNOWN


def event_synchronize(site: CallSite) -> Value:
    site.facts.note_sync(site.state)
    if site.receiver_name:
        site.walk.assign_name(site.receiver_name, replace(site.receiver, synced=True), site.state, site.node)
    return UNKNOWN


def event_elapsed_time(site: CallSite) -> Value:
    if site.args.positional:
        end_node, end = site.args.positional[0]
        if isinstance(end, CudaEvent):
            site.emit(EventElapsed(site.node, site.file.code(end_node), end.recorded, end.synced, site.context))
    return UNKNOWN


def event_other(site: CallSite) -> Value:
    return UNKNOWN


def jit_extension(site: CallSite) -> Value:
    """`load(name="_freq", sources=["freq.cu", "bind.cpp"])`: an extension built from CUDA sources is a CUDA
    build (what follows has a GPU, as after `import freq_cuda`); from C++ sources alone, a module we cannot see."""
    site.evaluate_arguments()
    if not _cuda_sources(site.node):
        return UNKNOWN
    site.state.guarded = True
    return Ref(path=api.JIT_CUDA_EXTENSION)


def _cuda_sources(node: cst.CSTNode) -> bool:
    """Does the call name a CUDA source file (a string ending in `.cu`, anywhere in its arguments) or pass
    `cuda_sources=`?"""
    for arg in getattr(node, "args", ()):
        if arg.keyword is not None and arg.keyword.value == api.CUDA_SOURCES_KEYWORD:
            return True
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if type(current) is cst.SimpleString and current.raw_value.endswith(api.CUDA_SOURCE_SUFFIXES):
            return True
        stack.extend(current.children)
    return False


FUNCTIONS = {
    **{path: availability for path in api.AVAILABILITY | set(api.ACCELERATOR_CHECKS)},
    **{path: current_accelerator for path in api.CURRENT_ACCELERATOR},
    **{path: device_count for path in api.DEVICE_COUNT_CALLS},
    **{path: skip_marker for path in api.SKIP_DECORATORS | api.SKIP_UNLESS_DECORATORS},
    **{path: init_process_group for path in api.INIT_PROCESS_GROUP},
    **{path: group_initialized for path in api.GROUP_INITIALIZED},
    **{path: world_size for path in api.WORLD_SIZE_CALLS},
    **{path: spawn_workers for path in api.SPAWNS_WORKERS},
    **{path: backend_synchronize for path in api.BACKEND_SYNCHRONIZE},
    **{path: jit_extension for path in api.JIT_EXTENSION_BUILDERS},
}
EVENT_METHODS = {"record": event_record, "synchronize": event_synchronize, "elapsed_time": event_elapsed_time}
