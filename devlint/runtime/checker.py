"""The runtime checker: a TorchFunctionMode that sees every torch call from Python.

For each call it checks that the tensor arguments share a device (PyTorch's
exemptions apply: 0-dim cpu tensors, `copy_`, moves, indices on the cpu), and
it remembers where each tensor got its device (the first frame outside torch
and devlint), so that a mismatch names the line that put each operand there.

With `simulate=True` (a machine without CUDA) tensors stay on the cpu: a weak
table holds each tensor's *logical* device, factories given `device='cuda'`
and moves to cuda only change that tag, and `.device`, `.is_cuda`,
`.get_device()` and `.numpy()` answer as on a GPU machine. A tensor subclass
claiming cuda would be simpler, and it aborts the process inside autograd on a
CPU-only build, hence the table.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, Optional

import torch
from torch.overrides import TorchFunctionMode
from torch.utils.weak import WeakIdKeyDictionary

from devlint.runtime.report import DeviceMismatchError, Origin, Report, Site

CPU = torch.device("cpu")
_TORCH_DIR = os.path.dirname(torch.__file__)
_DEVLINT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_INTERNAL_DIRS = (_TORCH_DIR, _DEVLINT_DIR, os.path.dirname(os.__file__))

# Test runners and launchers that call the user's code: never "the user's line".
_HARNESS_PARTS = (f"{os.sep}_pytest{os.sep}", f"{os.sep}pluggy{os.sep}", f"{os.sep}click{os.sep}", "runpy")
_DESCRIPTORS = {name: torch._C.TensorBase.__dict__[name] for name in ("device", "is_cuda", "grad", "data")}

# Calls that may legitimately take tensors on several devices.
_CROSS_DEVICE = frozenset({
    "copy_", "to", "cuda", "cpu", "type_as", "set_", "__setitem__", "_has_compatible_shallow_copy_type",
    "__set__", "__get__", "index_put_", "_copy_from", "_to_copy", "new_tensor", "__reduce_ex__", "__deepcopy__",
    "_is_same_size", "is_set_to", "__array__", "numpy", "item", "tolist", "__repr__", "__format__", "__str__",
    "equal", "is_nonzero", "share_memory_", "pin_memory", "is_pinned", "record_stream", "__bool__",
    # packed sequences keep their lengths and batch sizes on the cpu by design
    "_pack_padded_sequence", "_pad_packed_sequence", "_parse_to",
})
_FACTORIES = frozenset(
    "zeros ones empty full rand randn randint randperm arange range linspace logspace eye tensor as_tensor "
    "empty_strided scalar_tensor tril_indices triu_indices normal".split()
)
_PACKED_RNNS = frozenset({"gru", "lstm", "rnn_tanh", "rnn_relu"})
# Their other outputs (batch sizes, lengths) stay on the cpu.
_FIRST_OUTPUT_ONLY = frozenset({"_pack_padded_sequence", "_pad_packed_sequence"})
_DEVLINT_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))
_MODULE_FUNCTIONS = frozenset({
    "linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "embedding", "embedding_bag", "batch_norm", "layer_norm", "group_norm", "instance_norm",
    "lstm", "gru", "rnn_tanh", "rnn_relu", "_convolution", "convolution", "prelu", "rms_norm",
})
_SYNCS = frozenset({"item", "tolist", "__bool__", "nonzero", "is_nonzero", "__int__", "__float__", "__index__"})
_CLOCKS = ("time", "perf_counter", "monotonic", "time_ns", "perf_counter_ns", "monotonic_ns")


def _name(func: Callable) -> str:
    return getattr(func, "__name__", None) or str(func)


def _is_internal(filename: str, cache: dict = {}) -> bool:  # noqa: B006 - a deliberate per-process cache
    known = cache.get(filename)
    if known is None:
        known = cache[filename] = filename.startswith(_INTERNAL_DIRS) or filename.startswith("<") or any(
            part in filename for part in _HARNESS_PARTS)
    return known


def user_site(depth: int = 1) -> Optional[Site]:
    """The first frame of the user's code above this one (torch's and devlint's own are skipped)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not _is_internal(filename):
            return Site(_display(filename), frame.f_lineno, frame.f_code.co_name)
        frame = frame.f_back
    return None


