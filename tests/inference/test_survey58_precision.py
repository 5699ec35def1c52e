"""False findings of the fifty-eighth to sixty-first precision surveys (issue 17 item 9), each beside a twin that
must stay reported.

Four surveys of 70 repositories nobody had run devlint on (image and video generation, sequence models, graphs and
science, 3D vision), pinned to 519fcb1; first readings: 52 errors, 12 true, 37 false, 3 debatable. The mechanisms:
- `loss.item()` (or `.cpu()`, a print of a GPU tensor) after `end.record()` waits for the queue, so the event has
  completed: `start.elapsed_time(end)` after it is safe (the Gaussian-splatting training loops, 4 DEV302).
- `torch.normal(mean=m, std=s)` draws where its tensors are, by keyword as by position (densify-and-split of the
  Gaussian-splatting models, 5 DEV101).
- `n = x.get_device()` is -1 on the cpu and the GPU's index on one: `torch.device(f"cuda:{n}") if n >= 0 else
  torch.device("cpu")` folds to `x`'s own device where the caller's `x` is known (pytorch_neural_crf, 5 DEV101).
  Whole numbers a call computed compare by `<`, `<=`, `>`, `>=` as by `==` (not literals handed down as settings,
  `num_layers=18`: the regression run showed monodepth2's encoder built down one branch, then a false DEV102).
- A collate_fn that returns `xs, np.array(lengths)` makes batches whose lengths are a numpy array, not a cpu tensor;
  and a DataLoader over a dataset of the project with such a collate_fn yields what the collate_fn makes, not the
  dataset's items (conv-emotion, 2 DEV102).
- A function or a constructor that sets up an object it is given, through the object's own method (`cloud.fill(n)`,
  or `self.cloud = cloud; self.cloud.fill(n)`), changes the caller's object: 3DGS's `Scene(args, gaussians)` fills
  the model before any step (4 DEV101 in forks of it).
- `self.accum = torch.empty(0)` in `__init__`, set for real by another method of the class (`training_setup`): a
  method reads the real one (the same forks, DEV104 warnings).
- `type(image) is Image.Image` (or the `Image` module itself, never a type) is no tensor's type: the branch that
  converts with numpy does not run for one (MasaCtrl, 1 DEV401).
- A member that an entry script of the run places (`t.inner.net = t.inner.net.to(device)`) is where that script
  puts it, not where the library's `__init__` made it (DualStyleGAN, 2 DEV102).
- A forward that unpacks its input and sends the parts to the GPU (`feats, n = graph; feats = create_var(feats)`,
  through `Variable(t).cuda()`) takes the input from anywhere (JT-VAE, 1 DEV104 error, 3 warnings).
- An input a forward only hands on to a member whose forward places it (`self.regressor(x, J_regressor=J)`) may
  be anywhere (VIBE, 2 DEV102).
- Only a call of `set_default_tensor_type`/`set_default_device` with a GPU type on a line of code makes a run's
  default device a GPU: not one in a comment, nor one with a cpu type (4DGaussians, 1 DEV401).
- `if torch.cuda.is_available:` (no call) is always true: the branch runs everywhere, and the new rule DEV206 says
  so (AOT-GAN's metric: a real bug, read as a guard with a cpu branch before: 1 false DEV102).
- A dataset whose `__getitem__` returns parts on several devices (`x.to(self.device), extra`) makes batches whose
  parts are there (EquiBind's shape, 1 DEV102).
- A `device=None` parameter no call in the run sets is its default (cdvae, 1 DEV401).
- `X, mask = featurize(...)` at the top of a script or notebook: `X.device` is the device of data nobody can see,
  not a device someone chose (ProteinMPNN's notebook, 2 DEV102).
- The arguments of a reshape (`x.expand(n, longest)`, `view`, `permute`...) are sizes, never operands (trade-dst,
  1 DEV104 error, 1 warning).
- A plain dict of members built on the device by their own constructors is kept out of the registry on purpose
  (StyleGAN-nada's frozen losses: its shape; the real one builds them through `clip.load`, still reported).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

TIMED = """
import torch


def train(model, data):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for x in data:
        start.record()
        loss = model(x.cuda()).mean()
        loss.backward()
        end.record()
        shown = {read}
        print(shown, start.elapsed_time(end)){mark}
