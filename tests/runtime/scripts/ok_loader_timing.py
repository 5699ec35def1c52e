"""An epoch timed honestly (synchronized) while a DataLoader with workers and pinned memory feeds it."""
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(TensorDataset(torch.randn(128, 8), torch.randint(0, 2, (128,))), batch_size=32,
                        num_workers=2, pin_memory=True)
    model = nn.Linear(8, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if device.type == "cuda":
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - start
    print(f"loss {loss.item():.4f}")
