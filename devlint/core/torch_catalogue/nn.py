"""Catalogue records: torch.nn modules and their methods, data pipelines."""

from __future__ import annotations

from typing import List

from devlint.core.torch_catalogue.records import Api, Member, Role, fn, method

_BASE, _CONTAINER, _PARAMS = Role.MODULE_BASE, Role.MODULE_CONTAINER, Role.HAS_PARAMETERS
_DATA_PARALLEL = Role.MODULE_WRAPPER | Role.MOVES_INPUTS | Role.MULTI_GPU

MODULE_RECORDS: List[Api] = [
    fn("torch.nn.Module", "torch.nn.modules.module.Module", "lightning.LightningModule",
       "pytorch_lightning.LightningModule", "lightning.pytorch.LightningModule", roles=_BASE),
    fn("torch.nn.Sequential", "torch.nn.ModuleList", roles=_BASE | _CONTAINER | _PARAMS),
    fn("torch.nn.ModuleDict", roles=_BASE | _CONTAINER | _PARAMS | Role.NAMED_CONTAINER),
    fn("torch.nn.Parameter", "torch.nn.parameter.Parameter", roles=Role.NOT_MODULE | Role.PARAMETER_CLASS),
    fn("torch.nn.init", "torch.nn.functional", "torch.nn.utils", "torch.nn.parallel", "torch.nn.ParameterList",
       "torch.nn.ParameterDict", roles=Role.NOT_MODULE),
    fn("torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel",
       roles=_DATA_PARALLEL),
    fn("torch.nn.SyncBatchNorm.convert_sync_batchnorm", "torch.ao.quantization.quantize_dynamic",
       roles=Role.MODULE_WRAPPER),
    # torch.nn classes that own parameters or buffers: everything else (losses, activations, pooling, dropout)
    # runs on whatever device its input is on
    *(fn(f"torch.nn.{name}", roles=_PARAMS) for name in (
        "Linear Bilinear LazyLinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d "
        "LazyConv1d LazyConv2d LazyConv3d BatchNorm1d BatchNorm2d BatchNorm3d SyncBatchNorm LayerNorm GroupNorm "
        "InstanceNorm1d InstanceNorm2d InstanceNorm3d RMSNorm Embedding EmbeddingBag RNN LSTM GRU RNNCell LSTMCell "
        "GRUCell Transformer TransformerEncoder TransformerDecoder TransformerEncoderLayer TransformerDecoderLayer "
        "MultiheadAttention PReLU").split()),
    # a module returns itself
    method("eval", roles=Role.KEEPS_MODULE | Role.MODULE_ONLY),
    method("float", "double", "half", roles=Role.KEEPS_MODULE | Role.KEEPS_TENSOR | Role.KEEPS_SCALAR),
    method("bfloat16", roles=Role.KEEPS_MODULE | Role.KEEPS_TENSOR),
    method("train", "share_memory", "apply", "zero_grad", roles=Role.KEEPS_MODULE),
    # only an nn.Module has these
    method("parameters", roles=Role.MODULE_ONLY, member=Member.PARAMETERS),
    method("named_parameters", roles=Role.MODULE_ONLY, member=Member.NAMED_PARAMETERS),
    method("buffers", roles=Role.MODULE_ONLY, member=Member.EACH),
    method("children", "modules", roles=Role.MODULE_ONLY, member=Member.SUBMODULES),
    method("named_modules", "named_children", roles=Role.MODULE_ONLY, member=Member.NO_DEVICE),
    method("register_buffer", roles=Role.MODULE_ONLY, member=Member.BUFFER),
    # `self.__setattr__(name, fc)` is what `self.fc3 = fc` calls: a submodule, as `add_module` registers it
    method("add_module", "register_module", "__setattr__", roles=Role.MODULE_ONLY, member=Member.SUBMODULE),
    method("named_buffers", "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
           roles=Role.MODULE_ONLY),
    method("register_parameter", member=Member.PARAMETER),
    method("load_state_dict", "extra_repr", member=Member.NO_DEVICE),
]

DATA_RECORDS: List[Api] = [
    fn("torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "torch.utils.data.Sampler",
       "torch.utils.data.dataset.Dataset", "torch.utils.data.sampler.Sampler", "torch.utils.data.BatchSampler",
       roles=Role.DATASET_BASE),
    fn("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader", roles=Role.LOADER,
       cpu_only_options=(("pin_memory", "pins (`pin_memory=True`)"),
                         ("num_workers", "sends to worker processes (`num_workers > 0`)"))),
    fn("torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset", roles=Role.TENSOR_DATASET),
]
