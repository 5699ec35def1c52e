"""Catalogue records: torch functions and Tensor methods (factories, ops, host conversions, queries)."""

from __future__ import annotations

from typing import List

from devlint.core.torch_catalogue.records import Api, Device, Host, Role, Simulated, Sync, fn, method

FACTORY, LIKE, NEW = Device.FACTORY, Device.LIKE, Device.NEW

# Legacy tensor types and the dtype each creates.
TENSOR_TYPE_DTYPES = {"Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16",
                      "Long": "int64", "Int": "int32", "Short": "int16", "Char": "int8", "Byte": "uint8",
                      "Bool": "bool"}
TENSOR_TYPE_NAMES = tuple(TENSOR_TYPE_DTYPES)

FACTORY_RECORDS: List[Api] = [
    # create on cpu unless given device=; `takes_device`: every overload takes device=
    *(fn(f"torch.{name}", device=FACTORY, takes_device=True) for name in (
        "zeros ones empty full rand randn randint randperm arange linspace logspace eye "
        "empty_strided tril_indices triu_indices hann_window hamming_window bartlett_window "
        "blackman_window kaiser_window").split()),
    fn("torch.asarray", device=FACTORY, takes_device=True, roles=Role.FOLLOWS_DATA),
    fn("torch.tensor", "torch.as_tensor", device=FACTORY, takes_device=True,
       roles=Role.SCALAR_FROM_NUMBER | Role.FOLLOWS_DATA),
    fn("torch.scalar_tensor", device=FACTORY, takes_device=True, roles=Role.SCALAR_FROM_NUMBER),
    fn("torch.empty_permuted", device=FACTORY, takes_device=True),
    # (`torch.complex`, `torch.polar` are element-wise over their tensors: no factories)
    fn("torch.range", device=FACTORY),
    fn("torch.Tensor", device=FACTORY, roles=Role.LEGACY_CPU),
    # built where their indices and values are, unless given device=
    fn("torch.sparse_coo_tensor", "torch.sparse_csr_tensor", device=FACTORY, takes_device=True,
       roles=Role.FOLLOWS_DATA | Role.FROM_INDICES),
    fn("torch.normal", device=FACTORY, roles=Role.SAMPLES),
    *(fn(f"torch.{name}", roles=Role.SAMPLES) for name in ("poisson", "bernoulli")),
    # (its count is a number: never an operand, whatever a caller passes)
    fn("torch.multinomial", roles=Role.SAMPLES, any_device_args=((1, "num_samples"),)),
    # a count, a Python int (`F.one_hot(t, vocab)`): a parameter passed there is no operand
    fn("torch.nn.functional.one_hot", any_device_args=((1, "num_classes"),)),
    *(fn(f"torch.{kind}Tensor", device=FACTORY, roles=Role.LEGACY_CPU) for kind in TENSOR_TYPE_NAMES),
    *(fn(f"torch.{name}_like", device=LIKE) for name in (
        "zeros", "ones", "empty", "full", "rand", "randn", "randint", "empty_strided")),
    fn("torch.from_numpy", "torch.frombuffer", "torch.utils.data.default_collate", device=Device.CPU_RESULT),
    # a shape, as a tensor: sizes live on the host whatever the input's device
    fn("torch.onnx.operators.shape_as_tensor", "torch._shape_as_tensor", device=Device.CPU_RESULT),
    fn("torch.autograd.Variable", "torch.autograd.variable.Variable", device=Device.IDENTITY),
    # (`x.new(sizes)`, the legacy constructor, too: uninitialised, where `x` is)
    method("new_zeros", "new_ones", "new_empty", "new_full", "new", device=NEW, roles=Role.TENSOR_ONLY),
    method("new_tensor", device=NEW, roles=Role.TENSOR_ONLY | Role.RT_CROSS_DEVICE),
]

_CTC_TARGETS = ((1, "targets"), (2, "input_lengths"), (3, "target_lengths"))

