"""False findings of the fifty-second and fifty-third precision surveys (issue 17 item 9), and of earlier surveys'
leftovers, each beside a twin that must stay reported.

Leftovers of survey 50:
- `x1.new(slen, bs)`, the legacy constructor, is a tensor method: it shows `x1` is a tensor (so `x1.device` is
  where the caller's batch is, not a device a configuration chose) and makes its result where `x1` is (XLM's
  `concat_batches`, 1 DEV104).

Leftovers of survey 47, judged debatable there:
- A dtype cast that names no device (`self.quant_weight.to(dtype)`), thrown away, is a dead line, not a lost move
  (lit-llama's quantizer, 1 DEV103 error).

Survey 52 (NLP and multimodal fine-tuning code: 1 false error of 5, 12 false warnings of 40) and survey 53
(scientific and signal ML: 2 false errors of 3, 11 false warnings of 40), pinned to 46b8447:
- A method no tensor has, of a model moved to the GPU (`sbert.encode(sentence)`), given no tensor, is the model's own
  API: it places its inputs and may hand back numpy; a tensor there only where it is used as one (LM-BFF, 1 DEV401).
- A dict of losses without weights (`{"mse": SumMSE(), "l1": nn.L1Loss()}`) holds nothing to register: a display's
  items are judged one by one, not by their join (pdearena, 1 DEV107; a first version made the join of weightless
  modules weightless, and the regression run showed the loss calls that then judged their inputs: simpletransformers'
  focal or cross-entropy loss, 2 false DEV101 on a path that joins a DataParallel model with a cpu run).
- `if pivot is None: return` where the caller passed no `pivot` (the default None) always returns: what follows
  is not walked in that call (DiffDock's alignment helper, 1 DEV101).
Warnings:
- `torch.tensor(k)` of a number (a parameter never used as a tensor, with a float default) is 0-dim; a 0-dim cpu
  tensor in arithmetic with a value of unknown kind goes wherever that value is (sgmse, open-unmix: 3 DEV104).
- `torch.is_tensor(x)` answers as `isinstance(x, torch.Tensor)`, and `!= True` of a known bool folds (the PINN
  notebooks' `if torch.is_tensor(x) != True: x = torch.from_numpy(x)`, 3 DEV104).
- `@pytest.mark.parametrize` rows give a test its parameters' values (snntorch's tests, 3 DEV104).
- A parameter handed to numpy (`np.asarray(cell)`) is on the cpu on the path that goes on (schnetpack, 1 DEV104).
- An input a submodule moves under its own name before any use (`pos = pos.long().to(q.device)`), however deep,
  is placed there: the caller's device does not matter (P-tuning-v2's relative positions, 1 DEV104).
Survey 54 (computer vision toolkits, pinned to fab6953, the code after the fixes above: 6 false errors of 10, no
false warning of 40):
- `scipy.optimize.minimize(fun, x0, args=(pts, target))` converts `x0` only: `args=` goes to `fun` as it is (yolact,
  1 DEV401).
- `ids[ranks[r, q]]`: one element of a GPU tensor, picked by ints, is 0-dim and indexes as a Python int does, from
  any device (PyTorch reads it with `.item()`; checked on the meta device: cnnimageretrieval, 1 DEV101).
- A callable parameter never used as a module (`heatmap_to_coord(output, bbox, idx=i)`), called where its callers
  are not walked, may be a plain function that returns numpy: its result is inferred (res-loglikelihood, 4 DEV401).
Survey 55 (generative and sequence models, fab6953: 7 false errors of 11, 2 false warnings of 40):
- `loss.split(sizes)`, `torch.split(x, sizes)`: sizes (a collated Python list) are no operand (LOMO, 2 DEV101).
- A method nobody can see, handed a module (`args.compile_model(model)`), gives back what runs the module, where the
  module is (VAR, 1 DEV101: its output had followed a debug input on the cpu).
- `F.multi_head_attention_forward(..., in_proj_weight, ...)` with separate projection weights never reads it: an
  empty cpu placeholder there is no operand (so-vits-svc's WavLM, 1 DEV104; survey 50's leftover too).
Left alone: two if-chains on related conditions (so-vits-svc's KMeans, PVD: 3 DEV101/DEV102 on a path that cannot
happen); `torch.load` of a file the project saves as numpy under a path written differently (2 DEV202).
Rejudged on the code after all the above (surveys 52-55's repositories run again), false findings still there
whose repro had gone silent:
- `pivot.T` is tensor evidence, as `pivot.shape` is (DiffDock, 1 DEV101: `pivot.device` had been read as a device
  a configuration chose).
- An input asked its rank, reshaped or tested for None before its move (`if relative_pos.dim() == 2: relative_pos =
  relative_pos.unsqueeze(0)` ... `relative_pos = relative_pos.long().to(q.device)`) is still placed by the move;
  a submodule of a module another module imports is read in that module's names, not the checked file's, which
  may hold a namesake class (P-tuning-v2's DeBERTa v2 beside its v1, 1 DEV104).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found, infer, lint, lint_in_run

CONCAT_BATCHES = """
import torch


