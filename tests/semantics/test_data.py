"""semantics/data.py: DataLoaders, TensorDatasets and torch.load."""

from devlint.core.facts import Load
from devlint.core.values import CPU, SELECTED, Loader, Tensor
from tests.lint_helpers import infer

SELECT = 'import torch\nfrom torch.utils.data import DataLoader, TensorDataset\n' \
         'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'


def test_loader_batches_are_on_the_cpu():
    names, _ = infer(SELECT + "loader = DataLoader(ds, batch_size=4)\nfor xb, yb in loader:\n    pass\n")
    assert isinstance(names["loader"], Loader)
    assert isinstance(names["xb"], Tensor) and names["xb"].where == CPU


def test_tensor_dataset_keeps_its_tensors_device():
    names, _ = infer(SELECT + """
x = torch.randn(8, 2).to(device)
y = torch.randn(8).to(device)
loader = DataLoader(TensorDataset(x, y), batch_size=4)
for xb, yb in loader:
    pass
""")
    assert names["xb"].where == SELECTED


def test_load_records_map_location():
    _, facts = infer(SELECT + "a = torch.load('m.pt')\nb = torch.load('m.pt', map_location='cpu')\n")
    assert [f.has_map_location for f in facts if isinstance(f, Load)] == [False, True]
