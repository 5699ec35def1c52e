from __future__ import annotations

from typing import Iterable, Optional

import libcst as cst

from devlint.core.facts import ClockRead
from devlint.static.fixes import LINE_BEFORE, Fix, NodeEdit
from devlint.static.fixes.helpers import statement_of, torch_alias
from devlint.static.rules.base import Verdict, Rule


class UnsynchronizedTiming(Rule):
    """A wall-clock timing of GPU work reads the clock before the GPU has finished.

    ## What it does
    Flags a clock read (`time.time()`, `time.perf_counter()`,
    `time.monotonic()`, `timeit.default_timer()`) that ends a measurement
    started by an earlier read, when GPU work ran in between and nothing
    synchronized with the GPU before the read: no `torch.cuda.synchronize()`,
    no `event.synchronize()`, no implicit synchronization such as `.item()` or
    `.cpu()`.

    Calls into code devlint cannot see are GPU work when they are given GPU
    values, and they are not assumed to synchronize; functions of the same
    file are followed, so a helper that synchronizes counts, and a timing
    helper (a `tic()`/`toc()` pair, a `Timer` context manager, a
    `@contextmanager` generator) is a clock: its reads are checked where it is
    used, also when it lives in another module of the project (reported at
    its clock read when that module is checked too). A helper that synchronizes another backend only
    (`torch.mps.synchronize()`) does not wait for CUDA.

    An interval assigned to a name the file never reads (`dt = time.time() - t0`
    with its print commented out) is left alone: no number is wrong anywhere.
    Two measurements are left alone, because their error is noise: a lap
    timing (`now - last` read again at each iteration of a loop), whose
    queue is full and steady after the first laps, and a measurement that
    spans a whole training loop, which synchronizes many times on its way and
    whose last queued step is a negligible part of the total. A copy from the
    host (`x.to(device)` of a cpu tensor, without `non_blocking=True`) is no
    queued work: it returns once the data is there. Writing or reading a
    checkpoint (`torch.save`, a project's `save_checkpoint`/`load_model`
    helpers) copies tensors to or from the host after the queued work: it
    synchronizes.

    ## Why is this bad?
    CUDA kernels run asynchronously: the Python call returns as soon as the
    work is queued. The measurement is the time to launch the kernels, not to
    run them, and the figures (latency, FPS) are wrong, sometimes by orders
    of magnitude.

    ## Fix
    Unsafe (it changes what is measured, and adds a wait): `--fix
    --unsafe-fixes` inserts `torch.cuda.synchronize()`, guarded by
    `torch.cuda.is_available()`, before the statement that reads the clock.
    """

    code = "DEV301"
    name = "unsynchronized-timing"
    severity = "warning"
    facts = (ClockRead,)

    INVALID = (
        """\
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(256, 256, device=device)
start = time.perf_counter()
y = x @ x
elapsed = time.perf_counter() - start  # expect: DEV301
print(f"{elapsed:.3f} s")
""",
    )
    FIXED = (
        """\
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(256, 256, device=device)
start = time.perf_counter()
y = x @ x
if torch.cuda.is_available():
    torch.cuda.synchronize()
elapsed = time.perf_counter() - start
print(f"{elapsed:.3f} s")
""",
    )
    VALID = (
        """\
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(256, 256, device=device)
start = time.perf_counter()
y = x @ x
if device.type == "cuda":
    torch.cuda.synchronize()
elapsed = time.perf_counter() - start
print(f"{elapsed:.3f} s")
""",
    )

    def check(self, fact: ClockRead) -> Iterable[Verdict]:
        if fact.gpu_work is None or fact.synced or fact.spans_training:
            return
        yield Verdict(
            fact.node,
            f"`{fact.clock}()` is read while GPU work may still be queued: the measurement times the launch, "
            "not the work",
            why=(f"the measurement starts at {self.file.step(fact.started[0])}",
                 f"GPU work at {self.file.step(fact.gpu_work[0])}") + self.called_from(fact),
            fix="call `torch.cuda.synchronize()` before reading the clock (or time with CUDA events)",
            autofix=self.autofix(fact),
        )

    def autofix(self, fact: ClockRead) -> Optional[Fix]:
        torch = torch_alias(self.file.module)
        statement = statement_of(self.file, fact.node)
        if torch is None or type(statement) is not cst.SimpleStatementLine:
            return None  # a clock read in a loop or `if` header: before it is not before every read
        indent = self.file.module.default_indent
        sync = f"if {torch}.cuda.is_available():\n{indent}{torch}.cuda.synchronize()"
        return Fix.unsafe(NodeEdit(statement, sync, LINE_BEFORE))
