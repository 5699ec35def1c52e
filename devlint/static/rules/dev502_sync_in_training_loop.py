from __future__ import annotations

from typing import Iterable

from devlint.core.facts import HostSync
from devlint.static.rules.base import Verdict, Rule


class SyncInTrainingLoop(Rule):
    """The training loop waits for the GPU on every step.

    ## What it does
    Flags `.item()`, `.cpu()`, `.tolist()` and `print()` of a GPU tensor that
    run on every iteration of a training loop (a loop over a `DataLoader`, or
    one that calls `backward()`/`step()`), outside any condition such as
    `if step % 100 == 0`. Off by default; enable with `--select DEV5`.

    ## Why is this bad?
    Each one blocks Python until the GPU has finished all queued work, so the
    cpu cannot queue the next step ahead: the GPU idles between steps.
    Accumulate on the device (`total += loss.detach()`) and read it every N
    steps.
    """

    code = "DEV502"
    name = "sync-in-training-loop"
    severity = "info"
    default_enabled = False
    facts = (HostSync,)

    INVALID = (
        """\
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
for step in range(100):
    x = torch.randn(8, 4, device=device)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())  # expect: DEV502
""",
    )
    VALID = (
        """\
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    x = torch.randn(8, 4, device=device)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(loss.item())
""",
    )

    def check(self, fact: HostSync) -> Iterable[Verdict]:
        if not (fact.in_training_loop and fact.every_step):
            return
        yield Verdict(
            fact.node,
            f"`{fact.how}` on `{fact.value.label}` waits for the GPU on every training step",
            why=(self.placed(fact.value.label, fact.value.value),) + self.called_from(fact),
            fix="keep the value on the device and read it every N steps",
        )
