"""Per-batch losses kept as GPU tensors, averaged by numpy at the end of the epoch."""
import numpy as np
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
losses = []
for step in range(3):
    prediction = torch.randn(4, device=device)
    losses.append(prediction.pow(2).mean())
print(f"mean loss {np.mean(losses):.4f}")
