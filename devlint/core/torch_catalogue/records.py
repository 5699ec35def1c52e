"""The shape of one catalogue record: everything devlint knows about one torch API.

A record names the API (its dotted paths, its method names, or both when the
function and the method behave alike) and says, as data, what it does to
devices. The views in `views.py` are derived from the records; nothing else
in devlint spells an API's name.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional, Tuple

# Device types, as torch spells them in `torch.device(TYPE)` and `tensor.device.type`.
CPU_TYPE = "cpu"
CUDA_TYPE = "cuda"
MPS_TYPE = "mps"
XPU_TYPE = "xpu"


class Device(enum.Enum):
    """What a call does to the device of its result."""

    NONE = enum.auto()  # nothing the device tables model
    FACTORY = enum.auto()  # creates on cpu unless given device= (or a default device is set)
    LIKE = enum.auto()  # creates on the device of its first argument (`torch.zeros_like(x)`)
    NEW = enum.auto()  # creates on the receiver's device (`x.new_zeros(n)`)
    CPU_RESULT = enum.auto()  # always on cpu, whatever the arguments (`torch.from_numpy`)
    CURRENT_GPU = enum.auto()  # on the current GPU, and assumes one (`torch.cuda.FloatTensor`)
    IDENTITY = enum.auto()  # returns its first argument as it is (`torch.autograd.Variable`)
    MOVE = enum.auto()  # `x.to(d)`: to the device its argument names (or only a dtype change)
    TO_GPU = enum.auto()  # `x.cuda()`: to the current GPU, or the one given
    TO_CPU = enum.auto()  # `x.cpu()`


class Host(enum.Enum):
    """What a method hands to the host."""

    NONE = enum.auto()
    VALUE = enum.auto()  # a Python value, and an implicit synchronization (`.item()`)
    NUMPY = enum.auto()  # a numpy array: fails on a cuda tensor (`.numpy()`)
    LIST = enum.auto()  # a Python list (with dimensions), and an implicit synchronization (`.tolist()`)


class Sync(enum.Enum):
    """Whether a call waits for the GPU, and who models it."""

    NO = enum.auto()
    YES = enum.auto()  # both the static analysis and the runtime checker
    RUNTIME = enum.auto()  # the runtime checker only (dunders the static walk never sees as calls)


class Simulated(enum.Enum):
    """What the simulated GPU (runtime/simulate.py, runtime/devices.py) answers in place of the real call."""

    TRUE = enum.auto()  # `is_available()`
    GPU_COUNT = enum.auto()  # `device_count()`: the simulated number of GPUs
    CURRENT_INDEX = enum.auto()  # `current_device()`
    SET_INDEX = enum.auto()  # `set_device(i)`
    DEVICE_CONTEXT = enum.auto()  # `with torch.cuda.device(i)`
    DEVICE_OF = enum.auto()  # `with torch.cuda.device_of(x)`
    INDEX_CONTEXT = enum.auto()  # `with torch.accelerator.device_index(i)`
    CURRENT_ACCELERATOR = enum.auto()  # a cuda device
    DEVICE_NAME = enum.auto()
    PROPERTIES = enum.auto()
    CAPABILITY = enum.auto()  # (8, 0)
    CAPABILITY_DICT = enum.auto()  # {"major": 8, "minor": 0}, as torch.accelerator says it
    SYNCHRONIZE = enum.auto()  # empties the queue of GPU work the timing check watches
    EVENT = enum.auto()
    STREAM = enum.auto()
    CURRENT_STREAM = enum.auto()
    STREAM_CONTEXT = enum.auto()  # `with torch.cuda.stream(s)`
    MEMORY_INFO = enum.auto()  # (free, total)
    MEMORY_SUMMARY = enum.auto()
    EMPTY_STATS = enum.auto()  # {}
    ZERO = enum.auto()  # 0 bytes
    RNG_STATE = enum.auto()
    RNG_STATES = enum.auto()  # one per GPU
    NOTHING = enum.auto()  # does nothing, returns None
    RECEIVER = enum.auto()  # a tensor method that returns its tensor (`pin_memory()`: pinning needs a real GPU)
    FALSE = enum.auto()  # a tensor method that answers False (`is_pinned()`)
    DEVICE_INDEX = enum.auto()  # `get_device()`: the simulated index, -1 on cpu
    DEVICE = enum.auto()  # `x.device`: the simulated device
    IS_CUDA = enum.auto()  # `x.is_cuda`
    IS_CPU = enum.auto()  # `x.is_cpu`


class Member(enum.Enum):
    """What an nn.Module method gives or takes of the module's members."""

    PARAMETERS = enum.auto()  # `model.parameters()`: its parameters, where the module is
    NAMED_PARAMETERS = enum.auto()  # `model.named_parameters()`: (name, parameter) pairs
    EACH = enum.auto()  # `model.buffers()`: members where the module is
    SUBMODULES = enum.auto()  # `model.children()`, `modules()`: modules where the module is, moved in place
    BUFFER = enum.auto()  # `register_buffer(name, t)`: t becomes a member that moves with the module
    PARAMETER = enum.auto()  # `register_parameter(name, p)`
    SUBMODULE = enum.auto()  # `add_module(name, m)`
    NO_DEVICE = enum.auto()  # `load_state_dict`, `named_modules()`...: nothing the device tables follow


