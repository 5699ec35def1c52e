"""A compiled model and a compiled function trained on whatever device there is."""
import torch
from torch import nn

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).to(device)
compiled = torch.compile(model, backend="eager")


@torch.compile(backend="eager")
def target(x):
    return x.sin().sum(dim=1, keepdim=True)


optimizer = torch.optim.SGD(compiled.parameters(), lr=0.05)
for step in range(3):
    x = torch.randn(16, 4, device=device)
    loss = (compiled(x) - target(x)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.5f}")
print(sorted(compiled.state_dict())[0])