def concat_batches(x1, pad_idx):
    x = {made}
    positions = torch.arange(5).to(x1.device)
    return x, positions


class Trainer:
    def __init__(self, iterators):
        self.iterators = iterators

    def round_batch(self, positions, pad):
        return torch.arange(pad) + positions[-1]{mark}

    def step(self, name):
        x1 = next(self.iterators[name])
        x, positions = concat_batches(x1, 2)
        return self.round_batch(positions, 3)
"""


@pytest.mark.parametrize("made, mark", [
    # `x1.new(...)`: only a tensor has it, so `x1.device` is where the loader's batch is: unknown here
    ("x1.new(4, 2).fill_(pad_idx)", ""),
    # no sign that `x1` is a tensor: `x1.device` is read as a device the configuration chose (`args.device`)
    ("None", "  # expect: DEV104"),
])
def test_legacy_new_shows_a_tensor(made, mark):
    source = CONCAT_BATCHES.format(made=made, mark=mark)
    assert found(source) == expected_findings(source)


@pytest.mark.parametrize("receiver, where", [
    ("torch.zeros(2, device='cuda:1')", "cuda:1"),
    ("torch.zeros(2)", "cpu"),
])
def test_legacy_new_is_where_its_receiver_is(receiver, where):
    found_globals, _ = infer(f"import torch\nsource = {receiver}\nmade = source.new(3, 4)\n")
    assert str(found_globals["made"].where) == where


DEAD_CAST = """
import torch
from torch import nn


