"""What torch's API does to devices, as data.

The interpreter asks this table, by canonical dotted name (after import
aliases are resolved) or by method name, what a call does; rules never
hard-code API names.
"""

from __future__ import annotations

_TENSOR_TYPES = ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")

# Create a tensor on cpu unless given device= (or the default device is set).
FACTORIES = frozenset(
    "torch." + name
    for name in (
        "zeros ones empty full rand randn randint randperm arange range linspace logspace eye "
        "tensor as_tensor asarray empty_strided scalar_tensor tril_indices triu_indices "
        "hann_window hamming_window bartlett_window blackman_window kaiser_window "
        "sparse_coo_tensor sparse_csr_tensor complex polar normal Tensor"
    ).split()
) | frozenset(f"torch.{t}Tensor" for t in _TENSOR_TYPES)

# Factories that sample from tensors when given them (`torch.normal(mean, std)`): then on their device.
SAMPLING_FACTORIES = frozenset({"torch.normal", "torch.poisson", "torch.bernoulli", "torch.multinomial"})

# Factories whose result is 0-dim when given a single Python number.
SCALAR_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor", "torch.scalar_tensor"})

# Always on cpu, whatever the arguments.
CPU_RESULTS = frozenset({"torch.from_numpy", "torch.frombuffer", "torch.utils.data.default_collate"})

# Legacy CUDA tensor types: create on the current GPU (and assume one).
CUDA_TENSOR_TYPES = frozenset(f"torch.cuda.{t}Tensor" for t in _TENSOR_TYPES)

# Follow the device of their first argument.
LIKE_FACTORIES = frozenset(
    f"torch.{n}_like" for n in ("zeros", "ones", "empty", "full", "rand", "randn", "randint", "empty_strided")
)

# Methods that create on the receiver's device.
NEW_METHODS = frozenset({"new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"})

# Methods that keep the receiver (a module returns itself, a tensor a view or copy on its device).
SAME_DEVICE_METHODS_MODULE = frozenset(
    {"eval", "train", "float", "double", "half", "bfloat16", "requires_grad_", "share_memory", "apply",
     "zero_grad"}
)

# Tensor -> Python value (no device afterwards) and an implicit host synchronization.
HOST_SYNC_METHODS = frozenset({"item", "tolist"})
# Tensor -> numpy: fails on a cuda tensor.
HOST_CONVERSION_METHODS = frozenset({"numpy"})

# Tensor methods that return host metadata, not a tensor.
METADATA_METHODS = frozenset(
    {"size", "dim", "ndimension", "numel", "nelement", "element_size", "get_device", "is_contiguous",
     "stride", "data_ptr", "storage_offset", "is_floating_point", "is_complex", "type", "__len__",
     "backward", "register_hook", "retain_grad", "share_memory_", "tolist", "item",
     "q_scale", "q_zero_point", "nbytes", "itemsize", "is_pinned", "is_shared", "untyped_storage"}
)

# Return their (first) argument as it is, for device purposes.
IDENTITY_FUNCTIONS = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})

# Tensor methods that may cross devices by design, or read only the shape of their tensor argument.
CROSS_DEVICE_METHODS = frozenset({"copy_", "to", "cuda", "cpu", "type_as", "set_", "index_put_", "expand_as",
                                  "view_as", "reshape_as", "resize_as_"})

# Libraries that need an NVIDIA GPU to import or to do anything: code after their import runs with one.
CUDA_ONLY_LIBRARIES = frozenset({"tensorrt", "pycuda", "cupy", "cupyx", "torch_tensorrt"})

# Libraries whose classes are known (or are not modules): their CamelCase calls build no unknown module.
LIBRARY_PREFIXES = ("torch.", "numpy.", "scipy.", "pandas.", "matplotlib.", "PIL.", "cv2.", "sklearn.", "argparse.",
                    "collections.", "typing.", "pathlib.", "datetime.", "logging.", "enum.", "dataclasses.")

