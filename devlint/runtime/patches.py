"""Everything the checker replaces in torch and the standard library, in one place.

Each replacement is pushed on an ExitStack, which puts the original back when
the check ends, in reverse order, whatever happened in between.
"""

from __future__ import annotations

import contextlib
import importlib
import tempfile
import threading
import warnings
from typing import TYPE_CHECKING, Any, Callable

import torch

from devlint.runtime.distributed import rank_config, rank_label, read_rank_reports
from devlint.runtime.errors import DeviceMismatchError
from devlint.runtime.origins import called_from_user, site_of, user_where
from devlint.runtime.report import Report
from devlint.runtime.simulate import SimulatedGPU, gloo_instead_of_nccl, say
from devlint.core.torch_catalogue.views import CLOCKS

if TYPE_CHECKING:
    from devlint.runtime.checker import DeviceChecker

_MISSING = object()


class Patcher:
    def __init__(self, stack: contextlib.ExitStack) -> None:
        self.stack = stack

    def set(self, owner: Any, name: str, value: Any) -> None:
        """Replace `owner.name` until the check ends (a class keeps its own entry, or none, afterwards)."""
        if isinstance(owner, type):
            old = owner.__dict__.get(name, _MISSING)
        else:
            old = getattr(owner, name, _MISSING)
        setattr(owner, name, value)

        def restore() -> None:
            if old is _MISSING:
                with contextlib.suppress(AttributeError):
                    delattr(owner, name)
            else:
                setattr(owner, name, old)

        self.stack.callback(restore)

    def wrap(self, owner: Any, name: str, make: Callable[[Callable], Callable]) -> None:
        """Replace `owner.name` by `make(original)`."""
        original = getattr(owner, name, None)
        if original is not None:
            self.set(owner, name, make(original))


def install(checker: "DeviceChecker", stack: contextlib.ExitStack, rank_entry: Callable) -> None:
    """rank_entry(fn, config): what a spawned child runs instead of `fn` (a picklable callable)."""
    patcher = Patcher(stack)
    _clocks(checker, patcher)
    _parameters(checker, patcher)
    _threads(checker, patcher)
    _warnings(patcher)
    _compile(checker, patcher)
    _autograd(checker, patcher)
    _synchronizations(checker, patcher)
    _spawn(checker, patcher, rank_entry)
    if checker.devices.simulated:
        _simulated_gpu(checker, patcher)


def _clocks(checker: "DeviceChecker", patcher: Patcher) -> None:
    """A wall clock read by the user's code while GPU work is queued measures launches, not work."""
    for dotted in sorted(CLOCKS):
        module_name, name = dotted.rsplit(".", 1)

        def make(real: Callable, clock: str = dotted) -> Callable:
            def read(*args: Any, **kwargs: Any) -> Any:
                if called_from_user() and checker.clock_lies():
                    checker.report.add_lying_timer(site_of(user_where()), clock)
                return real(*args, **kwargs)

            # named as the clock is, module included: code that finds a function by its module and name
            # (pickle, a test runner's plugins) finds this one where the clock was
            read.__name__, read.__qualname__, read.__module__ = real.__name__, real.__qualname__, real.__module__
            read.__wrapped__ = real
            return read

        patcher.wrap(importlib.import_module(module_name), name, make)


def _parameters(checker: "DeviceChecker", patcher: Patcher) -> None:
    """nn.Parameter(...) makes a new tensor object in C++, out of the mode's sight: it keeps its data's device."""
    from devlint.runtime.origins import Origin

    parameter = torch.nn.Parameter
    real_new = parameter.__dict__["__new__"]
    records, devices = checker.records, checker.devices

    def new(cls, data=None, requires_grad=True):
        made = real_new(cls, data, requires_grad)
        if data is not None:
            devices.tag(made, devices.device_of(data))
            source = records.get(data)
            origin = source.origin if source is not None else None
            records.of(made).origin = origin or Origin(user_where(), "a module parameter, created on the cpu")
        return made

    patcher.set(parameter, "__new__", staticmethod(new))


def _threads(checker: "DeviceChecker", patcher: Patcher) -> None:
    """The mode stack is per thread: threads started while checking (DataParallel's replicas) carry it."""
    real_start = threading.Thread.start

    def start(thread: threading.Thread) -> None:
        run = thread.run

        def checked_run() -> None:
            with checker.active():
                run()

        thread.run = checked_run
        real_start(thread)

    patcher.set(threading.Thread, "start", start)


