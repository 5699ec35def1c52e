"""Parse and analyse on a thread whose stack is as deep as the code it reads.

libcst's native parser and devlint's analysis both recurse as deep as a file
nests. On the main thread (8 MB of stack, a recursion limit of 1,000) a valid
500-term `+` chain already fails; on one long-lived thread with a large stack
reservation (limits.DEEP_STACK_BYTES: address space, only the pages touched are
committed) and a matching recursion limit, everything the parser guard lets
through (limits.MAX_NESTING) fits.

The same thread gives the analysis a backstop in time: a job that has used more
than its deadline of the thread's own CPU time (wall time where the platform
cannot tell) gets AnalysisBudgetExceeded raised inside its `interruptible()`
section (CPython's PyThreadState_SetAsyncExc), so its findings so far are kept.
CPU time, so that a loaded machine does not turn a slow file into a partial one.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, TimeoutError as FutureTimeout
from typing import Callable, Optional, TypeVar

from devlint.core.limits import DEEP_RECURSION_LIMIT, DEEP_STACK_BYTES, AnalysisBudgetExceeded

T = TypeVar("T")

_set_async_exc = getattr(getattr(ctypes, "pythonapi", None), "PyThreadState_SetAsyncExc", None)


class DeepStack:
    """One worker thread with a deep stack; jobs run there one at a time."""

    def __init__(self, stack_bytes: int = DEEP_STACK_BYTES, recursion_limit: int = DEEP_RECURSION_LIMIT) -> None:
        self.stack_bytes = stack_bytes
        self.recursion_limit = recursion_limit
        self._executor: Optional[ThreadPoolExecutor] = None
        self._ident: Optional[int] = None
        self._lock = threading.Lock()
        self._interruptible = False
        self._start_lock = threading.Lock()
        self._cpu_clock: Optional[int] = None

    def run(self, job: Callable[..., T], *args, deadline: Optional[float] = None) -> T:
        """job(*args) on the deep thread; after `deadline` seconds its interruptible section is interrupted."""
        if threading.get_ident() == self._ident:
            return job(*args)  # already on the deep thread
        executor = self._ensure_started()
        if executor is None:
            return job(*args)  # no thread could be made (address space limits): the caller's stack it is
        future = executor.submit(self._call, job, args)
        if deadline is None:
            return future.result()
        started = self._clock()
        while True:
            try:
                return future.result(timeout=max(0.01, min(1.0, deadline - (self._clock() - started))))
            except FutureTimeout:
                if self._clock() - started >= deadline:
                    self._interrupt()
                    return future.result()

    def _clock(self) -> float:
        """The deep thread's CPU seconds, or wall seconds where they cannot be read."""
        if self._cpu_clock is not None:
            try:
                return time.clock_gettime(self._cpu_clock)
            except OSError:
                self._cpu_clock = None
        return time.monotonic()

    def interruptible(self, section: Callable[[], None]) -> None:
        """Run `section` where the deadline may interrupt it with AnalysisBudgetExceeded."""
        on_deep_thread = threading.get_ident() == self._ident
        if on_deep_thread:
            self._interruptible = True
        try:
            section()
        finally:
            if on_deep_thread:
                with self._lock:
                    self._interruptible = False
                    if _set_async_exc is not None:  # an interruption set but not yet raised stays here
                        _set_async_exc(ctypes.c_ulong(self._ident), None)

    def _call(self, job: Callable[..., T], args: tuple) -> T:
        previous = sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous, self.recursion_limit))
        try:
            return job(*args)
        finally:
            sys.setrecursionlimit(previous)

    def _interrupt(self) -> None:
        with self._lock:
            if self._interruptible and _set_async_exc is not None and self._ident is not None:
                self._interruptible = False  # once: the job now winds down with its partial findings
                _set_async_exc(ctypes.c_ulong(self._ident), ctypes.py_object(AnalysisBudgetExceeded))

    def _ensure_started(self) -> Optional[ThreadPoolExecutor]:
        if self._executor is not None:
            return self._executor
        with self._start_lock:
            if self._executor is None:
                previous = threading.stack_size()
                executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="devlint-deep")
                try:
                    threading.stack_size(self.stack_bytes)
                    self._ident = executor.submit(threading.get_ident).result()
                    if hasattr(time, "pthread_getcpuclockid"):
                        try:
                            self._cpu_clock = time.pthread_getcpuclockid(self._ident)
                        except OSError:
                            self._cpu_clock = None
                except (RuntimeError, ValueError, MemoryError):
                    executor.shutdown(wait=False)
                    return None
                finally:
                    threading.stack_size(previous)
                self._executor = executor
        return self._executor

    def stop(self) -> None:
        """End the thread (made again on the next run): a process about to fork workers keeps no thread."""
        with self._start_lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True)
            self._executor, self._ident, self._cpu_clock = None, None, None

    def _after_fork(self) -> None:
        # A forked child has no copy of the thread: it makes its own on first use.
        self._executor, self._ident, self._interruptible, self._cpu_clock = None, None, False, None
        self._lock, self._start_lock = threading.Lock(), threading.Lock()


DEEP_STACK = DeepStack()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=DEEP_STACK._after_fork)
