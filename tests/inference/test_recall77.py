"""Real device bugs the seventy-seventh recall survey found missed (issue 17: bug reports from repositories nobody on
the team had used), each beside a twin.

- A value moved to a device (`ids = ids.to(self.device)` of a parameter not known to be a tensor) that indexes a
  tensor is a tensor there: a cpu lookup table indexed by it crashes whenever the device is a GPU, as `table + ids`
  does (graphlearn-for-pytorch's feature lookup, DEV101).
- `device == None` tests what `device is None` does: a caller that passes no device takes the branch that picks the
  GPU (rxn_yield_context's predictor, DEV102).
- `torch.load(str(path))` of a parameter the loading function does not save to is of whatever file its callers
  name, as `torch.load(path)` is: a `save(self, path)` beside it writing `str(path)` does not make it a file this
  code wrote (MockingBird's `Tacotron.load`, DEV202).
- `torch.load(io.BytesIO(f.read()))` loads a stored checkpoint read into memory; only a buffer of this process
  (`io.BytesIO(stream.getvalue())`, or any bytes in a file that saves into a `BytesIO()`: a worker's results sent
  back, Lightning's launcher) holds bytes made here (tabnet's zip archive, DEV202).
- A name the function calls (`session(batch)`) holds an object, not a tensor: its `session.to("cpu")` moves it in
  place and is no thrown-away move, whatever an inference guessed (Olive's PyTorch evaluator: a false DEV103 error
  the survey met on the way).
- An item of a list of tensors (`entities[h]` of `entities = [v.view(-1, 1)]`) is a whole tensor, not one element
  of a tensor: a cpu table indexed by it meets the batch's device (KGCN-pytorch's neighbour lookup: DEV105).
- `tuple()` and `list()` are empty: `torch.zeros(tuple(), dtype=torch.bool)` is a 0-dim tensor, which meets tensors
  on any device (cornucopia's polynomial integral: a false DEV104 the survey met on the way).
"""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

LOOKUP = """
import torch


class Table:
    def __init__(self, n):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.book = torch.zeros(n, dtype=torch.long)

    def lookup(self, ids):
        ids = ids.to({target})
        return self.book[ids]{mark}
"""


@pytest.mark.parametrize("target, mark", [
    ("self.device", "  # expect: DEV101"),
    ('"cpu"', ""),
])
def test_a_value_moved_to_a_device_that_indexes_a_tensor_is_a_tensor_there(target, mark):
    source = LOOKUP.format(target=target, mark=mark)
    assert found(source, ["DEV101", "DEV104", "DEV105"]) == expected_findings(source)


PREDICTOR = """
import torch
import torch.nn as nn


class Predictor:
    def __init__(self, device=None):
        if device {test} None:
            self.device = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")
        else:
            self.device = torch.device(device)
        self.model = nn.Linear(4, 1).to(self.device)

    def score(self, rows):
        return self.model(torch.Tensor(rows)){mark}


print(Predictor().score([[0.0] * 4]))
"""


@pytest.mark.parametrize("test, mark", [
    ("==", "  # expect: DEV102"),
    ("is", "  # expect: DEV102"),
    ("!=", ""),
])
def test_an_equality_test_with_none_decides_as_is_does(test, mark):
    source = PREDICTOR.format(test=test, mark=mark)
    assert found(source, ["DEV102"]) == expected_findings(source)


TACOTRON = """
import torch
import torch.nn as nn


class Tacotron(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def load(self, path):
        checkpoint = torch.load({loaded}){mark}
        self.load_state_dict(checkpoint["model_state"])

    def save(self, path):
        torch.save({{"model_state": self.state_dict()}}, str(path))

    def save_and_reload(self, path):
        torch.save(self.state_dict(), str(path))
        return torch.load(str(path))
"""


@pytest.mark.parametrize("loaded, mark", [
    ("str(path)", "  # expect: DEV202"),
    ("path", "  # expect: DEV202"),
    ("str(path), map_location='cpu'", ""),
])
def test_a_parameter_loaded_as_a_string_is_the_callers_file(loaded, mark):
    source = TACOTRON.format(loaded=loaded, mark=mark)
    assert found(source, ["DEV202"]) == expected_findings(source)


