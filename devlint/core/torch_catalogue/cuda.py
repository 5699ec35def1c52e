"""Catalogue records: torch.cuda, torch.accelerator, other backends and distributed training."""

from __future__ import annotations

from typing import List

from devlint.core.torch_catalogue.records import MPS, XPU, Api, Device, Role, Sync, fn
from devlint.core.torch_catalogue.tensors import TENSOR_TYPE_NAMES

_SAFE, _ZERO, _NO_OP = Role.CUDA_SAFE, Role.SIM_ZERO_MEMORY, Role.SIM_NO_OP


def _cuda(names: str, **fields: object) -> List[Api]:
    """One record per `torch.cuda.NAME`, with the same fields."""
    return [fn(f"torch.cuda.{name}", **fields) for name in names.split()]


CUDA_RECORDS: List[Api] = [
    # fine without a GPU
    fn("torch.cuda.is_available", roles=_SAFE | Role.AVAILABILITY | Role.DEVICE_CHECK),
    fn("torch.cuda.is_initialized", roles=_SAFE | Role.AVAILABILITY),
    fn("torch.cuda.device_count", roles=_SAFE | Role.DEVICE_COUNT),
    *_cuda("amp is_bf16_supported get_arch_list nvtx", roles=_SAFE),
    # memory statistics answer 0 (an empty dict) without CUDA
    *_cuda("memory_allocated max_memory_allocated memory_reserved max_memory_reserved memory_cached "
           "max_memory_cached", roles=_SAFE | _ZERO),
    fn("torch.cuda.memory_stats", roles=_SAFE),
    *_cuda("manual_seed manual_seed_all empty_cache seed seed_all ipc_collect", roles=_SAFE | _NO_OP),
    *_cuda("init reset_accumulated_memory_stats", roles=_NO_OP),
    # fail on a machine without a GPU (DEV203)
    fn("torch.cuda.synchronize", needs_gpu=True, syncs=Sync.YES),
    fn("torch.cuda.Event", needs_gpu=True, roles=Role.CUDA_EVENT),
    fn("torch.cuda.set_device", needs_gpu=True, roles=Role.SET_DEVICE),
    *_cuda("reset_peak_memory_stats reset_max_memory_allocated set_per_process_memory_fraction", needs_gpu=True,
           roles=_NO_OP),
    *_cuda("Stream current_device get_device_name get_device_properties get_device_capability memory_summary "
           "mem_get_info current_stream default_stream stream graph CUDAGraph set_stream utilization "
           "get_rng_state set_rng_state", needs_gpu=True),
    fn("torch.cuda.current_stream().synchronize", syncs=Sync.YES),
    fn("torch.cuda.event.Event", roles=Role.CUDA_EVENT),
    fn("torch.cuda.device", "torch.cuda.device_of", roles=Role.DEVICE_CONTEXT),
    # legacy CUDA tensor types: create on the current GPU (and assume one)
    *(fn(f"torch.cuda.{kind}Tensor", device=Device.CURRENT_GPU) for kind in TENSOR_TYPE_NAMES),
]

ACCELERATOR_RECORDS: List[Api] = [
    fn("torch.accelerator.is_available", roles=Role.AVAILABILITY | Role.DEVICE_CHECK),
    fn("torch.backends.cudnn.is_available", roles=Role.AVAILABILITY),
    fn("torch.accelerator.current_accelerator", roles=Role.CURRENT_ACCELERATOR | Role.DEVICE_CHECK),
    # the same wait on whichever accelerator runs, with no GPU assumed (torch.mps.synchronize() waits for
    # mps alone: it leaves CUDA's queue running)
    fn("torch.accelerator.synchronize", syncs=Sync.YES, roles=Role.BACKEND_SYNCHRONIZE),
    # checks for another accelerator: they choose a device, but guard no CUDA code
    fn("torch.backends.mps.is_available", "torch.mps.is_available", accelerator=MPS, roles=Role.DEVICE_CHECK),
    fn("torch.backends.mps.is_built", accelerator=MPS),
    fn("torch.xpu.is_available", accelerator=XPU, roles=Role.DEVICE_CHECK),
    fn("torch.set_default_device", roles=Role.SET_DEFAULT_DEVICE),
    fn("torch.set_default_tensor_type", roles=Role.SET_DEFAULT_TENSOR_TYPE),
]

DISTRIBUTED_RECORDS: List[Api] = [
    # `init_process_group(backend="nccl")`: NCCL runs on CUDA only: what follows has a GPU
    fn("torch.distributed.init_process_group", roles=Role.MULTI_GPU | Role.INIT_PROCESS_GROUP),
    fn("torch.distributed.fsdp.FullyShardedDataParallel", "torch.distributed.run", "torch.multiprocessing.spawn",
       roles=Role.MULTI_GPU),
]
