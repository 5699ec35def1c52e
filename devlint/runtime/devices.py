"""The device table: on which device each tensor lives, really or in a simulation.

`RealDevices` answers with what torch says. `SimulatedDevices` keeps every
tensor's data on the cpu and its *logical* device in the tensor's record: a
factory told `device='cuda'` runs on the cpu and is tagged cuda:0, a move only
changes the tag (on a copy, as a real move would), and `.device`, `.is_cuda`,
`.get_device()` answer from the tag. A tensor subclass claiming cuda would be
simpler, and it aborts the process inside autograd on a CPU-only build.

The checker asks the table and never tests which kind it has.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional

import torch

from devlint.core.torch_catalogue.records import CPU_TYPE, CUDA_TYPE, Simulated
from devlint.core.torch_catalogue.views import LEGACY_TYPE_TARGETS, SIMULATED_TENSOR_METHODS
from devlint.runtime.tracking import Records

CPU = torch.device(CPU_TYPE)
Tensor = torch.Tensor
# `device.type` builds a new string each time (a fifth of a microsecond); the checker asks it on every call
CUDA_DEVICES: dict = {}


def is_cuda(device: torch.device) -> bool:
    known = CUDA_DEVICES.get(device)
    if known is None:
        known = CUDA_DEVICES[device] = device.type == CUDA_TYPE
    return known


def why_simulate(gpus: int) -> Optional[str]:
    """Why a run that did not ask for a simulation gets one: no CUDA here, or fewer GPUs than `gpus`."""
    present = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if present == 0:
        return f"no CUDA here: simulating {gpus} GPU(s) on the cpu"
    if gpus > present:
        return f"{present} CUDA device(s) here, {gpus} asked: simulating {gpus} GPU(s) on the cpu"
    return None


class RealDevices:
    simulated = False

    def __init__(self, records: Records, gpus: int = 0) -> None:
        self.records = records
        self.gpus = gpus
        self.default_device: Optional[torch.device] = None  # torch keeps the real one
        self._accelerator: Optional[str] = None  # which kind this machine has, asked once

    def current_index(self) -> int:
        return torch.cuda.current_device() if torch.cuda.is_available() else 0

    def gpu_in_use(self) -> bool:
        """Whether a tensor may live off the cpu yet: until then, no two devices can differ."""
        if self._accelerator is None:
            accelerator = getattr(torch, "accelerator", None)  # torch 2.6 and later
            self._accelerator = CUDA_TYPE if torch.cuda.is_available() else \
                "other" if accelerator is not None and accelerator.is_available() else ""
        if self._accelerator == CUDA_TYPE:
            return torch.cuda.is_initialized()
        return self._accelerator == "other"  # mps, xpu...: no cheap question, so always

    def set_current_index(self, index: int) -> None:
        torch.cuda.set_device(index)

    def resolve(self, device: Any) -> Optional[torch.device]:
        """A device argument as a torch.device with its index (plain 'cuda' is the current GPU)."""
        if device is None:
            return None
        if isinstance(device, int) and not isinstance(device, bool):
            device = torch.device(CUDA_TYPE, device)
        elif not isinstance(device, torch.device):
            device = torch.device(device)
        if device.type == CUDA_TYPE and device.index is None:
            device = torch.device(CUDA_TYPE, self.current_index())
        return device

    def device_of(self, tensor: torch.Tensor) -> torch.device:
        """The tensor's device; the cpu is always the `CPU` object (the checker tests it by identity)."""
        return CPU if tensor.is_cpu else tensor.device

    def devices_of(self, tensors: list) -> list:
        return [CPU if t.is_cpu else t.device for t in tensors]

    def scan(self, args: tuple) -> tuple:
        """The tensors among positional arguments (and in lists of them) and their devices: one pass."""
        tensors, devices = [], []
        for value in args:
            if isinstance(value, Tensor):
                tensors.append(value)
                devices.append(CPU if value.is_cpu else value.device)
            elif isinstance(value, (list, tuple)):
                found = [v for v in value if isinstance(v, Tensor)]
                tensors.extend(found)
                devices.extend(self.devices_of(found))
        return tensors, devices

    def tag(self, tensor: torch.Tensor, device: torch.device) -> None:
        """Nothing to remember: a real tensor knows its device."""

    def factory_kwargs(self, kwargs: dict, target: torch.device) -> dict:
        return kwargs

    def same_device(self, func: Callable, tensor: torch.Tensor, args: tuple, kwargs: dict, dtype: Any,
                    memory_format: Any, copy: bool) -> Any:
        """A `.to()` that changes a dtype or a layout, or copies, on the tensor's own device."""
        return func(*args, **kwargs)

    def transfer(self, func: Callable, tensor: torch.Tensor, args: tuple, kwargs: dict, dtype: Any) -> Any:
        return func(*args, **kwargs)

    def attribute(self, name: str, tensor: torch.Tensor, real: Callable) -> Any:
        """`.device`, `.is_cuda`, `.is_cpu`, `.get_device()`, `.pin_memory()`...: what torch says."""
        return real()


