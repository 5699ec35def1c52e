"""Clocks and synchronisation: a wall-clock read that ends a measurement of GPU work must come
after the GPU has finished it (DEV301)."""

from __future__ import annotations

import libcst as cst

from devlint.core.facts import ClockRead
from devlint.core.torch_catalogue import views as api
from devlint.static.semantics.callsite import CallSite
from devlint.static.syntax import dotted
from devlint.core.values import Clock, Value


def clock_read(site: CallSite) -> Value:
    """`time.perf_counter()`: ends the measurement in progress (if it is one), starts the next."""
    timing = site.state.timing
    judged = False
    # Only a read that ends a measurement can lie: `time.time() - t0`, or one stored in a name
    # that is later subtracted from.
    if timing.clock is not None and _ends_measurement(site) and not timing.lap and not _in_whole_seconds(site) \
            and not _never_read(site):
        # (a lap timing, `dt = now - last` each iteration, averages out once the GPU queue is full)
        site.emit(ClockRead(site.node, site.path.replace("timeit.", ""), timing.clock, timing.work, timing.synced,
                            site.context, spans_training=timing.trained))
        judged = True
    if timing.clock is None or not _only_ends(site):
        timing.start((site.node, ""), site.file.loop_depth())
    elif judged:
        timing.work = None  # the work queued is this read's to report: `time() - t_epoch` next says it again
    return Clock()


def _only_ends(site: CallSite) -> bool:
    """`batch_time.update(time.time() - end)`: the read is subtracted from and kept nowhere, so the measurement that
    `end` started goes on (the classic loop then sets `end = time.time()`: a lap, each iteration)."""
    consumer = site.file.consumer(site.node)
    if type(consumer) is cst.BinaryOperation and type(consumer.operator) is cst.Add and consumer.right is site.node:
        outer = site.file.consumer(consumer)  # `total + time.time() - t0`: `(total + now) - t0` ends it too
        return type(outer) is cst.BinaryOperation and type(outer.operator) is cst.Subtract and outer.left is consumer
    return type(consumer) is cst.BinaryOperation and type(consumer.operator) is cst.Subtract \
        and consumer.left is site.node


def _ends_measurement(site: CallSite) -> bool:
    consumer = site.file.consumer(site.node)
    if type(consumer) is cst.BinaryOperation:
        return _only_ends(site)
    if type(consumer) is cst.Assign:
        names = {dotted(t.target) for t in consumer.targets}
        return bool(names & site.file.clock_ends())
    return False


def _never_read(site: CallSite) -> bool:
    """`dt = time.time() - t0` with `dt` read nowhere (its print commented out, nerf-pytorch): no number is
    wrong anywhere."""
    subtraction = site.file.consumer(site.node)
    assign = site.file.consumer(subtraction) if type(subtraction) is cst.BinaryOperation else None
    return type(assign) is cst.Assign and len(assign.targets) == 1 and type(assign.targets[0].target) is cst.Name \
        and site.file.never_read(assign.targets[0].target.value)


def _in_whole_seconds(site: CallSite) -> bool:
    """`timedelta(seconds=int(time.time() - start))`: the length of a run, logged to the second; the GPU work still
    queued at its end (milliseconds) changes nothing there (LAVIS's evaluation time)."""
    subtraction = site.file.consumer(site.node)
    return type(subtraction) is cst.BinaryOperation and site.file.coarse(subtraction)


FUNCTIONS = {path: clock_read for path in api.CLOCKS}