class Packed(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("weight", torch.zeros(4, dtype=torch.uint8))

    def unpacked(self, dtype=torch.float16):
        self.weight.{call}{mark}
        return self.weight >> 4
"""


@pytest.mark.parametrize("call, mark", [
    # a cast that names no device, thrown away: a dead line, not a lost move (lit-llama's quantizer)
    ("to(dtype)", ""),
    ("to(torch.float32)", ""),
    ("to(dtype=torch.float32)", ""),
    ("to(device='cuda', dtype=dtype)", "  # expect: DEV103"),
    ("cuda()", "  # expect: DEV103"),
])
def test_a_thrown_away_dtype_cast_is_no_lost_move(call, mark):
    source = DEAD_CAST.format(call=call, mark=mark)
    assert found(source, ["DEV103"]) == expected_findings(source)


ENCODER_API = """
import numpy as np
from sentence_transformers import SentenceTransformer


def embed_all(sentences):
    encoder = SentenceTransformer("all-MiniLM-L6-v2").cuda()
    vectors = []
    for s in sentences:
        vectors.append(encoder.{call}){mark}
    return np.stack(vectors)


embed_all(["a", "b"])
"""


@pytest.mark.parametrize("call, mark", [
    # a library model's own method given no tensor: it places its inputs and may hand back numpy (LM-BFF's
    # sentence embeddings, 1 DEV401 at `np.stack`)
    ("encode(s)", ""),
    ("encode(s).numpy()", "  # expect: DEV401"),  # (`.numpy()` of it: a tensor, where the model is)
])
def test_a_model_api_given_no_tensor_may_return_numpy(call, mark):
    source = ENCODER_API.format(call=call, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)


METRICS = """
import torch
from torch import nn


class SumMSE(nn.Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, pred, target):
        return ((pred - target) ** 2).sum(dim=1).mean()


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.metrics = {{"mse": SumMSE(), "other": {other}}}

    def evaluate(self, x, y):
        pred = self.net(x)
        return {{name: fn(pred, y) for name, fn in self.metrics.items()}}{mark}


dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
Wrapper().to(dev).evaluate(torch.randn(2, 4, device=dev), torch.randn(2, 4, device=dev))
"""


@pytest.mark.parametrize("other, mark", [
    # losses without weights, in a plain dict: nothing to register (pdearena's metrics, 1 DEV107)
    ("nn.L1Loss()", ""),
    ("nn.Linear(4, 4)", "  # expect: DEV107"),
])
def test_a_dict_of_losses_holds_no_weights(other, mark):
    source = METRICS.format(other=other, mark=mark)
    assert found(source, ["DEV107"]) == expected_findings(source)


ALIGN = """
import torch


def kabsch(a, b):
    h = a @ b.T
    u, s, vt = torch.linalg.svd(h)
    flip = torch.diag(torch.tensor([1.0, 1.0, -1.0], device=a.device))
    return (vt.T @ flip) @ u.T{mark}


def align(pos, pivot=None):
    centred = pos - pos.mean(dim=0, keepdim=True)
    if pivot {test} None:
        return centred
    return kabsch(pivot.T, centred.T)


print(align(torch.randn(10, 3)))
"""


@pytest.mark.parametrize("test, mark", [
    # `pivot` is the default None in the only call: `if pivot is None: return` always returns (DiffDock, 1 DEV101)
    ("is", ""),
    # (the other way round, the caller's None reaches `kabsch`: `None.T` would raise first, but the walk goes on)
    ("is not", "  # expect: DEV101"),
])
def test_a_known_none_decides_its_branch(test, mark):
    source = ALIGN.format(test=test, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


SCHEDULE = """
import torch


class Schedule:
    def __init__(self, k=2.6, c=0.4, T=1.0):
        self.k, self.c, self.T = k, c, T

    def sigmas(self, t):
        alpha_t = torch.ones_like(t)
        s_T = torch.sqrt((self.c * (self.k ** (2 * self.T) - 1.0)) / (2 * torch.log(torch.tensor({k}))))
        return alpha_t * s_T ** 2{mark}
"""


@pytest.mark.parametrize("k, mark", [
    # `torch.tensor(self.k)` of a number (a parameter's float default): 0-dim, it joins any device (sgmse's SDE)
    ("self.k", ""),
    ("[self.k, self.k]", "  # expect: DEV104"),  # a 1-d cpu tensor is no scalar
])
def test_a_number_made_a_tensor_is_zero_dim(k, mark):
    source = SCHEDULE.format(k=k, mark=mark)
    assert found(source, ["DEV104"]) == expected_findings(source)


def test_a_zero_dim_cpu_tensor_goes_where_an_unknown_operand_is():
    found_globals, _ = infer("import torch\nfrom lib import thing\nt = thing()\n"
                             "scale = torch.log(torch.tensor(2.6))\nout = t / scale\n")
    assert found_globals["out"].device is None  # not a cpu tensor: wherever `t` is


NUMPY_INPUT = """
import numpy as np
import torch
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class FCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1, 1)

    def forward(self, x):
        if {test}:
            x = torch.from_numpy(x)
        return self.fc(x.float()){mark}


model = FCN().to(device)
print(model(torch.linspace(0, 1, 50, device=device)[:, None]))
"""


@pytest.mark.parametrize("test, mark", [
    # `torch.is_tensor(x)` answers as `isinstance(x, torch.Tensor)` does (the PINN notebooks, 3 DEV104)
    ("torch.is_tensor(x) != True", ""),
    ("not torch.is_tensor(x)", ""),
    ("x.ndim == 1", "  # expect: DEV104"),  # a test that says nothing of the type: the cpu path is kept
])
def test_torch_is_tensor_is_a_type_test(test, mark):
    source = NUMPY_INPUT.format(test=test, mark=mark)
    assert found(source, ["DEV104"]) == expected_findings(source)


PARAMETRIZED = """
import pytest
import torch


def rate_code(num_steps):
    return torch.zeros(num_steps)


