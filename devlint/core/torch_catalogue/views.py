"""The catalogue's records, seen as the tables the static handlers, the rules and the runtime read.

Every table here is computed from the records (`tensors.py`, `nn.py`, `cuda.py`) or is one of the
library-level tables in `libraries.py`: to teach devlint a torch API, add its record, not a name here.
"""

from __future__ import annotations

import re
from typing import Callable, Dict, FrozenSet, Optional, Tuple

from devlint.core.torch_catalogue.cuda import ACCELERATOR_RECORDS, CUDA_RECORDS, DISTRIBUTED_RECORDS
from devlint.core.torch_catalogue.libraries import *  # noqa: F401,F403  (the library-level tables, re-exported)
from devlint.core.torch_catalogue.libraries import LIBRARY_LOSSES
from devlint.core.torch_catalogue.nn import DATA_RECORDS, MODULE_RECORDS
from devlint.core.torch_catalogue.records import (  # the device types, re-exported
    CPU_TYPE as CPU_TYPE, CUDA_TYPE as CUDA_TYPE, MPS_TYPE as MPS_TYPE, XPU_TYPE as XPU_TYPE)
from devlint.core.torch_catalogue.records import Api, Device, Host, Member, Role, Simulated, Sync
from devlint.core.torch_catalogue.tensor_api import TENSOR_API_NAMES as TENSOR_API_NAMES
from devlint.core.torch_catalogue.tensors import (FACTORY_RECORDS, FUNCTION_RECORDS, METHOD_RECORDS,
                                                 TENSOR_TYPE_DTYPES as TENSOR_TYPE_DTYPES, TENSOR_TYPE_NAMES)

RECORDS: Tuple[Api, ...] = (*FACTORY_RECORDS, *FUNCTION_RECORDS, *METHOD_RECORDS, *MODULE_RECORDS, *DATA_RECORDS,
                            *CUDA_RECORDS, *ACCELERATOR_RECORDS, *DISTRIBUTED_RECORDS)


def paths(test: Callable[[Api], bool]) -> FrozenSet[str]:
    """The dotted names of the records that pass `test`."""
    return frozenset(name for record in RECORDS if test(record) for name in record.names)


def is_tensor_method(name: str) -> bool:
    """Does `torch.Tensor` have this method (a private name: assumed so)?"""
    return name.startswith("_") or name in TENSOR_API_NAMES


def methods(test: Callable[[Api], bool]) -> FrozenSet[str]:
    """The method names of the records that pass `test`."""
    return frozenset(name for record in RECORDS if test(record) for name in record.methods)


def role(wanted: Role) -> Callable[[Api], bool]:
    return lambda record: wanted in record.roles


def effect(wanted: Device) -> Callable[[Api], bool]:
    return lambda record: record.device is wanted


def bare(dotted: FrozenSet[str]) -> FrozenSet[str]:
    """`torch.cuda.synchronize` -> `synchronize`: how the runtime sees a function."""
    return frozenset(name.rsplit(".", 1)[-1] for name in dotted)


# --- creation

FACTORIES = paths(effect(Device.FACTORY))
# The bare names of the factories that take `device=` in every overload (DEV104's autofix adds one).
FACTORIES_WITH_DEVICE = bare(paths(lambda r: r.device is Device.FACTORY and r.takes_device))
SAMPLING_FACTORIES = paths(role(Role.SAMPLES))
SCALAR_FACTORIES = paths(role(Role.SCALAR_FROM_NUMBER))
DATA_FOLLOWING_FACTORIES = paths(role(Role.FOLLOWS_DATA))
LEGACY_CONSTRUCTORS = paths(role(Role.LEGACY_CPU))
# the dtype each makes, for the modern spelling (`torch.tensor(data, dtype=torch.int64, device=device)`)
LEGACY_DTYPES = {path: TENSOR_TYPE_DTYPES.get(path[len("torch."):-len("Tensor")], "float32")
                 for path in LEGACY_CONSTRUCTORS}
# what `x.type(T)` makes of a legacy type (or its name): (its device type, its dtype's name)
LEGACY_TYPE_TARGETS = {**{path: (CPU_TYPE, dtype) for path, dtype in LEGACY_DTYPES.items()},
                       **{f"torch.cuda.{kind}Tensor": (CUDA_TYPE, dtype) for kind, dtype in TENSOR_TYPE_DTYPES.items()}}
