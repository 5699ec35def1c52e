"""DDP where each rank uses cuda:LOCAL_RANK, but one tensor is made on the default `cuda` (cuda:0)."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group(backend="nccl" if torch.cuda.is_available() else "gloo")
local_rank = int(os.environ["LOCAL_RANK"])
device = torch.device(f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu")
model = DDP(nn.Linear(4, 2).to(device), device_ids=[local_rank] if device.type == "cuda" else None)
x = torch.randn(8, 4).to(device)
mask = torch.ones(8, 2, device="cuda" if torch.cuda.is_available() else "cpu")
loss = (model(x) * mask).sum()
loss.backward()
print(f"rank {dist.get_rank()} loss {loss.item():.4f}")
dist.destroy_process_group()
