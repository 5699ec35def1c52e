"""A DistributedDataParallel script as nanoGPT and the DDP tutorial write it (run with torchrun)."""
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

backend = "nccl" if torch.cuda.is_available() else "gloo"
dist.init_process_group(backend=backend)
rank, local_rank = dist.get_rank(), int(os.environ["LOCAL_RANK"])
device = torch.device(f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu")
if device.type == "cuda":
    torch.cuda.set_device(device)
torch.manual_seed(0)
model = DDP(nn.Linear(4, 2).to(device), device_ids=[local_rank] if device.type == "cuda" else None)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
torch.manual_seed(1 + rank)
for step in range(3):
    x, y = torch.randn(8, 4).to(device), torch.randn(8, 2).to(device)
    loss = (model(x) - y).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    total = loss.detach().clone()
    dist.all_reduce(total)
    if rank == 0:
        print(f"step {step} loss {total.item() / dist.get_world_size():.4f}")
dist.destroy_process_group()