INDEX_BUILT_FACTORIES = paths(role(Role.FROM_INDICES))
CPU_RESULTS = paths(effect(Device.CPU_RESULT))
CUDA_TENSOR_TYPES = paths(effect(Device.CURRENT_GPU))
LIKE_FACTORIES = paths(effect(Device.LIKE))
NEW_METHODS = methods(effect(Device.NEW))
IDENTITY_FUNCTIONS = paths(effect(Device.IDENTITY))

# --- moves

MOVES_TO_ARGUMENT = methods(effect(Device.MOVE))
MOVES_TO_GPU = methods(effect(Device.TO_GPU))
MOVES_TO_CPU = methods(effect(Device.TO_CPU))
MOVE_METHODS = MOVES_TO_ARGUMENT | MOVES_TO_GPU | MOVES_TO_CPU
# nn.Module methods a subclass overrides to move what registration does not (`def to(self, device):`); every
# Module move goes through `_apply`
OWN_MOVE_OVERRIDES = frozenset({"to", "cuda", "_apply"})
# `x.type_as(y)`: to y's device and dtype.
MOVES_LIKE = methods(effect(Device.LIKE))

# --- methods

SAME_DEVICE_METHODS_MODULE = methods(role(Role.KEEPS_MODULE))
SAME_TENSOR_METHODS = methods(role(Role.KEEPS_TENSOR))
# Reductions (by method name, or a function's last name): 0-dim without a dimension.
REDUCTIONS = methods(role(Role.REDUCES))
# Methods after which a 0-dim tensor is still 0-dim.
SCALAR_KEEPING = methods(role(Role.KEEPS_SCALAR))
# Methods that return several tensors when given arguments.
TUPLE_METHODS = methods(role(Role.RETURNS_TUPLE))
HOST_SYNC_METHODS = methods(lambda r: r.host in (Host.VALUE, Host.LIST))
HOST_LIST_METHODS = methods(lambda r: r.host is Host.LIST)  # their result has dimensions
HOST_CONVERSION_METHODS = methods(lambda r: r.host is Host.NUMPY)
METADATA_METHODS = methods(role(Role.METADATA))
# what asks a tensor's shape or gives a view or a cast of it where it is: a use that does not depend on its device
SHAPE_ONLY_METHODS = METADATA_METHODS | SAME_TENSOR_METHODS | methods(role(Role.SHAPE_ONLY))
CROSS_DEVICE_METHODS = methods(role(Role.CROSS_DEVICE))
MODULE_ONLY_METHODS = methods(role(Role.MODULE_ONLY))
# nn.Module methods and what they give or take of the module's members.
MODULE_MEMBERS: Dict[str, Member] = {
    name: record.member for record in RECORDS if record.member is not None for name in record.methods}
# The methods an optimizer's parameters come from (`Adam(model.parameters())`).
PARAMETER_METHODS = frozenset(
    name for name, member in MODULE_MEMBERS.items() if member in (Member.PARAMETERS, Member.NAMED_PARAMETERS))
# Methods that register a member by hand (`self.register_parameter(name, p)`, `self.add_module(name, m)`).
REGISTERING_METHODS = frozenset(
    name for name, member in MODULE_MEMBERS.items() if member in (Member.SUBMODULE, Member.PARAMETER, Member.BUFFER))
TENSOR_ONLY_ATTRS = methods(role(Role.TENSOR_ONLY))
SAME_DEVICE_ATTRIBUTES = methods(role(Role.SAME_DEVICE_ATTRIBUTE))
# Methods whose call waits for the GPU.
SYNC_METHODS = methods(lambda r: r.syncs is Sync.YES)
# Methods that turn their tensor into a Python value or a numpy array.
HOST_METHODS = methods(lambda r: r.host is not Host.NONE)
# Methods that hand their tensor to the host (a Python value, a numpy array, a cpu tensor).
TO_HOST_METHODS = methods(lambda r: r.host is not Host.NONE or r.device is Device.TO_CPU)
# Methods that queue GPU work on their receiver's device.
LAUNCHING_METHODS = methods(lambda r: r.launches)

# --- functions

SEQUENCE_OPS = paths(role(Role.TAKES_SEQUENCE))
TUPLE_OPS = paths(role(Role.RETURNS_TUPLE))
NOT_OPS = paths(role(Role.NOT_OP))
LOAD = paths(role(Role.LOAD))
SAVE = paths(role(Role.SAVE))
TRACE_CALLS: Dict[str, Tuple[int, int]] = {
    name: record.trace for record in RECORDS if record.trace is not None
    for name in (*record.names, *record.methods)}
