"""``python -m dpb``: options, errors, an end-to-end quick run, and process control.

The process-control tests run the command line in a session of its own (``start_new_session``),
so that every process it starts (workers, fork server, resource tracker) can be found in
``/proc`` by its session id: after Ctrl-C, SIGTERM, SIGKILL of the main process or a failed chunk
the tests check how fast the command stops, that no process of the session survives, and that
the finished files are complete and reused by the next run.  Every test kills what it started,
also when it fails.  The horizons are tiny: the appendix at T = 20000 with 5 runs takes a few
seconds on two cores.
"""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.cli import python_output, write_file
from helpers.dask import DaskWorker
from helpers.processes import kill_session, needs_proc, parent_of, session_processes, sigint_default
from helpers.results import damage_member

from dpb import __main__ as cli
from dpb import experiments as E
from dpb.__main__ import main
from dpb.experiments import files as F
from dpb.experiments.files import _as_cells
from dpb.simulate import Result, estimate_cost

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
                   "--max-seconds",
                   "--no-figures", "fig1", "appendix", "eps-sweep", "all"):
        assert option in text
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "reproduce" in capsys.readouterr().out


def _main(argv, capsys):
    """Exit status, stdout and stderr of ``cli.main(argv)`` (argparse errors exit, checks return)."""
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def main_exit(argv, capsys):
    """Exit status and stderr of ``cli.main(argv)``."""
    code, _, err = _main(argv, capsys)
    return code, err


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "fig2"], "argument experiment: invalid choice: 'fig2'"),
    (["reproduce", "fig1", "--runs", "0"], "argument --runs: must be an integer from 1 to 1e4, got '0'"),
    (["reproduce", "fig1", "--horizon", "ten"], "argument --horizon: must be an integer from 100 to 1e9"),
    (["reproduce", "fig1", "--horizon", "50"], "argument --horizon: must be an integer from 100 to 1e9"),
    (["reproduce", "fig1", "--jobs", "2", "--scheduler", "tcp://x:1"], "--jobs applies to the local pool"),
    (["reproduce"], "the following arguments are required"),
    ([], "the following arguments are required"),
    # the examples of the issue: overflowing, huge and non-integral numbers
    (["reproduce", "fig1", "--horizon", "1e19"], "argument --horizon: must be an integer from 100 to 1e9"),
    (["reproduce", "fig1", "--horizon", "1e18"], "argument --horizon: must be an integer from 100 to 1e9"),
    (["reproduce", "fig1", "--horizon", "1e30"], "argument --horizon: must be an integer from 100 to 1e9"),
    (["reproduce", "fig1", "--horizon", "1e400"], "argument --horizon: must be an integer from 100 to 1e9"),
    (["reproduce", "fig1", "--runs", "1e400"], "argument --runs: must be an integer from 1 to 1e4"),
    (["reproduce", "fig1", "--seed", "1e400"], "argument --seed: must be an integer from 0 to 2**63-1"),
    (["reproduce", "fig1", "--seed", "-1"], "argument --seed: must be an integer from 0 to 2**63-1"),
    (["status", "fig1", "--runs", "1e9"], "argument --runs: must be an integer from 1 to 1e4"),
    (["status", "eps-sweep", "--n-eps", "1e8"], "argument --n-eps: must be an integer from 1 to 1000"),
    (["reproduce", "fig1", "--runs", "2.5"], "argument --runs: must be an integer"),
    (["reproduce", "fig1", "--runs", "nan"], "argument --runs: must be an integer"),
    (["reproduce", "fig1", "--runs", "inf"], "argument --runs: must be an integer"),
    (["reproduce", "fig1", "--jobs", "1e6"], "argument --jobs: must be an integer from 1 to 256"),
    (["reproduce", "fig1", "--out", ""], "argument --out: must name a directory"),
    (["reproduce", "fig1", "--scheduler", "nonsense://x"], "argument --scheduler: must be an address"),
    (["reproduce", "fig1", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_bad_options_get_a_clear_message(capsys, argv, message):
    code, err = main_exit(argv, capsys)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_out_that_is_a_file_missing_or_unwritable_gets_one_line(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    cases = [
        (["reproduce", "fig1", "--out", str(afile)], "argument --out: " + str(afile) + " is a file"),
        (["status", "fig1", "--out", str(afile)], "is a file, not a directory"),
        (["reproduce", "fig1", "--out", str(afile / "sub")], "argument --out: cannot write to"),
        (["status", "fig1", "--out", f"{tmp_path}/missing"], f"argument --out: {tmp_path}/missing does not"),
    ]
    if os.geteuid() == 0:  # root writes to any directory of a normal file system, not under /proc
        cases.append((["reproduce", "fig1", "--out", "/proc/dpb-out"], "argument --out: cannot write to"))
    else:  # pragma: no cover - depends on the user running the tests
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        cases.append((["reproduce", "fig1", "--out", str(locked)], "argument --out: cannot write to"))
    for argv, message in cases:
        code, err = main_exit([*argv, "--runs", "1", "--horizon", "100"], capsys)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (argv, err)
    # a missing --out is created by reproduce (with its parents) before any work
    out = tmp_path / "new" / "dir"
    assert cli.main(["reproduce", "fig1", "--runs", "1", "--horizon", "100", "--out", str(out), "--jobs", "1",
                     "--no-figures", "--no-progress"]) == 0
    assert len(list((out / "cells").glob("*.npz"))) == 12


def test_an_unreachable_scheduler_is_refused_quickly(capsys):
    pytest.importorskip("distributed")
    import socket

    with socket.socket() as sock:  # a free port on which nothing listens
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        t0 = time.monotonic()
        code, err = main_exit(["reproduce", "fig1", "--scheduler", f"tcp://127.0.0.1:{port}"], capsys)
        took = time.monotonic() - t0
    assert code == 2 and "argument --scheduler: no Dask scheduler answers at" in err
    assert len(err.strip().splitlines()) == 1
    assert took < cli.SCHEDULER_TIMEOUT + 10


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
    exps = [E.experiment(n, T=2000, runs=2, n_eps=3) for n in E.EXPERIMENT_NAMES]
    fig1, appendix, sweep = (E.output_stem(e) for e in exps)  # <name>-<digest of the spec>
    for stem in (fig1, f"{appendix}_mu1", f"{appendix}_mu4", f"{appendix}_ratios", sweep):
        for ext in ("png", "pdf"):
            assert (out / "figures" / f"{stem}.{ext}").stat().st_size > 1000
    for stem in (fig1, appendix, sweep):
        assert (out / "tables" / f"{stem}.txt").read_text().startswith("# ")
        assert (out / "tables" / f"{stem}.toml").is_file()  # the experiment file of the outputs
    n_files = len(list((out / "cells").glob("*.npz")))
    assert n_files == sum(len(c.chunks()) for c in _as_cells(exps))
    scale = ["--runs", "2", "--horizon", "2000", "--n-eps", "3", "--out", str(out)]
    assert cli.main(["status", "all", *scale]) == 0
    assert capsys.readouterr().out.count("0 missing, 0 stale") == 3
    assert cli.main(["reproduce", "fig1", *scale, "--no-figures", "--no-progress"]) == 0
    assert "0 result files computed" in capsys.readouterr().out


def test_status_shows_a_damaged_file_and_reproduce_recomputes_it(tmp_path, capsys):
    scale = ["fig1", "--runs", "2", "--horizon", "2000", "--out", str(tmp_path)]
    assert cli.main(["reproduce", *scale, "--jobs", "1", "--no-figures", "--no-progress"]) == 0
    exp = E.experiment("fig1", T=2000, runs=2)
    cell = exp.cells[0]
    before = Result.load(cell.path(tmp_path, 0, 2))
    damage_member(cell.path(tmp_path, 0, 2), "pulls.npy")  # inside the member, headers intact
    capsys.readouterr()
    assert cli.main(["status", *scale]) == 0
    assert "11 done, 0 missing, 0 stale, 1 damaged" in capsys.readouterr().out
    assert cli.main(["reproduce", *scale, "--jobs", "1", "--no-figures", "--no-progress"]) == 0
    assert "1 result files computed, 11 reused" in capsys.readouterr().out
    assert Result.load(cell.path(tmp_path, 0, 2)).same_as(before)


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


# ----------------------------------------------------------------------------------------------
# process control
# ----------------------------------------------------------------------------------------------
SWEEP = ["reproduce", "appendix", "--runs", "5", "--horizon", "20000", "--no-figures"]


class Session:
    """``python -m dpb ARGS`` in a new session; stops every process of the session on exit."""

    def __init__(self, tmp_path, *args, name="run", pythonpath=None):
        self.stderr_path = tmp_path / f"{name}.stderr"
        self.stdout_path = tmp_path / f"{name}.stdout"
        env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONFAULTHANDLER": "1"}
        if pythonpath is not None:
            env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), env.get("PYTHONPATH", str(ROOT))])
        with open(self.stdout_path, "w") as out, open(self.stderr_path, "w") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "dpb", *args], cwd=ROOT, stdout=out,
                                         stderr=err, start_new_session=True, preexec_fn=sigint_default,
                                         env=env)
        self.sid = self.proc.pid

    def wait_for_files(self, cells: Path, n: int, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cells.is_dir() and len(list(cells.glob("*.npz"))) >= n:
                return
            assert self.proc.poll() is None, f"the run ended early: {self.stderr()}"
            time.sleep(0.01)
        raise AssertionError(f"fewer than {n} files after {timeout} s")

    def wait_gone(self, timeout) -> float:
        """Seconds until no process of the session is left (fails after ``timeout``)."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None and not session_processes(self.sid):
                return time.monotonic() - t0
            time.sleep(0.02)
        raise AssertionError(f"processes alive {timeout} s later: {session_processes(self.sid)}")

    def wait(self, timeout) -> int:
        """The exit status; on a timeout, the Python stacks of the command (faulthandler, SIGABRT)
        go into the failure message."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"no exit within {timeout} s; stderr and stacks:\n{self.stacks()}") from None

    def stacks(self) -> str:
        """The end of stderr after SIGABRT: the command's Python stacks, every thread (faulthandler)."""
        self.proc.send_signal(signal.SIGABRT)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        return self.stderr()[-8000:]

    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def stdout(self) -> str:
        return self.stdout_path.read_text()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        kill_session(self.proc, self.sid)


def done_files(cells: Path) -> dict:
    return {f: (f.stat().st_ino, f.stat().st_mtime_ns) for f in cells.glob("*.npz")}


@needs_proc
@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_ctrl_c_and_sigterm_stop_within_two_seconds_and_keep_the_finished_files(tmp_path, how):
    out = tmp_path / "res"
    exp = E.experiment("appendix", T=20000, runs=5)
    total = sum(len(c.chunks()) for c in exp.cells)
    with Session(tmp_path, *SWEEP, "--out", str(out), "--jobs", "2") as run:
        run.wait_for_files(out / "cells", 4)
        assert len(session_processes(run.sid)) >= 3  # the command and its two workers at least
        t0 = time.monotonic()
        if how == "ctrl-c":  # a terminal sends SIGINT to the whole foreground process group
            os.killpg(run.sid, signal.SIGINT)
        else:
            os.kill(run.proc.pid, signal.SIGTERM)
        code = run.wait(10)
        stopped = time.monotonic() - t0
        gone = run.wait_gone(10) + stopped
        err = run.stderr()
    assert code == (130 if how == "ctrl-c" else 143), err
    assert stopped < 2.0, f"took {stopped:.2f} s to stop"
    assert gone < 10.0
    assert "rerun the same command to resume" in err and "Traceback" not in err
    kept = done_files(out / "cells")
    assert 4 <= len(kept) < total
    assert E.status(exp, out) == {"done": len(kept), "missing": total - len(kept), "stale": 0,
                                  "damaged": 0}
    resumed = run_cli(*SWEEP, "--out", str(out), "--jobs", "2", "--no-progress")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{total - len(kept)} result files computed, {len(kept)} reused" in resumed.stdout
    assert done_files(out / "cells") | kept == done_files(out / "cells")  # kept files untouched
    assert not list((out / "cells").glob("*.tmp"))  # leftovers of killed workers are cleaned


@needs_proc
def test_sigkill_of_the_main_process_leaves_no_process_alive(tmp_path):
    out = tmp_path / "res"
    with Session(tmp_path, *SWEEP, "--out", str(out), "--jobs", "2", "--no-progress") as run:
        run.wait_for_files(out / "cells", 4)
        others = set(session_processes(run.sid)) - {run.proc.pid}
        assert len(others) >= 2  # workers (and the fork server, the resource tracker)
        os.kill(run.proc.pid, signal.SIGKILL)  # the main process only: the workers must notice
        run.proc.wait(timeout=10)
        gone = run.wait_gone(10)
    assert gone < 10.0
    exp = E.experiment("appendix", T=20000, runs=5)
    kept = done_files(out / "cells")
    assert E.status(exp, out)["done"] == len(kept)  # every file left is complete and current


@needs_proc
def test_a_failed_chunk_stops_the_run_with_one_line_naming_the_cell(tmp_path):
    out = tmp_path / "res"
    exp = E.experiment("appendix", T=20000, runs=5)
    chunks = [(c, a, b) for c in exp.cells for a, b in c.chunks()]
    cell, a, b = sorted(chunks, key=lambda t: -t[0].cost(t[2] - t[1]))[0]  # the first to start
    # a directory where the result file goes is damage that the run now repairs (set aside), so
    # the chunk fails where its file is written, in the worker (sitecustomize runs in every process)
    (tmp_path / "sitecustomize.py").write_text(textwrap.dedent(f"""
        from dpb.simulate import Result
        _save = Result.save
        def save(self, path):
            if str(path).endswith({cell.path(out, a, b).name!r}):
                raise IsADirectoryError(21, "Is a directory", str(path))
            return _save(self, path)
        Result.save = save
        """))
    for verbose in ((), ("--verbose",)):
        with Session(tmp_path, *SWEEP, "--out", str(out), "--jobs", "2", "--no-progress", *verbose,
                     name=f"fail{len(verbose)}", pythonpath=tmp_path) as run:
            t0 = time.monotonic()
            code = run.proc.wait(timeout=60)
            took = time.monotonic() - t0
            run.wait_gone(10)
            err = run.stderr()
        assert code == 1
        lines = [ln for ln in err.splitlines() if ln.strip()]
        assert lines[-1].startswith("python -m dpb: error: cell ") and cell.name in lines[-1]
        assert f"runs {a}-{b} failed: IsADirectoryError" in lines[-1]
        if verbose:
            assert "Traceback (most recent call last)" in err
        else:
            assert len(lines) == 1 and "Traceback" not in err
        # the other chunks were stopped: far fewer files than the sweep has
        assert len(list((out / "cells").glob("*.npz"))) < sum(len(c.chunks()) for c in exp.cells) // 2
        assert took < 30


@needs_proc
def test_two_runs_on_one_directory_share_the_work(tmp_path):
    out = tmp_path / "res"
    # 28 chunks, about 5 CPU-s in all: enough that both processes are computing at the same time
    # even when one of them starts seconds late on a busy machine (with 12 chunks of 1 CPU-s, the
    # first one up did all the work under pytest-xdist beside the book build)
    args = ["reproduce", "fig1", "--runs", "40", "--horizon", "200000", "--no-figures", "--no-progress",
            "--out", str(out), "--jobs", "1"]
    exp = E.experiment("fig1", T=200000, runs=40)
    total = sum(len(c.chunks()) for c in exp.cells)
    with Session(tmp_path, *args, name="a") as a, Session(tmp_path, *args, name="b") as b:
        assert a.proc.wait(timeout=120) == 0, a.stderr()
        assert b.proc.wait(timeout=120) == 0, b.stderr()
        outs = a.stdout(), b.stdout()
    computed = [int(o.split("done: ")[1].split(" result files computed")[0]) for o in outs]
    assert sum(computed) == total, outs  # no chunk computed twice
    assert min(computed) > 0  # both did some of the work
    assert E.status(exp, out) == {"done": total, "missing": 0, "stale": 0, "damaged": 0}
    E.run(exp, tmp_path / "ref", jobs=1, progress=False)
    for cell in exp.cells:
        for x, y in cell.chunks():
            assert Result.load(cell.path(out, x, y)).same_as(Result.load(cell.path(tmp_path / "ref", x, y)))


@needs_proc
def test_with_no_dask_worker_the_cli_says_it_is_waiting_then_finishes(tmp_path, dask_cluster):
    out = tmp_path / "res"
    args = ["reproduce", "eps-sweep", "--runs", "2", "--horizon", "2000", "--n-eps", "3", "--out", str(out),
            "--no-figures", "--no-progress"]
    with dask_cluster(0) as cluster:
        with Session(tmp_path, *args, "--scheduler", cluster.scheduler_address) as run:
            deadline = time.monotonic() + 60
            while "waiting for Dask workers" not in run.stderr():
                assert run.proc.poll() is None, run.stderr()
                assert time.monotonic() < deadline, "no word about the missing workers"
                time.sleep(0.1)
            assert not (out / "cells").exists() or not list((out / "cells").glob("*.npz"))
            cluster.scale(1)  # a worker joins: the sweep goes on
            assert run.proc.wait(timeout=120) == 0, run.stderr()
            assert "3 result files computed" in run.stdout()


def test_a_policy_file_that_fails_to_load_gets_one_line(tmp_path, capsys):
    (tmp_path / "syntax.py").write_text("x = (\n")
    (tmp_path / "boom.py").write_text("raise RuntimeError('boom')\n")
    scale = ["reproduce", "fig1", "--runs", "1", "--horizon", "100", "--out", str(tmp_path / "res")]
    for spec, message in ((f"{tmp_path}/syntax.py:X", "SyntaxError: '(' was never closed"),
                          (f"{tmp_path}/boom.py:X", "RuntimeError: boom")):
        code, err = main_exit([*scale, "--policy", spec], capsys)
        assert code == 2 and "argument --policy: loading" in err and message in err, err
        assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "res" / "cells").exists()  # refused before any work