# Methods only an nn.Module has: calling one on a name is evidence it is a module.
MODULE_ONLY_METHODS = frozenset(
    {"eval", "parameters", "named_parameters", "modules", "named_modules", "children", "named_children",
     "buffers", "named_buffers", "register_buffer", "register_forward_hook", "register_forward_pre_hook",
     "register_full_backward_hook", "register_module", "add_module"}
)

# Attributes and methods only a tensor has: using one on a name is evidence it is a tensor.
TENSOR_ONLY_ATTRS = frozenset(
    {"size", "shape", "view", "ndimension", "dim", "numel", "unsqueeze", "squeeze", "reshape", "permute",
     "transpose", "item", "numpy", "tolist", "contiguous", "masked_fill", "masked_fill_", "expand", "ndim",
     "is_cuda", "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "fill_", "zero_",
     "index_select", "nonzero", "topk", "narrow", "view_as", "expand_as", "unbind", "scatter_", "index_add_",
     "long", "int", "bool", "byte"}
)

# Namespaces whose functions compute on tensors: `torch.X`, `torch.nn.functional.X`, ...
TORCH_OP_NAMESPACES = ("torch.", "torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.",
                       "torch.sparse.", "torch.autograd.")

# torch functions that take a list of tensors as their first argument.
SEQUENCE_OPS = frozenset(
    "torch." + n
    for n in "cat concat concatenate stack hstack vstack dstack column_stack row_stack block_diag cartesian_prod "
    "broadcast_tensors meshgrid atleast_1d atleast_2d atleast_3d einsum".split()
)

# torch functions that return a tuple of tensors on their input's device.
TUPLE_OPS = frozenset(
    "torch." + n
    for n in "max min sort topk kthvalue mode median unique split chunk unbind meshgrid broadcast_tensors "
    "where nonzero lu qr svd eig std_mean var_mean aminmax histogram".split()
)

# torch functions that do not compute on tensors (no device check, no tensor result).
NOT_OPS = frozenset(
    "torch." + n
    for n in "save load is_tensor numel manual_seed seed set_grad_enabled no_grad enable_grad inference_mode "
    "set_printoptions get_default_dtype set_default_dtype is_floating_point is_complex typename "
    "device dtype Size finfo iinfo compile jit.script jit.trace onnx.export set_num_threads get_num_threads "
    "use_deterministic_algorithms set_float32_matmul_precision equal allclose isclose testing.assert_close".split()
)

# --- the module API

MODULE_CLASSES_PREFIX = ("torch.nn.",)
MODULE_BASES = frozenset(
    {"torch.nn.Module", "torch.nn.modules.module.Module", "lightning.LightningModule",
     "pytorch_lightning.LightningModule", "lightning.pytorch.LightningModule", "torch.nn.Sequential",
     "torch.nn.ModuleList", "torch.nn.ModuleDict"}
)
NOT_MODULES = frozenset(
    {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.init", "torch.nn.functional",
     "torch.nn.utils", "torch.nn.parallel", "torch.nn.ParameterList", "torch.nn.ParameterDict"}
)
# Containers whose device is their members'.
MODULE_CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"})
# Wrappers that keep the wrapped module's device.
MODULE_WRAPPERS = frozenset(
    {"torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel",
     "torch.compile", "torch.jit.script",
     "torch.nn.SyncBatchNorm.convert_sync_batchnorm", "torch.ao.quantization.quantize_dynamic"}
)
# torch.nn classes that own parameters or buffers: everything else (losses, activations,
# pooling, dropout) runs on whatever device its input is on.
MODULES_WITH_PARAMETERS = frozenset(
    "torch.nn." + n
    for n in "Linear Bilinear LazyLinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d "
    "LazyConv1d LazyConv2d LazyConv3d BatchNorm1d BatchNorm2d BatchNorm3d SyncBatchNorm LayerNorm GroupNorm "
    "InstanceNorm1d InstanceNorm2d InstanceNorm3d RMSNorm Embedding EmbeddingBag RNN LSTM GRU RNNCell LSTMCell "
    "GRUCell Transformer TransformerEncoder TransformerDecoder TransformerEncoderLayer TransformerDecoderLayer "
    "MultiheadAttention PReLU Sequential ModuleList ModuleDict".split()
)
INPUT_MOVING_WRAPPERS = frozenset({"torch.nn.DataParallel", "torch.nn.parallel.DataParallel",
                                   "torch.nn.parallel.DistributedDataParallel"})