CPU_ONLY_ARGS: Dict[str, Tuple[Optional[int], str]] = {
    name: record.cpu_only_arg for record in RECORDS if record.cpu_only_arg is not None for name in record.names}
ANY_DEVICE_ARGS: Dict[str, Tuple[Tuple[int, str], ...]] = {
    **{name: record.any_device_args for record in RECORDS if record.any_device_args for name in record.names},
    **LIBRARY_LOSSES}

# --- modules and data

MODULE_BASES = paths(role(Role.MODULE_BASE))
NOT_MODULES = paths(role(Role.NOT_MODULE))
MODULE_CONTAINERS = paths(role(Role.MODULE_CONTAINER))
NAMED_MODULE_CONTAINERS = paths(role(Role.NAMED_CONTAINER))
MODULE_WRAPPERS = paths(role(Role.MODULE_WRAPPER))
MODULES_WITH_PARAMETERS = paths(role(Role.HAS_PARAMETERS))
INPUT_MOVING_WRAPPERS = paths(role(Role.MOVES_INPUTS))
PARAMETER_CLASSES = paths(role(Role.PARAMETER_CLASS))
DATASET_BASES = paths(role(Role.DATASET_BASE))
LOADERS = paths(role(Role.LOADER))
TENSOR_DATASETS = paths(role(Role.TENSOR_DATASET))

# --- CUDA and other accelerators

CUDA_SAFE = paths(role(Role.CUDA_SAFE))
AVAILABILITY = paths(role(Role.AVAILABILITY))
ACCELERATOR_CHECKS: Dict[str, str] = {
    name: record.accelerator for record in RECORDS if record.accelerator is not None for name in record.names}
CURRENT_ACCELERATOR = paths(role(Role.CURRENT_ACCELERATOR))
DEVICE_COUNT_CALLS = paths(role(Role.DEVICE_COUNT))
CUDA_NEEDS_GPU = paths(lambda r: r.needs_gpu)
BACKEND_SYNCHRONIZE = paths(role(Role.BACKEND_SYNCHRONIZE))
SYNCHRONIZE = paths(lambda r: r.syncs is Sync.YES) - BACKEND_SYNCHRONIZE
CUDA_EVENT = paths(role(Role.CUDA_EVENT))
DEVICE_CONTEXTS = paths(role(Role.DEVICE_CONTEXT))
SET_DEVICE = paths(role(Role.SET_DEVICE))
SET_DEFAULT_DEVICE = paths(role(Role.SET_DEFAULT_DEVICE))
SET_DEFAULT_TENSOR_TYPE = paths(role(Role.SET_DEFAULT_TENSOR_TYPE))
DEVICE_CHECKS = paths(role(Role.DEVICE_CHECK))
DEVICE_CONSTRUCTORS = paths(role(Role.DEVICE_CONSTRUCTOR))
MULTI_GPU = paths(role(Role.MULTI_GPU))
INIT_PROCESS_GROUP = paths(role(Role.INIT_PROCESS_GROUP))
GROUP_INITIALIZED = paths(role(Role.GROUP_INITIALIZED))
WORLD_SIZE_CALLS = paths(role(Role.WORLD_SIZE))
SPAWNS_WORKERS = paths(role(Role.SPAWNS_WORKERS))
NCCL_BACKEND = "nccl"
BACKEND_KEYWORD = "backend"
INIT_PROCESS_GROUP_NAME = "init_process_group"
# Lightning's `Fabric(accelerator="cuda")`, `Trainer(accelerator="gpu")`: built only where a GPU is
ACCELERATOR_KEYWORD = "accelerator"
GPU_ACCELERATORS = frozenset({"cuda", "gpu"})
DATACLASS_DECORATOR = "dataclass"  # its class's generated `__init__` keeps each argument as a field
# NVIDIA's management library started (`pynvml.nvmlInit()`): it needs the driver, so a GPU is there
NVML_INIT_NAME = "nvmlInit"
SAVE_NAME = "save"  # `torch.save`, as a word of a file's text
TORCH_ALIASES = frozenset({"torch", "th"})  # what `import torch as ...` is called
STATE_DICT_METHOD = "state_dict"  # a module's weights by name (an optimizer's state too)
LOAD_STATE_DICT_METHOD = "load_state_dict"
# whose `state_dict()` is no module's weights: an optimizer's, a scheduler's, a grad scaler's (words of the name)
OPTIMIZER_STATE_WORDS = ("optim", "sched", "scaler")
MAIN_GUARD_WORD = "__main__"  # a script's `if __name__ == "__main__":`
TORCH_WORD = "torch"  # (a script that never names it runs no device code: an environment's own demo)
# A script that will not start without CUDA, in its text: `assert torch.cuda.is_available()` or
# `if not torch.cuda.is_available(): raise ...`
CUDA_REQUIRED_TEXT = re.compile(
    rb"^[ \t]*assert[ \t(]+torch\.cuda\.is_available\(\)"
    rb"|^[ \t]*if[ \t]+not[ \t]+torch\.cuda\.is_available\(\)[ \t]*:[ \t]*(?:#[^\n]*)?\n?[ \t]*raise\b", re.M)
