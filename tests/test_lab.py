"""``make lab`` in a real browser: JupyterLab runs chapter 1 and its widgets redraw when moved.

JupyterLab starts on 127.0.0.1 on a port chosen free at run time (a copy of the chapter in a
temporary folder: autosave must not touch the repository), Debian's chromium opens the chapter
through Playwright (offline: requests outside localhost are refused and reported), runs all cells
and moves a control of each explorer; the explorer's figure must change, i.e. the kernel
recomputed it.

Every step waits on an explicit signal from JupyterLab's own objects (``window.jupyterapp``,
exposed by ``--LabApp.expose_app_in_browser``), never on a bare sleep, and each has its own bound:
the app restored, the notebook's model and kernel session ready, the kernel idle, run-all started
(a run-all sent while the session settles can be dropped: it is retried a bounded number of
times) and run-all finished (its command's promise settled and every code cell has an execution
count). A step that never happens fails the test with a message naming it and JupyterLab's state;
the screenshot and the server's log are attached by ``conftest.py`` (``browser_guard``). The
server is stopped by its fixture in every case (its own process group, SIGTERM then SIGKILL).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from browser_guard import attach_log, evaluate
from helpers.processes import stop_group  # SIGTERM to the server's group, then SIGKILL
from helpers.site import browser, watch  # noqa: F401 (browser is a fixture)

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "ch01_background"
NOTEBOOK = f"{CHAPTER}.ipynb"

# The whole test (server start, chapter run, two redraws) has 8 minutes; each step far less.
pytestmark = [pytest.mark.browser, pytest.mark.timeout(480)]

#: a widget view of an explorer with a figure in its output area
EXPLORER_IMAGES = ".widget-vbox .widget-output img"
#: times run-all is sent before the test gives up on it being dropped
RUN_ALL_ATTEMPTS = 3

# JavaScript: the notebook panel of the chapter, found among the main area's widgets.
PANEL = (f"(() => {{ for (const w of window.jupyterapp.shell.widgets('main')) "
         f"if (w.context && w.context.path === {json.dumps(NOTEBOOK)}) return w; return null; }})()")
# JavaScript: what JupyterLab shows now, for the failure messages.
STATE = f"""(() => {{
  const app = window.jupyterapp, p = app ? {PANEL} : null;
  const k = p && p.sessionContext.session ? p.sessionContext.session.kernel : null;
  const cells = p && p.content.model ? Array.from(p.content.model.cells).filter(c => c.type === 'code') : [];
  return {{app: !!app, panel: !!p, current: !!p && app.shell.currentWidget === p,
          kernel: k ? k.status + '/' + k.connectionStatus : 'none',
          codeCells: cells.length, executed: cells.filter(c => c.executionCount !== null).length,
          run: window.__dpbRun || null,
          dialogs: Array.from(document.querySelectorAll('.jp-Dialog-header')).map(d => d.textContent),
          explorerImages: document.querySelectorAll('{EXPLORER_IMAGES}').length}};
}})()"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    """JupyterLab on a copy of chapter 1: (url, token); its log is attached to a failure."""
    shutil.copy(ROOT / "book" / NOTEBOOK, tmp_path / NOTEBOOK)
    token = secrets.token_hex(24)
    port = _free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"))
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={tmp_path}", "--LabApp.expose_app_in_browser=True",
           "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log_path = tmp_path / "lab.log"
    attach_log(log_path, "JupyterLab server log")
    log = open(log_path, "wb")
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, f"JupyterLab exited: {log_path.read_text()[-3000:]}"
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "step 'server answers' never happened within 90 s"
                time.sleep(0.5)
        yield url, token
    finally:
        stop_group(proc)
        log.close()


class Lab:
    """Steps of the test, each bounded, each failing with a message naming it."""

    def __init__(self, page):
        self.page = page

    def state(self) -> str:
        try:
            return json.dumps(evaluate(self.page, STATE, 5_000, "state"))
        except Exception as exc:  # noqa: BLE001 - only for the message
            return f"(unavailable: {type(exc).__name__}: {str(exc)[:200]})"

    @contextmanager
    def step(self, name: str, seconds: float):
        started = time.monotonic()
        try:
            yield seconds * 1000
        except AssertionError:
            raise
        except Exception as exc:  # Playwright's TimeoutError/Error, a rejected bounded evaluate
            waited = time.monotonic() - started
            raise AssertionError(
                f"JupyterLab: step '{name}' never happened (bound {seconds:g} s, waited {waited:.0f} s):"
                f" {type(exc).__name__}: {str(exc).splitlines()[0][:300]}\nstate: {self.state()}") from exc

    def wait(self, name: str, condition: str, seconds: float) -> None:
        with self.step(name, seconds) as ms:
            self.page.wait_for_function(condition, timeout=ms, polling=250)

    def promise(self, name: str, expression: str, seconds: float):
        with self.step(name, seconds) as ms:
            return evaluate(self.page, expression, ms, name)


def test_jupyterlab_runs_chapter_and_widgets_redraw(lab, browser):  # noqa: F811
    url, token = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    seen = watch(page)
    steps = Lab(page)
    try:
        with steps.step("the page loads", 60) as ms:
            page.goto(f"{url}/lab/tree/{NOTEBOOK}?token={token}", wait_until="load", timeout=ms)
        steps.wait("window.jupyterapp exists", "!!window.jupyterapp", 60)
        steps.promise("the app is restored", "window.jupyterapp.restored.then(() => true)", 90)
        steps.wait("the notebook panel opens", f"{PANEL} !== null", 60)
        steps.promise("the notebook model is ready",
                      f"{PANEL}.context.ready.then(() => {PANEL}.content.model.cells.length)", 60)
        steps.promise("the kernel session is ready",
                      f"{PANEL}.sessionContext.ready.then(() => true)", 90)
        kernel_idle = (f"(() => {{ const s = {PANEL}.sessionContext.session; const k = s && s.kernel;"
                       " return !!k && k.status === 'idle' && k.connectionStatus === 'connected'; })()")
        steps.wait("the kernel is idle and connected", kernel_idle, 90)

        # Clear the committed outputs so that execution counts tell what this run executed.
        executed = (f"Array.from({PANEL}.content.model.cells).filter(c => c.type === 'code')"
                    ".filter(c => c.executionCount !== null).length")
        steps.promise("the notebook is current", f"(() => {{ const p = {PANEL};"
                      " window.jupyterapp.shell.activateById(p.id); return true; })()", 10)
        steps.wait("the notebook is the current widget",
                   f"window.jupyterapp.shell.currentWidget === {PANEL}", 15)
        steps.promise("outputs cleared",
                      "window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')"
                      f".then(() => {executed})", 20)
        steps.wait("outputs cleared", f"{executed} === 0", 15)

        # Run all, without awaiting the command's promise in Python: the page records when it
        # settles, and each wait below has its own bound. A dropped run-all (nothing starts) is
        # sent again, at most RUN_ALL_ATTEMPTS times.
        started = (f"(window.__dpbRun && window.__dpbRun.state !== 'sent') || ({executed}) > 0 || "
                   f"{PANEL}.sessionContext.session.kernel.status === 'busy'")
        for attempt in range(1, RUN_ALL_ATTEMPTS + 1):
            evaluate(page, f"""(() => {{
                window.__dpbRun = {{state: 'sent', attempt: {attempt}}};
                window.jupyterapp.shell.activateById({PANEL}.id);
                window.jupyterapp.commands.execute('notebook:run-all-cells').then(
                    ok => {{ window.__dpbRun = {{state: 'settled', ok: ok, attempt: {attempt}}}; }},
                    err => {{ window.__dpbRun = {{state: 'failed', error: String(err),
                                                   attempt: {attempt}}}; }});
                return true; }})()""", 10_000, "sending run-all")
            try:
                page.wait_for_function(started, timeout=20_000, polling=250)
                break
            except Exception:  # noqa: BLE001 - dropped: try again, or fail below
                if attempt == RUN_ALL_ATTEMPTS:
                    raise AssertionError(
                        f"JupyterLab: step 'run-all starts' never happened in {RUN_ALL_ATTEMPTS} "
                        f"attempts of 20 s\nstate: {steps.state()}") from None
        code_cells = f"Array.from({PANEL}.content.model.cells).filter(c => c.type === 'code').length"
        # Finished: the command's promise settled, or every code cell has run and the kernel is
        # idle (the promise alone once never settled although every cell had run).
        steps.wait("run-all finishes (its command settles or every code cell has run)",
                   f"(window.__dpbRun && window.__dpbRun.state !== 'sent') || "
                   f"(({executed}) === ({code_cells}) && {kernel_idle})", 240)
        run = evaluate(page, "window.__dpbRun", 5_000)
        assert run.get("state") in ("settled", "sent") and run.get("ok", True), (
            f"JupyterLab: run-all did not succeed: {run}\nstate: {steps.state()}")
        steps.wait("every code cell has run", f"{executed} === {code_cells}", 30)
        steps.wait("the kernel is idle after run-all", kernel_idle, 60)

        errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        tracebacks = [t for t in errors.all_inner_texts() if "Traceback" in t or "Error" in t]
        assert not tracebacks, tracebacks
        steps.wait("two explorers show their figures",
                   f"document.querySelectorAll('{EXPLORER_IMAGES}').length >= 2", 60)
        explorers = page.locator(".widget-vbox").filter(has=page.locator(".widget-output img"))
        assert explorers.count() >= 2, "chapter 1 should show two live explorers"
        for k in range(2):
            explorer = explorers.nth(k)
            explorer.scroll_into_view_if_needed()
            explorer.evaluate(f"el => {{ el.dataset.dpbExplorer = '{k}'; }}")
            old = explorer.locator(".widget-output img").first.get_attribute("src")
            handle = explorer.locator(".widget-slider .noUi-handle").first
            handle.focus()
            handle.press("ArrowRight")  # one step with the keyboard: a released drag
            with steps.step(f"explorer {k} redraws after its slider moves", 60) as ms:
                page.wait_for_function(
                    "([k, old]) => { const i = document.querySelector("
                    "`[data-dpb-explorer='${k}'] .widget-output img`); return !!i && i.src !== old; }",
                    arg=[str(k), old], timeout=ms, polling=250)
        assert not seen["outside"], f"JupyterLab requested outside localhost: {seen['outside']}"
    finally:
        page.close()