"""


@pytest.mark.parametrize("read, mark", [
    ("loss.item()", ""),
    ("loss.detach().cpu()", ""),
    ("x.shape[0]", "  # expect: DEV302"),  # no wait: the event may still be queued
])
def test_a_host_read_of_a_gpu_tensor_completes_the_events(read, mark):
    source = TIMED.format(read=read, mark=mark)
    assert found(source, ["DEV302"]) == expected_findings(source)


DRAWN = """
import torch


def split(scaling, mask, n=2):
    stds = scaling[mask].repeat(n, 1)
    means = torch.zeros((stds.size(0), 3), device="cuda")
    samples = {draw}
    rots = torch.eye(3, device="cuda").repeat(stds.size(0), 1, 1)
    return torch.bmm(rots, samples.unsqueeze(-1)){mark}
"""


@pytest.mark.parametrize("draw, mark", [
    ("torch.normal(mean=means, std=stds)", ""),
    ("torch.normal(means, stds)", ""),
    ("torch.normal(0.0, 1.0, size=(stds.size(0), 3))", "  # expect: DEV101"),  # numbers: drawn on the cpu
])
def test_normal_draws_where_its_tensors_are(draw, mark):
    source = DRAWN.format(draw=draw, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


INDEXED = """
import torch


def last(scores):
    n = scores.get_device()
    dev = {device}
    acc = torch.zeros(scores.size(0), device=dev)
    return acc + scores{mark}


print(last(torch.randn(4)))
"""


@pytest.mark.parametrize("device, mark", [
    ('torch.device(f"cuda:{n}") if n >= 0 else torch.device("cpu")', ""),
    ('torch.device("cpu") if n < 0 else torch.device(f"cuda:{n}")', ""),
    # a device chosen by the machine, not by where `scores` is
    ('torch.device("cuda" if torch.cuda.is_available() else "cpu")', "  # expect: DEV101"),
])
def test_a_device_built_from_get_device_is_the_tensors_own(device, mark):
    source = INDEXED.format(device=device, mark=mark)
    assert found(source) == expected_findings(source)


COLLATED = """
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, lens):
        assert max(lens) <= x.size(0)
        return self.lin(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x, lens):
        return self.block(x, lens)