@needs_proc
def test_a_worker_killed_from_outside_stops_the_run_with_one_line(tmp_path):
    out = tmp_path / "res"
    with Session(tmp_path, *SWEEP, "--out", str(out), "--jobs", "2", "--no-progress") as run:
        run.wait_for_files(out / "cells", 2)
        main = run.proc.pid
        # the workers are the children of the fork server, itself a child of the command
        workers = [p for p in session_processes(run.sid) if p != main and parent_of(p) != main]
        assert workers
        os.kill(workers[0], signal.SIGKILL)
        code = run.wait(30)
        run.wait_gone(10)
        err = run.stderr()
    assert code == 1, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and f"worker process {workers[0]}" in lines[0]
    assert "exited with code -9" in lines[0]


# ----------------------------------------------------------------------------------------------
# the work bound: a run whose result file would take too long is refused before any work
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["reproduce", "fig1", "--horizon", "1e9"],
    ["reproduce", "fig1", "--horizon", "1e8"],
    ["reproduce", "appendix", "--runs", "1e4", "--horizon", "5e7"],  # (Lazy-DP-TS's files of 10 runs)
    ["reproduce", "all", "--scale", "converged", "--horizon", "1e8"],
    ["reproduce", "fig1", "--policy", "KL-UCB", "--horizon", "1e9"],  # (its kernel runs 1e8 in ~1 s)
])
def test_a_run_estimated_too_long_is_refused_in_one_line(argv, tmp_path, capsys, monkeypatch):
    def never(*args, **kwargs):  # pragma: no cover - reached only by a broken check
        raise AssertionError("the run started")

    monkeypatch.setattr(cli, "_reproduce", never)
    code, err = main_exit([*argv, "--out", str(tmp_path)], capsys)
    assert code == 2, err
    assert "argument --horizon/--runs:" in err and "CPU-seconds" in err and "max_seconds=120" in err
    assert "--max-seconds none" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "cells").exists()


