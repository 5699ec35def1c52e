"""torch.multiprocessing.spawn, one process per GPU; rank 1 builds a tensor on the default `cuda`."""
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def run(rank: int, world_size: int) -> None:
    dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo", rank=rank, world_size=world_size)
    device = torch.device(f"cuda:{rank}" if torch.cuda.is_available() else "cpu")
    weights = torch.randn(4, device=device)
    offsets = torch.zeros(4, device="cuda" if torch.cuda.is_available() else "cpu")
    print(f"rank {rank} sum {(weights + offsets).sum().item():.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(29400 + os.getpid() % 1000))
    mp.spawn(run, args=(2,), nprocs=2)