PARAMETER_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})

# Functions and methods that call a module on an example input: (module position, input position).
TRACE_CALLS = {
    "torch.jit.trace": (0, 1),
    "torch.onnx.export": (0, 1),
    "add_graph": (0, 1),  # SummaryWriter.add_graph
}

# --- data

# Subclassing these makes the cpu side of a data pipeline.
DATASET_BASES = frozenset({
    "torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "torch.utils.data.Sampler",
    "torch.utils.data.dataset.Dataset", "torch.utils.data.sampler.Sampler", "torch.utils.data.BatchSampler",
})
DATASET_PREFIXES = ("torchvision.datasets.", "torchaudio.datasets.", "torchtext.datasets.", "datasets.")

LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
TENSOR_DATASETS = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})

# --- CUDA assumptions

# Always fine without a GPU.
CUDA_SAFE = frozenset(
    "torch.cuda." + n
    for n in "is_available device_count manual_seed manual_seed_all empty_cache is_initialized seed seed_all "
    "ipc_collect amp is_bf16_supported get_arch_list nvtx "
    # memory statistics answer 0 (an empty dict) without CUDA
    "memory_allocated max_memory_allocated memory_reserved max_memory_reserved memory_cached max_memory_cached "
    "memory_stats".split()
)
AVAILABILITY = frozenset(
    {"torch.cuda.is_available", "torch.backends.cudnn.is_available", "torch.cuda.is_initialized",
     "torch.accelerator.is_available"}
)
# Checks for another accelerator: they choose a device, but guard no CUDA code.
ACCELERATOR_CHECKS = {
    "torch.backends.mps.is_available": "mps", "torch.backends.mps.is_built": "mps", "torch.mps.is_available": "mps",
    "torch.xpu.is_available": "xpu",
}
CURRENT_ACCELERATOR = frozenset({"torch.accelerator.current_accelerator"})
DEVICE_COUNT_CALLS = frozenset({"torch.cuda.device_count"})
# Fail on a machine without a GPU (DEV203).
CUDA_NEEDS_GPU = frozenset(
    "torch.cuda." + n
    for n in "synchronize Event Stream current_device get_device_name get_device_properties "
    "get_device_capability set_device reset_peak_memory_stats "
    "reset_max_memory_allocated memory_summary mem_get_info current_stream "
    "default_stream stream graph CUDAGraph set_stream utilization get_rng_state set_rng_state "
    "set_per_process_memory_fraction".split()
)
SYNCHRONIZE = frozenset({"torch.cuda.synchronize", "torch.cuda.current_stream().synchronize"})
# The same wait on whichever accelerator runs, with no GPU assumed (torch.mps.synchronize() waits for
# mps alone: it leaves CUDA's queue running).
BACKEND_SYNCHRONIZE = frozenset({"torch.accelerator.synchronize"})
# The namespaces `getattr(torch, device_type)` may name: the accelerator's module, whichever it is.
BACKEND_MODULES = frozenset({"cuda", "mps", "xpu", "cpu", "npu", "hpu", "mtia"})
CUDA_EVENT = frozenset({"torch.cuda.Event", "torch.cuda.event.Event"})
DEVICE_CONTEXTS = frozenset({"torch.cuda.device", "torch.cuda.device_of"})
SET_DEVICE = frozenset({"torch.cuda.set_device"})
SET_DEFAULT_DEVICE = frozenset({"torch.set_default_device"})
SET_DEFAULT_TENSOR_TYPE = frozenset({"torch.set_default_tensor_type"})