def test_max_seconds_none_or_larger_lets_the_run_start(tmp_path, capsys, monkeypatch):
    started = []
    monkeypatch.setattr(cli, "_reproduce", lambda args, *rest: started.append(args.max_seconds) or 0)
    for limit in ("none", "1e5"):
        code, err = main_exit(["reproduce", "fig1", "--horizon", "1e8", "--max-seconds", limit, "--out",
                               str(tmp_path)], capsys)
        assert code == 0, err
    assert started == [None, 1e5]
    for bad in ("0", "-1", "nan", "inf", "x", "1e400"):
        code, err = main_exit(["reproduce", "fig1", "--max-seconds", bad, "--out", str(tmp_path)], capsys)
        assert code == 2 and "argument --max-seconds: must be a number of seconds" in err, (bad, err)


@pytest.mark.parametrize("argv", [["reproduce", "all"], ["reproduce", "all", "--scale", "converged"]])
def test_the_paper_scales_pass_the_work_bound(argv, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cli, "_reproduce", lambda *args: 0)
    code, err = main_exit([*argv, "--out", str(tmp_path)], capsys)
    assert code == 0, err


def test_the_runner_refuses_a_chunk_estimated_too_long_before_any_work(tmp_path):
    exp = E.experiment("fig1", T=10**8, runs=20)
    # the message names the chunk with the largest estimate (fig1's per-step cells on mu1)
    costs = {(c.name, a, b): estimate_cost(c.policy, c.bandit(), c.T, b - a, params=c.params).seconds
             for c in exp.cells for a, b in c.chunks()}
    name, a, b = max(costs, key=costs.get)
    assert "mu1" in name and costs[name, a, b] > 120
    expected = rf"cell {name}.* for T=100000000 and runs={b - a} .*max_seconds=120"
    with pytest.raises(ValueError, match=expected):
        E.run(exp, tmp_path, jobs=1, progress=False)
    assert not (tmp_path / "cells").exists() or not list((tmp_path / "cells").iterdir())


