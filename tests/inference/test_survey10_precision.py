"""False findings of the tenth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- one availability flag guards both the move to the GPU and the copy back before numpy (udacity's
  deep-learning-v2-pytorch: `x.numpy() if not train_on_gpu else x.cpu().numpy()`, `if train_on_gpu: p = p.cpu()`):
  on the path that knows CUDA is missing, the selected device is the cpu, in a conditional expression as in an
  `if`, and where the paths meet; a value left on the selected device is still converted;
- `if isinstance(net, nn.Module):` given a module runs only its branch, given a plain function only the other
  (Dive-into-DL-PyTorch's d2lzh `evaluate_accuracy`, called with both);
  an object of unknown kind is no module in the other branch (d2lzh's fine-tuning notebook hands it a
  torchvision model);
- a function nobody can see, given `device=` (`convert_tensor(batch, device=device)`, pytorch/ignite's
  examples), may put its result there: it does not "follow its inputs" back to the cpu;
- a `forward` that moves an element of its argument (`co_data[0].cuda()`, NVlabs/FUNIT) takes the argument on
  any device, as one moving the argument itself does;
- `np.squeeze(t)` calls `t.squeeze()`: a tensor where `t` is, no conversion (udacity's dog_app:
  `np.squeeze(pred.eq(...)).cpu().numpy()`); `np.transpose(t, (1, 2, 0))` does convert;
- a checkpoint the same run wrote is loaded on the machine that wrote it: also where the path reaches the load
  through a parameter (`load_checkpoint("checkpoint.pth")`, udacity's intro-to-pytorch), where torch is imported
  under another name (`t.save`, chenyuntc/pytorch-book), and where a project function it is handed to saves
  there (`train(..., best_model_save_path="best.pt")`, rasbt's helper_train.py); another path is no such file.

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found
from tests.lint_helpers import check_file, write_files

ONE_FLAG = """
import numpy as np
import torch
import torch.nn as nn

on_gpu = torch.cuda.is_available()
model = nn.Linear(4, 3)
if on_gpu:
    model.cuda()
x = torch.randn(2, 4)
if on_gpu:
    x = x.cuda()
out = model(x)
{use}
"""

TYPE_TEST = """
import torch
import torch.nn as nn


def evaluate(batches, net, device):
    total = 0.0
    for X, y in batches:
        if {test}:
            total += (net(X.to(device)).argmax(dim=1) == y.to(device)).sum().item()
        else:
            total += (net(X).argmax(dim=1) == y).sum().item(){mark}
    return total


W = torch.randn(4, 3)


def scratch_net(X):
    return X @ W{mark_net}


batches = [(torch.randn(8, 4), torch.randint(0, 3, (8,)))]
dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
evaluate(batches, scratch_net, dev)
evaluate(batches, nn.Linear(4, 3).to(dev), dev)
"""

UNKNOWN_KIND = """
import torch
import torch.nn as nn
from zoo import build_model


def evaluate(batches, net):
    total = 0.0
    for X, y in batches:
        if {test}:
            continue
        total += (net(X).argmax(dim=1) == y).sum().item(){mark}
    return total


dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
evaluate([(torch.randn(8, 4), torch.randint(0, 3, (8,)))], build_model().to(dev))
"""

DEVICE_KEYWORD = """
import torch
import torch.nn as nn
import ignite.distributed as idist
from ignite.utils import convert_tensor

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
gen = nn.Linear(4, 4).to(device)


def update(batch):
    real = convert_tensor(batch, {keyword}non_blocking=True)
    return gen(real).sum().item(){mark}


update(torch.randn(4, 4))
"""

INDEXED_MOVE = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, co_data):
        xa = {move}
        return self.lin(xa)


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Model()

    def update(self, co_data):
        return self.model(co_data).mean(){mark}


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
trainer = Trainer().to(device)
trainer.update((torch.randn(8, 4), torch.zeros(8)))
"""

SQUEEZE = """
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
pred = torch.randn(8, 1, device=device)
correct = {call}{mark}
"""

