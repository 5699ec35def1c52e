"""What a run must know of each rule before it analyses anything: its code, name, severity, whether
it is on by default and which codes it supersedes. Choosing the rules, reading findings from the cache,
merging and reporting them need nothing more; the rule classes (and libcst, which they import) are
loaded only when a file is analysed. A run whose every file is a cache hit never imports them.

tests/test_rule_index.py holds this table to the classes: a new rule module fails it until its line is here.
"""

from __future__ import annotations

import importlib
from collections import defaultdict
from typing import TYPE_CHECKING, NamedTuple, Sequence

from devlint.core.findings import Finding

if TYPE_CHECKING:
    from devlint.static.rules.base import Rule


class RuleInfo(NamedTuple):
    code: str
    name: str
    severity: str
    default_enabled: bool
    supersedes: tuple[str, ...]
    module: str  # its module in devlint.static.rules

    def load(self) -> type[Rule]:
        """The rule class itself."""
        module = importlib.import_module(f"devlint.static.rules.{self.module}")
        return next(obj for obj in vars(module).values()
                    if isinstance(obj, type) and getattr(obj, "code", None) == self.code
                    and obj.__module__ == module.__name__)


RULE_INDEX: tuple[RuleInfo, ...] = (
    RuleInfo("DEV004", "unused-suppression", "warning", False, (), "dev004_unused_suppression"),
    RuleInfo("DEV101", "mixed-devices", "error", True, (), "dev101_mixed_devices"),
    RuleInfo("DEV102", "module-input-device", "error", True, ("DEV101",), "dev102_module_input_device"),
    RuleInfo("DEV103", "discarded-move", "error", True, (), "dev103_discarded_move"),
    RuleInfo("DEV104", "created-without-device", "error", True, ("DEV101", "DEV102"),
             "dev104_created_without_device"),
    RuleInfo("DEV105", "plain-tensor-attribute", "error", True, (), "dev105_plain_tensor_attribute"),
    RuleInfo("DEV106", "cpu-only-argument", "error", True, (), "dev106_cpu_only_argument"),
    RuleInfo("DEV107", "module-in-plain-container", "error", True, ("DEV101", "DEV102"),
             "dev107_module_in_plain_container"),
    RuleInfo("DEV108", "optimizer-state-left-behind", "error", True, (), "dev108_optimizer_state_left_behind"),
    RuleInfo("DEV109", "moved-new-parameter", "error", True, (), "dev109_moved_parameter"),
    RuleInfo("DEV201", "gpu-assumed", "warning", True, (), "dev201_gpu_assumed"),
    RuleInfo("DEV202", "load-without-map-location", "warning", True, (), "dev202_load_without_map_location"),
    RuleInfo("DEV203", "cuda-api-unguarded", "warning", True, (), "dev203_cuda_api_unguarded"),
    RuleInfo("DEV204", "gpu-only-file", "info", True, (), "dev204_gpu_only_file"),
    RuleInfo("DEV205", "same-gpu-on-every-rank", "warning", True, (), "dev205_same_gpu_on_every_rank"),
    RuleInfo("DEV206", "uncalled-availability-check", "error", True, (), "dev206_uncalled_availability_check"),
    RuleInfo("DEV301", "unsynchronized-timing", "warning", True, (), "dev301_unsynchronized_timing"),
    RuleInfo("DEV302", "event-not-synchronized", "error", True, (), "dev302_event_not_synchronized"),
    RuleInfo("DEV401", "host-conversion", "error", True, (), "dev401_host_conversion"),
    RuleInfo("DEV501", "created-then-moved", "info", False, (), "dev501_created_then_moved"),
    RuleInfo("DEV502", "sync-in-training-loop", "info", False, (), "dev502_sync_in_training_loop"),
)
INDEX_BY_CODE: dict[str, RuleInfo] = {info.code: info for info in RULE_INDEX}


def merge_findings(findings: Sequence[Finding]) -> list[Finding]:
    """The findings of a run, each once: a helper's line reached from several files (or found by its own
    file's analysis too) is one finding, and the more specific story about one line wins there too."""
    codes_at: dict[tuple, set] = defaultdict(set)
    for f in findings:  # (a notebook's lines are counted in their cell: the cell is part of the place)
        codes_at[(f.path, f.cell, f.line, f.column)].add(f.code)
    seen: set = set()
    merged = []
    for f in findings:
        key = (f.path, f.cell, f.line, f.column, f.code)
        if key in seen or any(f.code in _superseded_by(other) for other in codes_at[key[:4]]):
            continue
        seen.add(key)
        merged.append(f)
    return merged


def _superseded_by(code: str) -> tuple:
    info = INDEX_BY_CODE.get(code)
    return info.supersedes if info is not None else ()
