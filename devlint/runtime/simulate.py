"""A simulated GPU for machines without one: torch.cuda answers as on a machine with N GPUs.

Only the Python-visible API is replaced (and restored on exit); tensors keep
their data on the cpu, tagged with their logical device by the checker.
"""

from __future__ import annotations

import contextlib
import time
import types
from typing import Any, Callable

import torch

from devlint.runtime.checker import CPU, DeviceChecker

_TENSOR_TYPES = ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")
_ZERO_MEMORY = ("memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
                "memory_cached", "max_memory_cached")
_NO_OPS = ("empty_cache", "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_accumulated_memory_stats",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "init", "ipc_collect")


class SimulatedEvent:
    """torch.cuda.Event on the simulated GPU: records wall time, synchronizes the checker."""

    def __init__(self, checker: DeviceChecker, enable_timing: bool = False, **_: Any) -> None:
        self.checker, self.enable_timing, self.when = checker, enable_timing, None

    def record(self, stream: Any = None) -> None:
        self.when = time.perf_counter.__wrapped__() if hasattr(time.perf_counter, "__wrapped__") else time.perf_counter()

    def synchronize(self) -> None:
        self.checker.synchronized()

    def wait(self, stream: Any = None) -> None:
        pass

    def query(self) -> bool:
        return True

    def elapsed_time(self, end: "SimulatedEvent") -> float:
        if self.when is None or end.when is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end.when - self.when) * 1000.0


class SimulatedStream:
    def __init__(self, checker: DeviceChecker, *_: Any, **__: Any) -> None:
        self.checker = checker

    def synchronize(self) -> None:
        self.checker.synchronized()

    def wait_stream(self, other: Any) -> None:
        pass

    def wait_event(self, event: Any) -> None:
        pass

    def record_event(self, event: Any = None) -> SimulatedEvent:
        event = event or SimulatedEvent(self.checker)
        event.record()
        return event

    def query(self) -> bool:
        return True

    def __enter__(self) -> "SimulatedStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


def _properties(index: int) -> types.SimpleNamespace:
    return types.SimpleNamespace(name=f"devlint simulated GPU {index}", total_memory=16 * 1024**3, major=8, minor=0,
                                 multi_processor_count=108, is_integrated=False, is_multi_gpu_board=False)


