"""The rest of the catalogue: discarded moves, loads, CUDA API, cpu-only arguments, events, timing, scalars.

Each case is a snippet whose `# expect:` markers are exactly what devlint must report (none: it
must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

CASES = {
    # coqui TTS's ForwardSumLoss (survey 5): CTC takes cpu targets and lengths beside cuda log-probs, as a
    # module and as a function; its log-probs must still be where the other operands of a loss are
    "ctc_targets_and_lengths_on_the_cpu": """
import torch
import torch.nn.functional as F
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
ctc = nn.CTCLoss(zero_infinity=True)
log_probs = torch.randn(50, 2, 20).log_softmax(2).to(device)
targets = torch.arange(1, 31).unsqueeze(0).repeat(2, 1)
lengths = torch.full((2,), 50, dtype=torch.long)
a = ctc(log_probs, targets, lengths, torch.full((2,), 30, dtype=torch.long))
b = F.ctc_loss(log_probs, targets, input_lengths=lengths, target_lengths=torch.full((2,), 30))
scores = torch.randn(4, 20).to(device)
c = F.nll_loss(scores, torch.randint(0, 20, (4,)))  # expect: DEV101
d = ctc(torch.randn(50, 2, 20), targets, lengths, lengths) + scores.sum()  # expect: DEV101
""",
    "discarded_move_vs_module": """
import torch
from torch import nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 2)
model.to(device)
x = torch.randn(2, 2)
x.to(device)  # expect: DEV103
model(x)  # expect: DEV102
""",
    "load_map_location": """
import torch
a = torch.load("a.pt")  # expect: DEV202
b = torch.load("b.pt", map_location="cpu")
if torch.cuda.is_available():
    c = torch.load("c.pt")
""",
    "cuda_api_safe_calls": """
import torch
torch.cuda.manual_seed_all(0)
torch.cuda.empty_cache()
n = torch.cuda.device_count()
print(torch.cuda.memory_allocated())  # memory statistics answer 0 without CUDA
print(torch.cuda.get_device_name())  # expect: DEV203
print(torch.cuda.is_available())
""",
    "pack_padded": """
import torch
from torch.nn.utils.rnn import pack_padded_sequence
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(3, 5, 2, device=device)
mask = torch.ones(3, 5, device=device)
lengths = mask.sum(1).long()
p = pack_padded_sequence(x, lengths, batch_first=True)  # expect: DEV106
q = pack_padded_sequence(x, lengths.cpu(), batch_first=True)
r = pack_padded_sequence(x, [5, 4, 3], batch_first=True)
""",
    "legacy_cuda_types_gpu_first": """
import torch
a = torch.cuda.FloatTensor(3)  # expect: DEV204
torch.set_default_tensor_type("torch.cuda.FloatTensor")
b = torch.randn(2).type(torch.cuda.FloatTensor)
Tensor = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor
""",
    "legacy_cuda_type_in_a_portable_script": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(2, device=device)
bias = torch.cuda.FloatTensor([0.5, 0.5])  # expect: DEV201
y = x.to(device) + bias
Tensor = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor
z = Tensor(2).to(device)
""",
    "events": """
import torch
if torch.cuda.is_available():
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    end.record()
    torch.cuda.synchronize()
    ms = start.elapsed_time(end)
    end.record()
    ms = start.elapsed_time(end)  # expect: DEV302
""",
    "timing_with_item_sync": """
import time
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(64, 64, device=device)
t0 = time.time()
loss = (x @ x).sum().item()
t1 = time.time()
print(t1 - t0)
""",
    "unknown_never_conflicts": """
import torch
from mylib import make_batch, build_model
model = build_model()
x = make_batch()
y = model(x) + torch.zeros(3)
z = x + torch.ones(3)
""",
    "scalars_mix_freely": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(3, device=device)
lr = torch.tensor(0.1)
y = x * lr + 2.0
total = x.sum()
z = x / total
w = x * torch.tensor(3)
""",
    "result_of_a_bad_operation_is_reported_once": """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
a = torch.ones(3)
b = torch.ones(3, device=device)
c = a + b  # expect: DEV101
d = c * b
e = torch.cat([c, b])
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)
