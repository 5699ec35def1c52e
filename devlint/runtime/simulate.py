"""A simulated GPU: what `torch.cuda`, `torch.accelerator` and friends answer on a machine with N GPUs.

This module builds the replacements; `patches.py` puts them in place (and
takes them away). Tensors keep their data on the cpu, tagged with their
logical device by the device table.
"""

from __future__ import annotations

import contextlib
import sys
import time
import types
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional

import torch

from devlint.core.torch_catalogue.records import Simulated as S
from devlint.core.torch_catalogue.views import (CPU_TYPE, CUDA_TYPE, SIMULATED_ACCELERATOR, SIMULATED_CUDA,
                                                TENSOR_TYPE_DTYPES, TENSOR_TYPE_NAMES)

if TYPE_CHECKING:
    from devlint.runtime.checker import DeviceChecker

_GiB = 1024**3
_real_perf_counter = time.perf_counter


def properties(index: int) -> types.SimpleNamespace:
    return types.SimpleNamespace(name=f"devlint simulated GPU {index}", total_memory=16 * _GiB, major=8, minor=0,
                                 multi_processor_count=108, is_integrated=False, is_multi_gpu_board=False,
                                 uuid=f"devlint-{index}", L2_cache_size=40 * 1024**2, warp_size=32)