FUNCTION_RECORDS: List[Api] = [
    *(fn(f"torch.{name}", roles=Role.TAKES_SEQUENCE) for name in (
        "cat concat concatenate stack hstack vstack dstack column_stack row_stack block_diag cartesian_prod "
        "atleast_1d atleast_2d atleast_3d einsum").split()),
    fn("torch.meshgrid", roles=Role.TAKES_SEQUENCE | Role.RETURNS_TUPLE),
    # expanded views of each input where it is: devices may differ (a cpu tensor as a shape donor)
    fn("torch.broadcast_tensors", roles=Role.NOT_OP),
    *(fn(f"torch.{name}", roles=Role.RETURNS_TUPLE) for name in (
        "max min sort mode median unique unbind where nonzero lu lu_unpack qr svd eig "
        "slogdet std_mean var_mean aminmax histogram").split()),
    # (their count is a Python int: no operand, whatever its parameter's name suggests)
    fn("torch.topk", "torch.kthvalue", roles=Role.RETURNS_TUPLE, any_device_args=((1, "k"),)),
    fn("torch.chunk", roles=Role.RETURNS_TUPLE, any_device_args=((1, "chunks"),)),
    fn("torch.split", roles=Role.RETURNS_TUPLE, any_device_args=((1, "split_size_or_sections"),)),
    # (an output size or a scale: numbers, read on the host, whatever holds them: STCN's `size` from a batch)
    fn("torch.nn.functional.interpolate", "torch.nn.functional.upsample",
       any_device_args=((1, "size"), (2, "scale_factor"))),
    # (an empty placeholder is passed there with `use_separate_proj_weight=True`, which never reads it: WavLM)
    fn("torch.nn.functional.multi_head_attention_forward", roles=Role.RETURNS_TUPLE,
       any_device_args=((5, "in_proj_weight"),)),
    # compute on no tensor
    *(fn(f"torch.{name}", roles=Role.NOT_OP) for name in (
        "is_tensor numel manual_seed seed set_grad_enabled no_grad enable_grad inference_mode "
        "set_printoptions get_default_dtype set_default_dtype is_floating_point is_complex typename "
        "dtype Size finfo iinfo set_num_threads get_num_threads use_deterministic_algorithms "
        "set_float32_matmul_precision equal allclose isclose testing.assert_close").split()),
    # the __torch_function__ protocol: asks whether an argument overrides it, or hands the call to that override
    # (which calls the function back): stores nothing, combines nothing
    *(fn(f"{space}.{name}", roles=Role.NOT_OP) for space in ("torch.overrides", "torch.nn.functional")
      for name in "handle_torch_function has_torch_function has_torch_function_unary "
                  "has_torch_function_variadic".split()),
    # (a TorchScript archive, too, restores its tensors where they were saved)
    fn("torch.load", "torch.jit.load", roles=Role.NOT_OP | Role.LOAD),
    fn("torch.save", "torch.jit.save", roles=Role.NOT_OP | Role.SAVE),
    fn("torch.device", roles=Role.NOT_OP | Role.DEVICE_CONSTRUCTOR),
    fn("torch.compile", "torch.jit.script", roles=Role.NOT_OP | Role.MODULE_WRAPPER),
    fn("torch.jit.trace", "torch.onnx.export", roles=Role.NOT_OP, trace=(0, 1)),
    method("add_graph", trace=(0, 1)),  # SummaryWriter.add_graph
    fn("torch.nn.utils.rnn.pack_padded_sequence", cpu_only_arg=(1, "lengths")),
    fn("torch.nn.utils.rnn.pack_sequence", cpu_only_arg=(None, "lengths")),
    # CTC takes its targets and lengths on the cpu beside cuda log-probs (cuDNN's path even wants them
    # there); checked on an H200, torch 2.11
    fn("torch.nn.functional.ctc_loss", "torch.nn.CTCLoss", any_device_args=_CTC_TARGETS),
]

_META = Role.METADATA
_QUERY = Role.RT_QUERY
_EVIDENCE = Role.TENSOR_ONLY