class Role(enum.Flag):
    """Memberships that are no device effect: what a name is evidence of, how to treat its arguments."""

    NONE = 0
    # functions
    SAMPLES = enum.auto()  # samples from tensor arguments when given them: then on their device
    SCALAR_FROM_NUMBER = enum.auto()  # 0-dim when given a single Python number
    FOLLOWS_DATA = enum.auto()  # given a tensor (`torch.tensor(t)`), a copy where that tensor is
    FROM_INDICES = enum.auto()  # built from index and value tensors (a value of unknown kind is one): where they are
    LEGACY_CPU = enum.auto()  # a legacy type constructor (`torch.LongTensor`): cpu only, raises given a GPU device=
    TAKES_SEQUENCE = enum.auto()  # its first argument is a list of tensors
    RETURNS_TUPLE = enum.auto()  # returns a tuple of tensors on its input's device
    NOT_OP = enum.auto()  # computes on no tensor: no device check, no tensor result
    LOAD = enum.auto()  # reads a checkpoint (map_location=)
    SAVE = enum.auto()  # copies what it writes to the host: waits for the GPU
    # methods
    METADATA = enum.auto()  # returns host metadata, not a tensor
    CROSS_DEVICE = enum.auto()  # may cross devices by design, or reads only its argument's shape
    KEEPS_MODULE = enum.auto()  # a module returns itself (a tensor: a view or copy on its device)
    KEEPS_TENSOR = enum.auto()  # a tensor returns itself, or a copy on its device, with its story
    KEEPS_SCALAR = enum.auto()  # a 0-dim tensor stays 0-dim
    SHAPE_ONLY = enum.auto()  # reads or reshapes its tensor alone, with no other operand: right on any device
    REDUCES = enum.auto()  # 0-dim result when given no dimension (`x.sum()`, `torch.sum(x)`)
    MODULE_ONLY = enum.auto()  # only an nn.Module has it: evidence of a module
    TENSOR_ONLY = enum.auto()  # only a tensor has it: evidence of a tensor
    SAME_DEVICE_ATTRIBUTE = enum.auto()  # a tensor attribute that is a tensor on its device (`x.T`, `x.grad`)
    # classes
    MODULE_BASE = enum.auto()  # subclassing it makes an nn.Module
    NOT_MODULE = enum.auto()  # in torch.nn, but no module
    MODULE_CONTAINER = enum.auto()  # a module whose device is its members'
    NAMED_CONTAINER = enum.auto()  # its members are named by its arguments (`nn.ModuleDict({...})`)
    MODULE_WRAPPER = enum.auto()  # keeps the wrapped module's device
    HAS_PARAMETERS = enum.auto()  # owns parameters or buffers (others run on their input's device)
    MOVES_INPUTS = enum.auto()  # a wrapper that moves its inputs to the module's device
    PARAMETER_CLASS = enum.auto()  # nn.Parameter
    DATASET_BASE = enum.auto()  # subclassing it makes the cpu side of a data pipeline
    LOADER = enum.auto()  # DataLoader: iterating yields cpu batches
    TENSOR_DATASET = enum.auto()
    # devices and accelerators
    CUDA_SAFE = enum.auto()  # torch.cuda.X that is fine without a GPU
    AVAILABILITY = enum.auto()  # asks whether CUDA (or any accelerator) is there
    CURRENT_ACCELERATOR = enum.auto()
    DEVICE_COUNT = enum.auto()
    SPAWNS_WORKERS = enum.auto()  # `spawn(fn, args, nprocs)`: nprocs processes, each running `fn(rank, *args)`
    DEVICE_CHECK = enum.auto()  # a file calling it means to run without a GPU too
    DEVICE_CONSTRUCTOR = enum.auto()  # `torch.device("cuda", 1)`
    DEVICE_CONTEXT = enum.auto()  # `with torch.cuda.device(i)`
    SET_DEVICE = enum.auto()
    SET_DEFAULT_DEVICE = enum.auto()
    SET_DEFAULT_TENSOR_TYPE = enum.auto()
    CUDA_EVENT = enum.auto()
    BACKEND_SYNCHRONIZE = enum.auto()  # waits on whichever accelerator runs, with no GPU assumed
    MULTI_GPU = enum.auto()  # multi-GPU programs: GPU-first by design
    INIT_PROCESS_GROUP = enum.auto()
    # in a program whose process group is NCCL's, a group is up only with GPUs: these answer a GPU question
    GROUP_INITIALIZED = enum.auto()
    WORLD_SIZE = enum.auto()
    # the runtime checker's dispatch, by bare function name
    RT_CROSS_DEVICE = enum.auto()  # may take tensors on several devices: no device check
    RT_QUERY = enum.auto()  # a question about one tensor answered with a Python value: nothing to check
    RT_ANSWERED = enum.auto()  # the device table answers (simulated: without a real GPU)
    RT_HOOK = enum.auto()  # registers a hook that autograd calls out of the checker's sight
    RT_DESCRIPTOR = enum.auto()  # a tensor attribute whose `__get__` the checker sees (`x.device`, `x.grad`)
    RT_MODULE_FUNCTION = enum.auto()  # functional form of a module with parameters
    RT_PACKED_RNN = enum.auto()  # a recurrent kernel that takes cpu batch sizes beside GPU data
    RT_FIRST_OUTPUT_ONLY = enum.auto()  # only the first output follows the input; the rest stay on cpu


