"""False findings of the twenty-third precision survey (issue 17 item 9), each beside a twin that must stay reported.

- `nn.DataParallel(model)` of a model out of a factory nobody can follow (`models.create(name)`, Cysu/open-reid;
  `eval("models." + name + ".get_net")(...)`, HRNet's demo) still scatters its inputs itself: a cpu batch given to
  it is no crash (4 false DEV102); the same model moved without the wrapper is given the cpu batch as it is.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

FACTORY_MODEL = """
import numpy as np
import torch
import torch.nn as nn
from reid import models


def extract(model, arr):
    x = torch.from_numpy(arr)
    return model(x){mark}


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = models.create("resnet50")
    model = {wrapped}.to(device)
    extract(model, np.zeros((3, 4), dtype=np.float32))


main()
"""

CASES = {
    "a_factory_model_in_data_parallel": FACTORY_MODEL.format(wrapped="nn.DataParallel(model)", mark=""),
    "a_factory_model_moved_as_it_is": FACTORY_MODEL.format(wrapped="model", mark="  # expect: DEV102"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