METHOD_RECORDS: List[Api] = [
    # tensor -> Python value, and an implicit synchronization
    method("item", host=Host.VALUE, syncs=Sync.YES, roles=_META | _EVIDENCE | Role.RT_CROSS_DEVICE | Role.REDUCES),
    method("tolist", host=Host.LIST, syncs=Sync.YES, roles=_META | _EVIDENCE | Role.RT_CROSS_DEVICE),
    method("numpy", host=Host.NUMPY, syncs=Sync.YES, roles=_EVIDENCE),
    # moves
    method("to", device=Device.MOVE, roles=Role.CROSS_DEVICE),
    method("cuda", device=Device.TO_GPU, needs_gpu=True, roles=Role.CROSS_DEVICE),
    method("cpu", device=Device.TO_CPU, syncs=Sync.YES, roles=Role.CROSS_DEVICE),
    method("type_as", device=LIKE, roles=Role.CROSS_DEVICE | Role.RT_CROSS_DEVICE),
    method("set_", roles=Role.CROSS_DEVICE),
    method("copy_", "index_put_", "reshape_as", "resize_as_", roles=Role.CROSS_DEVICE | Role.RT_CROSS_DEVICE),
    method("expand_as", "view_as", roles=Role.CROSS_DEVICE | Role.RT_CROSS_DEVICE | _EVIDENCE),
    method("synchronize", syncs=Sync.YES),  # Stream.synchronize, Event.synchronize
    method("nonzero", syncs=Sync.RUNTIME, roles=_EVIDENCE),
    method("is_nonzero", "__bool__", syncs=Sync.RUNTIME, roles=Role.RT_CROSS_DEVICE),
    method("__int__", "__float__", "__index__", syncs=Sync.RUNTIME),
    # metadata
    method("size", "dim", "ndimension", "numel", roles=_META | _QUERY | _EVIDENCE),
    method("nelement", "element_size", "is_contiguous", "stride", "data_ptr", "storage_offset",
           "is_floating_point", "is_complex", "__len__", roles=_META | _QUERY),
    method("get_device", roles=_META | Role.RT_ANSWERED, simulated=Simulated.DEVICE_INDEX),
    method("is_pinned", roles=_META | Role.RT_ANSWERED, simulated=Simulated.FALSE),
    method("register_hook", roles=_META | Role.RT_HOOK),
    method("share_memory_", roles=_META | Role.RT_CROSS_DEVICE),
    method("backward", roles=_META, launches=True),
    method("step", launches=True),  # an optimizer's step
    method("type", "retain_grad", "q_scale", "q_zero_point", "nbytes", "itemsize", "is_shared",
           "untyped_storage", "storage", "_typed_storage", roles=_META),  # a storage is no tensor
    method("pin_memory", roles=Role.RT_ANSWERED, simulated=Simulated.RECEIVER),
    method("record_stream", roles=Role.RT_ANSWERED, simulated=Simulated.NOTHING),
    method("register_post_accumulate_grad_hook", roles=Role.RT_HOOK),
    method("is_signed", "is_inference", "_set_grad_enabled", "__get__", roles=_QUERY),
    method("requires_grad_", roles=_QUERY | Role.KEEPS_MODULE | Role.KEEPS_TENSOR),
    # reductions, and methods that return several tensors when given arguments
    method("sum", "mean", "norm", "prod", "std", "var", "all", "any", "argmax", "argmin", "logsumexp", "dot",
           "nansum", "nanmean", "amax", "amin", roles=Role.REDUCES),
    method("max", "min", "median", roles=Role.REDUCES | Role.RETURNS_TUPLE),
    method("sort", "kthvalue", "mode", "lu", "qr", "svd", "slogdet", roles=Role.RETURNS_TUPLE),
    # (given sizes: an int or a list of them, a collated batch's `lengths`, on the host as a rule: no operand)
    method("chunk", "split", roles=Role.RETURNS_TUPLE | Role.CROSS_DEVICE),
    method("topk", "unbind", roles=Role.RETURNS_TUPLE | _EVIDENCE),
    # a 0-dim tensor stays 0-dim
    method("detach", "clone", "abs", "sqrt", "exp", "log", "neg", "clamp", "clip", "clamp_min", "clamp_max", "pow",
           "floor", "ceil", "sign", "sigmoid", "tanh", "reciprocal", "rsqrt", roles=Role.KEEPS_SCALAR),
    method("squeeze", "contiguous", "long", "int", roles=Role.KEEPS_SCALAR | _EVIDENCE | Role.SHAPE_ONLY),
    # tensor attributes: the device ones are the device table's to answer
    method("device", roles=Role.RT_DESCRIPTOR, simulated=Simulated.DEVICE),
    method("is_cuda", roles=Role.RT_DESCRIPTOR | _EVIDENCE, simulated=Simulated.IS_CUDA),
    method("is_cpu", roles=Role.RT_DESCRIPTOR, simulated=Simulated.IS_CPU),
    method("data", "grad", "T", "mT", "real", "imag", roles=Role.RT_DESCRIPTOR | Role.SAME_DEVICE_ATTRIBUTE),
    method("H", "mH", "_base", roles=Role.RT_DESCRIPTOR),
    # evidence that a name is a tensor
    method("shape", "view", "unsqueeze", "reshape", "permute", "transpose", "expand", "ndim",
           roles=_EVIDENCE | Role.SHAPE_ONLY),
    method("masked_fill", "masked_fill_", "fill_", "zero_", "index_select", "narrow", "scatter_", "index_add_",
           "bool", "byte", roles=_EVIDENCE),
    # the runtime checker: calls that may take tensors on several devices
    method("__setitem__", "_has_compatible_shallow_copy_type", "_copy_from", "_to_copy", "__reduce_ex__",
           "__deepcopy__", "_is_same_size", "is_set_to", "__repr__", "__format__", "__str__", "equal",
           roles=Role.RT_CROSS_DEVICE),
    # packed sequences keep their lengths and batch sizes on the cpu by design
    method("_pack_padded_sequence", "_pad_packed_sequence", roles=Role.RT_CROSS_DEVICE | Role.RT_FIRST_OUTPUT_ONLY),
    # functional forms of modules with parameters
    method("linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "embedding", "embedding_bag", "batch_norm", "layer_norm", "group_norm",
           "instance_norm", "_convolution", "convolution", "prelu", "rms_norm", roles=Role.RT_MODULE_FUNCTION),
    method("lstm", "gru", "rnn_tanh", "rnn_relu", roles=Role.RT_MODULE_FUNCTION | Role.RT_PACKED_RNN),
]
