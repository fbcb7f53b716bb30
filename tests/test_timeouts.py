"""The suite's bounds really bound: a hung test fails, its fixture's server stops, the run goes on.

Each check runs a small pytest session in a subprocess, with the repository's pytest settings
(``pyproject.toml``: pytest-timeout, ``signal`` method) and the hooks of ``tests/conftest.py``,
on tests that hang on purpose: a sleeping test, a test whose fixture started a server (a child
process in its own session) and, in a browser, a page waiting on a promise that never settles.
The outer test checks that each hung test failed with pytest-timeout's message within its bound,
that the server's process is gone afterwards, that the test after them still ran and passed, and
that the hung browser test left a screenshot and the server's log (attached to the report and
saved under ``_build/test-failures/``). The subprocess itself is bounded too.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

# The inner session's conftest: the hooks of tests/conftest.py (bounds per stage, SIGTERM,
# evidence of failing browser tests), loaded under another module name.
INNER_CONFTEST = f"""
import importlib.util
import sys

sys.path.insert(0, {str(TESTS)!r})
_spec = importlib.util.spec_from_file_location("dpb_tests_conftest", {str(TESTS / "conftest.py")!r})
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
globals().update({{k: v for k, v in vars(_mod).items() if k.startswith("pytest_")}})
"""

SERVER_FIXTURE = """
import os, signal, subprocess, sys, time
from pathlib import Path

import pytest

PIDS = Path(__file__).parent / "pids"


@pytest.fixture
def server(tmp_path):
    log = tmp_path / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1", "0"],
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    with open(PIDS, "a") as pids:
        pids.write(f"{proc.pid}\\n")
    try:
        deadline = time.monotonic() + 20
        while "Serving HTTP" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        port = int(log.read_text().split("port ")[1].split()[0])
        yield proc, port, log
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        proc.wait(10)
"""


def run_inner(tmp_path: Path, source: str, bound: float) -> tuple[subprocess.CompletedProcess, float]:
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST)
    (tmp_path / "test_inner.py").write_text(source)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    env.pop("DPB_STAGE_LOG", None)
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
         "-p", "no:cacheprovider", "-rA", str(tmp_path / "test_inner.py")],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        out, err = proc.communicate(timeout=bound)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the inner pytest session did not end within {bound:g} s: the bounds "
                             "did not stop the hung tests") from None
    finally:
        _kill_group(proc.pid)  # whatever the inner session left behind (its browser, on failure)
        proc.wait(10)
        _reap(tmp_path / "pids")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), time.monotonic() - started


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(pids_file: Path) -> None:
    """Stop the servers the inner fixtures started that are still running (the check reports them)."""
    if not pids_file.exists():
        return
    for pid in [int(p) for p in pids_file.read_text().split()]:
        try:
            if os.kill(pid, 0) is None:
                with open(pids_file.parent / "leftover", "a") as out:
                    out.write(f"{pid}\n")
                os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def assert_gone(pids_file: Path) -> None:
    """The servers the inner fixtures started were all gone when the inner session ended."""
    pids = [int(p) for p in pids_file.read_text().split()]
    assert pids, "the fixture started no server"
    leftover = pids_file.parent / "leftover"
    assert not leftover.exists(), f"the server (pid {leftover.read_text().strip()}) of a timed-out test " \
        "was still running after the session"


@pytest.mark.timeout(240)
def test_hung_test_fails_its_server_stops_and_the_suite_goes_on(tmp_path):
    source = SERVER_FIXTURE + textwrap.dedent("""
    @pytest.mark.timeout(3)
    def test_hangs_with_a_server(server):
        time.sleep(600)  # pytest-timeout (signal) must end this after 3 s


    @pytest.mark.timeout(3)
    def test_sleeps():
        time.sleep(600)


    def test_after_the_hung_ones():
        pass
    """)
    proc, elapsed = run_inner(tmp_path, source, bound=180)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    assert "2 failed, 1 passed" in out, out[-3000:]
    assert out.count("Timeout (>3.0s) from pytest-timeout") >= 2, out[-3000:]
    assert "PASSED test_inner.py::test_after_the_hung_ones" in out, out[-3000:]
    assert elapsed < 150, f"two 3 s timeouts took {elapsed:.0f} s"
    assert_gone(tmp_path / "pids")


@pytest.mark.browser
@pytest.mark.timeout(300)
def test_hung_browser_test_fails_with_screenshot_and_server_log(tmp_path):
    if not (Path(os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium"))).exists():
        pytest.fail("chromium not found: install Debian's chromium (see .ci/run)")
    source = SERVER_FIXTURE + textwrap.dedent("""
    from browser_guard import attach_log, evaluate
    from helpers.site import browser  # noqa: F401

    pytestmark = pytest.mark.browser


    @pytest.mark.timeout(120)
    def test_browser_starts(browser):
        page = browser.new_page()
        page.close()


    @pytest.mark.timeout(60)
    def test_bounded_evaluate_names_what_never_answered(browser):
        page = browser.new_page()
        try:
            page.set_content("<p>x</p>")
            with pytest.raises(Exception, match="the never-settling promise: no answer within 1 s"):
                evaluate(page, "new Promise(() => {})", 1000, "the never-settling promise")
        finally:
            page.close()


    @pytest.mark.timeout(15)
    def test_hangs_in_the_browser(server, browser):
        proc, port, log = server
        attach_log(log, "toy server log")
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{port}/")
        page.evaluate("new Promise(() => {})")  # unbounded on purpose: pytest-timeout ends it


    def test_after_the_hung_one(browser):
        page = browser.new_page()
        page.set_content("<p>still here</p>")
        assert page.evaluate("document.body.innerText") == "still here"
        page.close()
    """)
    evidence = ROOT / "_build" / "test-failures" / "test_inner.py_test_hangs_in_the_browser"
    shutil.rmtree(evidence, ignore_errors=True)
    try:
        proc, elapsed = run_inner(tmp_path, source, bound=270)
        out = proc.stdout + proc.stderr
        assert proc.returncode == 1, out[-4000:]
        assert "1 failed, 3 passed" in out, out[-4000:]
        assert "Timeout (>15.0s) from pytest-timeout" in out, out[-4000:]
        assert "PASSED test_inner.py::test_after_the_hung_one" in out, out[-4000:]
        assert "---- toy server log" in out and '"GET / HTTP/1.1" 200' in out, out[-4000:]
        shots = list(evidence.glob("*.png"))
        assert shots and all(s.stat().st_size > 0 for s in shots), f"no screenshot in {evidence}"
        assert (evidence / "toy_server_log.log").exists(), sorted(evidence.iterdir())
        assert_gone(tmp_path / "pids")
    finally:
        shutil.rmtree(evidence, ignore_errors=True)
