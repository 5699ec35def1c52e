"""Does a file mean to run without a GPU? Shared by the GPU-assumption rules (DEV201-DEV204).

A file that never shows it (no device choice, no availability check that branches, no device
option), whose only sign is a device variable never chosen at run time beside a call that needs a GPU,
or whose GPU uses are mostly hardcoded (at least three, more than its portable ones), is GPU-only by
design: it gets one DEV204, not a warning per line.
"""

from __future__ import annotations

from typing import Optional

from devlint.core.facts import FileIntent, GpuAssumption

GPU_CENTRIC_FROM = 3  # hardcoded GPU uses from which a file that outnumbers its portable ones is GPU-first


class GpuIntent:
    def __init__(self) -> None:
        self.intent: Optional[FileIntent] = None
        self.assumptions: list[GpuAssumption] = []

    def observe(self, fact: object) -> None:
        if isinstance(fact, FileIntent):
            self.intent = fact
        elif isinstance(fact, GpuAssumption):
            self.assumptions.append(fact)

    def unguarded(self) -> list[GpuAssumption]:
        return [a for a in self.assumptions if not a.guarded]

    def reportable(self, kind: str) -> list[GpuAssumption]:
        """The unguarded assumptions of one kind to report line by line: none in a GPU-only file (DEV204)."""
        return [] if self.gpu_only() else [a for a in self.unguarded() if a.kind == kind]

    def gpu_only(self) -> bool:
        if not self.assumptions:
            # a multi-GPU program that never shows a cpu path needs no `.cuda()` to be GPU-only
            return self.intent is not None and self.intent.multi_gpu and not self.intent.cpu_capable
        if self.intent is None or not self.intent.cpu_capable:
            return True
        if self.intent.cuda_variables_only and any(
                a.kind == "cuda-api" and not a.guarded and not a.switched for a in self.assumptions):
            # a device variable that only ever holds 'cuda' shows no cpu path, and a GPU-only call
            # (`torch.cuda.set_device`, `reset_peak_memory_stats`) says there is none (MONAI's MAISI scripts)
            return True
        hardcoded = {id(a.node) for a in self.unguarded() if not a.switched}
        portable = self.intent.portable_uses + sum(1 for a in self.assumptions if a.guarded or a.switched)
        return len(hardcoded) >= GPU_CENTRIC_FROM and len(hardcoded) > portable
