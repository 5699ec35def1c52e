"""Catalogue records: torch.cuda, torch.accelerator, other backends and distributed training."""

from __future__ import annotations

from typing import List

from devlint.core.torch_catalogue.records import MPS_TYPE, XPU_TYPE, Api, Device, Role, Simulated, Sync, fn
from devlint.core.torch_catalogue.tensors import TENSOR_TYPE_NAMES

_SAFE = Role.CUDA_SAFE
S = Simulated


def _cuda(names: str, **fields: object) -> List[Api]:
    """One record per `torch.cuda.NAME`, with the same fields."""
    return [fn(f"torch.cuda.{name}", **fields) for name in names.split()]


def _accelerator(names: str, **fields: object) -> List[Api]:
    return [fn(f"torch.accelerator.{name}", **fields) for name in names.split()]


CUDA_RECORDS: List[Api] = [
    # fine without a GPU
    fn("torch.cuda.is_available", roles=_SAFE | Role.AVAILABILITY | Role.DEVICE_CHECK, simulated=S.TRUE),
    fn("torch.cuda.is_initialized", roles=_SAFE | Role.AVAILABILITY, simulated=S.TRUE),
    fn("torch.cuda.device_count", roles=_SAFE | Role.DEVICE_COUNT, simulated=S.GPU_COUNT),
    fn("torch.cuda.is_bf16_supported", roles=_SAFE, simulated=S.TRUE),
    *_cuda("amp get_arch_list nvtx", roles=_SAFE),
    # memory statistics answer 0 (an empty dict) without CUDA
    *_cuda("memory_allocated max_memory_allocated memory_reserved max_memory_reserved memory_cached "
           "max_memory_cached", roles=_SAFE, simulated=S.ZERO),
    fn("torch.cuda.memory_stats", roles=_SAFE, simulated=S.EMPTY_STATS),
    *_cuda("manual_seed manual_seed_all empty_cache seed seed_all ipc_collect", roles=_SAFE, simulated=S.NOTHING),
    *_cuda("init reset_accumulated_memory_stats set_rng_state_all", simulated=S.NOTHING),
    fn("torch.cuda.get_rng_state_all", simulated=S.RNG_STATES),
    # fail on a machine without a GPU (DEV203)
    fn("torch.cuda.synchronize", needs_gpu=True, syncs=Sync.YES, simulated=S.SYNCHRONIZE),
    fn("torch.cuda.Event", needs_gpu=True, roles=Role.CUDA_EVENT, simulated=S.EVENT),
    fn("torch.cuda.set_device", needs_gpu=True, roles=Role.SET_DEVICE, simulated=S.SET_INDEX),
    *_cuda("reset_peak_memory_stats reset_max_memory_allocated set_per_process_memory_fraction set_stream "
           "set_rng_state", needs_gpu=True, simulated=S.NOTHING),
    fn("torch.cuda.Stream", needs_gpu=True, simulated=S.STREAM),
    fn("torch.cuda.current_device", needs_gpu=True, simulated=S.CURRENT_INDEX),
    fn("torch.cuda.get_device_name", needs_gpu=True, simulated=S.DEVICE_NAME),
    fn("torch.cuda.get_device_properties", needs_gpu=True, simulated=S.PROPERTIES),
    fn("torch.cuda.get_device_capability", needs_gpu=True, simulated=S.CAPABILITY),
    fn("torch.cuda.memory_summary", needs_gpu=True, simulated=S.MEMORY_SUMMARY),
    fn("torch.cuda.mem_get_info", needs_gpu=True, simulated=S.MEMORY_INFO),
    fn("torch.cuda.current_stream", "torch.cuda.default_stream", needs_gpu=True, simulated=S.CURRENT_STREAM),
    fn("torch.cuda.stream", needs_gpu=True, simulated=S.STREAM_CONTEXT),
    fn("torch.cuda.get_rng_state", needs_gpu=True, simulated=S.RNG_STATE),
    *_cuda("graph CUDAGraph utilization", needs_gpu=True),
    fn("torch.cuda.current_stream().synchronize", syncs=Sync.YES),
    fn("torch.cuda.event.Event", roles=Role.CUDA_EVENT),
    fn("torch.cuda.device", roles=Role.DEVICE_CONTEXT, simulated=S.DEVICE_CONTEXT),
    fn("torch.cuda.device_of", roles=Role.DEVICE_CONTEXT, simulated=S.DEVICE_OF),
    # legacy CUDA tensor types: create on the current GPU (and assume one)
    *(fn(f"torch.cuda.{kind}Tensor", device=Device.CURRENT_GPU) for kind in TENSOR_TYPE_NAMES),
]