SAVED_THEN_LOADED = """
import torch{alias}
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 3).to(device)
{saver}.save({{"size": (4, 3), "state_dict": model.state_dict()}}, "checkpoint.pth")


def load_checkpoint(filepath):
    checkpoint = {saver}.load(filepath){mark}
    net = nn.Linear(*checkpoint["size"])
    net.load_state_dict(checkpoint["state_dict"])
    return net


restored = load_checkpoint("{loaded}")
"""

CASES = {
    "one_flag_guards_the_move_and_the_copy_back_in_an_expression": ONE_FLAG.format(
        use="p = np.squeeze(out.numpy()) if not on_gpu else np.squeeze(out.cpu().numpy())"),
    "one_flag_guards_the_move_and_the_copy_back_in_an_if": ONE_FLAG.format(
        use="p = torch.softmax(out, dim=1)\nif on_gpu:\n    p = p.cpu()\nprint(p.numpy())"),
    "twin_no_copy_back": ONE_FLAG.format(use="print(out.numpy())  # expect: DEV401"),
    "isinstance_of_a_module_takes_the_branch_its_value_takes": TYPE_TEST.format(test="isinstance(net, nn.Module)",
                                                                                mark="", mark_net=""),
    "twin_another_test_runs_both_branches": TYPE_TEST.format(test="hasattr(net, 'weight')",
                                                             mark="  # expect: DEV102",
                                                             mark_net="  # expect: DEV104"),
    "what_is_no_module_in_the_other_branch": UNKNOWN_KIND.format(test="isinstance(net, nn.Module)", mark=""),
    "twin_what_may_be_a_module_after_another_test": UNKNOWN_KIND.format(test="hasattr(net, 'skip')",
                                                                        mark="  # expect: DEV102"),
    "an_unseen_function_given_a_device_may_put_its_result_there": DEVICE_KEYWORD.format(
        keyword="device=idist.device(), ", mark=""),
    "twin_an_unseen_function_given_no_device_follows_its_input": DEVICE_KEYWORD.format(
        keyword="", mark="  # expect: DEV102"),
    "a_forward_that_moves_an_element_of_its_input": INDEXED_MOVE.format(move="co_data[0].to(self.lin.weight.device)",
                                                                         mark=""),
    "twin_a_forward_that_uses_it_where_it_is": INDEXED_MOVE.format(move="co_data[0]", mark="  # expect: DEV104"),
    "np_squeeze_of_a_tensor_is_its_own_method": SQUEEZE.format(call="np.squeeze(pred.eq(0)).cpu().numpy()",
                                                               mark=""),
    "twin_np_transpose_with_axes_converts": SQUEEZE.format(call="np.transpose(pred, (1, 0))",
                                                          mark="  # expect: DEV401"),
    "a_checkpoint_saved_by_the_run_reaches_the_load_through_a_parameter": SAVED_THEN_LOADED.format(
        alias="", saver="torch", loaded="checkpoint.pth", mark=""),
    "a_checkpoint_saved_through_torch_under_another_name": SAVED_THEN_LOADED.format(
        alias="\nimport torch as t", saver="t", loaded="checkpoint.pth", mark=""),
    "twin_another_checkpoint": SAVED_THEN_LOADED.format(alias="", saver="torch", loaded="pretrained.pth",
                                                        mark="  # expect: DEV202"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


HELPER_TRAIN = """\
    import torch


    def train(model, batches, device, best_model_save_path=None):
        for x, y in batches:
            torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device)).backward()
        if best_model_save_path:
            torch.save(model.state_dict(), best_model_save_path)
"""

MAIN = """\
    import torch
    import torch.nn as nn
    from helper_train import train

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Linear(4, 3).to(device)
    train(model, [(torch.randn(8, 4), torch.randint(0, 3, (8,)))], device, best_model_save_path="best.pt")
    model.load_state_dict(torch.load("{loaded}"))
"""


@pytest.mark.parametrize("loaded, expected", [("best.pt", set()), ("other.pt", {(8, "DEV202")})])
def test_a_checkpoint_a_project_function_saved_where_it_was_told(tmp_path, loaded, expected):
    write_files(tmp_path, {"helper_train.py": HELPER_TRAIN, "main.py": MAIN.format(loaded=loaded)})
    assert {(f.line, f.code) for f in check_file(tmp_path / "main.py")} == expected