class SimulatedGPU:
    """The simulated API, bound to one checker (its device table and its notion of queued work)."""

    def __init__(self, checker: "DeviceChecker") -> None:
        self.checker = checker
        self.devices = checker.devices
        self._saving: dict = {}  # storage address -> simulated device, while torch.save runs
        self.Event, self.Stream, self.device, self.device_of, self.device_index = _api_classes(self)

    # ------------------------------------------------------------ devices

    def index_of(self, device: Any = None) -> int:
        if device is None:
            return self.devices.current_index()
        if isinstance(device, self.device):
            return device.idx
        resolved = self.devices.resolve(device)
        return resolved.index if resolved is not None and resolved.type == CUDA_TYPE else self.devices.current_index()

    def set_device(self, device: Any) -> None:
        index = self.index_of(device)
        if index >= 0:
            self.devices.set_current_index(index)

    def synchronize(self, device: Any = None) -> None:
        self.checker.synchronized()

    def current_stream(self, device: Any = None) -> Any:
        return self.Stream(device)

    @contextlib.contextmanager
    def stream(self, stream: Any = None) -> Iterator[Any]:
        yield stream

    def set_default_device(self, device: Any) -> None:
        resolved = self.devices.resolve(device) if device is not None else None
        self.devices.default_device = resolved if resolved is not None and resolved.type != CPU_TYPE else None

    def get_default_device(self) -> torch.device:
        return self.devices.default_device or torch.device(CPU_TYPE)

    def legacy_type(self, kind: str) -> Callable:
        dtype = getattr(torch, TENSOR_TYPE_DTYPES[kind])

        def create(*args: Any) -> torch.Tensor:
            if len(args) == 1 and isinstance(args[0], (list, tuple)):
                return torch.tensor(args[0], dtype=dtype, device=CUDA_TYPE)
            return torch.empty(*args, dtype=dtype, device=CUDA_TYPE)

        create.__name__ = f"{kind}Tensor"
        create.__module__ = "torch.cuda"  # (what `x.type(torch.cuda.FloatTensor)` reads of it)
        return create

    # ------------------------------------------------------------ checkpoints

    def save(self, real_save: Callable) -> Callable:
        """A checkpoint written on the simulated GPU says where each tensor was, as a real GPU's would."""
        def save(obj: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
            self._saving = self._storage_devices()
            try:
                return real_save(obj, f, *args, **kwargs)
            finally:
                self._saving = {}

        return save

    def _storage_devices(self) -> dict:
        found = {}
        for record in list(self.devices.records.table.values()):
            tensor = record()
            if tensor is not None and record.device is not None:
                with contextlib.suppress(RuntimeError, NotImplementedError):
                    pointer = tensor.untyped_storage().data_ptr()
                    if pointer:
                        found[pointer] = record.device
        return found

    def location_tag(self, real_tag: Callable) -> Callable:
        def location_tag(storage: Any) -> str:
            location = real_tag(storage)
            device = self._saving.get(storage.data_ptr()) if location == CPU_TYPE and self._saving else None
            return str(device) if device is not None else location

        return location_tag

    def load(self, real_load: Callable) -> Callable:
        def load(f: Any, map_location: Any = None, *args: Any, **kwargs: Any) -> Any:
            """Data is loaded onto the cpu; each tensor is tagged with where it would land on a GPU machine."""
            if callable(map_location):
                return real_load(f, map_location, *args, **kwargs)  # the caller's own mapping
            locations: dict = {}

            def to_cpu(storage: Any, location: str) -> Any:
                locations[storage.data_ptr()] = location
                return storage

            loaded = real_load(f, *args, map_location=to_cpu, **kwargs)
            targets = {}
            for pointer, location in locations.items():
                target = self._mapped(location, map_location)
                if target is not None and target.type == CUDA_TYPE:
                    targets[pointer] = target
            if targets:
                self._tag_loaded(loaded, targets, set())
            return loaded

        return load

    def _mapped(self, location: str, map_location: Any) -> Any:
        if isinstance(map_location, dict):
            map_location = map_location.get(location, location)
        if map_location is None:
            map_location = location
        try:
            return self.devices.resolve(map_location)
        except (RuntimeError, ValueError):
            return None

    def _tag_loaded(self, value: Any, targets: dict, seen: set) -> None:
        """Tag each tensor in what torch.load returned (dicts, lists, modules, plain objects)."""
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, torch.Tensor):
            with contextlib.suppress(RuntimeError, NotImplementedError):
                target = targets.get(value.untyped_storage().data_ptr())
                if target is not None:
                    self.devices.tag(value, target)
            return
        if isinstance(value, torch.nn.Module):
            items = [t for m in value.modules() for t in (*m._parameters.values(), *m._buffers.values(),
                                                       *vars(m).values()) if isinstance(t, torch.Tensor)]
        elif isinstance(value, dict):
            items = list(value.values())
        elif isinstance(value, (list, tuple)):
            items = list(value)
        elif hasattr(value, "__dict__") and not isinstance(value, type):
            items = list(vars(value).values())
        else:
            return
        for item in items:
            self._tag_loaded(item, targets, seen)

    def answer(self, kind: S) -> Callable:
        """The catalogue's simulated answer `kind` as a callable on a machine with `gpus` GPUs: a fresh one
        each time (torch._dynamo refuses one function object under two names)."""
        gpus, index_of = self.devices.gpus, self.index_of
        return {
            S.TRUE: lambda *a, **k: True, S.GPU_COUNT: lambda: gpus, S.CURRENT_INDEX: self.devices.current_index,
            S.SET_INDEX: self.set_device, S.DEVICE_CONTEXT: self.device, S.DEVICE_OF: self.device_of,
            S.INDEX_CONTEXT: self.device_index,
            S.CURRENT_ACCELERATOR: lambda check_available=False: torch.device(CUDA_TYPE),
            S.DEVICE_NAME: lambda device=None: properties(index_of(device)).name,
            S.PROPERTIES: lambda device=None: properties(index_of(device)),
            S.CAPABILITY: lambda device=None: (8, 0),
            S.CAPABILITY_DICT: lambda device=None: {"major": 8, "minor": 0},
            S.SYNCHRONIZE: self.synchronize, S.EVENT: self.Event, S.STREAM: self.Stream,
            S.CURRENT_STREAM: self.current_stream, S.STREAM_CONTEXT: self.stream,
            S.MEMORY_INFO: lambda device=None: (16 * _GiB, 16 * _GiB),
            S.MEMORY_SUMMARY: lambda *a, **k: "devlint simulated GPU: no memory statistics",
            S.EMPTY_STATS: lambda *a, **k: {}, S.ZERO: lambda device=None: 0,
            S.RNG_STATE: lambda *a, **k: torch.get_rng_state(),
            S.RNG_STATES: lambda: [torch.get_rng_state() for _ in range(gpus)],
            S.NOTHING: lambda *a, **k: None,
        }[kind]

    def cuda_api(self) -> dict:
        """torch.cuda's answers on a machine with `gpus` GPUs."""
        api = {name: self.answer(kind) for name, kind in SIMULATED_CUDA.items()}
        api.update({f"{kind}Tensor": self.legacy_type(kind) for kind in TENSOR_TYPE_NAMES})
        return api

    def accelerator_api(self) -> dict:
        """torch.accelerator's answers: a CUDA accelerator with `gpus` devices."""
        return {name: self.answer(kind) for name, kind in SIMULATED_ACCELERATOR.items()}

    # ------------------------------------------------------------ the collectives DataParallel uses

    def _copy_to(self, tensor: torch.Tensor, device: Any) -> torch.Tensor:
        """A copy of `tensor` on simulated `device`, outside the checker (it may run inside backward)."""
        target = self.devices.resolve(device if not (isinstance(device, int) and device < 0) else CPU_TYPE)
        with torch._C.DisableTorchFunction():
            if self.devices.device_of(tensor) == target:
                return tensor
            copy = tensor.clone()
        self.devices.tag(copy, target)
        return copy

    def scatter(self, tensor: torch.Tensor, devices: Any = None, chunk_sizes: Any = None, dim: int = 0,
                streams: Any = None, out: Any = None) -> tuple:
        devices = [self.index_of(d) for d in devices]
        with torch._C.DisableTorchFunction():
            chunks = tensor.split(list(chunk_sizes), dim) if chunk_sizes else tensor.chunk(len(devices), dim)
        return tuple(self._copy_to(chunk.contiguous(), device) for chunk, device in zip(chunks, devices))

    def gather(self, tensors: Any, dim: int = 0, destination: Any = None, out: Any = None) -> torch.Tensor:
        moved = [self._copy_to(t, destination if destination is not None else CUDA_TYPE) for t in tensors]
        target = self.devices.device_of(moved[0])
        with torch._C.DisableTorchFunction():
            result = torch.cat(moved, dim)
        self.devices.tag(result, target)
        return result

    def broadcast_coalesced(self, tensors: Any, devices: Any, buffer_size: int = 0) -> list:
        return [[self._copy_to(t, self.index_of(d)) for t in tensors] for d in devices]

    def reduce_add(self, inputs: Any, destination: Any = None) -> torch.Tensor:
        target = destination if destination is not None else self.devices.current_index()
        moved = [self._copy_to(t, target) for t in inputs]
        with torch._C.DisableTorchFunction():
            result = moved[0].clone()
            for other in moved[1:]:
                result.add_(other)
        self.devices.tag(result, self.devices.device_of(moved[0]))
        return result

    def reduce_add_coalesced(self, inputs: Any, destination: Any = None, buffer_size: int = 0) -> list:
        return [self.reduce_add(list(column), destination) for column in zip(*inputs)]

    def scatter_forward(self, ctx: Any, target_gpus: Any, chunk_sizes: Any, dim: int, input: torch.Tensor) -> tuple:
        """DataParallel's Scatter.forward, without the copy streams (torch.device(i) needs a real GPU)."""
        ctx.dim = dim
        device = self.devices.device_of(input)
        ctx.input_device = device.index if device.type == CUDA_TYPE else -1
        return self.scatter(input, target_gpus, chunk_sizes, dim)

    def comm_api(self) -> dict:
        return {"scatter": self.scatter, "gather": self.gather, "broadcast_coalesced": self.broadcast_coalesced,
                "reduce_add": self.reduce_add, "reduce_add_coalesced": self.reduce_add_coalesced}


