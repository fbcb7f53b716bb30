"""``python -m dpb``: options, errors, an end-to-end quick run, and a sweep killed and resumed.

The kill test runs the command line in its own process group, waits until some result files
exist, sends SIGKILL to the whole group (the command and its worker processes), then reruns the
same command: the files finished before the kill are not touched again (same inode and mtime),
and the completed sweep equals an uninterrupted one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dpb import __main__ as cli
from dpb import experiments as E
from dpb.experiments.specs import _as_cells
from dpb.simulate import Result

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args, timeout=120):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "dpb", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env)


def test_help_explains_every_option(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["reproduce", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option in ("--runs", "--horizon", "--n-eps", "--seed", "--out", "--jobs", "--scheduler", "--force",
                   "--no-figures", "fig1", "appendix", "eps-sweep", "all"):
        assert option in text
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "reproduce" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "fig2"], "invalid choice: 'fig2'"),
    (["reproduce", "fig1", "--runs", "0"], "--runs must be an integer >= 1"),
    (["reproduce", "fig1", "--horizon", "ten"], "--horizon must be an integer"),
    (["reproduce", "fig1", "--horizon", "50"], "--horizon must be an integer >= 100"),
    (["reproduce", "fig1", "--jobs", "2", "--scheduler", "tcp://x:1"], "--jobs applies to the local pool"),
    (["reproduce"], "the following arguments are required"),
    ([], "the following arguments are required"),
])
def test_bad_options_get_a_clear_message(capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_horizon_accepts_scientific_notation():
    args = cli.build_parser().parse_args(["reproduce", "eps-sweep", "--horizon", "1e5"])
    assert args.horizon == 100_000


def test_end_to_end_quick_run_writes_results_figures_and_tables(tmp_path, capsys):
    out = tmp_path / "res"
    proc = run_cli("reproduce", "all", "--runs", "2", "--horizon", "2000", "--n-eps", "3", "--out", str(out),
                   "--jobs", "2", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "== fig1:" in text and "== appendix:" in text and "== eps-sweep:" in text
    assert "lower_bound" in text and "DP-IMED" in text and "done:" in text
    for stem in ("fig1", "appendix_mu1", "appendix_mu4", "appendix_ratios", "eps_sweep"):
        for ext in ("png", "pdf"):
            assert (out / "figures" / f"{stem}.{ext}").stat().st_size > 1000
    for name in E.EXPERIMENT_NAMES:
        assert (out / "tables" / f"{name}.txt").read_text().startswith("# ")
    n_files = len(list((out / "cells").glob("*.npz")))
    exps = [E.experiment(n, T=2000, runs=2, n_eps=3) for n in E.EXPERIMENT_NAMES]
    assert n_files == sum(len(c.chunks()) for c in _as_cells(exps))
    scale = ["--runs", "2", "--horizon", "2000", "--n-eps", "3", "--out", str(out)]
    assert cli.main(["status", "all", *scale]) == 0
    assert capsys.readouterr().out.count("0 missing, 0 stale") == 3
    assert cli.main(["reproduce", "fig1", *scale, "--no-figures", "--no-progress"]) == 0
    assert "0 result files computed" in capsys.readouterr().out


def test_a_killed_sweep_resumes_without_recomputing(tmp_path):
    out = tmp_path / "res"
    args = ["reproduce", "appendix", "--runs", "5", "--horizon", "20000", "--out", str(out), "--no-figures",
            "--no-progress"]
    exp = E.experiment("appendix", T=20000, runs=5)
    total = sum(len(c.chunks()) for c in exp.cells)
    cells = out / "cells"
    proc = subprocess.Popen([sys.executable, "-m", "dpb", *args, "--jobs", "1"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                            env={**os.environ, "MPLBACKEND": "Agg"})
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if cells.is_dir() and len(list(cells.glob("*.npz"))) >= 8:
                break
            assert proc.poll() is None, "the sweep finished before it could be interrupted"
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)  # the command and any worker, mid-flight
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:  # pragma: no cover
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    done = {f: (f.stat().st_ino, f.stat().st_mtime_ns) for f in cells.glob("*.npz")}
    assert 8 <= len(done) < total
    status = E.status(exp, out)
    assert status["done"] == len(done) and status["stale"] == 0  # only complete files were left
    resumed = run_cli(*args, "--jobs", "2")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{total - len(done)} result files computed, {len(done)} reused" in resumed.stdout
    for f, stamp in done.items():
        assert (f.stat().st_ino, f.stat().st_mtime_ns) == stamp
    # identical to an uninterrupted sweep with the same seed
    E.run(exp, tmp_path / "ref", jobs=2, progress=False)
    for cell in exp.cells:
        for a, b in cell.chunks():
            assert Result.load(cell.path(out, a, b)).same_as(Result.load(cell.path(tmp_path / "ref", a, b)))
