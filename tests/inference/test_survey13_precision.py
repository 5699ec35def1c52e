"""False findings of the thirteenth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- iterating an object of a class of the project binds what its `__iter__` yields: a prefetching loader whose
  generator moves each batch to the GPU yields GPU batches, so the loop's extra `y.cuda()` says nothing of `x`
  (d-li14/mobilenetv2.pytorch's imagenet.py: 2 false DEV102); one that yields the DataLoader's batches as they
  are yields cpu ones.

- `criterion(out, y).data[0]` / `F.cross_entropy(out, y).data[0]`: a loss with its default reduction gives one
  number (0-dim), so the old idiom indexes a 0-dim tensor (a Python number on torch < 0.4; an IndexError since),
  as survey 11's `loss.data[0]` of a reduction did (code-of-learn-deep-learning-with-pytorch's char_rnn
  notebook, and the survey's three debatable DEV401 of the same idiom); `reduction="none"` keeps a tensor.

(The survey's crash, a `with` as a file's first statement under DEV204's fix, is tested in tests/test_fixes.py.)

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

PREFETCHED = """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Prefetched:
    def __init__(self, loader):
        self.loader = loader

    def __iter__(self):
        for x, y in self.loader:
            yield {yielded}


def main():
    model = nn.Linear(8, 2).to(device)
    loader = Prefetched(DataLoader(TensorDataset(torch.randn(16, 8), torch.randint(0, 2, (16,))), batch_size=4))
    for x, y in loader:
        y = y.to(device, non_blocking=True)
        out = model(x){mark}
        print(nn.functional.cross_entropy(out, y))


if __name__ == "__main__":
    main()
"""

LOSS_SUM = """
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 3).to(device)
criterion = nn.CrossEntropyLoss({options})
train_loss = 0
for step in range(3):
    x, y = torch.randn(8, 4).to(device), torch.randint(0, 3, (8,)).to(device)
    train_loss += {taken}
print(np.exp(train_loss / 3)){mark}
"""

CASES = {
    "a_loss_modules_0_dim_output_indexed_the_old_way_is_a_number": LOSS_SUM.format(
        options="", taken="criterion(model(x), y).data[0]", mark=""),
    "a_functional_losss_too": LOSS_SUM.format(options="", taken="F.cross_entropy(model(x), y).data[0]", mark=""),
    "twin_the_loss_tensor_itself": LOSS_SUM.format(options="", taken="criterion(model(x), y).data",
                                                   mark="  # expect: DEV401"),
    "twin_a_loss_without_reduction_keeps_one_per_element": LOSS_SUM.format(
        options='reduction="none"', taken="criterion(model(x), y).data[0]", mark="  # expect: DEV401"),
    "a_prefetching_loader_yields_batches_on_the_device": PREFETCHED.format(
        yielded="x.to(device, non_blocking=True), y.to(device, non_blocking=True)", mark=""),
    "twin_a_wrapper_that_yields_the_batches_as_they_are": PREFETCHED.format(
        yielded="x, y", mark="  # expect: DEV102"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
