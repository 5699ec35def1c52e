"""The runtime report: labels, cut paths, merging (tests, ranks), JSON round trip."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from devlint.runtime import HostConversionError, check  # noqa: E402
from devlint.runtime.report import Report, Site  # noqa: E402


def test_each_code_has_its_own_label_and_long_paths_show_where_they_were_cut():
    report = Report(simulated=True, gpus=1)
    deep = Site("some/very/long/path/to/a/project/that/goes/on/and/on/train.py", 42)
    report.add_problem("DEV401", deep, "numpy")
    report.add_problem("DEV101", Site("t.py", 3), "mixed")
    table = report.summary_table()
    assert "GPU tensor handed to numpy" in table and "tensors on different devices" in table
    assert "device mismatch" not in table
    assert "...a/project/that/goes/on/and/on/train.py:42" in table  # the end (file and line) kept, the cut shown


def test_merge_counts_and_names_ranks_and_survives_json():
    first, second = Report(), Report()
    site = Site("train.py", 9, "step")
    first.add_problem("DEV101", site, "story")
    first.add_transfer(site, "cpu->cuda:0", 100)
    second.add_problem("DEV101", site, "story")
    second.add_transfer(site, "cpu->cuda:0", 50)
    total = Report().merge(first, rank=0).merge(Report.from_dict(second.to_dict()), rank=1)
    [problem] = total.problems
    assert problem.count == 2 and problem.ranks == {0, 1}
    [transfer] = total.transfers.values()
    assert transfer.count == 2 and transfer.nbytes == 150
    assert "train.py:9 [rank 0,1]" in total.summary_table()


def test_a_gpu_tensor_handed_to_numpy_raises_a_type_error_of_its_own():
    with pytest.raises(HostConversionError) as caught:
        with check(simulate_gpu=True):
            torch.ones(2, device="cuda").numpy()
    assert isinstance(caught.value, TypeError) and caught.value.code == "DEV401"