def _warnings(patcher: Patcher) -> None:
    """A warning torch raises from inside the checker is the user's line's warning."""
    import os

    ours = os.path.dirname(os.path.abspath(__file__))
    overrides = os.path.abspath(torch.overrides.__file__)

    def make(real: Callable) -> Callable:
        def show(message: Any) -> Any:
            filename = os.path.abspath(message.filename or "")
            if filename.startswith(ours) or filename == overrides:
                where = user_where()
                if where is not None:
                    message.filename, message.lineno = where[0].co_filename, where[1]
                    message.line = None
            return real(message)

        return show

    patcher.wrap(warnings, "_showwarnmsg", make)


def _compile(checker: "DeviceChecker", patcher: Patcher) -> None:
    """Compiled graphs would run out of the checker's sight: under the checker, torch.compile runs eagerly."""
    real_compile = torch.compile

    def compile(model: Any = None, **options: Any) -> Any:
        if model is None:
            return lambda function: compile(function, **options)
        where = site_of(user_where())
        notice = f"torch.compile at {where} runs eagerly under the checker"
        if notice not in checker.report.notices:
            checker.report.note(notice)
            say(notice)
        if isinstance(model, torch.nn.Module):
            with torch._C.DisableTorchFunction():
                from torch._dynamo.eval_frame import DisableContext, OptimizedModule
            return OptimizedModule(model, DisableContext())  # keeps `_orig_mod`, as a compiled module would
        return model

    compile.__wrapped__ = real_compile
    patcher.set(torch, "compile", compile)


def _autograd(checker: "DeviceChecker", patcher: Patcher) -> None:
    """Backward hooks and custom backward functions run in the autograd engine, where no mode is active.

    They run under the checker once a tensor may live on a GPU. Before that every tensor is on the cpu,
    and a backward pass (an adjoint ODE solve, gradcheck's many passes) would pay the checker on every
    call for nothing: in a numerical test suite most torch calls are made there."""
    records, devices = checker.records, checker.devices

    def run_checked(function: Callable, args: tuple, device: Any) -> Any:
        if not devices.gpu_in_use():
            try:
                return function(*args)
            except Exception as error:
                if not (devices.simulated and _asks_for_a_gpu(error)):
                    raise
                # it asked for the simulated GPU first, which only the checker can give: again, checked
        for value in args:
            for t in value if isinstance(value, (tuple, list)) else (value,):
                if isinstance(t, torch.Tensor):
                    record = records.get(t)
                    if record is None or (records.is_unknown(t) and record.device is None):
                        if device is not None:
                            devices.tag(t, device)  # a gradient lives where its module does
                            records.unknown.discard(id(t))
                        else:
                            checker.mark_autograd(t)  # made in C++: where, we do not know
        with checker.active():
            return function(*args)

    def module_device(module: torch.nn.Module) -> Any:
        for tensor in (*module.parameters(recurse=False), *module.buffers(recurse=False)):
            return devices.device_of(tensor)
        return None

    for name in ("register_full_backward_hook", "register_full_backward_pre_hook", "register_backward_hook"):
        def make(real: Callable) -> Callable:
            def register(module: torch.nn.Module, hook: Callable, *args: Any, **kwargs: Any) -> Any:
                def checked(*hook_args: Any) -> Any:
                    return run_checked(hook, hook_args, module_device(module))

                return real(module, checked, *args, **kwargs)

            return register

        patcher.wrap(torch.nn.Module, name, make)

    from torch.autograd.function import BackwardCFunction

    real_apply = BackwardCFunction.__dict__["apply"]

    def apply(ctx: Any, *args: Any) -> Any:
        return run_checked(lambda *grads: real_apply(ctx, *grads), args, None)

    patcher.set(BackwardCFunction, "apply", apply)


def _asks_for_a_gpu(error: Exception) -> bool:
    """torch's refusals on a build or machine without CUDA: 'Torch not compiled with CUDA enabled',
    "Could not run 'aten::empty' with arguments from the 'CUDA' backend"..."""
    text = str(error)
    return "CUDA" in text or "cuda" in text or "accelerator" in text


def _synchronizations(checker: "DeviceChecker", patcher: Patcher) -> None:
    """On a real GPU, waiting for it empties the queue the lying-timer check watches."""
    if checker.devices.simulated:
        return

    def make(real: Callable) -> Callable:
        def synchronize(*args: Any, **kwargs: Any) -> Any:
            result = real(*args, **kwargs)
            checker.synchronized()
            return result

        return synchronize

    for owner in (torch.cuda, torch.accelerator, torch.cuda.Event, torch.cuda.Stream):
        patcher.wrap(owner, "synchronize", make)