class Items(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.randn(4), torch.tensor(3)


def collate(items):
    xs = torch.stack([torch.as_tensor(x, dtype=torch.float32) for x, _ in items])
    return xs, np.array([int(n) for _, n in items])


def main():
    loader = DataLoader({data}, batch_size=4, collate_fn=collate)
    model = Net().to(DEVICE)
    for x, lens in loader:
        print(model({x}, lens).shape){mark}


main()
"""


@pytest.mark.parametrize("data, x, mark", [
    ("list(range(8))", "x.to(DEVICE)", ""),
    ("Items()", "x.to(DEVICE)", ""),  # the batch is the collate_fn's, not the dataset's items
    ("Items()", "x", "  # expect: DEV102"),  # the features stay on the cpu
])
def test_a_collate_fn_keeps_numpy_lengths_on_the_host(data, x, mark):
    source = COLLATED.format(data=data, x=x, mark=mark)
    assert found(source) == expected_findings(source)


SET_UP = """
import torch


class Cloud:
    def __init__(self):
        self.radii = torch.empty(0)

    def fill(self, n):
        self.radii = torch.zeros(n, device="cuda")


{setup}


def step(cloud):
    seen = torch.rand(cloud.radii.shape[0], device="cuda") > 0.5
    return cloud.radii[seen]{mark}


def main():
    cloud = Cloud()
    {call}
    for _ in range(3):
        step(cloud)


if __name__ == "__main__":
    main()
"""

_OWNER = """class Scene:
    def __init__(self, cloud, n):
        self.cloud = cloud
        {body}"""
_HELPER = """def load(cloud, n):
    {body}"""


@pytest.mark.parametrize("setup, call, mark", [
    (_OWNER.format(body="self.cloud.fill(n)"), "Scene(cloud, 100)", ""),
    (_OWNER.format(body="cloud.fill(n)"), "Scene(cloud, 100)", ""),
    (_HELPER.format(body="cloud.fill(n)"), "load(cloud, 100)", ""),
    # a constructor that only keeps the object: its placeholder is still the cpu one
    (_OWNER.format(body="self.n = n"), "Scene(cloud, 100)", "  # expect: DEV101"),
])
def test_a_callee_that_sets_up_its_argument_changes_the_callers_object(setup, call, mark):
    source = SET_UP.format(setup=setup, call=call, mark=mark)
    assert found(source, ["DEV101"]) == expected_findings(source)


PLACEHOLDER = """
import torch


class Gaussians:
    def __init__(self):
        self.accum = torch.empty(0)
        self.denom = torch.empty(0)

    def setup(self, n):
        self.{reset} = torch.zeros((n, 1), device="cuda")

    def add_stats(self, grad, mask):
        self.accum[mask] += torch.norm(grad[mask], dim=-1, keepdim=True){mark}
"""


@pytest.mark.parametrize("reset, mark", [
    ("accum", ""),
    ("denom", "  # expect: DEV104"),  # nothing sets `accum` for real: the empty cpu one meets the caller's gradient
])
def test_an_empty_placeholder_another_method_sets_is_not_read(reset, mark):
    source = PLACEHOLDER.format(reset=reset, mark=mark)
    assert found(source, ["DEV104"]) == expected_findings(source)


TYPED = """
import numpy as np
import torch
from PIL import Image


def to_latent(image, encoder):
    if {test}:
        image = torch.from_numpy(np.array(image)).float(){mark}
    return encoder(image)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    encoder = torch.nn.Conv2d(3, 4, 1).to(device)
    return to_latent(torch.rand(1, 3, 8, 8).to(device), encoder)


main()
"""


@pytest.mark.parametrize("test, mark", [
    ("type(image) is Image.Image", ""),
    ("type(image) is Image", ""),  # the module: never a type, never true
    ("type(image) is not torch.Tensor", ""),
    ("type(image) == torch.Tensor", "  # expect: DEV401"),
])
def test_a_type_comparison_decides_the_branch(test, mark):
    source = TYPED.format(test=test, mark=mark)
    assert found(source, ["DEV401"]) == expected_findings(source)


FITTER = """
import torch
from torch import nn


class Fitter:
    def __init__(self, dim):
        self.dim = dim
        self.net = nn.Sequential(nn.Linear(dim, dim))

    def fit(self, steps):
        for _ in range(steps):
            e = torch.randn(8, self.dim).cuda()
            loss = self.net(e).pow(2).mean()
            loss.backward()


class Trainer:
    def __init__(self, dim):
        self.inner = Fitter(dim)

    def train(self, steps):
        self.inner.fit(steps)
"""


@pytest.mark.parametrize("placing, expected", [
    ("t.inner.net = t.inner.net.to(device)", set()),
    # the script places nothing: the member stays where `__init__` made it
    ("print(t.inner.dim)", {(14, "DEV102")}),
])
def test_a_member_an_entry_script_places_is_where_it_put_it(tmp_path, placing, expected):
    """DualStyleGAN's sampler: `train_sampler.py` moves the library object's member, `icp.netT = icp.netT.to(
    device)`, before it trains; the library file alone made it on the cpu (2 DEV102)."""
    from tests.lint_helpers import lint_in_run

    script = f"from fitter import Trainer\n\ndevice = 'cuda'\nt = Trainer(4)\n{placing}\nt.train(10)\n"
    findings = lint_in_run(tmp_path, {"fitter.py": FITTER, "run.py": script}, "fitter.py")
    assert {(f.line, f.code) for f in findings if f.code.startswith("DEV1")} == expected


UNPACKED = """
import torch
import torch.nn as nn
from torch.autograd import Variable


def to_gpu(t):
    return {send}


def build_graph(n):
    return torch.stack([torch.Tensor([float(i), 1.0]) for i in range(n)], 0), n


class Encoder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.lin = nn.Linear(2, hidden)

    def forward(self, graph):
        feats, n = graph
        feats = to_gpu(feats)
        return self.lin(feats).sum(0) / n


class VAE(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.enc = Encoder(hidden)

    def encode(self, n):
        return self.enc(build_graph(n)){mark}


if __name__ == "__main__":
    model = VAE(8).cuda()
    print(model.encode(5).shape)
"""


@pytest.mark.parametrize("send, mark", [
    ("t.cuda()", ""),
    ("Variable(t).cuda()", ""),  # (the legacy wrapper hands back its tensor)
    ("t.float()", "  # expect: DEV104"),  # sends nothing: the cpu graph meets the GPU layer
])
def test_a_forward_that_unpacks_its_input_and_sends_the_parts_takes_it_from_anywhere(send, mark):
    """JT-VAE's `mpn(mol2graph(smiles))`: `fatoms, fbonds, ... = mol_graph; fatoms = create_var(fatoms)`, a helper
    of another module that returns `Variable(tensor).cuda()` (1 DEV104 error, 3 warnings)."""
    source = UNPACKED.format(send=send, mark=mark)
    assert found(source, ["DEV104"]) == expected_findings(source)


HANDED = """
import numpy as np
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 30)

    def forward(self, x, weights=None):
        verts = self.fc(x).view(-1, 10, 3)
        if weights is not None:
            w = {use}
            return torch.matmul(w, verts)
        return verts


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = Head()

    def forward(self, x, weights=None):
        return self.head(x, weights=weights)


def evaluate(model, loader, device):
    weights = torch.from_numpy(np.ones((5, 10), dtype=np.float32))
    for batch in loader:
        print(model(batch.to(device), weights=weights).shape){mark}


if __name__ == "__main__":
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    evaluate(Wrapper().to(dev), [torch.randn(4, 8)], dev)
"""


@pytest.mark.parametrize("use, mark", [
    ("weights[None].expand(verts.shape[0], -1, -1).to(verts.device)", ""),
    # used where it is: the caller's cpu weights meet the GPU output
    ("weights[None].expand(verts.shape[0], -1, -1)", "  # expect: DEV102"),
])
def test_an_input_handed_on_to_a_member_that_places_it_may_be_anywhere(use, mark):
    """VIBE's evaluator: `self.model(..., J_regressor=J_regressor)` hands it on to the regressor, whose forward
    moves it to its vertices' device (2 DEV102)."""
    source = HANDED.format(use=use, mark=mark)
    assert found(source, ["DEV102"]) == expected_findings(source)


READERS = """
import numpy as np
import torch


def read_cameras(n):
    cams = []
    for a in range(n):
        pose = torch.Tensor([[1.0, 0.0], [0.0, float(a)]])
        cams.append(np.linalg.inv(np.array(pose)))
    return cams
"""


@pytest.mark.parametrize("setter, expected", [
    ("# torch.set_default_tensor_type('torch.cuda.FloatTensor')", set()),  # a comment sets nothing
    ("torch.set_default_tensor_type('torch.FloatTensor')", set()),  # a cpu type
    ("torch.set_default_tensor_type('torch.cuda.FloatTensor')", {(10, "DEV401")}),
])
def test_only_a_setter_called_with_a_gpu_type_makes_the_default_a_gpu(tmp_path, setter, expected):
    """4DGaussians' training script holds `# torch.set_default_tensor_type('torch.FloatTensor')` and names
    "cuda" elsewhere: the text search read it as a switch of the default to the GPU (1 DEV401)."""
    from tests.lint_helpers import lint_in_run

    script = f"import torch\nfrom readers import read_cameras\n\n{setter}\ncams = read_cameras(4)\n" \
             "weights = torch.ones(len(cams), device='cuda')\n"
    findings = lint_in_run(tmp_path, {"readers.py": READERS, "train.py": script}, "readers.py")
    assert {(f.line, f.code) for f in findings if f.code == "DEV401"} == expected


PLACED_ITEMS = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class PairSet(Dataset):
    def __init__(self, device, n=16):
        self.device = device
        self.xs = [torch.randn(4) for _ in range(n)]
        self.extra = [torch.randn(2) for _ in range(n)]

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return {item}, self.extra[i]


def run():
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(PairSet(device=device), batch_size=4)
    model = nn.Linear(4, 1).to(device)
    for batch in loader:
        x, extra = batch
        print(model(x).shape, extra.to(device).shape){mark}


run()
"""


@pytest.mark.parametrize("item, mark", [
    ("self.xs[i].to(self.device)", ""),
    ("self.xs[i]", "  # expect: DEV102"),  # every part on the cpu: the features too
])
def test_a_dataset_that_places_part_of_its_items_makes_batches_with_those_parts(item, mark):
    """EquiBind's datasets return `lig_graph.to(self.device), ..., label`: the batch's first part is on the
    device, whatever the code does with the other parts (1 DEV102: the batch was read as host data because the
    loop moves another part)."""
    source = PLACED_ITEMS.format(item=item, mark=mark)
    assert found(source, ["DEV102"]) == expected_findings(source)


SCALING = """
import torch
import torch.nn as nn


class Fitter:
    def __init__(self, variable):
        self.variable = variable
        self.load()

    def load(self):
        print(f"initial value: {self.variable.numpy():.3f}")


class Scale(nn.Module):
    def __init__(self, name, device=None):
        super().__init__()
        self.factor = nn.Parameter(torch.tensor(1.0, device=device), requires_grad=False)
        self.fit = Fitter(self.factor)
"""


@pytest.mark.parametrize("call, expected", [
    ('Scale(name="s")', set()),
    ('Scale("s")', set()),
    ('Scale(name="s", device="cuda")', {(12, "DEV401")}),  # a call that gives it the GPU
])
def test_a_device_parameter_no_call_gives_is_its_default(tmp_path, call, expected):
    """cdvae's GemNet `ScaleFactor(name=...)`: its `device=None` parameter, never set by the model that builds it,
    is the default (1 DEV401)."""
    from tests.lint_helpers import lint_in_run

    block = f"import torch.nn as nn\nfrom scaling import Scale\n\n\nclass Block(nn.Module):\n" \
            f"    def __init__(self):\n        super().__init__()\n        self.scale = {call}\n"
    findings = lint_in_run(tmp_path, {"scaling.py": SCALING, "block.py": block}, "scaling.py")
    assert {(f.line, f.code) for f in findings if f.code == "DEV401"} == expected


NOTEBOOK = """
import torch
import torch.nn as nn

from featurizer_lib import featurize, load_options


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 1)

    def forward(self, X, noise):
        return self.lin(X + noise)