@needs_proc
def test_dask_with_every_worker_killed_mid_sweep_waits_then_finishes_with_the_local_results(
        tmp_path, dask_cluster):
    """Every worker SIGKILLed mid-sweep: the command says it waits for workers (and computes
    nothing meanwhile); a new worker on the same scheduler finishes the sweep, and every file equals
    the local pool's bit for bit, under an experiment seed other than the default (the one test of
    a Dask worker killed mid-sweep: it took over the API test of ``test_experiments.py`` that
    killed one busy worker of two with ``seed=9``)."""
    out, ref = tmp_path / "dask", tmp_path / "ref"
    args = ["reproduce", "fig1", "--runs", "10", "--horizon", "20000", "--seed", "9", "--no-figures",
            "--no-progress"]
    exp = E.experiment("fig1", T=20000, runs=10)
    total = sum(len(c.chunks()) for c in exp.cells)
    with dask_cluster(0) as cluster:  # the scheduler only; the workers are ours
        address = cluster.scheduler_address
        with DaskWorker(tmp_path, address, "w1") as w1, DaskWorker(tmp_path, address, "w2") as w2, \
                Session(tmp_path, *args, "--out", str(out), "--scheduler", address) as run:
            run.wait_for_files(out / "cells", 2, timeout=120)
            w1.kill()
            w2.kill()
            t_killed = time.monotonic()
            deadline = t_killed + 90  # the scheduler notices a killed worker late on a busy machine
            while "waiting for Dask workers" not in run.stderr():
                assert run.proc.poll() is None, run.stderr()
                if time.monotonic() > deadline:
                    raise AssertionError(f"no word about the missing workers in 90 s: {run.stacks()}")
                time.sleep(0.05)
            said_after = time.monotonic() - t_killed
            n_during = len(list((out / "cells").glob("*.npz")))
            assert n_during < total, "the sweep ended before every worker was gone"
            time.sleep(1.0)  # nothing is computed without a worker
            assert run.proc.poll() is None
            assert len(list((out / "cells").glob("*.npz"))) == n_during
            with DaskWorker(tmp_path, address, "w3"):
                assert run.wait(120) == 0, run.stderr()
            err = run.stderr()
    assert "Dask workers are back" in err
    assert f"done: {total} result files computed, 0 reused" in run.stdout()
    assert said_after < 15, said_after
    print(f"both workers killed after {n_during} of {total} files; 'waiting for Dask workers' "
          f"{said_after:.2f} s later")
    E.run(exp, ref, seed=9, jobs=1, progress=False)
    for cell in exp.cells:
        for a, b in cell.chunks():
            x, y = Result.load(cell.path(ref, a, b)), Result.load(cell.path(out, a, b))
            assert x.same_as(y), cell.path(out, a, b).name
            assert E.chunk_status(cell, a, b, out, seed=9) == "done"


