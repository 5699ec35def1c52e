"""Which files cannot hold a device bug, and are not parsed at all.

Every rule needs a device in the story: a tensor or module placed somewhere
(`torch`, `.cuda()`, `device=`, `.to(device)`), a GPU assumed (`cuda`, `gpu`),
an accelerator (`mps`, `xpu`, `accelerator`), or GPU work around a clock. A file
whose text names none of these, in any case, in code, strings or comments,
cannot produce a finding: the walk would see only unknown values, and unknown
never conflicts. Such files are skipped before parsing (TorchFix skips files
without "torch" the same way), and the run says how many.
"""

from __future__ import annotations

import re

# Substrings, not words: `torchvision`, `pytorch_lightning`, `get_device`, `use_gpu`,
# `CUDA_VISIBLE_DEVICES`, `accelerate`, `to_mps` all count.
_DEVICE_MENTION = re.compile(rb"torch|cuda|device|gpu|mps|xpu|accelerat", re.IGNORECASE)


def may_hold_device_bug(source: bytes) -> bool:
    return _DEVICE_MENTION.search(source) is not None
