"""The rule catalogue. Adding a rule: write its module, add its class here."""

from __future__ import annotations

from devlint.rules.base import Verdict, Rule
from devlint.rules.dev004_unused_suppression import UnusedSuppression
from devlint.rules.dev101_mixed_devices import MixedDevices
from devlint.rules.dev102_module_input_device import ModuleInputDevice
from devlint.rules.dev103_discarded_move import ThrownAwayMove
from devlint.rules.dev104_created_without_device import CreatedWithoutDevice
from devlint.rules.dev105_plain_tensor_attribute import PlainTensorAttribute
from devlint.rules.dev106_cpu_only_argument import GpuTensorForCpuArgument
from devlint.rules.dev107_module_in_plain_container import ModuleInPlainContainer
from devlint.rules.dev108_optimizer_state_left_behind import OptimizerStateNotMoved
from devlint.rules.dev201_gpu_assumed import GpuAssumed
from devlint.rules.dev202_load_without_map_location import LoadWithoutMapLocation
from devlint.rules.dev203_cuda_api_unguarded import CudaApiUnguarded
from devlint.rules.dev204_gpu_only_file import GpuOnlyFile
from devlint.rules.dev301_unsynchronized_timing import UnsynchronizedTiming
from devlint.rules.dev302_event_not_synchronized import EventNotSynchronized
from devlint.rules.dev401_host_conversion import HostConversionOfGpuTensor
from devlint.rules.dev501_created_then_moved import CreatedThenMoved
from devlint.rules.dev502_sync_in_training_loop import SyncInTrainingLoop

ALL_RULES: list[type[Rule]] = [
    UnusedSuppression, MixedDevices, ModuleInputDevice, ThrownAwayMove, CreatedWithoutDevice, PlainTensorAttribute,
    GpuTensorForCpuArgument, ModuleInPlainContainer, OptimizerStateNotMoved, GpuAssumed, LoadWithoutMapLocation,
    CudaApiUnguarded, GpuOnlyFile, UnsynchronizedTiming,
    EventNotSynchronized, HostConversionOfGpuTensor, CreatedThenMoved, SyncInTrainingLoop,
]
RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}

__all__ = ["ALL_RULES", "RULES_BY_CODE", "Verdict", "Rule"]