# --- checkpoints

LOAD = frozenset({"torch.load"})

# --- host conversion and CPU-only arguments

# Library functions that convert their tensor arguments to numpy (Tensor.__array__).
HOST_LIBRARY_PREFIXES = ("numpy.", "matplotlib.pyplot.", "sklearn.", "scipy.", "pandas.", "cv2.", "PIL.")
# numpy functions that do not convert their arguments.
HOST_LIBRARY_SAFE = frozenset(
    {"numpy.random.seed", "numpy.set_printoptions", "numpy.dtype", "numpy.float32", "numpy.int64",
     "matplotlib.pyplot.figure", "matplotlib.pyplot.show", "matplotlib.pyplot.savefig",
     "matplotlib.pyplot.title", "matplotlib.pyplot.xlabel", "matplotlib.pyplot.ylabel",
     "matplotlib.pyplot.legend", "matplotlib.pyplot.close", "matplotlib.pyplot.subplot"}
)
# Arguments that must live on the cpu: function -> (position, keyword).
CPU_ONLY_ARGS = {
    "torch.nn.utils.rnn.pack_padded_sequence": (1, "lengths"),
    "torch.nn.utils.rnn.pack_sequence": (None, "lengths"),
}

# --- timing

CLOCKS = frozenset(
    {"time.time", "time.perf_counter", "time.monotonic", "time.perf_counter_ns", "time.time_ns",
     "time.monotonic_ns", "timeit.default_timer"}
)
# Methods whose call waits for the GPU.
SYNC_METHODS = frozenset({"item", "tolist", "cpu", "numpy", "synchronize"})

# Modules whose functions never wait for the GPU (a call into any other code we cannot see may).
NEVER_SYNC_MODULES = frozenset(
    "time timeit os sys math random logging json re itertools functools collections typing pathlib "
    "datetime argparse copy warnings gc tqdm pickle shutil glob string textwrap numbers enum dataclasses "
    "torch print len range".split()
)

# Functions that never return.
NO_RETURN = frozenset(
    {"sys.exit", "exit", "quit", "os._exit", "pytest.skip", "pytest.fail", "pytest.exit", "os.abort"}
)
SKIP_DECORATORS = frozenset({"pytest.mark.skipif", "unittest.skipIf"})
SKIP_UNLESS_DECORATORS = frozenset({"unittest.skipUnless"})

# Canonical names for common aliases.
ALIASES = {
    "torch.nn.modules.module.Module": "torch.nn.Module",
    "torch.utils.data.dataloader.DataLoader": "torch.utils.data.DataLoader",
    "torch.nn.parallel.data_parallel.DataParallel": "torch.nn.DataParallel",
    "torch.nn.parallel.DataParallel": "torch.nn.DataParallel",
}

# Calls that check for an accelerator, and command-line options that choose one: a file with either
# means to run without a GPU too.
DEVICE_CHECKS = frozenset(
    {"torch.cuda.is_available", "torch.accelerator.is_available",
     "torch.accelerator.current_accelerator", "torch.backends.mps.is_available", "torch.xpu.is_available",
     "torch.mps.is_available"}
)
# Multi-GPU programs: GPU-first by design unless they also check for a GPU or take a device option.
MULTI_GPU = frozenset(
    {"torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel",
     "torch.distributed.init_process_group", "torch.distributed.fsdp.FullyShardedDataParallel",
     "torch.distributed.run", "torch.multiprocessing.spawn"}
)
# `init_process_group(backend="nccl")`: NCCL runs on CUDA only: what follows has a GPU.
INIT_PROCESS_GROUP = frozenset({"torch.distributed.init_process_group"})
DEVICE_OPTIONS = frozenset(
    {"cpu", "no_cuda", "nocuda", "cuda", "use_cuda", "device", "devices", "gpu", "gpus", "gpu_id", "gpu_ids",
     "no_gpu", "use_gpu", "ngpu", "n_gpu", "num_gpus", "accelerator", "no_accel", "no_mps", "mps", "use_cpu",
     "cpu_only", "force_cpu", "local_rank"}
)

