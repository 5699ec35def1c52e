"""What devlint knows beyond single torch APIs: namespaces, other libraries, names people give things."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from devlint.core.torch_catalogue.records import CPU_TYPE, CUDA_TYPE, MPS_TYPE, XPU_TYPE

# Canonical names for common aliases.
ALIASES = {
    "torch.nn.modules.module.Module": "torch.nn.Module",
    "torch.utils.data.dataloader.DataLoader": "torch.utils.data.DataLoader",
    "torch.nn.parallel.data_parallel.DataParallel": "torch.nn.DataParallel",
    "torch.nn.parallel.DataParallel": "torch.nn.DataParallel",
}

# Namespaces whose functions compute on tensors: `torch.X`, `torch.nn.functional.X`, ...
TORCH_OP_NAMESPACES = ("torch.", "torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.",
                       "torch.sparse.", "torch.autograd.")
MODULE_CLASSES_PREFIX = ("torch.nn.",)
# `model.forward(x)`: a module's call spelled out.
FORWARD_SUFFIX = ".forward"
# A parameter annotated with one of these is a setting (`n_fft: int`), not data that may be a tensor.
SETTING_ANNOTATIONS = frozenset({"int", "float", "str", "bool"})
# ... and one of these a number: a tensor passed there is 0-dim (`def step(self, t: int)` given a timestep).
NUMBER_ANNOTATIONS = frozenset({"int", "float"})
# The namespaces `getattr(torch, device_type)` may name: the accelerator's module, whichever it is.
BACKEND_MODULES = frozenset({CUDA_TYPE, MPS_TYPE, XPU_TYPE, CPU_TYPE, "npu", "hpu", "mtia"})

# Libraries that need a GPU to import or to do anything: code after their import runs with one (Triton's
# kernels run on NVIDIA or AMD GPUs, both "cuda" to torch; Transformer Engine's FP8 layers and FlashAttention's
# kernels are CUDA only; torch2trt's modules wrap TensorRT engines).
CUDA_ONLY_LIBRARIES = frozenset({"tensorrt", "torch2trt", "pycuda", "cupy", "cupyx", "torch_tensorrt", "triton",
                                 "cutlass", "transformer_engine", "flash_attn"})
# Builders of an extension compiled when the code runs (torch.utils.cpp_extension): given CUDA sources (a `.cu`
# file, `cuda_sources=`), the module they return is a CUDA build, as an imported `*_cuda` one is (torch-ngp's
# `_backend = load(name="_freq", sources=["freq.cu", ...])`): what follows has a GPU.
JIT_EXTENSION_BUILDERS = frozenset({"torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"})
CUDA_SOURCE_SUFFIXES = (".cu", ".cuh")
CUDA_SOURCES_KEYWORD = "cuda_sources"
JIT_CUDA_EXTENSION = "jit_extension_cuda"  # the path such a module is known by (is_cuda_extension reads it so)
# A compiled extension the project builds with CUDA (`import fused_adam_cuda`, apex's `amp_C`): its
# module name says so. Only an import that is no Python module of the project counts (a `.so` is not
# read); `torch._C` or a package's own `_C` (detectron2's has cpu kernels) and helpers such as
# `from utils import move_to_cuda` do not: the suffix counts on a module's name, `_C` on a top-level one.
CUDA_EXTENSION_SUFFIX = "_cuda"
CUDA_EXTENSION_TOP_SUFFIX = "_C"


def is_cuda_extension(module: str) -> bool:
    """`module` (dotted, as imported) names a compiled CUDA extension by its name alone."""
    parts = module.split(".")
    if parts[-1].endswith(CUDA_EXTENSION_SUFFIX) and len(parts[-1]) > len(CUDA_EXTENSION_SUFFIX):
        return True
    top = parts[0]
    return len(parts) == 1 and top.endswith(CUDA_EXTENSION_TOP_SUFFIX) and len(top) > len(CUDA_EXTENSION_TOP_SUFFIX) \
        and top[0].isalpha()

# Keywords that quantize a model with bitsandbytes (`BitsAndBytesConfig(load_in_4bit=True)`,
# `from_pretrained(..., load_in_8bit=True)`): its kernels run on a CUDA GPU, so what follows has one.
GPU_QUANTIZATION_KEYWORDS = frozenset({"load_in_4bit", "load_in_8bit"})

# Libraries whose classes are known (or are not modules): their CamelCase calls build no unknown module.
LIBRARY_PREFIXES = ("torch.", "numpy.", "scipy.", "pandas.", "matplotlib.", "PIL.", "cv2.", "sklearn.", "argparse.",
                    "collections.", "typing.", "pathlib.", "datetime.", "logging.", "enum.", "dataclasses.",
                    "cuml.")  # (RAPIDS' scikit-learn on the GPU: estimators, no modules)
DATASET_PREFIXES = ("torchvision.datasets.", "torchaudio.datasets.", "torchtext.datasets.", "datasets.",
                    "torch_geometric.data.Dataset", "torch_geometric.data.InMemoryDataset", "dgl.data.DGLDataset")
# A class that implements these is a map-style dataset, whatever its base (`class Graphs(object)` with both)
DATASET_PROTOCOL = frozenset({"__getitem__", "__len__"})
DATASET_CLASS_SUFFIX = "Dataset"
# Classes whose objects hold the keywords they are built with as attributes: `SimpleNamespace(device="cpu")`
KEYWORD_RECORDS = frozenset({"types.SimpleNamespace", "argparse.Namespace"})
# Sequences with one entry per GPU, empty without one: their length counts the GPUs (`len(...) > 0` is a guard)
PER_GPU_SEQUENCES = frozenset({"torch.cuda.default_generators"})
LOSS_CLASS_SUFFIX = "Loss"
# What a callable holding a loss is called (`criterion`, `criterion_edge`, `self.loss_fn`): calling it gives a loss,
# a tensor where its inputs are (the convention of every loss in torch and in training code)
LOSS_CALLABLE_WORDS = ("criterion", "loss_fn", "lossfn", "loss_func", "loss_function")
# torch.nn.functional's losses whose names do not end in `_loss`: with their default reduction each gives one
# number (0-dim), as every `nn.*Loss` module does (`reduction="none"` keeps one per element)
FUNCTIONAL_LOSSES = frozenset({"cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"})
LOSS_SUFFIX = "_loss"
FUNCTIONAL_PREFIX = "torch.nn.functional."
NO_REDUCTION = "none"
# Factories whose result is always 1-D: iterating one gives 0-dim tensors
ONE_DIM_FACTORIES = frozenset({"arange", "linspace", "logspace", "randperm"})
# Factories whose positional arguments are all sizes: a literal 0 among them makes an empty placeholder
SHAPED_FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn"})
# Factories whose positional arguments are sizes or bounds: what is computed into one is a number
SIZED_FACTORIES = SHAPED_FACTORIES | {"torch." + name for name in ONE_DIM_FACTORIES} | {"torch.full", "torch.randint"}
# A project's checkpoint helpers, by name (`save_checkpoint`, `load_model`, `restore_weights`): they copy
# tensors to or from the host, which waits for the GPU
CHECKPOINT_VERBS = ("save", "load", "restore")
CHECKPOINT_NOUNS = ("checkpoint", "ckpt", "model", "weights", "state")  # `losses.CharbonnierLoss()`: named as torch names its loss modules
# Classes with a `forward` that are no module: an autograd function computes on its inputs where they are
AUTOGRAD_FUNCTION_BASES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function",
                                     "torch.autograd.function.InplaceFunction"})  # `class WikiKG90MDataset(object)`: a dataset by its name

# The names every PyTorch file gives these modules: where a file's only source of an unbound name is
# `from common import *` (a project module that imports them for everyone), the name is that module.
CONVENTIONAL_MODULE_NAMES = {"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional", "np": "numpy"}

# Library functions that convert their tensor arguments to numpy (Tensor.__array__).
# (audio and image writers too: `torchaudio.save` of a cuda tensor raises, `soundfile.write` takes an array)
HOST_LIBRARY_PREFIXES = ("numpy.", "matplotlib.pyplot.", "sklearn.", "scipy.", "pandas.", "cv2.", "PIL.",
                         "soundfile.", "librosa.", "imageio.", "skimage.", "torchaudio.save")
# numpy's random draws and the position of their `size` (rand/randn: every positional is a dimension): given none,
# one draw is a number (`torch.tensor(np.random.normal(scale=0.2))` is 0-dim: it combines with any device)
NUMPY_RANDOM_SIZE_POSITION = {"numpy.random.rand": 0, "numpy.random.randn": 0, "numpy.random.uniform": 2,
                              "numpy.random.normal": 2, "numpy.random.randint": 2}
NUMPY_SIZE_KEYWORD = "size"
SIZE_KEYWORD = "size"  # a torch factory's shape, given by keyword (`torch.rand(size=())`)
# numpy functions that do not convert their arguments (`np.shape(t)`, `np.ndim(t)` read `t.shape`, `t.ndim` first:
# checked on a meta tensor, which `np.asarray` refuses).
HOST_LIBRARY_SAFE = frozenset(
    {"numpy.random.seed", "numpy.set_printoptions", "numpy.dtype", "numpy.float32", "numpy.int64", "numpy.isscalar",
     "numpy.shape", "numpy.ndim",
     "matplotlib.pyplot.figure", "matplotlib.pyplot.show", "matplotlib.pyplot.savefig",
     "matplotlib.pyplot.title", "matplotlib.pyplot.xlabel", "matplotlib.pyplot.ylabel",
     "matplotlib.pyplot.legend", "matplotlib.pyplot.close", "matplotlib.pyplot.subplot"}
)

# Keywords a host library hands on, unconverted, to the function it is given (`scipy.optimize.minimize(fun, x0,
# args=(pts, target))`: only `x0` becomes an array; `fun(x, *args)` gets the tensors as they are)
HOST_PASSED_ON_KEYWORDS = frozenset({"args", "kwargs"})

# torchvision's transforms that turn an image (PIL, numpy) into a tensor: on the cpu, where the image was read.
# A `Compose` holding one gives such a tensor too (the transforms after it compute where it is).
TO_TENSOR_TRANSFORMS = frozenset({"torchvision.transforms." + name for name in (
    "ToTensor", "PILToTensor", "v2.ToTensor", "v2.PILToTensor", "v2.ToImage", "transforms.ToTensor",
    "transforms.PILToTensor")})
TO_TENSOR_FUNCTIONS = frozenset({"torchvision.transforms.functional.to_tensor",
                                 "torchvision.transforms.functional.pil_to_tensor",
                                 "torchvision.transforms.v2.functional.to_image",
                                 "torchvision.transforms.v2.functional.pil_to_tensor"})
TRANSFORM_COMPOSE = frozenset({"torchvision.transforms.Compose", "torchvision.transforms.v2.Compose",
                               "torchvision.transforms.transforms.Compose"})
# What rounds a duration to whole seconds (given one argument), or makes it a `datetime.timedelta`: a run's
# length, logged to the second, not a benchmark of GPU work
WHOLE_SECONDS_CALLS = frozenset({"int", "round"})
TIMEDELTA = "timedelta"
# Python's conversion of an option's text to a GPU id or count (`int(opt.gpus[0]) >= 0`)
INTEGER_CASTS = frozenset({"int"})
FLOAT_CAST = "float"  # `float("inf")` of a constant: a number
# Class methods that build a torch module around a tensor they are given: the module is where that tensor is
PRETRAINED_MODULE_CONSTRUCTORS = frozenset({"torch.nn.Embedding.from_pretrained",
                                            "torch.nn.EmbeddingBag.from_pretrained"})
# Class methods that library base classes give a project's model class, each building an instance of that class
# from saved weights (Lightning's `Net.load_from_checkpoint(path)`, Hugging Face's `Net.from_pretrained(name)`):
# its keyword arguments go to the class's `__init__`, save those that place it (on the cpu without them)
INHERITED_CONSTRUCTORS = frozenset({"load_from_checkpoint", "from_pretrained", "from_config", "from_single_file"})
PLACING_KEYWORDS = frozenset({"map_location", "device_map", "device"})
# numpy functions that only slice their argument (its `.shape`, `np.swapaxes`, then `ary[a:b]`): a tensor comes
# back as tensors on its device, never through numpy (stylegan-t's `np.array_split(images, n)`)
NUMPY_SPLITS = frozenset({"numpy.array_split", "numpy.split"})
# numpy functions that, given an object with a method of their name, call it (numpy's `_wrapfunc`): `np.squeeze(t)`
# is `t.squeeze()`, a tensor where `t` is (udacity's dog_app: `np.squeeze(pred.eq(...)).cpu().numpy()`).
# Only without further arguments: `np.transpose(t, (1, 2, 0))` fails in Tensor.transpose and converts `t`.
NUMPY_TENSOR_METHODS = frozenset({"numpy.squeeze"})
# numpy functions that build an array (on the host): `torch.tensor(np.stack(rows))` is a cpu tensor with dimensions.
HOST_ARRAY_FUNCTIONS = frozenset(
    {"numpy." + name for name in (
        "array", "asarray", "ascontiguousarray", "stack", "vstack", "hstack", "concatenate", "zeros", "ones",
        "empty", "full", "zeros_like", "ones_like", "arange", "linspace", "load", "transpose", "reshape", "expand_dims",
        "squeeze", "clip", "exp", "log", "abs", "sqrt", "where", "random.rand", "random.randn", "random.uniform",
        "random.normal", "random.randint", "random.permutation", "fromfile", "frombuffer", "cumprod", "cumsum",
        "copy", "tile", "repeat", "flip", "sort", "maximum", "minimum")}
)
# numpy's elementwise math: of numbers, a number (`torch.tensor(np.log(init_temperature))` is 0-dim)
NUMPY_ELEMENTWISE = frozenset({"numpy." + name for name in ("exp", "log", "abs", "sqrt", "clip", "maximum", "minimum")})
# Methods of a numpy array (or of a Python list made on the host) that give an array with dimensions back:
# `torch.tensor(np.cumprod(1 - betas).astype(np.float32))` is a cpu table, not a 0-dim tensor.
HOST_ARRAY_METHODS = frozenset(
    {"astype", "reshape", "copy", "flatten", "ravel", "transpose", "squeeze", "clip", "cumsum", "cumprod",
     "round", "swapaxes"})

# The methods a numpy array shares with a tensor: any other tensor method called on a value says it is a tensor
ARRAY_SHARED_METHODS = frozenset(
    {"all", "any", "argmax", "argmin", "argsort", "clip", "conj", "cumprod", "cumsum", "diagonal", "dot", "flatten",
     "item", "max", "mean", "min", "nonzero", "prod", "put", "ravel", "repeat", "reshape", "resize", "round", "sort",
     "squeeze", "std", "sum", "swapaxes", "take", "tolist", "trace", "transpose", "var", "view", "copy", "astype"})
# ... but numpy's `view` takes a dtype: given sizes (`x.view(-1, 3)`), only a tensor's does
VIEW_METHOD = "view"

# `x.device`, `x.is_cuda`, `x.type()`, `x.get_device()`: what says where a tensor is (`a.type() == b.type()`
# holds where the two share a device: the type string names it)
PLACE_ATTRIBUTES = frozenset({"device", "is_cuda"})
PLACE_METHODS = frozenset({"type", "get_device"})

# `torch.is_tensor(x)` / `isinstance(x, torch.Tensor)`: the tests that say whether x is a tensor.
IS_TENSOR_FUNCTION = "torch.is_tensor"
TENSOR_CLASS = "torch.Tensor"
# What `isinstance(x, T)` answers for x a (tensor, host array, module, plain function, list or tuple, dict); a list
# and a tuple are told apart no further (`isinstance(xs, (list, tuple))` of a list the caller built)
TYPE_TEST_ANSWERS = {
    TENSOR_CLASS: (True, False, False, False, False, False), "numpy.ndarray": (False, True, False, False, False, False),
    "torch.nn.Module": (False, False, True, False, False, False),
    "torch.nn.modules.module.Module": (False, False, True, False, False, False),
    "list": (False, False, False, False, True, False), "tuple": (False, False, False, False, True, False),
    "dict": (False, False, False, False, False, True),
    **{name: (False, False, False, False, False, False)
       for name in ("set", "str", "bytes", "int", "float", "bool", "PIL.Image.Image",
                    "PIL.Image")},  # (`type(x) is Image`, the module: never true)
}
# What a checkpoint callback of the run's trainer wrote (Lightning's ModelCheckpoint): a load of it reads back
# what this run saved, on this machine
RUN_CHECKPOINT_PATHS = frozenset({"best_model_path", "last_model_path"})
# Bases a module class may mix in that make no parameter, buffer or submodule
STATELESS_BASES = frozenset({"abc.ABC", "typing.Generic", "typing.Protocol", "object"})
SCALAR_TESTS = frozenset({"numpy.isscalar"})  # `np.isscalar(x)`: False for a tensor and for an array

# What nn.ModuleList (and its subclasses) shares with a Python list: the container then holds the module(s).
MODULE_CONTAINER_METHODS = frozenset({"append", "extend", "insert"})
MODULE_CONTAINER_EXTEND = "extend"  # given a sequence of modules

# The `dtype=` of a numpy array of Python objects, which holds tensors as they are (no conversion).
OBJECT_ARRAY_DTYPES = frozenset({"object", "np.object_", "numpy.object_", "O"})
DTYPE_KEYWORD = "dtype"
# the keywords a sampling factory draws from: `torch.normal(mean=m, std=s)` is where m and s are
SAMPLED_FROM_KEYWORDS = ("mean", "std")
# `x.get_device()`: -1 on the cpu, the GPU's index on one
DEVICE_INDEX_METHOD = "get_device"
# A forward's parameter so named holds sizes (`img_size`, `out_shape`), not a tensor
SIZE_NAME_SUFFIXES = ("size", "shape")
# torch's dtypes: `x.dtype is torch.float32` holds only for a tensor (a numpy array's dtype is numpy's)
TORCH_DTYPES = frozenset(f"torch.{name}" for name in (
    "float32 float float64 double float16 half bfloat16 int64 long int32 int int16 short int8 uint8 bool "
    "complex64 complex128").split())

CLOCKS = frozenset(
    {"time.time", "time.perf_counter", "time.monotonic", "time.perf_counter_ns", "time.time_ns",
     "time.monotonic_ns", "timeit.default_timer"}
)

# Ops whose result's size depends on the data (`x.nonzero()`, `torch.masked_select(x, m)`, `x[x > 0]`): CUDA
# copies the count to the host, so the host waits for the GPU's queue there, as at `.item()`
DATA_DEPENDENT_SIZE = frozenset({"nonzero", "masked_select", "unique", "unique_consecutive", "argwhere"})
# Reductions whose second positional argument is an order, not a dim (`torch.norm(x, 2)`: one number)
ORDER_SECOND_REDUCTIONS = frozenset({"norm"})
# Views of a tensor's own data: what brings one to the host brings the tensor (`lens.data.tolist()`)
SAME_DATA_VIEWS = frozenset({"data", "detach"})
# Calls that run a model and then write its weights out (copied to the host: they wait for the GPU's work)
WEIGHT_EXPORTS = frozenset({"torch.onnx.export"})
# Words in the name of what turns text into tensors (`self.tokenizer(captions)`, `tokenizer.encode(text)`): what it
# is given is text (a DataLoader's batch of strings is a list of them, on no device)
TEXT_ENCODERS = ("tokeniz",)
# Attributes whose assignment replaces a tensor's storage: `x.data = x.data.cuda()` moves x in place
STORAGE_ATTRIBUTES = frozenset({"data"})
# Python's counting loop (`for epoch in range(epochs)`): its body runs at least once
COUNTING_RANGE = "range"
# Words a script that may run on a GPU writes somewhere (lowercased bytes): one with none of them trains on the cpu
# (not "mps" nor "xla": parts of other words, `plt.xlabel`; a script on those backends names its `device` anyway)
GPU_WORDS = (b"cuda", b"device", b"gpu", b"accelerat")
# Library ops whose output size the data decides: on a GPU they copy a mask or a count to the host, waiting for
# the queue (torchvision's CUDA nms reads its suppression mask on the cpu)
DATA_DEPENDENT_LIBRARY_OPS = frozenset({"torchvision.ops.nms", "torchvision.ops.batched_nms",
                                        "torchvision.ops.boxes.nms", "torchvision.ops.boxes.batched_nms"})
# Distributions check their arguments when built (`validate_args`, on unless Python runs with -O): a constraint
# read as a Python bool, so building one of GPU tensors waits for the queue (`Categorical(probs)` each step)
VALIDATING_CLASSES = ("torch.distributions.",)
VALIDATE_KEYWORD = "validate_args"
# The names of the calls that switch the default device (`torch.set_default_device`, the older
# `torch.set_default_tensor_type`), as the prepass's called names hold them
TENSOR_TYPE_SWITCH = "set_default_tensor_type"
SETS_DEFAULT_DEVICE = frozenset({"set_default_device", TENSOR_TYPE_SWITCH})
# The standard library's copies: a new object where the original is (a module's copy is another module, moved
# apart from it: `Worker(copy.deepcopy(self.net))`)
COPIES = frozenset({"copy.deepcopy", "copy.copy"})
# Hugging Face Accelerate: `accelerator = Accelerator()` places what `prepare` is given on `accelerator.device`, the
# GPU where there is one (modules moved in place; a loader's batches sent there as they come); the object is a path
# its attributes extend. `Accelerator(cpu=True)` or `device_placement=False` places nothing: not modelled.
ACCELERATOR_CLASSES = frozenset({"accelerate.Accelerator", "accelerate.accelerator.Accelerator"})
ACCELERATOR = "accelerate.Accelerator()"
ACCELERATOR_DEVICE = ACCELERATOR + ".device"
ACCELERATOR_PREPARE = frozenset(ACCELERATOR + name for name in (".prepare", ".prepare_model", ".prepare_data_loader"))
ACCELERATOR_SAME = frozenset(ACCELERATOR + name for name in (
    ".unwrap_model", ".gather", ".gather_for_metrics", ".reduce", ".pad_across_processes"))  # (where it was)
ACCELERATOR_UNPLACED = {"cpu": True, "device_placement": False}  # keyword: the value that places nothing
# Progress bars: iterating one yields what iterating the iterable it wraps yields (`for x, y in tqdm(loader):`)
PROGRESS_BARS = frozenset({"tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm",
                           "tqdm.autonotebook.tqdm", "tqdm.rich.tqdm", "rich.progress.track"})
PROGRESS_BAR_ITERABLE = "iterable"  # its keyword (`sequence` for rich's track)
# Functions that never return.
NO_RETURN = frozenset(
    {"sys.exit", "exit", "quit", "os._exit", "pytest.skip", "pytest.fail", "pytest.exit", "os.abort"}
)
SKIP_DECORATORS = frozenset({"pytest.mark.skipif", "unittest.skipIf"})
SKIP_UNLESS_DECORATORS = frozenset({"unittest.skipUnless"})

# Command-line options that choose a device: a file with one means to run without a GPU too.
DEVICE_OPTIONS = frozenset(
    {"cpu", "no_cuda", "nocuda", "cuda", "use_cuda", "device", "devices", "gpu", "gpus", "gpu_id", "gpu_ids",
     "no_gpu", "use_gpu", "ngpu", "n_gpu", "num_gpus", "accelerator", "no_accel", "no_mps", "mps", "use_cpu",
     "cpu_only", "force_cpu", "local_rank"}
)

# Options and variables that number GPUs (`-g/--gpus N`, "number of gpus per node"; `--local_rank`, the GPU of
# a process that a launcher started): switches for several GPUs more often than for the cpu, so weak evidence
# that a file means to run without one (a device variable's weight).
GPU_COUNT_NAMES = frozenset({"gpus", "ngpu", "n_gpu", "num_gpus", "n_gpus", "local_rank"})
# Booleans named like these mean "use the GPU" (True) or "stay on the cpu" (False).
FLAG_NAMES = frozenset({"cuda", "use_cuda", "gpu", "use_gpu", "on_gpu", "is_cuda", "with_cuda", "has_cuda",
                        "cuda_available", "USE_CUDA", "CUDA", "GPU", "USE_GPU",
                        # a GPU option the user sets: an index (-1: the cpu) or a count (0: the cpu)
                        "gpu_id", "gpus", "n_gpu", "ngpu", "num_gpus", "n_gpus",
                        # a list of GPU ids the user gives (`--gpu_ids 0,1`; `-1`, an empty list: the cpu)
                        "gpu_ids"})
NEGATIVE_FLAG_NAMES = frozenset({"no_cuda", "cpu", "no_gpu", "use_cpu", "cpu_only", "force_cpu"})


def counts_gpus(name: str) -> bool:
    """A GPU option that is a count (`n_gpu`, a config's `NUM_GPUS`): 0 means the cpu."""
    return name.lower() in _GPU_COUNTS


_GPU_COUNTS = frozenset({"n_gpu", "ngpu", "num_gpus", "n_gpus", "gpus"})


def flag_polarity(name: str) -> Optional[bool]:
    """True for a name that means "use the GPU" (`use_cuda`, a config's `NUM_GPUS`), False for one that means
    "stay on the cpu" (`no_cuda`), None for any other: case aside, as configs spell them in capitals."""
    for spelled in (name, name.lower()):
        if spelled in FLAG_NAMES:
            return True
        if spelled in NEGATIVE_FLAG_NAMES:
            return False
    words = set(name.lower().split("_"))  # `cuda_flag`, `enable_gpu`, `train_on_gpu`: a switch by its words
    if words & _GPU_WORDS and words <= _GPU_WORDS | _SWITCH_WORDS:
        return True
    return None


_GPU_WORDS = frozenset({"cuda", "gpu", "gpus"})
# What a `--device` option holds for CUDA in the words scripts use besides torch's own (`if args.device == "gpu":`)
GPU_OPTION_TEXTS = frozenset({"gpu"})
# (not `multi_gpu`: false is one GPU, not the cpu)
_SWITCH_WORDS = frozenset({"use", "flag", "enabled", "enable", "on", "with", "has", "is", "available", "train",
                           "run", "do", "want", "mode"})
# `x.is_cuda`: where x is a tensor, a question about where it is, not a switch
TENSOR_PLACEMENT_TEST = "is_cuda"

# Parameters (or variables) named like these hold a dtype.
DTYPE_NAME_HINTS = ("dtype", "type", "precision", "half", "float")


def looks_like_device_name(name: str) -> bool:
    low = name.lower().rsplit(".", 1)[-1]
    if any(h in low for h in DTYPE_NAME_HINTS):
        return False
    return low in ("device", "dev", "devices") or low.endswith("device") or low.startswith("device")

# A checkpoint file named as torch.hub names published weights (`vgg16-397923af.pth`: the model's name, then
# the first hex digits of the file's SHA-256, which `load_state_dict_from_url(check_hash=True)` checks).
# The model zoos that publish them (torchvision, timm, the papers' releases) save them from the cpu.
RELEASED_CHECKPOINT_NAME = r"[A-Za-z0-9_.]+-[0-9a-f]{8,64}\.(?:pth|pt|bin|ckpt)"

# Losses of other libraries that take some inputs on any device, as torch's own do (position, keyword): warp-ctc's
# CTCLoss wants its labels and lengths as cpu IntTensors beside cuda activations (crnn.pytorch's train.py).
LIBRARY_LOSSES: Dict[str, Tuple[Tuple[int, str], ...]] = {
    "warpctc_pytorch.CTCLoss": ((1, "labels"), (2, "act_lens"), (3, "label_lens")),
}
# Lightning's module base classes, and the hooks to which its Trainer hands batches already moved to the module's
# device (`training_step(self, batch, batch_idx)`): their inputs are tensors that follow the module, as forward's are
LIGHTNING_MODULES = frozenset({"lightning.LightningModule", "pytorch_lightning.LightningModule",
                               "lightning.pytorch.LightningModule"})
LIGHTNING_STEPS = frozenset({"training_step", "validation_step", "test_step", "predict_step"})
# a hook only a LightningModule defines: a class with it, whose base comes through a module nobody can see, is one
LIGHTNING_MODULE_HOOK = "configure_optimizers"
# how a name that holds a dtype ends (`dtype`, `target_dtype`, `self.weight_dtype`): `x.to(dtype)` keeps the device
DTYPE_NAME_SUFFIX = "dtype"
# the class of every tensor: `isinstance(x, torch.Tensor)` of a tensor holds
TENSOR_CLASSES = frozenset({"torch.Tensor"})
# moving a written file into place (`os.replace(tmp, path)` after `torch.save(state, tmp)`): the target is saved too
FILE_MOVES = frozenset({"os.rename", "os.replace", "shutil.move"})
# how a name that holds one element's position ends (`step_index`, `idx`): `table[self.step_index]` is one element
INDEX_NAME_SUFFIXES = ("index", "idx")
# decorators that make a method an attribute (`@property`, `@x.setter`, `@functools.cached_property`)
PROPERTY_DECORATORS = ("property", "setter", "cached_property")
# Optimizers of other libraries (`transformers.AdamW`, apex's `FusedAdam`): built like torch.optim's, launching nothing
OPTIMIZER_NAMESPACES = ("torch.optim", "torch.optim.sparse_adam")
OTHER_OPTIMIZERS = frozenset({"Adam", "AdamW", "SGD", "Adafactor", "Lamb", "LAMB", "FusedAdam", "FusedLAMB",
                              "FusedSGD", "AdamW8bit", "Adam8bit", "Lion", "RAdam", "AdaBelief", "Ranger"})
# `tokenizer(texts, return_tensors="pt")` (Hugging Face tokenizers, processors, feature extractors): cpu tensors
TORCH_TENSORS_KEYWORD = ("return_tensors", "pt")
# Model zoos whose builders return a new module on the cpu (`torchvision.models.resnet18(weights=...)`,
# `timm.create_model(name)`); their helpers that are no builders (`get_model_weights`, `list_models`) are left out
MODEL_ZOO_PREFIXES = ("torchvision.models.",)
MODEL_ZOO_BUILDERS = frozenset({"timm.create_model"})
MODEL_ZOO_HELPERS = ("get_", "list_", "create_feature_extractor", "get_graph_node_names")
# Hugging Face's model classes, built from the hub (`AutoModelForCausalLM.from_pretrained(name)`,
# `BertModel.from_pretrained(name)`, `AutoModel.from_config(config)`): a new module on the cpu, unless a keyword
# places it (`device_map=`, `device=`) or quantizes it for a GPU (GPU_QUANTIZATION_KEYWORDS, `quantization_config=`).
# Their tokenizers, configs and processors share the constructors and are no modules.
HUB_MODEL_LIBRARIES = ("transformers.",)
HUB_MODEL_CONSTRUCTORS = frozenset({"from_pretrained", "from_config"})
HUB_NON_MODEL_SUFFIXES = ("Tokenizer", "TokenizerFast", "Config", "Processor", "FeatureExtractor", "ImageProcessor",
                          "Pipeline")
HUB_PLACING_KEYWORDS = frozenset({"device_map", "device", "quantization_config", "load_in_4bit", "load_in_8bit"})
# Launchers' set-up helpers that select the rank's GPU whatever the backend (mmcv's and mmengine's `init_dist`
# call `torch.cuda.set_device`): what follows them runs with GPUs
GPU_DIST_SETUP = frozenset({"init_dist"})
CUDA_NAMESPACE = "torch.cuda"  # a wrapper of one call in it is an API for GPU mode (definitions.wraps_one_cuda_call)
PROPERTY_GETTERS = frozenset({"property", "cached_property"})  # read as their getter's result
# libraries whose prepared loaders put each batch on the device (accelerate's `prepare`, Lightning's Trainer): a batch
# item the code does not move itself may be there already
BATCH_PLACING_LIBRARIES = frozenset({"accelerate", "lightning", "pytorch_lightning"})
# the files torchvision's MNIST-like datasets cache their cpu tensors in (its releases before 0.8 wrote them)
DATASET_CACHE_FILES = ("processed/training.pt", "processed/test.pt")
# methods of other libraries' models that wait for the GPU work they queue before they return: transformers'
# `generate` reads on the host, every step, whether all sequences have finished (a clock read after it is fair)
WAITING_LIBRARY_METHODS = frozenset({"generate"})
# the tensor-only names that are attributes, read without a call (`x.shape`, `x.T`): the others are methods, and a bare
# read of one (`model.dim`, a width) is some object's own attribute
TENSOR_ONLY_PROPERTIES = frozenset({"shape", "ndim", "is_cuda", "T", "mT"})
# Python's math module: its functions read a tensor as a float (`math.sqrt(var)`), a copy to the host
PYTHON_MATH = "math."
