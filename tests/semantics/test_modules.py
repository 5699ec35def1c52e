"""semantics/modules.py: nn.Module construction, moves, members, wrappers and calls."""

from devlint.core.facts import ModuleCall
from devlint.core.values import CPU, SELECTED, Module, Tensor
from tests.lint_helpers import infer

SELECT = 'import torch\nfrom torch import nn\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'


def test_modules_start_on_the_cpu_and_move_in_place():
    names, _ = infer(SELECT + """
a = nn.Linear(2, 2)
b = nn.Linear(2, 2)
b.to(device)
c = nn.Linear(2, 2, device=device)
""")
    assert names["a"].where == CPU
    assert names["b"].where == SELECTED and names["b"].moved
    assert names["c"].where == SELECTED


def test_stateless_modules_run_anywhere():
    names, _ = infer(SELECT + "loss = nn.CrossEntropyLoss()\n")
    assert isinstance(names["loss"], Module) and names["loss"].stateless and names["loss"].where is None


def test_wrappers_keep_the_device_and_data_parallel_moves_inputs():
    names, _ = infer(SELECT + """
net = nn.Linear(2, 2).to(device)
dp = nn.DataParallel(net)
compiled = torch.compile(net)
""")
    assert names["dp"].where == SELECTED and names["dp"].moves_inputs
    assert names["compiled"].where == SELECTED


def test_calling_a_module_checks_its_inputs_and_returns_on_its_device():
    names, facts = infer(SELECT + """
net = nn.Linear(2, 2).to(device)
out = net(torch.randn(1, 2).to(device))
""")
    assert isinstance(names["out"], Tensor) and names["out"].where == SELECTED
    assert any(isinstance(f, ModuleCall) for f in facts)


def test_parameters_follow_the_module():
    names, _ = infer(SELECT + """
net = nn.Linear(2, 2).to(device)
params = list(net.parameters())
w = net.weight
""")
    assert names["params"].elem.where == SELECTED and names["w"].where == SELECTED
