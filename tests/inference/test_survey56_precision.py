"""False findings of the fifty-sixth and fifty-seventh precision surveys (issue 17 item 9), each beside a twin that
must stay reported.

Survey 57 (representation learning, multimodal and compressed models, pinned to 2695150: 1 false error of 1, 1 false
warning of 40):
- `model = models.vgg(cfg=checkpoint["cfg"])` after `optimizer = SGD(model.parameters())`: the name holds another
  model; the optimizer keeps the parameters it was built on, and its state is loaded where they are, whatever
  moves the new model after (filter-pruning-geometric-median's resume, 1 DEV108). `model = model.cuda()` and
  `model = DataParallel(model)` are the same model.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

RESUME = """
import torch
from torch import nn, optim
from torchvision import models

use_cuda = torch.cuda.is_available()


def run(resume_path):
    model = models.resnet18()
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    if resume_path:
        checkpoint = torch.load(resume_path, map_location="cpu")
        {rebind}
        model.load_state_dict(checkpoint["state_dict"])
        optimizer.load_state_dict(checkpoint["optimizer"]){mark}
        if use_cuda:
            model = model.cuda()
    return model, optimizer
"""


@pytest.mark.parametrize("rebind, mark", [
    # another model: the optimizer's state goes to the parameters it was built on, which nothing moves
    ("model = models.vgg16()", ""),
    # the same model, cast: still the optimizer's, its state loaded on the cpu, then moved
    ("model = model.float()", "  # expect: DEV108"),
    ("pass", "  # expect: DEV108"),
])
def test_an_optimizer_keeps_the_model_it_was_built_on(rebind, mark):
    source = RESUME.format(rebind=rebind, mark=mark)
    assert found(source) == expected_findings(source)
