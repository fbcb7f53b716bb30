"""An experiment whose intervals are too wide to rank its policies says so (issue 33, item 4): at
the end of ``dpb run`` and in ``dpb status``, one line naming a setting, the overlapping policies
and the command that converges it."""

from __future__ import annotations

import numpy as np

from dpb import experiments as E
from dpb.__main__ import main
from dpb.experiments import files as F


class _Runs:
    """A stand-in result: the summaries read ``final_regret`` only."""

    def __init__(self, values):
        self.final_regret = np.asarray(values, dtype=float)


def _results(a, b):
    exp = F.build(F.read_spec({"name": "rank", "horizon": 1000, "runs": len(a), "means": [0.9, 0.8],
                               "eps": [0.5], "policies": ["DP-IMED", "IMED"]}))
    cells = exp.settings[0].cells
    return E.ExperimentResults(exp, {cells[0]: _Runs(a), cells[1]: _Runs(b)})


def test_wide_overlapping_intervals_are_unranked():
    rng = np.random.default_rng(0)
    tame = 150 + rng.normal(0, 5, 40)
    heavy = 100 + rng.normal(0, 5, 40)
    heavy[[7, 31]] = 3000.0  # rare near-linear runs (as DP-IMED's at K >= 10)
    rows = E.unranked_settings(_results(heavy, tame))
    assert len(rows) == 1 and set(rows[0]["policies"]) == {"DP-IMED", "IMED"} and rows[0]["widest"] > 0.1
    assert E.unranked_settings(_results(100 + rng.normal(0, 2, 40), 200 + rng.normal(0, 2, 40))) == []
    # a tie measured to +-1 %: ranked as well as it can be (more runs would not help)
    assert E.unranked_settings(_results(100 + rng.normal(0, 2, 40), 100 + rng.normal(0, 2, 40))) == []
    assert len(E.unranked_settings(_results([100, 101, 99], [100, 102, 98]))) == 1  # 3 runs: no interval


def test_run_and_status_say_so_with_the_command_that_converges(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DPB_JIT", "0")
    spec = tmp_path / "s.toml"
    spec.write_text('name = "wide"\nhorizon = 300\nruns = 3\nmeans = [0.9, 0.8]\neps = [0.5]\n'
                    'policies = ["IMED", "KL-UCB"]\nfigures = "none"\n')
    argv = ["run", str(spec), "--out", str(tmp_path), "--no-progress", "--jobs", "1", "--runs", "3"]
    assert main(argv) == 0
    out = capsys.readouterr().out.strip().splitlines()
    note = out[-1]
    assert note.startswith("note: wide: the intervals are too wide to rank the policies in 1 of 1 settings")
    assert "IMED and KL-UCB overlap" in note or "KL-UCB and IMED overlap" in note
    assert f"`dpb run {spec} --out {tmp_path} --no-progress --jobs 1 --scale converged`" in note
    assert main(["status", str(spec), "--out", str(tmp_path), "--runs", "3"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("note: wide: the intervals are too wide")
    assert f"`dpb run {spec} --out {tmp_path} --scale converged`" in last  # the command that computes