model = Scorer()
{bind}
noise = torch.randn(4, 3, device={source}.device)
out = model(X, noise){mark}
"""


@pytest.mark.parametrize("bind, source, mark", [
    ('X, mask = featurize([{"xyz": [0.0, 1.0, 2.0]}], "cpu")', "X", ""),
    # a configuration read whole: its device is the one it chose, which may be a GPU
    ("opts = load_options()\nX = torch.zeros(4, 3)", "opts", "  # expect: DEV102"),
])
def test_the_device_of_a_value_unpacked_at_the_top_is_unknown(bind, source, mark):
    """ProteinMPNN's notebook: `X, S, mask, ... = tied_featurize(batch, device, ...)` at the top level, then
    `torch.randn(..., device=X.device)`: the device of data nobody can see, not a device someone chose (2 DEV102)."""
    source = NOTEBOOK.format(bind=bind, source=source, mark=mark)
    assert found(source, ["DEV102"]) == expected_findings(source)


FROZEN = """
import torch
from torch import nn


class FrozenScorer(nn.Module):
    def __init__(self, device, width):
        super().__init__()
        self.net = nn.Linear(16, width){place}

    def forward(self, x):
        return self.net(x).pow(2).mean()


class Adapter(nn.Module):
    def __init__(self, names):
        super().__init__()
        self.device = "cuda:0" if torch.cuda.is_available() else "cpu"
        self.trainable = nn.Linear(16, 16).to(self.device)
        self.scorers = {{n: FrozenScorer(self.device, w) for n, w in names.items()}}

    def forward(self, z):
        x = self.trainable(z)
        return torch.stack([self.scorers[n](x) for n in self.scorers]).sum(){mark}