def install(checker: DeviceChecker) -> Callable[[], None]:
    """Replace torch.cuda's API and torch.load; return the function that puts them back."""
    cuda = torch.cuda
    saved: dict[tuple, Any] = {}

    def patch(owner: Any, name: str, value: Any) -> None:
        saved[(owner, name)] = getattr(owner, name, None)
        setattr(owner, name, value)

    def index_of(device: Any = None) -> int:
        if device is None:
            return checker.current_index
        resolved = checker.resolve(device)
        return resolved.index if resolved is not None and resolved.type == "cuda" else checker.current_index

    def set_device(device: Any) -> None:
        checker.current_index = index_of(device)

    @contextlib.contextmanager
    def device_context(device: Any):
        previous = checker.current_index
        if device is not None and not (isinstance(device, int) and device < 0):
            checker.current_index = index_of(device)
        try:
            yield
        finally:
            checker.current_index = previous

    def legacy_type(kind: str) -> Callable:
        dtype = getattr(torch, kind.lower() if kind != "BFloat16" else "bfloat16", None) or {
            "Float": torch.float32, "Double": torch.float64, "Half": torch.float16, "Long": torch.int64,
            "Int": torch.int32, "Short": torch.int16, "Char": torch.int8, "Byte": torch.uint8,
            "Bool": torch.bool}[kind]

        def create(*args: Any) -> torch.Tensor:
            if len(args) == 1 and isinstance(args[0], (list, tuple)):
                return torch.tensor(args[0], dtype=dtype, device="cuda")
            return torch.empty(*args, dtype=dtype, device="cuda")

        return create

    real_load = torch.load

    def load(f: Any, map_location: Any = None, *args: Any, **kwargs: Any) -> Any:
        # Data is loaded onto the cpu; what the caller asked for becomes the tag.
        target = None
        if isinstance(map_location, (str, torch.device, int)):
            target = checker.resolve(map_location)
        loaded = real_load(f, *args, map_location="cpu", **kwargs)
        if target is not None and target.type == "cuda":
            _tag_all(loaded, target, checker)
        return loaded

    patch(cuda, "is_available", lambda: True)
    patch(cuda, "device_count", lambda: checker.gpus)
    patch(cuda, "is_initialized", lambda: True)
    patch(cuda, "current_device", lambda: checker.current_index)
    patch(cuda, "set_device", set_device)
    patch(cuda, "device", device_context)
    patch(cuda, "get_device_name", lambda device=None: _properties(index_of(device)).name)
    patch(cuda, "get_device_properties", lambda device=None: _properties(index_of(device)))
    patch(cuda, "get_device_capability", lambda device=None: (8, 0))
    patch(cuda, "synchronize", lambda device=None: checker.synchronized())
    patch(cuda, "Event", lambda *a, **k: SimulatedEvent(checker, *a, **k))
    patch(cuda, "Stream", lambda *a, **k: SimulatedStream(checker, *a, **k))
    patch(cuda, "current_stream", lambda device=None: SimulatedStream(checker))
    patch(cuda, "default_stream", lambda device=None: SimulatedStream(checker))
    patch(cuda, "stream", lambda s=None: contextlib.nullcontext(s))
    patch(cuda, "mem_get_info", lambda device=None: (16 * 1024**3, 16 * 1024**3))
    patch(cuda, "memory_summary", lambda *a, **k: "devlint simulated GPU: no memory statistics")
    for name in _ZERO_MEMORY:
        patch(cuda, name, lambda device=None: 0)
    for name in _NO_OPS:
        patch(cuda, name, lambda *a, **k: None)
    for kind in _TENSOR_TYPES:
        patch(cuda, f"{kind}Tensor", legacy_type(kind))
    patch(torch, "load", load)

    def set_default_device(device: Any) -> None:
        checker.default_device = checker.resolve(device) if device is not None else None
        if checker.default_device is not None and checker.default_device.type == "cpu":
            checker.default_device = None

    patch(torch, "set_default_device", set_default_device)
    patch(torch, "get_default_device", lambda: checker.default_device or CPU)

    def scatter(module: Any, inputs: Any, kwargs: Any, device_ids: Any) -> tuple:
        # One simulated GPU: DataParallel sends the whole batch to it (no torch._C._scatter on a cpu build).
        if len(device_ids) > 1:
            raise RuntimeError("devlint simulates DataParallel on one GPU only: use --gpus 1 "
                               "(replicas run in threads, out of the checker's sight)")
        target = torch.device("cuda", device_ids[0] if isinstance(device_ids[0], int) else device_ids[0].index)

        def move(value: Any) -> Any:
            if isinstance(value, torch.Tensor):
                return value.to(target)
            if isinstance(value, (list, tuple)):
                return type(value)(move(v) for v in value)
            if isinstance(value, dict):
                return {k: move(v) for k, v in value.items()}
            return value

        return (move(tuple(inputs)),), (move(dict(kwargs or {})),)

    patch(torch.nn.DataParallel, "scatter", scatter)

    def restore() -> None:
        checker.default_device = None
        for (owner, name), value in reversed(list(saved.items())):
            setattr(owner, name, value)

    return restore


def _tag_all(value: Any, device: torch.device, checker: DeviceChecker) -> None:
    if isinstance(value, torch.Tensor):
        checker.tag(value, device, None)
    elif isinstance(value, dict):
        for item in value.values():
            _tag_all(item, device, checker)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _tag_all(item, device, checker)


__all__ = ["install", "SimulatedEvent", "SimulatedStream", "CPU"]
