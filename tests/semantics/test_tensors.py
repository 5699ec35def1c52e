"""semantics/tensors.py: factories, torch functions and tensor methods."""

from devlint.core.facts import Operation
from devlint.core.values import CPU, SELECTED, Seq, Tensor
from tests.lint_helpers import infer

SELECT = 'import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'


def test_factories_create_on_the_cpu_unless_told():
    names, _ = infer(SELECT + """
a = torch.zeros(3)
b = torch.zeros(3, device=device)
c = torch.tensor(0.5)
d = torch.from_numpy(arr)
""")
    assert names["a"].where.kind == "cpu" and names["a"].where.implicit and names["a"].fresh
    assert names["b"].where == SELECTED
    assert names["c"].scalar
    assert names["d"].where.kind == "cpu"


def test_like_and_new_follow_their_source():
    names, _ = infer(SELECT + """
x = torch.ones(3, device=device)
a = torch.zeros_like(x)
b = x.new_zeros(4)
c = torch.zeros_like(x, device="cpu")
""")
    assert names["a"].where == SELECTED and names["b"].where == SELECTED and names["c"].where == CPU


def test_functions_need_one_device_and_return_it():
    names, facts = infer(SELECT + """
x = torch.ones(3, device=device)
y = torch.ones(3, device=device)
z = torch.cat([x, y])
m = torch.max(x, dim=0)
s = x.sum()
""")
    assert names["z"].where == SELECTED
    assert isinstance(names["m"], Seq)  # (values, indices)
    assert names["s"].scalar
    assert any(isinstance(f, Operation) and f.name == "torch.cat" for f in facts)


def test_a_conflicting_operation_is_unknown_downstream():
    names, facts = infer(SELECT + """
x = torch.ones(3, device=device)
y = torch.ones(3)
z = x + y
""")
    assert not isinstance(names["z"], Tensor)
    assert [f.name for f in facts if isinstance(f, Operation)] == ["+"]


def test_dtype_methods_keep_the_device():
    names, _ = infer(SELECT + "x = torch.ones(3, device=device).float().half()\n")
    assert names["x"].where == SELECTED