def _api_classes(gpu: SimulatedGPU) -> tuple:
    """torch.cuda's Event, Stream, device and device_of, and torch.accelerator.device_index, bound to `gpu`."""
    return (*_event_and_stream(gpu), *_device_contexts(gpu))


def _event_and_stream(gpu: SimulatedGPU) -> tuple:
    event = _event_class(gpu)
    return event, _stream_class(gpu, event)


def _event_class(gpu: SimulatedGPU) -> type:

    class Event:
        """torch.cuda.Event: records wall time; waiting on it synchronizes."""

        def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False,
                     **_: Any) -> None:
            self.enable_timing, self.when = enable_timing, None

        def record(self, stream: Any = None) -> None:
            self.when = _real_perf_counter()

        def synchronize(self) -> None:
            gpu.checker.synchronized()

        def wait(self, stream: Any = None) -> None:
            pass

        def query(self) -> bool:
            return True

        def elapsed_time(self, end: "Event") -> float:
            if self.when is None or end.when is None:
                raise RuntimeError("Both events must be recorded before calculating elapsed time.")
            return (end.when - self.when) * 1000.0

    return Event


def _stream_class(gpu: SimulatedGPU, Event: type) -> type:  # noqa: N803 - the class the stream records with

    class Stream:
        """torch.cuda.Stream / torch.Stream: one queue, always done."""

        def __init__(self, device: Any = None, priority: int = 0, **_: Any) -> None:
            resolved = gpu.devices.resolve(device if device is not None else CUDA_TYPE)
            self.device = resolved if resolved is not None and resolved.type == CUDA_TYPE else \
                torch.device(CUDA_TYPE, gpu.devices.current_index())
            self.device_index, self.device_type = self.device.index, CUDA_TYPE
            self.priority = priority

        def synchronize(self) -> None:
            gpu.checker.synchronized()

        def wait_stream(self, other: Any) -> None:
            pass

        def wait_event(self, event: Any) -> None:
            pass

        def record_event(self, event: Any = None) -> Any:
            event = event or Event()
            event.record()
            return event

        def query(self) -> bool:
            return True

        def is_capturing(self) -> bool:
            return False  # no CUDA graph is ever being captured

        cuda_stream = 0

        def __enter__(self) -> "Stream":
            return self

        def __exit__(self, *exc: Any) -> None:
            pass

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Stream) and other.device == self.device

        def __hash__(self) -> int:
            return hash(self.device)

    return Stream