# A setup.py that builds CUDA kernels (`CUDAExtension`) with no cpu build beside them (`CppExtension`): installing
# the project needs nvcc, and its ops run on GPUs only (OpenPCDet's, Pointnet2's)
CUDA_EXTENSION_WORD, CPU_EXTENSION_WORD = b"CUDAExtension", b"CppExtension"
SETUP_SCRIPT = "setup.py"
# Replicate's Cog: a cog.yaml whose build asks for a GPU (`gpu: true`) serves its predictor (`predict: "predict.py:
# Predictor"`) on GPU machines only (ALBEF's, survey 74)
COG_CONFIG = "cog.yaml"
COG_GPU = re.compile(rb"^[ \t]+gpu:[ \t]*true[ \t]*(?:#[^\n]*)?$", re.M)
COG_PREDICTOR = re.compile(rb"^predict:[ \t]*[\"']?([^\"':\n]+\.py):", re.M)
# a conftest.py that skips its whole folder without CUDA: the test modules there run with a GPU
FOLDER_SKIPPED_WITHOUT_CUDA = re.compile(
    rb"^if[ \t]+not[ \t]+torch\.cuda\.is_available\(\)[ \t]*:[ \t]*(?:#[^\n]*)?\n[ \t]+pytest\.skip\("
    rb"(?:[^()]|\([^()]*\))*allow_module_level[ \t]*=[ \t]*True", re.M)
# set by torchrun (and torch.distributed.launch) in each process it starts
LAUNCHER_ENV = frozenset({"RANK", "WORLD_SIZE", "LOCAL_RANK", "SLURM_PROCID"})  # (SLURM: one task per GPU)
ENVIRON = "os.environ"

# --- the runtime checker and its simulated GPU: bare names (the checker sees function objects)

RUNTIME_FACTORIES = bare(paths(lambda r: r.device is Device.FACTORY and not r.names[0].endswith("Tensor")))
RUNTIME_CROSS_DEVICE = methods(role(Role.RT_CROSS_DEVICE))
RUNTIME_SYNCS = methods(lambda r: r.syncs is not Sync.NO)
RUNTIME_QUERIES = methods(role(Role.RT_QUERY))
RUNTIME_ANSWERED = methods(role(Role.RT_ANSWERED))
RUNTIME_HOOKS = methods(role(Role.RT_HOOK))
RUNTIME_DESCRIPTORS = methods(role(Role.RT_DESCRIPTOR))
RUNTIME_FIRST_OUTPUT_ONLY = methods(role(Role.RT_FIRST_OUTPUT_ONLY))
RUNTIME_MODULE_FUNCTIONS = methods(role(Role.RT_MODULE_FUNCTION))
RUNTIME_PACKED_RNNS = methods(role(Role.RT_PACKED_RNN))


def _simulated(namespace: str) -> Dict[str, Simulated]:
    """`name -> answer` for the simulated functions of one namespace (`torch.cuda.`)."""
    return {name[len(namespace):]: record.simulated for record in RECORDS if record.simulated is not None
            for name in record.names if name.startswith(namespace) and "." not in name[len(namespace):]}


SIMULATED_CUDA = _simulated("torch.cuda.")
SIMULATED_ACCELERATOR = _simulated("torch.accelerator.")
# Tensor methods the device table answers itself on a simulated GPU.
SIMULATED_TENSOR_METHODS: Dict[str, Simulated] = {
    name: record.simulated for record in RECORDS if record.simulated is not None for name in record.methods}
# The DataLoader options that need cpu data: option -> what it does with the data.
LOADER_CPU_ONLY_OPTIONS: Tuple[Tuple[str, str], ...] = tuple(
    option for record in RECORDS if Role.LOADER in record.roles for option in record.cpu_only_options)

# Every table, the library-level ones star-imported above included.
__all__ = sorted({name for name in globals() if name.isupper() and not name.startswith("_")}
                 | {"looks_like_device_name"})
