"""The runtime checker: a TorchFunctionMode that sees every torch call made from Python.

For each call it checks that the tensor arguments share a device (PyTorch's
exemptions apply: 0-dim cpu tensors, `copy_`, moves, cpu indices), and it
keeps each tensor's story: where it was computed and where its device was
decided, so that a mismatch names the line that put each operand there. Which
device a tensor is on is the device table's answer (real or simulated); what
each torch function means is decided once per function, by its name.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, Iterator, Optional

import torch
from torch.overrides import TorchFunctionMode, _get_current_function_mode_stack

from devlint.core.torch_catalogue.records import CPU_TYPE, CUDA_TYPE
from devlint.core.torch_catalogue.views import (HOST_CONVERSION_METHODS, MOVES_LIKE, MOVES_TO_ARGUMENT, MOVES_TO_CPU,
                                                MOVES_TO_GPU, MOVE_METHODS, RUNTIME_ANSWERED, RUNTIME_CROSS_DEVICE,
                                                RUNTIME_DESCRIPTORS, RUNTIME_FACTORIES, RUNTIME_FIRST_OUTPUT_ONLY,
                                                RUNTIME_HOOKS, RUNTIME_MODULE_FUNCTIONS, RUNTIME_PACKED_RNNS,
                                                RUNTIME_QUERIES, RUNTIME_SYNCS, SIMULATED_TENSOR_METHODS)
from devlint.runtime.devices import CPU, CUDA_DEVICES as _CUDA_DEVICES, RealDevices, cuda_indices, is_cuda, \
    legacy_type_target, tensors_in, to_target
from devlint.runtime.errors import DeviceMismatchError, HostConversionError
from devlint.runtime.origins import (Origin, _library_files, _sites, describe_stack, site_of, story,
                                     story_sites, user_stack, user_where, where_of)
from devlint.runtime.report import Report
from devlint.runtime.tracking import Record

_CROSS_DEVICE = RUNTIME_CROSS_DEVICE
_MOVES = MOVE_METHODS | MOVES_LIKE
_TO_NUMPY = HOST_CONVERSION_METHODS
_FACTORIES = RUNTIME_FACTORIES
_PACKED_RNNS = RUNTIME_PACKED_RNNS
_MODULE_FUNCTIONS = RUNTIME_MODULE_FUNCTIONS
_SYNCS = RUNTIME_SYNCS
_FIRST_OUTPUT_ONLY = RUNTIME_FIRST_OUTPUT_ONLY  # the rest stay on the cpu
_ANSWERED = RUNTIME_ANSWERED
_HOOKS = RUNTIME_HOOKS
# Questions about one tensor that answer with a Python value on any device (or return the tensor itself):
# nothing to check, nothing made. Descriptors' `__get__` (dtype, shape...) count too, those in
# _DESCRIPTORS apart. A third of a numerical test suite's torch calls are these.
_QUERIES = RUNTIME_QUERIES
# Results that are no tensor, and hold none: nothing to record.
_PLAIN_RESULTS = frozenset({type(None), bool, int, float, complex, str, torch.Size, torch.dtype, torch.device})
_DESCRIPTORS = {torch._C.TensorBase.__dict__[name]: name for name in sorted(RUNTIME_DESCRIPTORS)}
# Attributes the device table answers (simulated: the tagged device).
_DEVICE_ATTRIBUTES = RUNTIME_DESCRIPTORS & frozenset(SIMULATED_TENSOR_METHODS)


Tensor = torch.Tensor
_getframe = sys._getframe
_NO_KWARGS: dict = {}  # shared, never written: handlers copy before changing keyword arguments


def _name(func: Callable) -> str:
    return getattr(func, "__name__", None) or str(func)


def _tensors(args: tuple, kwargs: dict) -> list:
    found = tensors_in(args)
    if kwargs:
        found.extend(tensors_in(kwargs.values()))
    return found


def _outputs(result: Any) -> Any:
    if isinstance(result, Tensor):
        return (result,)
    if isinstance(result, (list, tuple)):
        return [r for r in result if isinstance(r, Tensor)]
    return ()


class DeviceChecker(TorchFunctionMode):
    def __init__(self, report: Report, devices: RealDevices, keep_going: bool = False) -> None:
        super().__init__()
        self.report = report
        self.devices = devices
        self.records = devices.records
        self.simulated = devices.simulated
        self._scan = devices.scan
        self._table, self._unknown, self._forget = self.records.table, self.records.unknown, self.records.forget
        # Keeping going past a mismatch needs the data on one real device: a simulation.
        self.keep_going = keep_going and devices.simulated
        self.pending_work = False  # GPU work queued since the last synchronization
        # the user's clock reads: whether one was read before, and whether the GPU was waited for since
        self.clock_read = self.synced_since_clock = self.launched_since_clock = False
        self._handlers: dict = {}  # torch function -> (handler, name), decided on first sight

    # ------------------------------------------------------------ dispatch

    def __torch_function__(self, func, types, args=(), kwargs=None):
        __tracebackhide__ = True  # pytest shows the user's line, not ours
        entry = self._handlers.get(func)
        if entry is None:
            entry = self._handlers[func] = self._classify(func)
        handler, name = entry
        if handler is not None:
            return handler(func, name, args, kwargs or _NO_KWARGS)
        if kwargs:
            return self._compute(func, name, args, kwargs)
        # _compute without keyword arguments, inlined: most calls come this way
        tensors, devices = self._scan(args)
        if not tensors:
            return self._create(func, name, args, _NO_KWARGS, tensors)
        if len(devices) > 1 and devices.count(devices[0]) != len(devices) and name not in _CROSS_DEVICE:
            self._check(name, tensors, devices)
        result = func(*args)
        if result.__class__ not in _PLAIN_RESULTS:
            self._inherit(tensors, devices, result, name)
        return result

    def _classify(self, func: Callable) -> tuple:
        name = _name(func)
        owner = getattr(func, "__self__", None)
        if name in ("__get__", "__set__") and owner in _DESCRIPTORS:
            return (self._get if name == "__get__" else self._set), _DESCRIPTORS[owner]
        table = {**{name: self._move for name in _MOVES},
                 **{name: self._to_host for name in _TO_NUMPY},
                 "__array__": self._to_host, "set_": self._set_storage, "grad": self._autograd_grad,
                 "_parse_to": self._passthrough, "_pack_padded_sequence": self._pack, "type": self._type}
        if name in table and not (name == "grad" and func is not torch.autograd.grad):
            return table[name], name
        if name in _ANSWERED:
            return self._answer, name
        if name in _HOOKS:
            return self._register_hook, name
        if name in _SYNCS:
            return self._sync_then_compute, name
        if name == "copy_":
            return self._copy, name
        if name in _QUERIES:
            return self._query, name
        return None, name  # computing: `_compute`, inlined in the dispatch above

    def _query(self, func, name, args, kwargs):
        """A question about a tensor (its dtype, its size): answered as asked."""
        __tracebackhide__ = True
        result = func(*args, **kwargs)
        if isinstance(result, Tensor) and not (args and result is args[0]):  # a new tensor: as any computation
            tensors = _tensors(args, kwargs)
            if tensors:
                self._inherit(tensors, self.devices.devices_of(tensors), result, name)
        return result

    def _passthrough(self, func, name, args, kwargs):
        """`_parse_to`, Module.to's parser: only reads its arguments (an int is a GPU index)."""
        args, kwargs = cuda_indices(args, kwargs)
        return func(*args, **kwargs)

    # ------------------------------------------------------------ computing and creating

    def _compute(self, func, name, args, kwargs):
        """The common case, kept tight: it runs for nearly every torch call."""
        __tracebackhide__ = True
        tensors = _tensors(args, kwargs)
        if not tensors or "device" in kwargs:
            return self._create(func, name, args, kwargs, tensors)
        devices = self.devices.devices_of(tensors)
        if len(tensors) > 1 and name not in _CROSS_DEVICE:
            self._check(name, tensors, devices)
        result = func(*args, **kwargs)
        if result.__class__ not in _PLAIN_RESULTS:
            self._inherit(tensors, devices, result, name)
        return result

    def _create(self, func, name, args, kwargs, sources):
        """A call told where to put its result (device=), or a factory on the default device."""
        devices = self.devices
        target = None
        if "device" in kwargs:
            target = devices.resolve(kwargs["device"])
        elif devices.default_device is not None and name in _FACTORIES and not sources:
            target = devices.default_device  # the simulated torch.set_default_device
        if target is not None:
            kwargs = devices.factory_kwargs(kwargs, target)
        result = func(*args, **kwargs)
        outputs = _outputs(result)
        if outputs:
            origin = Origin(user_where(3), f"torch.{name}(device={target})" if target is not None
                            else f"torch.{name} without device=", default=target is None)
            for out in outputs:
                self.records.of(out).origin = origin
                if target is not None:
                    devices.tag(out, target)
            if target is not None and target.type == CUDA_TYPE:
                self.pending_work = self.launched_since_clock = True
        return result

    def _inherit(self, inputs: list, devices: list, result: Any, name: str) -> None:
        """Results live where their inputs do, and inherit the story of the input that decided it.

        Runs for nearly every torch call, so it is written for speed: one frame look-up (cached per
        call site), one record per new output, nothing else on the common path."""
        if isinstance(result, Tensor):
            outputs: Any = (result,)
        else:
            outputs = _outputs(result)
            if not outputs:
                return
            if name in _FIRST_OUTPUT_ONLY:
                outputs = outputs[:1]
        source, device = inputs[0], devices[0]
        if device is CPU and len(devices) > 1 and devices.count(CPU) != len(devices):
            for t, other in zip(inputs, devices):  # a GPU input decides
                if other is not CPU:
                    source, device = t, other
                    break
        table = self._table
        source_record = table.get(id(source))
        # computed from a gradient of unknown device (inside backward), and nothing better: unknown too
        unknown_ids = self._unknown
        unknown = bool(unknown_ids) and device is CPU and any(id(t) in unknown_ids for t in inputs)
        frame = _getframe(2)  # 0: here, 1: the dispatch or _compute, 2: the torch call's caller
        code = frame.f_code
        if _library_files[code.co_filename]:
            where = where_of(frame)  # called from torch or another library: the user's frame above
        else:  # origins._site, inlined
            where = _sites.get(id(code) ^ (frame.f_lasti << 48))
            if where is None or where[0] is not code:
                where = where_of(frame)
        if source_record is not None:
            earlier, origin = source_record.made, source_record.origin
            made = (where, None if earlier is None else (earlier[0] if earlier[0] != where else earlier[1]))
        else:
            made, origin = (where, None), None
        tag = device if device is not CPU and self.simulated else None
        for out in outputs:
            for t in inputs:
                if out is t:
                    break  # in place, or out=: it keeps its device
            else:
                key = id(out)
                record = table.get(key)
                if record is None:  # Records.new, inlined: this is the hottest line of the checker
                    record = table[key] = Record(out, self._forget)
                    record.key, record.device, record.origin, record.made = key, tag, origin, made
                else:
                    if tag is not None:
                        record.device = tag
                    if record.origin is None:
                        record.origin = origin
                    record.made = made
                if unknown:
                    unknown_ids.add(key)
        if device is not CPU and (_CUDA_DEVICES.get(device) or is_cuda(device)):
            self.pending_work = self.launched_since_clock = True

    def _copy(self, func, name, args, kwargs):
        """`dst.copy_(src)` may cross devices (a transfer); dst keeps its own."""
        result = func(*args, **kwargs)
        if len(args) > 1 and isinstance(args[1], torch.Tensor):
            source, target = self.devices.device_of(args[1]), self.devices.device_of(args[0])
            if source != target:
                self._count_transfer(args[1], source, target, user_where(3))
        return result

    # ------------------------------------------------------------ tensor attributes

    def _get(self, func, name, args, kwargs):
        tensor = args[0]
        if name in _DEVICE_ATTRIBUTES:
            return self.devices.attribute(name, tensor, lambda: func(*args, **kwargs))
        value = func(*args, **kwargs)
        if isinstance(value, torch.Tensor) and value is not tensor and self.records.get(value) is None:
            # `.data`, `.grad`, `.T`...: an alias made in C++, out of the mode's sight
            record = self.records.of(value)
            self.devices.tag(value, self.devices.device_of(tensor))
            source = self.records.get(tensor)
            if source is not None:
                record.origin, record.made = source.origin, source.made
        return value

    def _set(self, func, name, args, kwargs):
        __tracebackhide__ = True
        tensor, value = args[0], args[1] if len(args) > 1 else None
        if name == "grad" and isinstance(value, torch.Tensor):
            self._check("grad", [tensor, value])
        result = func(*args, **kwargs)
        if name == "data" and isinstance(value, torch.Tensor):  # `param.data = moved`: Module.to
            self.devices.tag(tensor, self.devices.device_of(value))
            source = self.records.get(value)
            if source is not None and source.origin is not None:
                self.records.of(tensor).origin = source.origin
        return result

    def _set_storage(self, func, name, args, kwargs):
        result = func(*args, **kwargs)
        if len(args) > 1 and isinstance(args[1], torch.Tensor):
            self.devices.tag(args[0], self.devices.device_of(args[1]))
        return result

    def _answer(self, func, name, args, kwargs):
        return self.devices.attribute(name, args[0], lambda: func(*args, **kwargs))

    # ------------------------------------------------------------ moves

    def _move(self, func, name, args, kwargs):
        __tracebackhide__ = True
        tensor = args[0]
        if not isinstance(tensor, torch.Tensor):
            return self._compute(func, name, args, kwargs)
        devices = self.devices
        source = devices.device_of(tensor)
        dtype = memory_format = None
        if name in MOVES_TO_CPU:
            target, memory_format = CPU, kwargs.get("memory_format")
        elif name in MOVES_TO_GPU:
            index = args[1] if len(args) > 1 else kwargs.get("device")
            target, memory_format = devices.resolve(index if index is not None else CUDA_TYPE), kwargs.get("memory_format")
        else:
            target, dtype, memory_format = to_target(devices, args, kwargs)
        if target is None or target == source:
            copy = kwargs.get("copy", False)
            if (dtype is None or dtype == tensor.dtype) and not copy and memory_format in (None, torch.preserve_format):
                return tensor  # as torch itself does: nothing to change
            result = devices.same_device(func, tensor, args, kwargs, dtype, memory_format, copy)
            if result is not tensor and isinstance(result, Tensor):
                self._inherit([tensor], [source], result, name)
                source_record = self.records.get(tensor)
                if source_record is not None and source_record.made is not None:
                    self.records.of(result).made = source_record.made  # a dtype change is not where it was made
            return result
        result = devices.transfer(func, tensor, args, kwargs, dtype)
        where = user_where(3)
        how = f".to({target})" if name in MOVES_TO_ARGUMENT else f".{name}()"
        self.records.of(result).origin = Origin(where, how)
        devices.tag(result, target)
        self._count_transfer(tensor, source, target, where)
        return result

    def _type(self, func, name, args, kwargs):
        """`x.type(torch.FloatTensor)`: a legacy type names a device as well as a dtype (a cpu one here)."""
        __tracebackhide__ = True
        tensor = args[0]
        target = legacy_type_target(args) if isinstance(tensor, torch.Tensor) and not kwargs else None
        if target is None:
            result = self._compute(func, name, args, kwargs)
            if isinstance(result, str) and not result.startswith("torch.cuda.") \
                    and self.devices.device_of(tensor).type == CUDA_TYPE:
                return result.replace("torch.", "torch.cuda.", 1)  # `x.type()` of a tensor on the simulated GPU
            return result
        return self._move(torch.Tensor.to, name, (tensor, *target), {})

    def _count_transfer(self, tensor: torch.Tensor, source: torch.device, target: torch.device,
                        where: Optional[tuple]) -> None:
        self.report.add_transfer(site_of(where), f"{source}->{target}", tensor.numel() * tensor.element_size())
        if target.type == CUDA_TYPE:
            self.pending_work = self.launched_since_clock = True
        elif source.type == CUDA_TYPE:
            self._synced(".cpu()", where)

    # ------------------------------------------------------------ checks

    def _check(self, name: str, tensors: list, devices: Optional[list] = None) -> None:
        __tracebackhide__ = True
        if devices is None:
            devices = self.devices.devices_of(tensors)
        first_device = devices[0]
        for d in devices:
            if d is not first_device and d != first_device:
                break
        else:
            return  # the common case: one device
        if name == "__getitem__":
            # a cpu index is fine for any tensor; a GPU index is not fine for a tensor elsewhere
            for index, device in zip(tensors[1:], devices[1:]):
                if device is not CPU and device != first_device and not self._from_autograd(tensors[0]):
                    self._mismatch(name, tensors[0], index)
            return
        first = first_device = None
        packed = name in _PACKED_RNNS
        for t, device in zip(tensors, devices):
            if device is CPU and (t.dim() == 0 or (packed and t.dtype == torch.int64)):
                continue  # 0-dim cpu tensors combine with any device; a PackedSequence's sizes stay on the cpu
            if first is None:
                first, first_device = t, device
            elif device != first_device and not (self._from_autograd(t) or self._from_autograd(first)):
                self._mismatch(name, first, t)
                return

    def _from_autograd(self, tensor: torch.Tensor) -> bool:
        """Made by the autograd engine (a gradient in a hook or a custom backward): its device is unknown."""
        if not self.devices.simulated:
            return False  # a real tensor's device is always known
        record = self.records.get(tensor)
        if record is not None:
            if record.key in self.records.unknown:
                return True
            if record.device is not None or record.origin is not None and record.origin.default:
                # tagged, or made on the default device: known even inside backward (an explicit cpu there
                # may be the `.device` of a gradient, whose own device is unknown)
                return False
        if torch._C._current_graph_task_id() != -1:  # inside backward: tensors made in C++ reach us untagged
            self.mark_autograd(tensor)
            return True
        return False

    def mark_autograd(self, tensor: torch.Tensor) -> None:
        self.records.mark_unknown(tensor)

    def _problem(self, code: str, message: str, tensors: list, error: type) -> None:
        __tracebackhide__ = True
        stack = user_stack(depth=3)
        sites = [*stack, *(s for t in tensors for s in story_sites(self.records.get(t)))]
        full = message + describe_stack(stack)
        self.report.add_problem(code, stack[0] if stack else None, full, sites)
        if not self.keep_going:
            raise error(full, code) if error is DeviceMismatchError else error(full)

    def _story(self, tensor: torch.Tensor) -> str:
        base = getattr(tensor, "_base", None)
        return story(self.records.get(tensor), self.records.get(base) if base is not None else None)

    def _mismatch(self, name: str, a: torch.Tensor, b: torch.Tensor) -> None:
        __tracebackhide__ = True
        da, db = self.devices.device_of(a), self.devices.device_of(b)
        parameter = isinstance(a, torch.nn.Parameter) or isinstance(b, torch.nn.Parameter)
        code = "DEV102" if name in _MODULE_FUNCTIONS and parameter else "DEV101"
        message = (f"Expected all tensors to be on the same device, but found at least two devices, {da} and {db}!\n"
                   f"devlint: {name}: {da} tensor from {self._story(a)} and {db} tensor from {self._story(b)}")
        self._problem(code, message, [a, b], DeviceMismatchError)

    def _pack(self, func, name, args, kwargs):
        __tracebackhide__ = True
        lengths = args[1] if len(args) > 1 else kwargs.get("lengths")
        if isinstance(lengths, torch.Tensor):
            device = self.devices.device_of(lengths)
            if device.type != CPU_TYPE:
                dtype = str(lengths.dtype).replace("torch.", "").capitalize()
                message = (f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D {device} "
                           f"{dtype} tensor\ndevlint: pack_padded_sequence: lengths from {self._story(lengths)}")
                self._problem("DEV106", message, [lengths], DeviceMismatchError)
        return self._compute(func, name, args, kwargs)

    def _to_host(self, func, name, args, kwargs):
        __tracebackhide__ = True
        tensor = args[0]
        device = self.devices.device_of(tensor)
        if device.type != CPU_TYPE and not kwargs.get("force", False):
            message = (f"can't convert {device} device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                       f"to host memory first.\ndevlint: the tensor comes from {self._story(tensor)}")
            self._problem("DEV401", message, [tensor], HostConversionError)
        return func(*args, **kwargs)

    # ------------------------------------------------------------ synchronization and autograd

    def _sync_then_compute(self, func, name, args, kwargs):
        __tracebackhide__ = True
        first = args[0] if args and isinstance(args[0], Tensor) else None
        if first is None:
            tensors = _tensors(args, kwargs)
            first = tensors[0] if tensors else None
        if first is not None and is_cuda(self.devices.device_of(first)):
            self._synced(name, user_where(3))
        return self._compute(func, name, args, kwargs)

    def _synced(self, what: str, where: Optional[tuple]) -> None:
        self.report.add_sync(site_of(where), what)
        self.synchronized()

    def synchronized(self) -> None:
        self.pending_work = False
        self.synced_since_clock = True

    def clock_lies(self) -> bool:
        """A clock read by the user that closes an interval in which GPU work was launched and never waited
        for, and is still queued: the interval measured launches, not work. (A loop that waits every step,
        `.item()`, measures its steps well enough; two reads in a row measure nothing.)"""
        lies = self.pending_work and self.clock_read and self.launched_since_clock and not self.synced_since_clock
        self.clock_read, self.synced_since_clock, self.launched_since_clock = True, False, False
        return lies

    def _autograd_grad(self, func, name, args, kwargs):
        """torch.autograd.grad: each gradient lives where its input does."""
        result = func(*args, **kwargs)
        inputs = kwargs.get("inputs", args[1] if len(args) > 1 else ())
        inputs = [inputs] if isinstance(inputs, torch.Tensor) else list(inputs)
        for grad, tensor in zip(result, inputs):
            if isinstance(grad, torch.Tensor) and isinstance(tensor, torch.Tensor):
                self.devices.tag(grad, self.devices.device_of(tensor))
        return result

    def _register_hook(self, func, name, args, kwargs):
        """A tensor's backward hook runs inside the autograd engine, where no mode is active: carry ours."""
        tensor, hook = args[0], args[1]
        device = self.devices.device_of(tensor)
        checker = self

        def checked_hook(value):
            if isinstance(value, torch.Tensor) and value is not tensor and checker.records.get(value) is None:
                checker.devices.tag(value, device)  # a tensor's gradient lives on its device
            with checker.active():
                return hook(value)

        return func(tensor, checked_hook, *args[2:], **kwargs)

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """The checker on this thread's mode stack (a new thread, the autograd engine), once."""
        if any(mode is self for mode in _get_current_function_mode_stack()):
            yield
            return
        with self:
            yield