class SimulatedDevices(RealDevices):
    simulated = True

    def __init__(self, records: Records, gpus: int = 1) -> None:
        super().__init__(records, gpus)
        self._thread = threading.local()  # as in CUDA, each thread has its own current device
        self._gpu_used = False  # set when the first tensor is tagged with a GPU

    def gpu_in_use(self) -> bool:
        return self._gpu_used

    def current_index(self) -> int:
        return getattr(self._thread, "index", 0)

    def set_current_index(self, index: int) -> None:
        self._thread.index = index

    def resolve(self, device: Any) -> Optional[torch.device]:
        device = super().resolve(device)
        if device is not None and device.type == CUDA_TYPE and device.index >= self.gpus:
            raise RuntimeError(f"CUDA error: invalid device ordinal (devlint simulates {self.gpus} GPU(s); "
                               f"use --gpus {device.index + 1})")
        return device

    def device_of(self, tensor: torch.Tensor) -> torch.device:
        record = self.records.table.get(id(tensor))
        if record is None or record.device is None:
            return CPU
        return record.device

    def devices_of(self, tensors: list) -> list:
        get = self.records.table.get
        return [CPU if (record := get(id(t))) is None or record.device is None else record.device for t in tensors]

    def scan(self, args: tuple) -> tuple:
        get = self.records.table.get
        tensors, devices = [], []
        for value in args:
            if isinstance(value, Tensor):
                tensors.append(value)
                devices.append(CPU if (record := get(id(value))) is None or (device := record.device) is None
                               else device)
            elif isinstance(value, (list, tuple)):
                found = [v for v in value if isinstance(v, Tensor)]
                tensors.extend(found)
                devices.extend(self.devices_of(found))
        return tensors, devices

    def tag(self, tensor: torch.Tensor, device: torch.device) -> None:
        if device is CPU or device.type == CPU_TYPE:
            record = self.records.get(tensor)
            if record is not None:
                record.device = None
        else:
            self.records.of(tensor).device = device
            self._gpu_used = True

    def factory_kwargs(self, kwargs: dict, target: torch.device) -> dict:
        return dict(kwargs, device=CPU_TYPE) if target.type != CPU_TYPE else kwargs

    def same_device(self, func: Callable, tensor: torch.Tensor, args: tuple, kwargs: dict, dtype: Any,
                    memory_format: Any, copy: bool) -> Any:
        # the data must not go near a real GPU: the same conversion, on the cpu
        return tensor.to(dtype=dtype or tensor.dtype, memory_format=memory_format or torch.preserve_format,
                         copy=bool(copy))

    def transfer(self, func: Callable, tensor: torch.Tensor, args: tuple, kwargs: dict, dtype: Any) -> Any:
        # The data stays on the cpu; a copy, so that the source keeps its device as after a real move.
        return tensor.to(dtype=dtype or tensor.dtype, copy=True)

    def attribute(self, name: str, tensor: torch.Tensor, real: Callable) -> Any:
        device = self.device_of(tensor)
        answer = SIMULATED_TENSOR_METHODS.get(name)
        if answer is Simulated.DEVICE:
            return device
        if answer is Simulated.IS_CUDA:
            return device is not CPU and is_cuda(device)
        if answer is Simulated.IS_CPU:
            return device is CPU or device.type == CPU_TYPE
        if answer is Simulated.DEVICE_INDEX:
            return device.index if device.type == CUDA_TYPE else -1
        if answer is Simulated.RECEIVER:
            return tensor  # e.g. pinned memory needs a real GPU; simulated, a no-op
        if answer is Simulated.FALSE:
            return False
        if answer is Simulated.NOTHING:
            return None
        return real()


def tensors_in(values: Any) -> list:
    """The tensors among `values`, and in lists and tuples of them (torch.cat's arguments)."""
    found = []
    for value in values:
        if isinstance(value, Tensor):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, Tensor))
    return found


def cuda_indices(args: tuple, kwargs: dict) -> tuple:
    """`to(0)` means the accelerator's device 0, which a cpu build cannot name: say cuda:0."""
    def device(value: Any) -> Any:
        return torch.device(CUDA_TYPE, value) if isinstance(value, int) and not isinstance(value, bool) else value

    return tuple(device(a) for a in args), ({**kwargs, "device": device(kwargs["device"])} if "device" in kwargs
                                             else kwargs)


def _parse_to(args: tuple, kwargs: dict) -> tuple:
    """(device, dtype, non_blocking, memory_format) of a `Tensor.to(...)` call; tensors count by dtype only."""
    rest = tuple(a.dtype if isinstance(a, torch.Tensor) else a for a in args[1:])
    rest, options = cuda_indices(rest, {k: v for k, v in kwargs.items() if k != "copy"})
    return torch._C._nn._parse_to(*rest, **options)


def to_target(devices: RealDevices, args: tuple, kwargs: dict) -> tuple:
    """(device, dtype, memory format) a `Tensor.to(...)` or `type_as(...)` call asks for."""
    if len(args) == 2 and not kwargs and args[1].__class__ is torch.dtype:
        return None, args[1], None  # `.to(torch.float64)`, the common case: no parsing
    for arg in args[1:]:
        if isinstance(arg, torch.Tensor):
            return devices.device_of(arg), arg.dtype, kwargs.get("memory_format")
    device, dtype, _, memory_format = _parse_to(args, kwargs)
    return devices.resolve(device), dtype, memory_format


def legacy_type_target(args: tuple) -> Optional[tuple[str, torch.dtype]]:
    """(device, dtype) that `x.type(torch.FloatTensor)` (or `torch.cuda.FloatTensor`, or their names as
    strings) asks for: a legacy type names its device too. None for a dtype, or for `x.type()`."""
    wanted = args[1] if len(args) > 1 else None
    if wanted is None or isinstance(wanted, torch.dtype):
        return None
    path = wanted if isinstance(wanted, str) else \
        f"{getattr(wanted, '__module__', '')}.{getattr(wanted, '__name__', '')}"
    found = LEGACY_TYPE_TARGETS.get(path)
    return (found[0], getattr(torch, found[1])) if found is not None else None