def user_stack(limit: int = 3) -> list:
    """The user's frames, innermost first: where a failing operation sits and who called it."""
    frame, sites = sys._getframe(1), []
    while frame is not None and len(sites) < limit:
        filename = frame.f_code.co_filename
        if not _is_internal(filename):
            sites.append(Site(_display(filename), frame.f_lineno, frame.f_code.co_name))
            if frame.f_code.co_name == "<module>":
                break  # the script's top level: nothing above it is the user's
        frame = frame.f_back
    return sites


def _where(sites: list) -> str:
    if not sites:
        return ""
    head = f"\n  at {sites[0]}" + (f" in {sites[0].function}()" if sites[0].function != "<module>" else "")
    return head + "".join(f", called from {s}" for s in sites[1:])


def _display(filename: str, cache: dict = {}) -> str:  # noqa: B006
    shown = cache.get(filename)
    if shown is None:
        try:
            relative = os.path.relpath(filename)
            shown = relative if not relative.startswith("..") else filename
        except ValueError:
            shown = filename
        cache[filename] = shown
    return shown


def _tensors(args: tuple, kwargs: dict) -> list:
    found = []
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, torch.Tensor))
    return found


def _outputs(result: Any) -> list:
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, (list, tuple)):
        return [r for r in result if isinstance(r, torch.Tensor)]
    return []


