"""False errors of the fourth precision survey (issue 17 item 9), each with a buggy twin that must stay reported.

- a device move made to meet a sibling of a batch (`p.add_(stash.cuda())`) says that sibling is on the device:
  the "batch moved, so it is host data" inference must not put it on the cpu (NVIDIA/apex sparsity/asp.py);

Each case's `# expect:` markers are exactly the device errors (DEV1xx, DEV401) devlint must report (none: it
must stay silent); the GPU-assumption warnings are not what these cases are about."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

CASES = {
    # a registry of (label, weight, host copy): the copy goes to the GPU to be added into its weight
    "a_move_made_to_meet_a_sibling_keeps_the_sibling_off_the_host": """
import torch
class Keeper:
    kept = []
    @classmethod
    def give_back(cls):
        for label, weight, spare in cls.kept:
            weight.sub_(spare.cuda())
            spare.fill_(0)
""",
    # twin: a batch whose input the code moves, and whose target it combines on the host with a device output
    "twin_an_unmet_sibling_of_a_moved_batch_member_is_on_the_host": """
import torch
from mydata import pairs
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = torch.nn.Linear(4, 1).to(device)
for inputs, target in pairs():
    guess = net(inputs.to(device))
    err = guess.sub(target)  # expect: DEV101
""",
    # twin: the move meets another value, not the sibling, which stays on the host
    "twin_a_move_that_meets_something_else": """
import torch
from mydata import pairs
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = torch.nn.Linear(4, 1).to(device)
for inputs, target in pairs():
    guess = net(inputs.to(device))
    guess.add_(inputs.to(device))
    err = guess.sub(target)  # expect: DEV101
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source, ("DEV1", "DEV4")) == expected_findings(source)
