"""semantics/host.py: numpy and friends, cpu-only arguments, host synchronisations."""

from devlint.core.facts import CpuOnlyArgument, HostConversion, HostSync
from tests.lint_helpers import infer

GPU = 'import torch\nimport numpy as np\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n' \
      'x = torch.ones(3, device=device)\n'


def test_numpy_of_a_gpu_tensor():
    _, facts = infer(GPU + "a = x.numpy()\nb = np.asarray(x)\nc = np.mean([x, x])\nd = x.cpu().numpy()\n")
    assert [f.how for f in facts if isinstance(f, HostConversion)] == [".numpy()", "np.asarray", "np.mean"]


def test_safe_numpy_calls_convert_nothing():
    _, facts = infer(GPU + "np.random.seed(0)\n")
    assert not [f for f in facts if isinstance(f, HostConversion)]


def test_item_and_print_wait_for_the_gpu():
    _, facts = infer(GPU + "v = x.sum().item()\nprint(x)\n")
    assert [f.how for f in facts if isinstance(f, HostSync)] == [".item()", "print"]


def test_lengths_must_be_on_the_cpu():
    _, facts = infer(GPU + """
from torch.nn.utils.rnn import pack_padded_sequence
lengths = torch.tensor([3, 2]).to(device)
packed = pack_padded_sequence(x, lengths)
ok = pack_padded_sequence(x, lengths.cpu())
""")
    assert len([f for f in facts if isinstance(f, CpuOnlyArgument)]) == 1
