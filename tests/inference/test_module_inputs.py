"""What a module is given by name is a tensor.

`model(input_ids=ids)` or `model.forward(input_ids=ids)`, with `model` used as only a module can be
(`model.eval()`), tells that `ids` is a tensor, whatever made it (a custom collate_fn nobody can read): a
bare `ids.to(device)` then throws the moved copy away (DEV103). What a module is given positionally may be
an object that moves itself in place (a graph library's batch), and a mapping handed over as `**inputs` (a
tokenizer's BatchEncoding) is one: those stay silent. The same holds for a custom collate_fn's batch of known
device: it may be such an object, unless the function uses it as only a tensor can be used (`batch.shape`).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations


import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, REALWORLD

PRELUDE = """\
import torch
from torch.utils.data import DataLoader
from text_data import pad_batch
"""

CASES = {
    "a_named_module_input_is_a_tensor": PRELUDE + """
def validate(net, device, samples):
    net.eval()
    for step, tokens in enumerate(DataLoader(samples, batch_size=8, collate_fn=pad_batch)):
        tokens.to(device)  # expect: DEV103
        logits = net(input_ids=tokens)
""",
    "forward_spelled_out_names_its_inputs_too": PRELUDE + """
def validate(net, device, samples):
    net.eval()
    for tokens in DataLoader(samples, batch_size=8, collate_fn=pad_batch):
        tokens.to(device)  # expect: DEV103
        logits = net.forward(input_ids=tokens, labels=tokens)
""",
    "twin_the_moved_copy_is_kept": PRELUDE + """
def validate(net, device, samples):
    net.eval()
    for step, tokens in enumerate(DataLoader(samples, batch_size=8, collate_fn=pad_batch)):
        tokens = tokens.to(device)
        logits = net(input_ids=tokens)
""",
    # a BatchEncoding's `.to()` moves it in place and returns it
    "twin_a_mapping_handed_over_whole": PRELUDE + """
def validate(net, device, samples):
    net.eval()
    for batch in DataLoader(samples, batch_size=8, collate_fn=pad_batch):
        batch.to(device)
        logits = net(**batch)
""",
    # a graph batch moves itself in place: given positionally, it says nothing of what it is
    "twin_a_positional_input_may_be_an_object": PRELUDE + """
def validate(net, device, samples):
    net.eval()
    for graph in DataLoader(samples, batch_size=8, collate_fn=pad_batch):
        graph.to(device)
        logits = net(graph)
""",
    # without evidence that `net` is a module, what it is given by name says nothing
    "twin_a_callable_not_known_as_a_module": PRELUDE + """
def validate(net, device, samples):
    for tokens in DataLoader(samples, batch_size=8, collate_fn=pad_batch):
        tokens.to(device)
        logits = net(input_ids=tokens)
""",
    # a custom collate_fn's batch may be an object that moves itself, unless the function uses it as a tensor
    "a_collated_batch_used_as_a_tensor": PRELUDE + """
def collate(items):
    return torch.tensor(items)
def validate(net, device, samples):
    for batch in DataLoader(samples, batch_size=8, collate_fn=collate):
        batch.to(device)  # expect: DEV103
        print(batch.shape)
""",
    "twin_a_collated_batch_of_unknown_kind": PRELUDE + """
def collate(items):
    return torch.tensor(items)
def validate(net, device, samples):
    for batch in DataLoader(samples, batch_size=8, collate_fn=collate):
        batch.to(device)
        print(batch)
""",
    # a module handed to another by name is a module (a teacher given to a distillation loss)
    "twin_a_module_given_by_name_stays_a_module": PRELUDE + """
def distill(student, teacher, device, samples):
    student.eval()
    teacher.eval()
    teacher.to(device)
    for tokens in DataLoader(samples, batch_size=8, collate_fn=pad_batch):
        logits = student(tokens, teacher=teacher)
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)




@pytest.mark.skipif(REALWORLD is None, reason="../shared/realworld is not next to this checkout")
def test_real_excerpt():
    """GPT2-chitchat's evaluate(): the custom collate_fn's token ids, `input_ids.to(device)` thrown away,
    then `model.forward(input_ids=input_ids)`."""
    source = (REALWORLD / "066_OTHER_DEVICE_gpt2chitchat_eval_discarded_to.py").read_text()
    assert (37, "DEV103") in found(source)
