"""Runtime checking: torch's calls intercepted while the code runs.

    with devlint.runtime.check() as report:
        train()
    print(report.summary_table())

torch is imported only when a check starts, so `import devlint` works without it.
"""

from __future__ import annotations

import contextlib
from typing import Iterator, Optional

from devlint.runtime.errors import DeviceMismatchError, HostConversionError

__all__ = ["check", "DeviceMismatchError", "HostConversionError", "cuda_missing"]


def cuda_missing() -> bool:
    import torch

    return not torch.cuda.is_available()


@contextlib.contextmanager
def check(raise_on_error: bool = True, simulate_gpu: Optional[bool] = None, gpus: int = 1) -> Iterator:
    """Check every torch operation in the block; yields the `Report`.

    raise_on_error: raise at the first problem (DeviceMismatchError, or HostConversionError for a
    GPU tensor handed to numpy), or record each problem once per call site and keep going (possible
    only on a simulated GPU, where the data is really on the cpu). simulate_gpu: None simulates
    `gpus` GPUs where CUDA is missing.
    """
    from devlint.runtime.session import Session

    with Session(simulate_gpu, gpus, keep_going=not raise_on_error) as session:
        yield session.report
