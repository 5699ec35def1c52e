"""False findings of the twelfth precision survey (issue 17 item 9), each beside a twin that must stay reported.

- a file that switches the default device to a GPU inside a function (`main()` under `--cuda`:
  `torch.set_default_device("cuda")`) may run a function nobody in it calls after the switch (a model only pyro's
  SVI calls, pyro's examples/hmm.py): its factories are wherever the default is, not on the cpu; a switch to the
  cpu, or to a cpu tensor type, is none;
- `torch.zeros(1).to(device)` alone is a CUDA warm-up: a tensor nobody holds, made to be moved, is no discarded
  move (skorch's examples/benchmarks/mnist.py); `x.to(device)` alone still is;
- `model(x).cpu()` of a model a library placed (`skorch.utils.to_device`): the host copy of what the GPU work
  just made waits for it, so a clock read after it times the work (skorch's mnist benchmark: a false DEV301).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

SWITCHED_IN_MAIN = """
import argparse
import pyro
import torch


def model_1(data, lengths):
    steps = torch.arange(data.size(1))
    mask = steps < lengths.unsqueeze(-1){mark}
    pyro.factor("obs", (data * mask).sum())


MODELS = {{name[len("model_"):]: fn for name, fn in globals().items() if name.startswith("model_")}}


def main(args):
    if args.cuda:
        {switch}
    data = torch.rand(8, 20)
    lengths = torch.randint(1, 20, (8,))
    svi = pyro.infer.SVI(MODELS[args.model], lambda d, l: None, pyro.optim.Adam({{}}), pyro.infer.Trace_ELBO())
    svi.step(data, lengths)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cuda", action="store_true")
    parser.add_argument("--model", default="1")
    main(parser.parse_args())
"""

WARM_UP = """
import time
import torch


def main(device, x):
    {discarded}{mark}
    tic = time.time()
    y = (x @ x).sum().item()
    print(y, time.time() - tic)


if __name__ == "__main__":
    main("cuda" if torch.cuda.is_available() else "cpu", torch.randn(4, 4))
"""

LIBRARY_MODEL = """
import time
import numpy as np
import torch
from skorch.utils import to_device


def run(x, device):
    model = to_device(torch.nn.Linear(20, 2), device)
    with torch.no_grad():
        return {predicted}


def main(device):
    tic = time.time()
    out = run(np.random.rand(100, 20).astype("float32"), device)
    elapsed = time.time() - tic{mark}
    print(out, elapsed)


if __name__ == "__main__":
    main("cuda" if torch.cuda.is_available() else "cpu")
"""

CASES = {
    "a_default_device_switched_in_main_reaches_a_function_only_a_library_calls": SWITCHED_IN_MAIN.format(
        switch='torch.set_default_device("cuda")', mark=""),
    "the_old_tensor_type_switch_too": SWITCHED_IN_MAIN.format(
        switch='torch.set_default_tensor_type("torch.cuda.FloatTensor")', mark=""),
    "twin_a_switch_to_the_cpu": SWITCHED_IN_MAIN.format(switch='torch.set_default_device("cpu")',
                                                        mark="  # expect: DEV104"),
    "twin_a_switch_to_a_cpu_tensor_type": SWITCHED_IN_MAIN.format(
        switch="torch.set_default_tensor_type(torch.DoubleTensor)", mark="  # expect: DEV104"),
    "the_host_copy_of_a_library_models_output_waits_for_it": LIBRARY_MODEL.format(
        predicted="model(torch.tensor(x).to(device)).cpu().numpy().argmax(1)", mark=""),
    "twin_the_output_left_on_the_device": LIBRARY_MODEL.format(
        predicted="model(torch.tensor(x).to(device)).argmax(1)", mark="  # expect: DEV301"),
    "a_warm_up_tensor_moved_and_dropped": WARM_UP.format(discarded="torch.zeros(1).to(device)", mark=""),
    "twin_a_held_tensor_moved_and_dropped": WARM_UP.format(discarded="x.to(device)", mark="  # expect: DEV103"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


def test_a_discarded_move_of_an_expression_is_told_to_keep_the_result_not_to_assign_to_it():
    from tests.lint_helpers import lint

    source = (
        "import torch\n\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "a = torch.randn(3)\n"
        "(a + a).to(device)\n"
    )
    (finding,) = lint(source)
    assert finding.code == "DEV103"
    assert finding.fix == "keep the moved tensor (`moved = (a + a).to(...)`) and use it"
    assert not finding.edits
