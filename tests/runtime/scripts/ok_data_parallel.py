"""DataParallel where there are several GPUs, as the classic ImageNet and DCGAN examples do."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(6, 12), nn.Tanh(), nn.Linear(12, 3)).to(device)
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs, labels = torch.randn(32, 6), torch.randint(0, 3, (32,))
for epoch in range(3):
    x, y = inputs.to(device), labels.to(device)
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