ACCELERATOR_RECORDS: List[Api] = [
    fn("torch.accelerator.is_available", roles=Role.AVAILABILITY | Role.DEVICE_CHECK, simulated=S.TRUE),
    fn("torch.backends.cudnn.is_available", roles=Role.AVAILABILITY),
    fn("torch.accelerator.current_accelerator", roles=Role.CURRENT_ACCELERATOR | Role.DEVICE_CHECK,
       simulated=S.CURRENT_ACCELERATOR),
    fn("torch.accelerator.device_count", simulated=S.GPU_COUNT),
    *_accelerator("current_device_index current_device_idx", simulated=S.CURRENT_INDEX),
    *_accelerator("set_device_index set_device_idx", simulated=S.SET_INDEX),
    fn("torch.accelerator.device_index", simulated=S.INDEX_CONTEXT),
    # the same wait on whichever accelerator runs, with no GPU assumed (torch.mps.synchronize() waits for
    # mps alone: it leaves CUDA's queue running)
    fn("torch.accelerator.synchronize", syncs=Sync.YES, roles=Role.BACKEND_SYNCHRONIZE, simulated=S.SYNCHRONIZE),
    fn("torch.accelerator.current_stream", simulated=S.CURRENT_STREAM),
    fn("torch.accelerator.get_memory_info", simulated=S.MEMORY_INFO),
    *_accelerator("memory_allocated max_memory_allocated memory_reserved max_memory_reserved", simulated=S.ZERO),
    fn("torch.accelerator.memory_stats", simulated=S.EMPTY_STATS),
    *_accelerator("set_stream empty_cache reset_peak_memory_stats reset_accumulated_memory_stats",
                  simulated=S.NOTHING),
    fn("torch.accelerator.get_device_capability", simulated=S.CAPABILITY_DICT),
    # checks for another accelerator: they choose a device, but guard no CUDA code
    fn("torch.backends.mps.is_available", "torch.mps.is_available", accelerator=MPS_TYPE, roles=Role.DEVICE_CHECK),
    fn("torch.backends.mps.is_built", accelerator=MPS_TYPE),
    fn("torch.xpu.is_available", accelerator=XPU_TYPE, roles=Role.DEVICE_CHECK),
    fn("torch.set_default_device", roles=Role.SET_DEFAULT_DEVICE),
    fn("torch.set_default_tensor_type", roles=Role.SET_DEFAULT_TENSOR_TYPE),
]

DISTRIBUTED_RECORDS: List[Api] = [
    # `init_process_group(backend="nccl")`: NCCL runs on CUDA only: what follows has a GPU
    fn("torch.distributed.init_process_group", roles=Role.MULTI_GPU | Role.INIT_PROCESS_GROUP),
    fn("torch.distributed.is_initialized", roles=Role.GROUP_INITIALIZED),
    fn("torch.distributed.get_world_size", roles=Role.WORLD_SIZE),
    fn("torch.distributed.fsdp.FullyShardedDataParallel", "torch.distributed.run", roles=Role.MULTI_GPU),
    fn("torch.multiprocessing.spawn", roles=Role.MULTI_GPU | Role.SPAWNS_WORKERS),
]