@dataclass(frozen=True)
class Api:
    """One torch function, method, class or query."""

    names: Tuple[str, ...] = ()  # dotted paths after import aliases are resolved: "torch.zeros"
    methods: Tuple[str, ...] = ()  # names as a method (or as the runtime sees the function): "new_zeros"
    device: Device = Device.NONE
    takes_device: bool = False  # takes `device=` in every overload (DEV104's autofix adds one)
    syncs: Sync = Sync.NO
    needs_gpu: bool = False  # fails on a machine without a GPU (DEV203)
    launches: bool = False  # queues GPU work on its receiver's device whatever it returns (`loss.backward()`)
    host: Host = Host.NONE
    roles: Role = Role.NONE
    accelerator: Optional[str] = None  # the device type an availability check is about, when not CUDA
    cpu_only_arg: Optional[Tuple[Optional[int], str]] = None  # an argument that must be on cpu: (position, keyword)
    # inputs that may be on any device, the kernel moving them itself: ((position, keyword), ...); for a
    # module class, positions of its forward's inputs
    any_device_args: Tuple[Tuple[int, str], ...] = ()
    trace: Optional[Tuple[int, int]] = None  # calls a module on an example input: (module position, input position)
    simulated: Optional[Simulated] = None  # what the simulated GPU answers instead
    member: Optional[Member] = None  # an nn.Module method's members
    # keyword options that need cpu data, and what each does with it (for the message): DataLoader(pin_memory=)
    cpu_only_options: Tuple[Tuple[str, str], ...] = ()


def fn(*names: str, **fields: object) -> Api:
    """A record for functions or classes named by dotted path."""
    return Api(names=names, **fields)  # type: ignore[arg-type]


def method(*methods: str, **fields: object) -> Api:
    """A record for methods (or functions the runtime checker sees by bare name)."""
    return Api(methods=methods, **fields)  # type: ignore[arg-type]
