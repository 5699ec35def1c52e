"""The current pytorch/examples device choice, and labels that never reach the accelerator."""
import torch
from torch import nn

device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
model = nn.Linear(4, 3).to(device)
images = torch.randn(8, 4).to(device)
labels = torch.randint(0, 3, (8,))
loss = nn.functional.cross_entropy(model(images), labels)
print(f"loss {loss.item():.4f}")