@pytest.mark.parametrize("expected, n", [(torch.zeros(5{where}), 5), pytest.param(torch.zeros(3{where}), 3)])
def test_rate_code(expected, n):
    assert torch.eq(rate_code(n), expected).all(){mark}
"""


@pytest.mark.parametrize("where, mark", [
    # the parametrize rows give the test its values: cpu tensors here (snntorch's spike generator tests, DEV104)
    ("", ""),
    (", device='cuda'", "  # expect: DEV101"),
])
def test_parametrize_rows_give_the_test_its_values(where, mark):
    source = PARAMETRIZED.format(where=where, mark=mark)
    assert found(source, ["DEV101", "DEV104"]) == expected_findings(source)


NEIGHBOURS = """
import numpy as np
import torch


def neighbours(positions, cell):
    {first}
    S = torch.from_numpy(np.round(np.random.rand(4, 3)))
    return torch.mm(S, cell){mark}


class NeighbourList(torch.nn.Module):
    def forward(self, inputs):
        cell = inputs["cell"].view(3, 3)
        inputs["offsets"] = neighbours(inputs["R"], cell)
        return inputs
"""


@pytest.mark.parametrize("first, mark", [
    # handed to numpy first: a GPU tensor would have raised there, so `cell` is on the cpu (schnetpack, DEV104)
    ("box = np.asarray(cell)", ""),
    ("box = np.asarray(positions)", "  # expect: DEV104"),
])
def test_a_parameter_handed_to_numpy_is_on_the_cpu(first, mark):
    source = NEIGHBOURS.format(first=first, mark=mark)
    assert found(source, ["DEV104"]) == expected_findings(source)


ENCODER = """
import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.pos = nn.Embedding(16, 1)

    def bias(self, q, relative_pos):
        {line}
        return self.pos(relative_pos).squeeze(-1)

    def forward(self, x, relative_pos):
        q = self.q(x)
        return q @ q.transpose(-1, -2) + self.bias(q, relative_pos)


class Layer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attention = SelfAttention(dim)

    def forward(self, x, relative_pos=None):
        return self.attention(x, relative_pos=relative_pos)


class Encoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.layer = Layer(dim)

    def forward(self, x):
        relative_pos = torch.arange(x.size(1))[:, None] - torch.arange(x.size(1))[None, :] + 8
        return self.layer(x, relative_pos=relative_pos){mark}
"""


@pytest.mark.parametrize("line, mark", [
    # moved under its own name before any use, two modules down: the caller's device does not matter (DeBERTa-like
    # relative positions in P-tuning-v2, 1 DEV104)
    ("relative_pos = relative_pos.long().to(q.device)", ""),
    # a copy sent there, the input itself used where it is: still judged at the call
    ("moved = relative_pos.long().to(q.device)\n        relative_pos = relative_pos + moved", "  # expect: DEV104"),
])
def test_an_input_moved_before_use_deep_down_is_placed_there(line, mark):
    source = ENCODER.format(line=line, mark=mark)
    assert found(source, ["DEV104"]) == expected_findings(source)


FIT = """
import torch
from scipy.optimize import minimize


def objective(x, pts, target):
    shift = torch.tensor(x, dtype=pts.dtype, device=pts.device)
    return float(((pts + shift) - target).pow(2).sum().cpu())


def fit(pts, target):
    return minimize(objective, {given}, method="Powell"){mark}


pts = torch.randn(100, 2).cuda()
fit(pts, pts + 0.5)
"""


@pytest.mark.parametrize("given, mark", [
    # `args=` goes to the objective as it is: only `x0` becomes an array (yolact's box optimiser, 1 DEV401)
    ("x0=[0.0, 0.0], args=(pts, target)", ""),
    ("x0=pts", "  # expect: DEV401"),
])
def test_scipy_hands_its_args_on_unconverted(given, mark):
    source = FIT.format(given=given, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)


NEGATIVES = """
import torch


def pick(n_queries, pool_size, k):
    pool = torch.randperm(1000)[:pool_size]
    scores = torch.randn(pool_size, n_queries).cuda()
    _, ranks = torch.sort(scores, dim=0, descending=True)
    picked = []
    for q in range(n_queries):
        for r in range(k):
            picked.append(pool[{index}]){mark}
    return picked