# Booleans named like these mean "use the GPU" (True) or "stay on the cpu" (False).
FLAG_NAMES = frozenset({"cuda", "use_cuda", "gpu", "use_gpu", "on_gpu", "is_cuda", "with_cuda", "has_cuda",
                        "cuda_available", "USE_CUDA", "CUDA", "GPU", "USE_GPU"})
NEGATIVE_FLAG_NAMES = frozenset({"no_cuda", "cpu", "no_gpu", "use_cpu", "cpu_only", "force_cpu"})

# Parameters (or variables) named like these hold a device; like these, a dtype.
DEVICE_NAME_HINTS = ("device", "dev", "gpu", "rank", "cuda")
DTYPE_NAME_HINTS = ("dtype", "type", "precision", "half", "float")


def looks_like_device_name(name: str) -> bool:
    low = name.lower().rsplit(".", 1)[-1]
    if any(h in low for h in DTYPE_NAME_HINTS):
        return False
    return low in ("device", "dev", "devices") or low.endswith("device") or low.startswith("device")


# ---------------------------------------------------------------------------------------------------
# Runtime section (devlint/runtime): what the runtime checker and its simulated GPU need beyond the
# tables above. Names here are bare (the checker sees function objects, not dotted paths).

TENSOR_TYPE_NAMES = _TENSOR_TYPES
# torch dtype attribute of each legacy tensor type.
TENSOR_TYPE_DTYPES = {"Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16",
                      "Long": "int64", "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8",
                      "Bool": "bool"}
# Factories the simulated torch.set_default_device applies to (bare names of FACTORIES).
RUNTIME_FACTORIES = frozenset(name.split(".", 1)[1] for name in FACTORIES if not name.endswith("Tensor"))
# Calls that may take tensors on several devices: no device check (moves are handled apart).
RUNTIME_CROSS_DEVICE = (CROSS_DEVICE_METHODS | HOST_SYNC_METHODS) - {"to", "cuda", "cpu", "set_"} | frozenset({
    "__setitem__", "_has_compatible_shallow_copy_type", "_copy_from", "_to_copy", "new_tensor", "__reduce_ex__",
    "__deepcopy__", "_is_same_size", "is_set_to", "__repr__", "__format__", "__str__", "equal", "share_memory_",
    "is_nonzero", "__bool__",
    # packed sequences keep their lengths and batch sizes on the cpu by design
    "_pack_padded_sequence", "_pad_packed_sequence",
})
# Tensor -> Python value: an implicit synchronization with the GPU.
RUNTIME_SYNCS = HOST_SYNC_METHODS | frozenset({"__bool__", "nonzero", "is_nonzero", "__int__", "__float__",
                                               "__index__"})
# Functional forms of modules with parameters: a mismatch there is a module input on another device.
RUNTIME_MODULE_FUNCTIONS = frozenset({
    "linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "embedding", "embedding_bag", "batch_norm", "layer_norm", "group_norm", "instance_norm",
    "lstm", "gru", "rnn_tanh", "rnn_relu", "_convolution", "convolution", "prelu", "rms_norm",
})
# Recurrent kernels that take a PackedSequence's batch sizes (int64, on the cpu) beside GPU data.
RUNTIME_PACKED_RNNS = frozenset({"gru", "lstm", "rnn_tanh", "rnn_relu"})
# torch.cuda functions that answer 0 bytes, and those that do nothing, on a simulated GPU.
RUNTIME_CUDA_ZERO_MEMORY = frozenset({
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_cached",
    "max_memory_cached"})
RUNTIME_CUDA_NO_OPS = frozenset({
    "empty_cache", "reset_peak_memory_stats", "reset_max_memory_allocated", "reset_accumulated_memory_stats",
    "manual_seed", "manual_seed_all", "seed", "seed_all", "init", "ipc_collect",
    "set_per_process_memory_fraction"})
