"""The rule catalogue. Adding a rule: write its module, add its class here."""

from __future__ import annotations

from devlint.static.rules.base import Verdict, Rule
from devlint.static.rules.dev004_unused_suppression import UnusedSuppression
from devlint.static.rules.dev101_mixed_devices import MixedDevices
from devlint.static.rules.dev102_module_input_device import ModuleInputDevice
from devlint.static.rules.dev103_discarded_move import ThrownAwayMove
from devlint.static.rules.dev104_created_without_device import CreatedWithoutDevice
from devlint.static.rules.dev105_plain_tensor_attribute import PlainTensorAttribute
from devlint.static.rules.dev106_cpu_only_argument import GpuTensorForCpuArgument
from devlint.static.rules.dev107_module_in_plain_container import ModuleInPlainContainer
from devlint.static.rules.dev108_optimizer_state_left_behind import OptimizerStateNotMoved
from devlint.static.rules.dev201_gpu_assumed import GpuAssumed
from devlint.static.rules.dev202_load_without_map_location import LoadWithoutMapLocation
from devlint.static.rules.dev203_cuda_api_unguarded import CudaApiUnguarded
from devlint.static.rules.dev204_gpu_only_file import GpuOnlyFile
from devlint.static.rules.dev301_unsynchronized_timing import UnsynchronizedTiming
from devlint.static.rules.dev302_event_not_synchronized import EventNotSynchronized
from devlint.static.rules.dev401_host_conversion import HostConversionOfGpuTensor
from devlint.static.rules.dev501_created_then_moved import CreatedThenMoved
from devlint.static.rules.dev502_sync_in_training_loop import SyncInTrainingLoop

ALL_RULES: list[type[Rule]] = [
    UnusedSuppression, MixedDevices, ModuleInputDevice, ThrownAwayMove, CreatedWithoutDevice, PlainTensorAttribute,
    GpuTensorForCpuArgument, ModuleInPlainContainer, OptimizerStateNotMoved, GpuAssumed, LoadWithoutMapLocation,
    CudaApiUnguarded, GpuOnlyFile, UnsynchronizedTiming,
    EventNotSynchronized, HostConversionOfGpuTensor, CreatedThenMoved, SyncInTrainingLoop,
]
RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}

__all__ = ["ALL_RULES", "RULES_BY_CODE", "Verdict", "Rule"]
