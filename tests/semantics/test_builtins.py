"""semantics/builtins.py and argparse_options.py: Python builtins, containers, argparse."""

from devlint.core.values import SELECTED, Availability, DeviceValue, Seq, Tensor
from tests.lint_helpers import infer

SELECT = 'import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'


def test_zip_enumerate_and_list():
    names, _ = infer(SELECT + """
xs = [torch.ones(2, device=device), torch.ones(2, device=device)]
for i, (a, b) in enumerate(zip(xs, xs)):
    pass
copy = list(xs)
""")
    assert names["a"].where == SELECTED and names["b"].where == SELECTED
    assert isinstance(names["copy"], Seq) and names["copy"].elem.where == SELECTED


def test_append_remembers_a_gpu_member():
    names, _ = infer(SELECT + "history = []\nhistory.append(torch.ones(2, device=device))\n")
    assert isinstance(names["history"], Seq) and names["history"].gpu_members


def test_exit_ends_the_path():
    names, _ = infer("""
        import sys, torch
        if not torch.cuda.is_available():
            sys.exit(0)
        x = torch.zeros(2, device="cuda")
    """)
    assert isinstance(names["x"], Tensor)


def test_argparse_options_by_name():
    names, _ = infer("""
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--no-cuda", action="store_true")
        parser.add_argument("--device", default="cuda")
        args = parser.parse_args()
        flag = args.no_cuda
        dev = args.device
    """)
    assert names["flag"] == Availability(positive=False)
    assert isinstance(names["dev"], DeviceValue) and names["dev"].where == SELECTED