def test_a_wrong_dpb_jit_is_refused_in_one_line_before_any_work(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DPB_JIT", "false")
    argv = ["reproduce", "fig1", "--horizon", "1e4", "--runs", "2", "--out", str(tmp_path)]
    code, err = main_exit(argv, capsys)
    assert code == 2 and "DPB_JIT must be 0" in err and "'false'" in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "cells").exists()


def test_run_help_lists_the_options_that_describe_an_experiment(capsys):
    code, out, _ = _main(["run", "--help"], capsys)
    assert code == 0
    for option in (
        "--means",
        "--eps",
        "--policies",
        "--params",
        "--horizon",
        "--runs",
        "--scale",
        "--name",
        "FILE.toml",
        "an experiment file (TOML)",
    ):
        assert option in out
    code, out, _ = _main(["--help"], capsys)
    for command in ("reproduce", "run", "status", "export", "compile"):
        assert command in out
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dpb = "dpb.__main__:console"' in text


def test_two_horizons_into_one_out_keep_both_outputs(tmp_path, capsys):
    path = write_file(
        tmp_path / "two.toml",
        'name = "two"\nhorizon = 2000\nruns = 2\nmeans = [0.9, 0.8]\n'
        'eps = [0.5, 1.0]\npolicies = ["DP-KLUCB", "IMED"]\n',
    )
    out = tmp_path / "res"
    common = ["--out", str(out), "--jobs", "1", "--no-progress"]
    assert _main(["run", str(path), *common], capsys)[0] == 0
    first = sorted(p.name for p in (out / "tables").iterdir())
    before = {p: p.read_bytes() for p in (out / "tables").iterdir()}
    code, printed, _ = _main(["run", str(path), "--horizon", "3000", *common], capsys)
    assert code == 0
    stem = F.output_stem(F.read_experiment(path, horizon=3000))
    assert f"figures/{stem}.png" in printed
    assert all(p.read_bytes() == b for p, b in before.items())  # the first spec's outputs untouched
    assert len(list((out / "tables").iterdir())) == 2 * len(first)
    assert len(list((out / "figures").glob("two-*.png"))) == 2


