"""Runtime checking: torch's calls intercepted while the code runs.

    with devlint.runtime.check() as report:
        train()
    print(report.summary_table())

torch is imported only when a check starts, so `import devlint` works without it.
"""

from __future__ import annotations

import contextlib
from typing import Iterator, Optional

from devlint.runtime.report import DeviceMismatchError, Report

__all__ = ["check", "Report", "DeviceMismatchError", "cuda_missing"]


def cuda_missing() -> bool:
    import torch

    return not torch.cuda.is_available()


@contextlib.contextmanager
def check(raise_on_error: bool = True, simulate_gpu: Optional[bool] = None, gpus: int = 1) -> Iterator[Report]:
    """Check every torch operation in the block.

    raise_on_error: raise DeviceMismatchError at the first problem (the default), or record each
    problem once per call site and keep going (possible only on a simulated GPU, where the data is
    really on the cpu). simulate_gpu: None simulates `gpus` GPUs where CUDA is missing.
    """
    from devlint.runtime.checker import DeviceChecker
    from devlint.runtime.simulate import install

    simulate = cuda_missing() if simulate_gpu is None else simulate_gpu
    report = Report(simulated=simulate, gpus=gpus)
    checker = DeviceChecker(report, raise_on_error=raise_on_error, simulate=simulate, gpus=gpus)
    restore_cuda = install(checker) if simulate else (lambda: None)
    restore_clocks = checker.patch_clocks()
    restore_parameters = checker.patch_parameters()
    try:
        with checker:
            yield report
    finally:
        restore_parameters()
        restore_clocks()
        restore_cuda()
