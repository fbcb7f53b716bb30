"""A user's policy or script can never hang a run or end it without a word (issue 24 item 2,
issue 25 item 1): a chunk over its time limit is stopped with one line naming the cell; a
``sys.exit``, ``KeyboardInterrupt`` or crash of the policy's code, at import or in a method, is one
line naming the file, the line and the cause, with ``--jobs 1`` as with ``--jobs 2``; a plain
script without ``if __name__ == "__main__":`` runs the experiments with the default ``jobs``.

The backends of ``dpb.experiments.execution`` against their written protocol (``Backend``): mypy
checks the three assignments in ``run`` (``backend: Backend = ...``); the tests check the same at
run time, by signature, so that a backend that renames or drops a method, or changes what it takes,
fails here and not in the middle of a run."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import dpb.experiments as E
from dpb.experiments import Backend
from dpb.experiments.dask import _Dask
from dpb.experiments.execution import _InProcess
from dpb.experiments.workers import Pool
from dpb.policies import BatchedPrivatePolicy

ROOT = Path(__file__).resolve().parents[1]

POLICIES = {
    "loop.py": """
        from dpb.policies import BatchedPrivatePolicy
        class Loop(BatchedPrivatePolicy):
            name = "Loop-UCB"
            def private_index(self, x, n, t, releases):
                while True:
                    pass
        """,
    "exit3.py": """
        import sys
        from dpb.policies import BatchedPrivatePolicy
        class Exit3(BatchedPrivatePolicy):
            name = "Exit-UCB"
            def private_index(self, x, n, t, releases):
                sys.exit(3)
        """,
    "kbd.py": """
        from dpb.policies import BatchedPrivatePolicy
        class Kbd(BatchedPrivatePolicy):
            name = "Kbd-UCB"
            def private_index(self, x, n, t, releases):
                raise KeyboardInterrupt
        """,
    "badplan.py": """
        from dpb.policies import BatchedPrivatePolicy
        class BadPlan(BatchedPrivatePolicy):
            name = "Bad-Plan"
            def private_index(self, x, n, t, releases):
                return x
            def decide(self, rows, t):
                plan = super().decide(rows, t)
                plan[plan > 0] = -5
                return plan
        """,
    "import_exit.py": "import sys\nsys.exit(4)\n",
    "import_kbd.py": "raise KeyboardInterrupt\n",
    "import_crash.py": "x = 1\ny = x / 0\n",
}


def _env():
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    env.pop("DPB_RESULTS", None)
    return env


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("policies")
    for name, text in POLICIES.items():
        (folder / name).write_text(textwrap.dedent(text))
    return folder


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    """A results directory holding the package's cells of fig1 at T = 300 (computed once, with no
    time limit: a fresh process may compile kernels first), so that each test computes only the
    user's cell under its time limit."""
    folder = tmp_path_factory.mktemp("out")
    cmd = [sys.executable, "-m", "dpb", "reproduce", "fig1", "--runs", "1", "--horizon", "300", "--jobs", "1",
           "--no-figures", "--no-progress", "--out", str(folder)]
    subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=_env(), check=True)
    return folder


def _reproduce(files, spec, jobs, out, *extra):
    cmd = [sys.executable, "-m", "dpb", "reproduce", "fig1", "--policy", str(files / spec), "--runs", "1",
           "--horizon", "300", "--jobs", str(jobs), "--no-figures", "--no-progress", "--out", str(out),
           *extra]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=_env())
    return proc, time.monotonic() - t0


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("spec, status, cause", [
    # (with two workers either instance's chunk may reach its limit first)
    ("loop.py:Loop", 1, r"cell loopucb_mu(\d)_eps0.25_T3e02_\w+ \(Loop-UCB on mu\1, eps=0.25, T=300\) "
                        r"runs 0-1 failed: stopped after 4 s, over its time limit"),
    ("exit3.py:Exit3", 1, r"cell exitucb_\S+ \(Exit-UCB .*\) runs 0-1 failed: sys.exit\(3\) called "
                          r"\(.*exit3.py, line 7\)"),
    ("kbd.py:Kbd", 1, r"cell kbducb_\S+ \(Kbd-UCB .*failed: KeyboardInterrupt raised \(.*kbd.py, line 6\)"),
    ("badplan.py:BadPlan", 1, r"cell badplan_\S+ \(Bad-Plan .*\) runs 0-1 failed: PlanError: "
                              r"policy 'Bad-Plan' planned pulls -5: pulls must be integers"),
    ("import_exit.py:X", 2, r"argument --policy: loading .*import_exit.py:X failed: sys.exit\(4\) called "
                            r"\(.*import_exit.py, line 2\)"),
    ("import_kbd.py:X", 2, r"argument --policy: loading .*import_kbd.py:X failed: KeyboardInterrupt raised"),
    ("import_crash.py:X", 2, r"argument --policy: loading .*import_crash.py:X failed: ZeroDivisionError: "
                             r"division by zero \(.*import_crash.py, line 2\)"),
])
def test_a_policy_failure_is_one_line_naming_it(files, out, jobs, spec, status, cause):
    import re

    proc, wall = _reproduce(files, spec, jobs, out, "--chunk-seconds", "4")
    assert proc.returncode == status, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and re.search(cause, lines[0]), proc.stderr
    assert "Traceback" not in proc.stderr
    if spec.startswith("loop"):
        assert wall < 120  # the limit (4 s) plus start-up, not forever


class _Sleepy(BatchedPrivatePolicy):
    name = "Sleepy-UCB"

    def private_index(self, x, n, t, releases):
        time.sleep(3600)
        return x