def _device_contexts(gpu: SimulatedGPU) -> tuple:
    class device:
        """`with torch.cuda.device(i):` (a class: torch tests `isinstance(x, torch.cuda.device)`)."""

        def __init__(self, device: Any) -> None:
            self.idx = gpu.index_of(device) if device is not None and device != -1 else -1
            self.prev_idx = -1

        def __enter__(self) -> None:
            self.prev_idx = gpu.devices.current_index()
            if self.idx >= 0:
                gpu.devices.set_current_index(self.idx)

        def __exit__(self, *exc: Any) -> None:
            gpu.devices.set_current_index(self.prev_idx)

    class device_of(device):
        def __init__(self, obj: torch.Tensor) -> None:
            super().__init__(obj.get_device() if obj.is_cuda else -1)

    class device_index(device):
        """torch.accelerator.device_index."""

        def __init__(self, index: Optional[int], /) -> None:
            super().__init__(index if index is not None else -1)

    return device, device_of, device_index


def gloo_instead_of_nccl(backend: Any) -> Any:
    """nccl needs GPUs: on a simulated one, collectives run over gloo (the data is on the cpu)."""
    if isinstance(backend, str) and "nccl" in backend:
        if ":" in backend:  # "cpu:gloo,cuda:nccl"
            return "gloo"
        return backend.replace("nccl", "gloo")
    return backend


def say(message: str) -> None:
    print(f"devlint: {message}", file=sys.stderr, flush=True)