pick(4, 50, 3)
"""


@pytest.mark.parametrize("index, mark", [
    # one element of a GPU tensor, picked by ints: 0-dim, read as a Python int (cnnimageretrieval, 1 DEV101)
    ("ranks[r, q]", ""),
    ("ranks[:, q]", "  # expect: DEV101"),  # a column: an index tensor on the GPU
])
def test_an_element_index_selects_from_any_device(index, mark):
    source = NEGATIVES.format(index=index, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


DECODED = """
import numpy as np
import torch


def evaluate(net, decode, batch):
    net.eval()
    out = net(batch.cuda())
    rows = []
    for i in range(batch.shape[0]):
        pts = {call}
        rows.append(np.concatenate((pts, pts), axis=1)){mark}
    return rows
"""


@pytest.mark.parametrize("call, mark", [
    # a callable parameter never used as a module: a plain function may return numpy (res-loglikelihood's
    # `heatmap_to_coord`, 4 DEV401 where its callers were not walked)
    ("decode(out, i)", ""),
    ("net(batch[i:i + 1].cuda())", "  # expect: DEV401"),  # (`net.eval()`: a module, its output on the GPU)
])
def test_a_callable_parameter_is_a_module_only_if_used_as_one(call, mark):
    source = DECODED.format(call=call, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)


SPLIT = """
import torch
import torch.nn.functional as F


def collate(groups):
    sizes = [len(g) for g in groups]
    rows = [row for g in groups for row in g]
    return {{"x": torch.tensor(rows, dtype=torch.float), "sizes": sizes}}


def eval_step(net, batch):
    out = net(batch["x"].cuda())
    loss = F.cross_entropy(out, torch.zeros(out.shape[0], dtype=torch.long).cuda(), reduction="none")
    parts = {split}{mark}
    return [int(torch.argmin(p)) for p in parts]


def run(net, loader):
    for batch in loader:
        eval_step(net, batch)


if __name__ == "__main__":
    run(torch.nn.Linear(2, 3).cuda(), [collate([[[0.0, 1.0], [1.0, 0.0]], [[2.0, 2.0]]])])
"""


@pytest.mark.parametrize("split, mark", [
    # sizes, a collated Python list: no operand (LOMO, 2 DEV101)
    ('loss.split(batch["sizes"])', ""),
    ('torch.split(loss, batch["sizes"])', ""),
    ('loss + batch["x"]', "  # expect: DEV101"),  # the batch's tensor, left on the host
])
def test_split_sizes_are_no_operand(split, mark):
    source = SPLIT.format(split=split, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


COMPILED = """
import torch
import torch.nn as nn
from tap import Tap


class Args(Tap):
    fast: int = 0

    def compile_model(self, m, fast):
        return m if fast == 0 else torch.compile(m)