ARCHIVE = """
import io
import zipfile

import torch


def load_network(filepath):
    with zipfile.ZipFile(filepath) as z:
        with z.open("network.pt") as f:
            return torch.load(io.BytesIO(f.read()))  # expect: DEV202


def load_sent(data):
    return torch.load(io.BytesIO(data))  # expect: DEV202
"""

WORKER = """
import io

import torch


def results_of_worker(metrics):
    buffer = io.BytesIO()
    torch.save({k: v.cpu() for k, v in metrics.items()}, buffer)
    return buffer.getvalue()


def restore_on_main(data):
    return torch.load(io.BytesIO(data))


def round_trip(state):
    stream = io.BytesIO()
    torch.save(state, stream)
    return torch.load(io.BytesIO(stream.getvalue()))
"""


@pytest.mark.parametrize("source", [ARCHIVE, WORKER])
def test_a_buffer_of_a_file_read_into_memory_holds_a_stored_checkpoint(source):
    # (a file that saves into a buffer loads what it wrote: a worker's results, sent back as bytes)
    assert found(source, ["DEV202"]) == expected_findings(source)


SESSION = """
import torch


class Handler:
    def __init__(self, model):
        self.model = model

    def load_model(self) -> torch.nn.Module:
        return self.model

    def prepare_session(self, device="cpu"):
        return self.load_model().eval()


def infer(model: Handler, loader, device="cpu"):
    session = model.prepare_session(device=device)
    device = torch.device("cuda") if device == "gpu" else torch.device(device)
    if device:
        session.to(device)
    outs = []
    for batch in loader:
        result = session(**batch) if isinstance(batch, dict) else session(batch)
        outs.append(result.cpu())
    merged = torch.cat(outs)
    if device:
        {moved}.to("cpu"){mark}
    return merged
"""


@pytest.mark.parametrize("moved, mark", [
    ("session", ""),
    ("merged", "  # expect: DEV103"),
])
def test_a_name_the_function_calls_holds_no_tensor(moved, mark):
    source = SESSION.format(moved=moved, mark=mark)
    assert found(source, ["DEV103"]) == expected_findings(source)


EMPTY_SHAPE = """
import torch


def integrate(l, *args):
    zero = torch.zeros({shape}, dtype=torch.bool)
    k = torch.zeros(l.shape, dtype=l.dtype, device=l.device)
    for i in range(len(args)):
        if torch.any(args[i] != zero):{mark}
            k = k + args[i]
    return k


device = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.ones(3, device=device)
integrate(x, x, x)
"""


@pytest.mark.parametrize("shape, mark", [
    ("tuple()", ""),
    ("list()", ""),
    ("(1,)", "  # expect: DEV101"),
])
def test_an_empty_shape_built_by_a_call_makes_a_0_dim_tensor(shape, mark):
    source = EMPTY_SHAPE.format(shape=shape, mark=mark)
    assert found(source, ["DEV101", "DEV104"]) == expected_findings(source)


NEIGHBOURS = """
import torch
import torch.nn as nn


class KGCN(nn.Module):
    def __init__(self, num_ent, n_neighbor, n_iter):
        super().__init__()
        self.n_iter = n_iter
        self.adj_ent = torch.randint(0, num_ent, (num_ent, n_neighbor)){mark}
        self.ent = nn.Embedding(num_ent, 8)

    def forward(self, v):
        entities = [v.view(-1, 1)]
        for h in range(self.n_iter):
            neighbors = self.adj_ent[{index}].view(v.size(0), -1).to(v.device)
            entities.append(neighbors)
        return sum(self.ent(e).sum() for e in entities)
"""


@pytest.mark.parametrize("index, mark", [
    ("entities[h]", "  # expect: DEV105"),
    ("entities[h].cpu()", ""),
    ("v[h]", ""),  # (one element of a tensor: 0-dim, an index from any device)
])
def test_an_item_of_a_list_of_tensors_is_a_whole_tensor(index, mark):
    source = NEIGHBOURS.format(index=index, mark=mark)
    assert found(source, ["DEV101", "DEV104", "DEV105"]) == expected_findings(source)
