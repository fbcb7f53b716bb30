"""dpb.frames: tidy results, the long format of a Result and of an experiment's results, as rows,
data frames, CSV and Parquet."""

from __future__ import annotations

import csv
import json
import sys

import numpy as np
import pytest

import dpb
from dpb import experiments as E
from dpb.experiments import files as F


def test_result_to_rows_is_the_long_format():
    res = dpb.simulate("DP-IMED", "mu2", 5000, runs=3, seed=2, eps=0.5)
    rows = res.to_rows()
    C = res.checkpoints.size
    assert tuple(rows) == dpb.frames.COLUMNS
    assert all(len(v) == 3 * C for v in rows.values())
    assert (
        set(rows["instance"]) == {"mu2"} and set(rows["eps"]) == {0.5} and set(rows["policy"]) == {"DP-IMED"}
    )
    assert rows["run"].tolist() == [0] * C + [1] * C + [2] * C
    assert np.array_equal(rows["t"][:C], res.checkpoints)
    assert np.array_equal(rows["regret"].reshape(3, C), res.regret)
    assert json.loads(rows["params"][0])["eps"] == 0.5
    log = res.to_rows(grid="log")
    assert len(log["t"]) == 3 * int(res.log_grid.sum())
    nonprivate = dpb.simulate("IMED", "mu2", 500).to_rows()
    assert np.isnan(nonprivate["eps"]).all()


def test_to_frame_and_csv_give_the_same_numbers(tmp_path):
    pd = pytest.importorskip("pandas")
    res = dpb.simulate("DP-KLUCB", "mu1", 5000, runs=2, seed=9, eps=1.0)
    frame = res.to_frame(experiment="mine")
    assert list(frame.columns) == list(dpb.frames.COLUMNS) and len(frame) == 2 * res.checkpoints.size
    assert (frame.experiment == "mine").all()
    path = dpb.frames.export(res.to_rows(), tmp_path / "r.csv")
    back = pd.read_csv(path)
    assert np.array_equal(back.regret.to_numpy(), frame.regret.to_numpy())  # every digit kept
    assert back.t.tolist() == frame.t.tolist()
    with open(path, newline="") as fh:
        header = next(csv.reader(fh))
    assert header == list(dpb.frames.COLUMNS)


def test_to_frame_without_pandas_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    res = dpb.simulate("IMED", "mu1", 300, seed=1)
    with pytest.raises(ImportError, match=r"'pandas' extra of dpb: pip install 'dpb\[pandas\]'"):
        res.to_frame()
    assert dpb.frames.export(res.to_rows(), tmp_path / "x.csv").is_file()  # CSV needs no pandas
    with pytest.raises(ImportError, match="'pandas' extra"):
        dpb.frames.export(res.to_rows(), tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()


def test_experiment_results_to_frame_repeats_a_budgetless_policy_in_each_setting(tmp_path):
    pd = pytest.importorskip("pandas")
    exp = F.read_experiment("fig1", horizon=2000, runs=2)
    exp = F.build(F.override(exp.spec, policies=["DP-IMED", "IMED"], eps=[0.25, 1.0], means=["mu2"]))
    E.run(exp, tmp_path, jobs=1, progress=False)
    frame = E.load(exp, tmp_path).to_frame()
    assert isinstance(frame, pd.DataFrame)
    counts = frame.groupby(["eps", "policy"]).size()
    C = frame.t.nunique()
    assert counts.tolist() == [2 * C] * 4  # 2 budgets x 2 policies, 2 runs each
    imed = frame[frame.policy == "IMED"]
    assert np.array_equal(imed[imed.eps == 0.25].regret.to_numpy(), imed[imed.eps == 1.0].regret.to_numpy())
