"""False findings of the thirteenth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- iterating an object of a class of the project binds what its `__iter__` yields: a prefetching loader whose
  generator moves each batch to the GPU yields GPU batches, so the loop's extra `y.cuda()` says nothing of `x`
  (d-li14/mobilenetv2.pytorch's imagenet.py: 2 false DEV102); one that yields the DataLoader's batches as they
  are yields cpu ones.

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

CASES = {
    "a_prefetching_loader_yields_batches_on_the_device": PREFETCHED.format(
        yielded="x.to(device, non_blocking=True), y.to(device, non_blocking=True)", mark=""),
    "twin_a_wrapper_that_yields_the_batches_as_they_are": PREFETCHED.format(
        yielded="x, y", mark="  # expect: DEV102"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