"""


@pytest.mark.parametrize("place, mark", [
    (".to(device)", ""),  # built on the device by its own constructor: kept out of the registry on purpose
    ("", "  # expect: DEV107"),  # left on the cpu: the module's move would not take it
])
def test_a_member_its_constructor_places_may_live_in_a_plain_dict(place, mark):
    """StyleGAN-nada's frozen CLIP losses, `{name: CLIPLoss(self.device, ...) for name in ...}`, each built on the
    device and never trained (1 DEV107)."""
    source = FROZEN.format(place=place, mark=mark)
    assert found(source, ["DEV107"]) == expected_findings(source)


SIZED = """
import torch


def length_mask(lengths):
    longest = lengths.max()
    steps = torch.arange(0, longest).long()
    grid = steps.unsqueeze(0).expand(lengths.size(0), longest)
    grid = grid{move}
    return grid < lengths.unsqueeze(1){mark}
"""


@pytest.mark.parametrize("move, mark", [
    (".to(lengths.device)", ""),  # `.expand` reads `longest` as a size: nothing meets on a device there
    ("", "  # expect: DEV104"),  # the cpu grid meets the caller's lengths
])
def test_the_sizes_of_a_reshape_are_no_operands(move, mark):
    """trade-dst's `sequence_mask`: `seq_range.unsqueeze(0).expand(batch_size, max_len)` with `max_len =
    lengths.max()`, a 0-dim tensor read as a size (1 DEV104 error, 1 warning)."""
    source = SIZED.format(move=move, mark=mark)
    assert found(source, ["DEV104"]) == expected_findings(source)
