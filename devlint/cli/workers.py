"""Worker processes that one bad file cannot take down with the others.

The parent sends chunks of files, biggest first, so that the longest files start
early and small ones fill the gaps at the end; each worker answers file by file,
so the parent always knows which file a worker is on. A worker that dies (a
native crash in the parser, the kernel's OOM killer) costs only that file: it is
tried once more in a fresh worker, and reported if it kills that one too; the
rest of its chunk goes back in the queue. A worker stuck on one file longer than
`file_timeout` is stopped the same way.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Callable, Optional, Sequence

# Below this many bytes of work per chunk, a round trip to the worker costs more than the work.
_MIN_CHUNK_BYTES = 64 * 1024
_MAX_CHUNK_FILES = 64
_HANDLER_FAILED = 70  # a worker's exit status when its handler raised

Job = tuple  # (index, *arguments): what a worker's handler is called with, picklable
Handler = Callable[..., object]


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    connection: object
    chunk: list = field(default_factory=list)  # the jobs sent, not yet answered
    since: float = 0.0  # when the current job (chunk[0]) started


def chunks_biggest_first(jobs: Sequence[Job], sizes: Sequence[int], workers: int) -> list[list[Job]]:
    """Jobs in descending size, cut into chunks of about total / (16 * workers) bytes."""
    order = sorted(range(len(jobs)), key=lambda i: -sizes[i])
    target = max(_MIN_CHUNK_BYTES, sum(sizes) // (16 * max(workers, 1)))
    chunks: list[list[Job]] = []
    current: list[Job] = []
    weight = 0
    for i in order:
        current.append(jobs[i])
        weight += sizes[i]
        if weight >= target or len(current) >= _MAX_CHUNK_FILES:
            chunks.append(current)
            current, weight = [], 0
    if current:
        chunks.append(current)
    return chunks


def _serve(connection, setup: Callable[..., Handler], setup_args: tuple) -> None:
    """A worker: build the handler once, then answer each job of each chunk as it finishes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    handler = setup(*setup_args)
    gc.freeze()  # modules and rules live as long as the worker: collections need not scan them
    while True:
        try:
            chunk = connection.recv()
        except EOFError:
            return
        if chunk is None:
            return
        for index, *arguments in chunk:
            try:
                result = handler(*arguments)
            except BaseException:  # a bug, or memory exhausted: the parent reports this job; no traceback here
                os._exit(_HANDLER_FAILED)
            connection.send((index, result))


def run_jobs(chunks: list[list[Job]], workers: int, setup: Callable[..., Handler], setup_args: tuple,
             on_result: Callable[[int, object], None], on_lost: Callable[[int, str, bool], None],
             file_timeout: Optional[float] = None) -> None:
    """Run every job: `on_result(index, result)` for each, or `on_lost(index, why, timed_out)` for one that
    killed two workers or ran past `file_timeout` seconds."""
    pool = _Pool(chunks, setup, setup_args, on_lost)
    try:
        while pool.queue or pool.workers:
            pool.fill(workers)
            if not pool.workers:
                continue
            ready = wait([w.connection for w in pool.workers] + [w.process.sentinel for w in pool.workers],
                         timeout=_poll_interval(pool.workers, file_timeout))
            for worker in list(pool.workers):
                if worker.connection in ready or worker.process.sentinel in ready:
                    _drain(worker, on_result, pool.lose)
                elif file_timeout is not None and time.monotonic() - worker.since > file_timeout:
                    pool.lose(worker, f"its analysis took more than {file_timeout:g} s and was stopped", retry=False)
    finally:
        for worker in pool.workers:
            _stop(worker)


class _Pool:
    """The jobs still to run and the worker processes running them."""

    def __init__(self, chunks: list[list[Job]], setup: Callable[..., Handler], setup_args: tuple,
                 on_lost: Callable[[int, str, bool], None]) -> None:
        self.context = _context()
        self.queue: deque[list[Job]] = deque(chunks)
        self.suspects: dict[int, str] = {}  # job index -> why its first worker was lost
        self.workers: list[_Worker] = []
        self.setup, self.setup_args, self.on_lost = setup, setup_args, on_lost

    def fill(self, size: int) -> None:
        """Start workers up to `size` while jobs wait; give each idle worker a chunk, or stop it."""
        while len(self.workers) < size and self.queue:
            worker = self.start()
            self.workers.append(worker)
            self.feed(worker)
        for worker in [w for w in self.workers if not w.chunk]:
            if not self.feed(worker):
                self.workers.remove(worker)
                _stop(worker)

    def start(self) -> _Worker:
        parent_end, child_end = self.context.Pipe()
        process = self.context.Process(target=_serve, args=(child_end, self.setup, self.setup_args), daemon=True)
        process.start()
        child_end.close()
        return _Worker(process, parent_end)

    def feed(self, worker: _Worker) -> bool:
        if not self.queue:
            return False
        worker.chunk = list(self.queue.popleft())
        worker.since = time.monotonic()
        try:
            worker.connection.send(worker.chunk)
        except OSError:
            pass  # it died already: its sentinel says so, and the chunk goes back
        return True

    def lose(self, worker: _Worker, why: str, retry: bool = True) -> None:
        self.workers.remove(worker)
        _stop(worker)
        if not worker.chunk:
            return
        culprit, *rest = worker.chunk
        if rest:
            self.queue.appendleft(rest)
        if culprit[0] in self.suspects or not retry:
            self.on_lost(culprit[0], why, not retry)
        else:
            self.suspects[culprit[0]] = why
            self.queue.appendleft([culprit])  # alone, in a fresh worker: was it really this file?


def _context():
    """fork where it is safe (no other thread to leave a lock held in the child): workers start at once;
    else the platform's default (forkserver or spawn), which imports devlint anew in each worker."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else None)


def _drain(worker: _Worker, on_result, lose) -> None:
    """Take every answer the worker has sent; lose it if it died."""
    try:
        while worker.chunk and worker.connection.poll():
            index, result = worker.connection.recv()
            worker.chunk.pop(0)
            worker.since = time.monotonic()
            on_result(index, result)
    except (EOFError, OSError):
        pass
    if worker.chunk and not worker.process.is_alive():
        worker.process.join()
        lose(worker, _death(worker.process.exitcode))


def _poll_interval(busy: list[_Worker], file_timeout: Optional[float]) -> Optional[float]:
    if file_timeout is None:
        return None
    oldest = min(w.since for w in busy)
    return max(0.05, file_timeout - (time.monotonic() - oldest))


def _death(exitcode: Optional[int]) -> str:
    if exitcode == _HANDLER_FAILED:
        return "an internal error (or exhausted memory) stopped the process analysing it"
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"the process analysing it was killed by {name}"
    return f"the process analysing it exited with status {exitcode}"


def _stop(worker: _Worker) -> None:
    try:
        if worker.process.is_alive() and not worker.chunk:
            worker.connection.send(None)
            worker.process.join(timeout=2)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join(timeout=5)
    except (OSError, ValueError, BrokenPipeError):
        pass
    finally:
        try:
            worker.connection.close()
        except OSError:
            pass