class _Spin(BatchedPrivatePolicy):
    name = "Spin-UCB"

    def private_index(self, x, n, t, releases):
        while True:
            np.sum(x)


@pytest.mark.parametrize("policy", [_Sleepy, _Spin])
def test_the_api_stops_a_chunk_at_its_limit(tmp_path, policy):
    cell = E.Cell.make(policy, "mu1", 300, 1, {"eps": 0.5})
    assert len(cell.chunks()) == 1  # one chunk: computed in this process, the SIGALRM path
    t0 = time.monotonic()
    with pytest.raises(E.ChunkError, match=r"runs 0-1 failed: stopped after 1 s, over its time limit"):
        E.run(cell, tmp_path, progress=False, chunk_seconds=1)
    assert time.monotonic() - t0 < 30


def test_a_chunk_is_stopped_outside_the_main_thread_too(tmp_path):
    cell = E.Cell.make(_Spin, "mu1", 300, 1, {"eps": 0.5})
    caught = []

    def body():
        try:
            E.run(cell, tmp_path, progress=False, chunk_seconds=1)
        except E.ChunkError as exc:
            caught.append(str(exc))

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive() and caught and "over its time limit" in caught[0]


def test_chunk_time_limit_default_and_checks():
    cell = E.Cell.make("DP-IMED", "mu1", 1000, 20, {"eps": 0.5})
    assert E.chunk_time_limit(cell, 0, 20) == E.CHUNK_FLOOR_SECONDS
    big = E.Cell.make("Lazy-DP-TS", "mu1", 10**8, 10, {"eps": 0.5})
    assert E.chunk_time_limit(big, 0, 10) > E.CHUNK_FLOOR_SECONDS  # grows with the estimate
    assert E.chunk_time_limit(cell, 0, 20, None) is None
    assert E.chunk_time_limit(cell, 0, 20, 2.5) == 2.5
    for bad in (0, -1, float("nan"), "soon"):
        with pytest.raises((ValueError, TypeError), match="chunk_seconds"):
            E.run(cell, "/tmp", chunk_seconds=bad)


GUARDLESS = """
import os, sys
print("top level", os.getpid(), flush=True)
import dpb.experiments as E
cells = [E.Cell.make(p, "mu1", 2000, 2, E.paper_params(p, 0.5)) for p in ("DP-IMED", "DP-KLUCB", "IMED")]
report = E.run(cells, sys.argv[1], progress=False)
print("computed", report.computed, flush=True)
"""


@pytest.mark.parametrize("how", ["script", "stdin", "-c"])
def test_a_script_without_main_guard_runs_with_the_default_jobs(tmp_path, how):
    """multiprocessing used to import the script again in every worker: its top level ran three
    times and the run failed ("worker process ... exited with code 1").  The same code typed into
    an interactive session (stdin) or given with -c runs too."""
    script = tmp_path / "guardless.py"
    script.write_text(GUARDLESS)
    out = str(tmp_path / "out")
    cmd = {"script": [sys.executable, str(script), out], "stdin": [sys.executable, "-", out],
           "-c": [sys.executable, "-c", GUARDLESS, out]}[how]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=_env(), cwd=tmp_path,
                          input=GUARDLESS if how == "stdin" else None)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("top level") == 1, proc.stdout
    assert "computed 3" in proc.stdout


MEMBERS = ("free", "busy", "waiting", "submit", "poll", "close", "kill")


def _params(func) -> list:
    return [p.name for p in inspect.signature(func).parameters.values()]


def test_the_protocol_names_the_seven_methods_each_with_its_contract():
    own = [name for name, value in vars(Backend).items() if inspect.isfunction(value) and name[0] != "_"]
    assert sorted(own) == sorted(MEMBERS)
    for name in MEMBERS:
        assert len(inspect.getdoc(getattr(Backend, name)) or "") > 40, name  # the contract, in words


@pytest.mark.parametrize("backend", [_InProcess, Pool, _Dask], ids=lambda c: c.__name__)
def test_each_backend_has_every_method_of_the_protocol_with_its_parameters(backend):
    for name in MEMBERS:
        method = getattr(backend, name, None)
        assert callable(method), f"{backend.__name__} lacks {name}"
        assert _params(method) == _params(getattr(Backend, name)), (backend.__name__, name)


def test_a_backend_without_a_method_is_not_one():
    class Partial:  # free, busy, submit, poll, close, but no waiting nor kill
        def free(self):
            return 1

        def busy(self):
            return 0

        def submit(self, tag, task):
            pass

        def poll(self, timeout):
            return []

        def close(self):
            pass

    assert isinstance(_InProcess(), Backend)
    assert not isinstance(Partial(), Backend)
    with pytest.raises(AssertionError, match="lacks waiting"):
        test_each_backend_has_every_method_of_the_protocol_with_its_parameters(Partial)


def test_the_in_process_backend_answers_one_task_at_a_time(tmp_path):
    cell = E.Cell.make("IMED", "mu1", 100, 2, {})
    backend = _InProcess()
    assert (backend.free(), backend.busy(), backend.waiting()) == (1, 0, None)
    backend.submit("tag", (cell, 0, 2, 7, {}, str(tmp_path), None))
    assert (backend.free(), backend.busy()) == (0, 1)
    [(tag, reply)] = backend.poll(0.0)
    assert tag == "tag" and reply[:2] == ("ok", "IMED") and reply[2] >= 0
    assert cell.path(tmp_path, 0, 2).is_file()  # the reply comes once the file is written
    assert (backend.free(), backend.busy(), backend.poll(0.0)) == (1, 0, [])
    backend.close()
    backend.kill()