def _spawn(checker: "DeviceChecker", patcher: Patcher, rank_entry: Callable) -> None:
    """torch.multiprocessing.spawn's children each run under a checker of their own (`rank_entry`)."""
    import torch.multiprocessing as mp
    spawn_module = importlib.import_module("torch.multiprocessing.spawn")

    real_start = spawn_module.start_processes

    def start_processes(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
                        start_method: str = "spawn") -> Any:
        if not join:  # the caller joins later, out of our sight: its children run unchecked
            return real_start(fn, args, nprocs, join, daemon, start_method)

        with tempfile.TemporaryDirectory(prefix="devlint-ranks-") as folder:
            config = rank_config(checker.devices.simulated, checker.devices.gpus, checker.keep_going, folder)
            ranks = Report()
            try:
                try:
                    return real_start(rank_entry(fn, config), args, nprocs, join, daemon, start_method)
                finally:
                    checker.report.merge(read_rank_reports(folder, ranks))
            except spawn_module.ProcessException:
                if ranks.problems:  # a rank died of a device problem: that is the story, not its traceback
                    problem = ranks.problems[0]
                    raise DeviceMismatchError(f"{rank_label(problem.ranks)}{problem.message}", problem.code) from None
                raise

    patcher.set(spawn_module, "start_processes", start_processes)
    patcher.set(mp, "start_processes", start_processes)


def _simulated_gpu(checker: "DeviceChecker", patcher: Patcher) -> None:
    gpu = SimulatedGPU(checker)
    for name, value in gpu.cuda_api().items():
        patcher.set(torch.cuda, name, value)
    for name, value in gpu.accelerator_api().items():
        patcher.set(torch.accelerator, name, value)
    from torch.nn.parallel import comm

    for name, value in gpu.comm_api().items():
        patcher.set(comm, name, value)
    from torch.nn.parallel._functions import Scatter

    patcher.set(Scatter, "forward", staticmethod(gpu.scatter_forward))
    patcher.set(torch, "Stream", gpu.Stream)
    patcher.set(torch, "Event", gpu.Event)
    patcher.set(torch, "load", gpu.load(torch.load))
    patcher.set(torch, "save", gpu.save(torch.save))
    patcher.set(torch.serialization, "location_tag", gpu.location_tag(torch.serialization.location_tag))
    patcher.set(torch, "set_default_device", gpu.set_default_device)
    patcher.set(torch, "get_default_device", gpu.get_default_device)
    # torch's RNNs ask cuDNN about cuda tensors; a cpu build has none (and says so in a warning)
    patcher.set(torch.backends.cudnn, "is_acceptable", lambda tensor: False)

    def reset_default() -> None:
        checker.devices.default_device = None

    patcher.stack.callback(reset_default)
    if torch.distributed.is_available():
        _gloo_for_nccl(patcher)


def _gloo_for_nccl(patcher: Patcher) -> None:
    import torch.distributed as dist

    def make(real: Callable) -> Callable:
        def with_backend(*args: Any, **kwargs: Any) -> Any:
            if "backend" in kwargs:
                kwargs["backend"] = gloo_instead_of_nccl(kwargs["backend"])
            elif args:
                args = (gloo_instead_of_nccl(args[0]), *args[1:])
            return real(*args, **kwargs)

        return with_backend

    patcher.wrap(dist, "init_process_group", make)
    # a script imported `init_process_group` before the check started (a spawned child): its groups still
    # come through here
    c10d = dist.distributed_c10d
    real_helper = c10d._new_process_group_helper

    def new_process_group_helper(group_size, group_rank, global_ranks, backend, *args, **kwargs):
        return real_helper(group_size, group_rank, global_ranks, c10d.Backend(gloo_instead_of_nccl(str(backend))),
                           *args, **kwargs)

    patcher.set(c10d, "_new_process_group_helper", new_process_group_helper)

    def make_group(real: Callable) -> Callable:
        def new_group(*args: Any, **kwargs: Any) -> Any:
            if "backend" in kwargs:
                kwargs["backend"] = gloo_instead_of_nccl(kwargs["backend"])
            return real(*args, **kwargs)

        return new_group

    patcher.wrap(dist, "new_group", make_group)
    patcher.set(dist, "is_nccl_available", lambda: True)