def main():
    args = Args().parse_args(known_only=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    head = {head}
    weight = torch.ones(1, 4, device=device)
    return head(torch.rand(2, 4)).mul(weight){mark}


main()
"""


@pytest.mark.parametrize("head, mark", [
    # handed a module, a method nobody can see gives back what runs it, where the module is: its output is not
    # where its (debug) input was (VAR, 1 DEV101)
    ("args.compile_model(nn.Linear(4, 4).to(device), args.fast)", ""),
    ("nn.Linear(4, 4)", "  # expect: DEV101"),  # (never moved: its output on the cpu)
])
def test_a_module_handed_to_an_unseen_method_is_what_it_returns(head, mark):
    source = COMPILED.format(head=head, mark=mark)
    assert found(source, ["DEV101", "DEV102"]) == expected_findings(source)


ATTENTION = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attn(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q, self.k, self.v, self.out = (nn.Linear(dim, dim) for _ in range(4))

    def forward(self, x):
        y, _ = F.multi_head_attention_forward(
            x, x, x, 8, 2, torch.empty([0]), {bias}, None, None, False, 0.0, self.out.weight, self.out.bias,
            use_separate_proj_weight=True, q_proj_weight=self.q.weight, k_proj_weight=self.k.weight,
            v_proj_weight=self.v.weight){mark}
        return y


Attn(8).cuda()(torch.randn(5, 1, 8).cuda())
"""


@pytest.mark.parametrize("bias, mark", [
    # `in_proj_weight`, never read with separate projection weights: an empty placeholder (so-vits-svc's WavLM)
    ("torch.cat((self.q.bias, self.k.bias, self.v.bias))", ""),
    ("torch.zeros(24)", "  # expect: DEV104"),  # the bias is read: made on the cpu, it meets the cuda query
])
def test_an_unread_attention_weight_may_be_anywhere(bias, mark):
    source = ATTENTION.format(bias=bias, mark=mark)
    expected = expected_findings(source)
    if mark:
        expected = {(13, "DEV104")}  # (reported at the call's first line)
    assert found(source, ["DEV104"]) == expected


CHOSEN_LOSS = """
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train(model, image, text, length, ctc):
    if ctc:
        criterion = torch.nn.CTCLoss(zero_infinity=True).to(device)
    else:
        criterion = torch.nn.{other}().to(device)
    preds = model(image.to(device)).log_softmax(2).permute(1, 0, 2)
    preds_size = torch.IntTensor([preds.size(0)] * image.size(0))
    return criterion(preds, text, preds_size, length){mark}
"""


@pytest.mark.parametrize("other, mark", [
    # one loss or the other: the lengths a CTC loss takes on any device stay free at the join (deep-text-recognition-
    # benchmark's train.py, while a join of weightless losses was judged as one)
    ("CrossEntropyLoss", ""),
])
def test_a_chosen_loss_keeps_its_free_inputs(other, mark):
    source = CHOSEN_LOSS.format(other=other, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


TRANSPOSED = """
import torch


def align(pivot):
    a = {use}
    return torch.zeros(3) + torch.ones(3, device=pivot.device)
"""


@pytest.mark.parametrize("use, severity", [
    # `pivot.T`: only a tensor (or an array) has it, so `pivot.device` is where the caller's tensor is, no device
    # a configuration chose: a guess at what callers pass (DiffDock's `modify_conformer`, 1 DEV101 error)
    ("pivot.T", "warning"),
    ("pivot.name", "error"),  # no sign of a tensor: `pivot.device` is read as a configuration's (`args.device`)
])
def test_a_transposed_parameter_is_a_tensor(use, severity):
    (finding,) = lint(TRANSPOSED.format(use=use))
    assert finding.severity == severity


def test_an_input_asked_its_shape_before_its_move_is_placed_by_the_move(tmp_path):
    """P-tuning-v2's DeBERTa: the relative positions are asked their rank and unsqueezed before `relative_pos =
    relative_pos.long().to(query_layer.device)`, two modules down, in a module the checked script imports (its
    classes read in their own module's names): none of that depends on where they are (1 DEV104)."""
    files = {
        "model/__init__.py": "",
        "model/deberta.py": ATTENTION_MODULE,
        "run.py": "import torch\nfrom model.deberta import Encoder\n\n"
                  "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
                  "print(Encoder(8).to(device)(torch.randn(2, 5, 8, device=device)))\n",
    }
    assert not [f for f in lint_in_run(tmp_path, files, "run.py") if f.code == "DEV104"]


ATTENTION_MODULE = """
import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.pos = nn.Embedding(16, 1)

    def bias(self, q, relative_pos):
        if relative_pos.dim() == 2:
            relative_pos = relative_pos.unsqueeze(0)
        elif relative_pos.dim() != 3:
            raise ValueError(f"rank {relative_pos.dim()}")
        relative_pos = relative_pos.long().to(q.device)
        return self.pos(relative_pos).squeeze(-1)

    def forward(self, x, relative_pos=None):
        q = self.q(x)
        return q @ q.transpose(-1, -2) + self.bias(q, relative_pos)


class Layer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attention = SelfAttention(dim)

    def forward(self, x, relative_pos=None):
        return self.attention(x, relative_pos=relative_pos)


class Encoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.layer = nn.ModuleList([Layer(dim) for _ in range(2)])

    def forward(self, x):
        relative_pos = torch.arange(x.size(1))[:, None] - torch.arange(x.size(1))[None, :] + 8
        for layer_module in self.layer:
            x = layer_module(x, relative_pos=relative_pos)
        return x
"""