def test_run_from_the_options_alone_and_what_is_missing(tmp_path, capsys):
    out = tmp_path / "res"
    argv = ["run", "--means", "0.9,0.8,0.8", "--means", "mu2", "--eps", "0.5", "--policies",
            "DP-KLUCB,IMED", "--params", "DP-KLUCB:alpha=3", "--horizon", "2e3", "--runs", "2", "--name",
            "cli", "--out", str(out), "--jobs", "1", "--no-progress", "--no-figures"]
    code, printed, err = _main(argv, capsys)
    assert code == 0, err
    assert "== cli: 2 policies on 2 instances, eps = 0.5, T = 2000, 2 runs ==" in printed
    spec = (out / "tables").glob("cli-*.toml")
    exp = F.read_experiment(next(spec))
    assert [s.env for s in exp.settings] == ["custom", "mu2"]
    assert exp.settings[0].cells[0].params["alpha"] == 3
    code, _, err = _main(
        ["run", "--means", "0.9,0.8", "--eps", "0.5", "--policies", "IMED", "--out", str(out)], capsys
    )
    assert (
        code == 2 and "argument --horizon: without an experiment file" in err and len(err.splitlines()) == 1
    )
    code, _, err = _main(
        ["run", "--means", "0.9,0.8", "--eps", "0.5", "--policies", "IMED", "--horizon", "1e3", "--params",
         "alpha=3", "--out", str(out)],
        capsys,
    )
    assert code == 2 and "argument --params: no policy of the experiment takes alpha" in err
    code, _, err = _main(
        ["run", "--means", "0.9", "--eps", "0.5", "--policies", "IMED", "--horizon", "1e3", "--out",
         str(out)],
        capsys,
    )
    assert code == 2 and "K >= 2" in err


