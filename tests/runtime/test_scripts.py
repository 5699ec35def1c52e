"""Small training scripts written as real ones are (tests/runtime/scripts/), run in this process.

A correct script prints exactly what a plain run prints; a buggy one fails naming the
user's line.
"""

from __future__ import annotations

import io
import runpy
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

import pytest

torch = pytest.importorskip("torch")

from devlint.runtime.runner import main  # noqa: E402

SCRIPTS = Path(__file__).resolve().parent / "scripts"


def checked(name: str, *args: str, gpus: int = 1, **options) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(SCRIPTS / name), *args], simulate_gpu=True, gpus=gpus, **options)
    return code, out.getvalue(), err.getvalue()


def plain(name: str, *args: str) -> str:
    """What `python script.py ARGS` prints on the cpu (a real GPU here is hidden from it)."""
    out = io.StringIO()
    saved = sys.argv
    sys.argv = [str(SCRIPTS / name), *args]
    try:
        with redirect_stdout(out), mock.patch("torch.cuda.is_available", return_value=False):
            runpy.run_path(str(SCRIPTS / name), run_name="__main__")
    finally:
        sys.argv = saved
    return out.getvalue()


@pytest.mark.parametrize("name, args, gpus", [
    ("ok_manual_sgd.py", ("--cuda",), 1),  # p.data.add_(p.grad, alpha=-lr)
    ("ok_compile_eager.py", (), 1),  # torch.compile(backend="eager"), a module and a function
    ("ok_data_parallel.py", (), 2),  # nn.DataParallel over two simulated GPUs
    ("ok_loader_timing.py", (), 1),  # DataLoader workers and pinned memory read clocks: not the user's
])
def test_correct_script_prints_what_a_plain_run_prints(name, args, gpus):
    code, out, err = checked(name, *args, gpus=gpus)
    assert code == 0, err
    assert out == plain(name, *args) and out
    assert "DEV" not in err  # no finding at all, not even a lying timer


def test_compiled_regions_run_eagerly_with_a_notice():
    _, _, err = checked("ok_compile_eager.py")
    assert err.count("runs eagerly under the checker") == 2  # one line per torch.compile call site
    assert "ok_compile_eager.py:8" in err


@pytest.mark.parametrize("name, line, code", [
    ("bad_accelerator_labels.py", 9, "DEV101"),  # torch.accelerator device, labels left on the cpu
    ("bad_np_mean_of_gpu_losses.py", 10, "DEV401"),  # np.mean of GPU tensors: the user's line, not numpy's
])
def test_buggy_script_fails_at_the_users_line(name, line, code):
    status, _, err = checked(name)
    assert status == 1
    assert f"devlint: {code} " in err
    assert f"at tests/runtime/scripts/{name}:{line}" in err
    assert "numpy" not in err.split("devlint runtime")[0].split(" at ")[-1]


def test_keep_going_reports_every_problem_once_per_call_site():
    code, out, err = checked("bad_np_mean_of_gpu_losses.py", keep_going=True)
    assert code == 1 and "mean loss" in out  # the script ran to its end
    assert "DEV401" in err and "Traceback" not in err