class DeviceChecker(TorchFunctionMode):
    def __init__(self, report: Report, raise_on_error: bool = True, simulate: bool = False, gpus: int = 1) -> None:
        super().__init__()
        self.report = report
        self.raise_on_error = raise_on_error
        self.simulate = simulate
        self.gpus = gpus
        self.current_index = 0  # what plain 'cuda' means (torch.cuda.set_device)
        self.logical: WeakIdKeyDictionary = WeakIdKeyDictionary()  # simulation: tensor -> torch.device
        self.origins: WeakIdKeyDictionary = WeakIdKeyDictionary()  # tensor -> Origin (where its device was decided)
        self.made: WeakIdKeyDictionary = WeakIdKeyDictionary()  # tensor -> (Site it was computed at, the one before)
        self.pending_work = False  # GPU work queued since the last synchronization
        self.default_device: Optional[torch.device] = None  # simulation: torch.set_default_device

    # ------------------------------------------------------------ devices

    def device_of(self, tensor: torch.Tensor) -> torch.device:
        if self.simulate:
            return self.logical.get(tensor, CPU)
        return tensor.device

    def resolve(self, device: Any) -> Optional[torch.device]:
        """A device argument as a concrete torch.device (plain 'cuda' is the current device)."""
        if device is None:
            return None
        if isinstance(device, int):
            device = torch.device("cuda", device)
        elif not isinstance(device, torch.device):
            device = torch.device(device)
        if device.type == "cuda" and device.index is None:
            device = torch.device("cuda", self.current_index)
        if self.simulate and device.type == "cuda" and device.index >= self.gpus:
            raise RuntimeError(f"CUDA error: invalid device ordinal (devlint simulates {self.gpus} GPU(s); "
                               f"use --gpus {device.index + 1})")
        return device

    def tag(self, tensor: torch.Tensor, device: torch.device, origin: Optional[Origin]) -> None:
        if self.simulate:
            if device.type == "cpu":
                self.logical.pop(tensor, None)
            else:
                self.logical[tensor] = device
        if origin is not None:
            self.origins[tensor] = origin

    def origin_of(self, tensor: torch.Tensor) -> str:
        origin = self.origins.get(tensor)
        if origin is None and getattr(tensor, "_base", None) is not None:
            origin = self.origins.get(tensor._base)
        made, before = self.made.get(tensor, (None, None))
        where = f"{made} (from {before})" if made is not None and before is not None else str(made)
        if origin is None:
            return f"{where} (its device was set outside the checked code)" if made else \
                "an unknown place (created outside the checked code)"
        if made is not None and made != origin.site:
            return f"{where}, on that device since {origin}"
        return str(origin)

    # ------------------------------------------------------------ the mode

    def __torch_function__(self, func, types, args=(), kwargs=None):
        __tracebackhide__ = True  # pytest shows the user's line, not ours
        kwargs = kwargs or {}
        owner = getattr(func, "__self__", None)
        if owner is not None and _name(func) in ("__get__", "__set__"):
            return self._descriptor(func, owner, args, kwargs)
        name = _name(func)
        tensors = _tensors(args, kwargs)

        if name in ("to", "cuda", "cpu") and tensors and args and isinstance(args[0], torch.Tensor):
            return self._move(func, name, args, kwargs)
        if name == "numpy" or name == "__array__":
            self._host_conversion(args[0])
        if name in _SYNCS and tensors:
            self._sync(name, tensors[0])
        if name == "get_device" and self.simulate and args:
            device = self.device_of(args[0])
            return device.index if device.type == "cuda" else -1
        if name in ("pin_memory", "is_pinned") and self.simulate:
            return args[0] if name == "pin_memory" else False

        if len(tensors) >= 2 and name not in _CROSS_DEVICE:
            self._check(name, tensors, args)
        if name == "_pack_padded_sequence" and len(args) > 1 and isinstance(args[1], torch.Tensor):
            self._check_cpu_lengths(args[1])

        if self.default_device is not None and not tensors and "device" not in kwargs and name in _FACTORIES:
            kwargs = dict(kwargs, device=self.default_device)  # the simulated torch.set_default_device
        target = None
        if "device" in kwargs and name != "_parse_to":  # _parse_to only reads arguments: Module.to(device=)
            target = self.resolve(kwargs["device"])
            if self.simulate and target is not None and target.type == "cuda":
                kwargs = dict(kwargs, device="cpu")
        result = func(*args, **kwargs)
        outputs = _outputs(result)
        if not outputs:
            return result
        if target is not None:  # a factory told where to go
            origin = Origin(user_site(), f"torch.{name}(device={target})")
            for out in outputs:
                self.tag(out, target, origin)
            self._note_work(target)
        elif tensors:
            self._propagate(tensors, outputs[:1] if name in _FIRST_OUTPUT_ONLY else outputs)
        else:
            origin = Origin(user_site(), f"torch.{name} without device=")
            for out in outputs:
                self.origins[out] = origin
        return result

    def _propagate(self, inputs: list, outputs: list) -> None:
        """Results live where their inputs do; they inherit the story of the input that decided it."""
        source = inputs[0]
        device = self.device_of(source)
        if device.type == "cpu":
            for t in inputs[1:]:
                other = self.device_of(t)
                if other.type != "cpu":
                    source, device = t, other
                    break
        origin = self.origins.get(source)
        # made where the user's code asked for it, remembering the line its input was made on
        site = (user_site(), None)
        earlier = self.made.get(source)
        if site is not None and earlier is not None:
            site = (site[0], earlier[0] if earlier[0] != site[0] else earlier[1])
        for out in outputs:
            if out is source:
                continue
            if self.simulate and device.type != "cpu":
                self.logical[out] = device
            if origin is not None and out not in self.origins:
                self.origins[out] = origin
            if site[0] is not None:
                self.made[out] = site
        self._note_work(device)

    def _note_work(self, device: torch.device) -> None:
        if device.type == "cuda":
            self.pending_work = True

    def _descriptor(self, func, owner, args, kwargs):
        tensor = args[0] if args else None
        if owner is _DESCRIPTORS["device"] and self.simulate:
            return self.device_of(tensor)
        if owner is _DESCRIPTORS["is_cuda"] and self.simulate:
            return self.device_of(tensor).type == "cuda"
        if owner is _DESCRIPTORS["grad"] and _name(func) == "__get__":
            grad = func(*args, **kwargs)
            if grad is not None and self.simulate and grad not in self.logical:
                device = self.device_of(tensor)  # autograd made it on the real (cpu) device
                if device.type != "cpu":
                    self.logical[grad] = device
            return grad
        if owner is _DESCRIPTORS["data"] and _name(func) == "__set__":
            result = func(*args, **kwargs)  # `param.data = moved`: Module.to moving a parameter
            value = args[1]
            if self.simulate:
                self.tag(tensor, self.device_of(value), self.origins.get(value))
            elif value in self.origins:
                self.origins[tensor] = self.origins[value]
            return result
        return func(*args, **kwargs)

    # ------------------------------------------------------------ moves

    def _move(self, func, name: str, args: tuple, kwargs: dict):
        __tracebackhide__ = True  # pytest shows the user's line, not ours
        tensor = args[0]
        source = self.device_of(tensor)
        if name == "cpu":
            target = CPU
        elif name == "cuda":
            index = args[1] if len(args) > 1 else kwargs.get("device")
            target = self.resolve(index if index is not None else "cuda")
        else:
            target = self._to_target(args, kwargs)
        site = user_site()
        if self.simulate and target is not None and target == source:
            # already there: only a dtype may change, and the data must not go near a real GPU
            dtype = torch._C._nn._parse_to(*args[1:], **kwargs)[1] if name == "to" else None
            if dtype is None or dtype == tensor.dtype:
                return tensor
            result = tensor.to(dtype=dtype)
            self._propagate([tensor], [result])
            if tensor in self.made:
                self.made[result] = self.made[tensor]
            return result
        if target is None or target == source:
            result = func(*args, **kwargs)
            if isinstance(result, torch.Tensor) and result is not tensor:
                self._propagate([tensor], [result])
                if tensor in self.made:  # a dtype conversion is not where the tensor was made
                    self.made[result] = self.made[tensor]
            return result
        if self.simulate:
            # The data stays on the cpu: only the tag moves. A copy, so the source keeps its device.
            dtype = torch._C._nn._parse_to(*args[1:], **kwargs)[1] if name == "to" else None
            result = tensor.to(dtype=dtype or tensor.dtype, copy=True)
        else:
            result = func(*args, **kwargs)
        how = {"cpu": ".cpu()", "cuda": ".cuda()"}.get(name, f".to({target})")
        self.tag(result, target, Origin(site, how))
        nbytes = tensor.numel() * tensor.element_size()
        self.report.add_transfer(site, f"{source}->{target}", nbytes)
        if target.type == "cuda":
            self.pending_work = True
        elif source.type == "cuda":
            self._sync(".cpu()", tensor, site)
        return result

    def _to_target(self, args: tuple, kwargs: dict) -> Optional[torch.device]:
        if "device" in kwargs:
            return self.resolve(kwargs["device"])
        for arg in args[1:]:
            if isinstance(arg, torch.Tensor):
                return self.device_of(arg)
            if isinstance(arg, (str, torch.device)) or (isinstance(arg, int) and not isinstance(arg, bool)):
                return self.resolve(arg)
        return None

    # ------------------------------------------------------------ checks

    def _check(self, name: str, tensors: list, args: tuple) -> None:
        __tracebackhide__ = True  # pytest shows the user's line, not ours
        if name == "__getitem__":
            # indexing: a cpu index is fine for any tensor; a GPU index is not fine for a cpu tensor
            base = self.device_of(tensors[0])
            for index in tensors[1:]:
                device = self.device_of(index)
                if device.type != "cpu" and device != base:
                    self._mismatch(name, [tensors[0], index])
                    return
            return
        first: Optional[torch.Tensor] = None
        first_device = None
        packed = name in _PACKED_RNNS
        for t in tensors:
            device = self.device_of(t)
            if device.type == "cpu" and t.dim() == 0:
                continue  # PyTorch lets 0-dim cpu tensors combine with any device
            if packed and device.type == "cpu" and t.dtype == torch.int64:
                continue  # a PackedSequence's batch_sizes live on the cpu
            if first is None:
                first, first_device = t, device
            elif device != first_device:
                self._mismatch(name, [first, t])
                return

    def _mismatch(self, name: str, pair: list) -> None:
        __tracebackhide__ = True  # pytest shows the user's line, not ours
        a, b = pair
        da, db = self.device_of(a), self.device_of(b)
        code = "DEV102" if name in _MODULE_FUNCTIONS and (
            isinstance(a, torch.nn.Parameter) or isinstance(b, torch.nn.Parameter)) else "DEV101"
        stack = user_stack()
        site = stack[0] if stack else None
        message = (
            f"Expected all tensors to be on the same device, but found at least two devices, {da} and {db}!\n"
            f"devlint: {name}: {da} tensor from {self.origin_of(a)} and {db} tensor from {self.origin_of(b)}"
            + _where(stack)
        )
        self.report.add_problem(code, site, message)
        if self.raise_on_error or not self.simulate:
            raise DeviceMismatchError(message, code)

    def _check_cpu_lengths(self, lengths: torch.Tensor) -> None:
        __tracebackhide__ = True  # pytest shows the user's line, not ours
        device = self.device_of(lengths)
        if device.type != "cpu":
            site = user_site()
            message = (f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D {device} "
                       f"{str(lengths.dtype).replace('torch.', '').capitalize()} tensor\n"
                       f"devlint: pack_padded_sequence: lengths from {self.origin_of(lengths)}")
            self.report.add_problem("DEV106", site, message)
            if self.raise_on_error or not self.simulate:
                raise DeviceMismatchError(message, "DEV106")

    def _host_conversion(self, tensor: torch.Tensor) -> None:
        __tracebackhide__ = True  # pytest shows the user's line, not ours
        device = self.device_of(tensor)
        if device.type == "cpu":
            return
        site = user_site()
        message = (f"can't convert {device} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                   f"host memory first.\ndevlint: the tensor comes from {self.origin_of(tensor)}")
        self.report.add_problem("DEV401", site, message)
        if self.raise_on_error or not self.simulate:
            raise TypeError(message)

    def _sync(self, what: str, tensor: torch.Tensor, site: Optional[Site] = None) -> None:
        if self.device_of(tensor).type != "cuda":
            return
        self.report.add_sync(site or user_site(), what)
        self.pending_work = False

    # ------------------------------------------------------------ clocks and synchronization

    def synchronized(self) -> None:
        self.pending_work = False

    def clock(self, name: str, real: Callable) -> Callable:
        def read(*args, **kwargs):
            if self.pending_work:
                self.report.add_lying_timer(user_site(), f"time.{name}")
            return real(*args, **kwargs)

        read.__name__ = name
        read.__wrapped__ = real
        return read

    def patch_parameters(self) -> Callable[[], None]:
        """nn.Parameter(...) makes a new tensor object outside the mode's sight: note where."""
        parameter = torch.nn.Parameter
        real_new = parameter.__dict__["__new__"]
        checker = self

        def new(cls, data=None, requires_grad=True):
            made = real_new(cls, data, requires_grad)
            if data is not None:
                checker.tag(made, checker.device_of(data), checker.origins.get(data)
                            or Origin(user_site(), "a module parameter, created on the cpu"))
            return made

        parameter.__new__ = staticmethod(new)

        def restore() -> None:
            parameter.__new__ = real_new

        return restore

    def patch_clocks(self) -> Callable[[], None]:
        saved = {name: getattr(time, name) for name in _CLOCKS}
        for name, real in saved.items():
            setattr(time, name, self.clock(name, real))

        def restore() -> None:
            for name, real in saved.items():
                setattr(time, name, real)

        return restore