def test_status_says_why_a_file_is_stale(tmp_path, capsys, monkeypatch):
    out = tmp_path / "res"
    argv = ["--means", "0.9,0.8", "--eps", "1", "--policies", "DP-KLUCB", "--horizon", "1000", "--runs",
            "2", "--out", str(out)]
    monkeypatch.setenv("DPB_JIT", "0")
    assert _main(["run", *argv, "--jobs", "1", "--no-progress", "--no-figures"], capsys)[0] == 0
    monkeypatch.setenv("DPB_JIT", "1")
    code, printed, _ = _main(["status", *argv], capsys)
    assert code == 0 and "0 done, 0 missing, 1 stale" in printed
    assert "stale: made with the python engine, this run uses numba (DPB_JIT)" in printed
    (cell,) = F.build(
        F.override(None, means=[[0.9, 0.8]], eps=[1.0], policies=["DP-KLUCB"], horizon=1000, runs=2)
    ).cells
    assert E.chunk_reason(cell, 0, 2, out).startswith("stale: made with the python engine")


def test_export_writes_csv_and_parquet_and_refuses_what_is_not_computed(tmp_path, capsys):
    out = tmp_path / "res"
    path = write_file(
        tmp_path / "x.toml",
        'name = "x"\nhorizon = 1000\nruns = 2\nmeans = [0.9, 0.8]\neps = [1.0]\n'
        'policies = ["DP-IMED", "IMED"]\n',
    )
    code, _, err = _main(["export", str(path), "--out", str(tmp_path)], capsys)
    assert code == 2 and "x is not computed" in err and "run it first" in err
    assert (
        _main(["run", str(path), "--out", str(out), "--jobs", "1", "--no-progress", "--no-figures"], capsys)[
            0
        ]
        == 0
    )
    code, printed, _ = _main(["export", str(path), "--out", str(out)], capsys)
    assert code == 0
    csv_path = out / "exports" / f"{F.output_stem(F.read_experiment(path))}.csv"
    assert str(csv_path) in printed
    rows = list(csv.DictReader(open(csv_path, newline="")))
    res = E.load(path, out)
    assert len(rows) == sum(r.regret.size for r in res.results.values())
    assert {r["policy"] for r in rows} == {"DP-IMED", "IMED"} and {r["instance"] for r in rows} == {"custom"}
    pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    assert (
        _main(["export", str(path), "--out", str(out), "--output", str(tmp_path / "x.parquet")], capsys)[0]
        == 0
    )
    frame = pd.read_parquet(tmp_path / "x.parquet")
    assert frame.equals(res.to_frame())


def test_a_policy_file_without_its_class_gets_a_hint(tmp_path, capsys):
    path = write_file(
        tmp_path / "mine.py", "from dpb.policies import DPIMED\nclass Mine(DPIMED):\n    name = 'Mine'\n"
    )
    code, _, err = _main(["reproduce", "fig1", "--policy", str(path), "--out", str(tmp_path)], capsys)
    assert (
        code == 2 and f"write FILE.py:CLASS, e.g. --policy {path}:Mine" in err and "(it defines Mine)" in err
    )


def test_compile_is_a_command_and_jit_imports_no_simulator(capsys, monkeypatch):
    out = python_output("import sys, dpb._jit; print('dpb.simulate' in sys.modules, 'numba' in sys.modules)")
    assert out.split() == ["False", "False"]
    monkeypatch.setenv("DPB_JIT", "0")
    code, printed, _ = _main(["compile"], capsys)
    assert code == 0 and "nothing to compile" in printed
    makefile = (ROOT / "Makefile").read_text()
    assert "dpb compile" in makefile and "dpb._jit" not in makefile


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
