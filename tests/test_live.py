"""Live widgets in a real browser: JupyterLab (``make lab``) and the book's Live button (``make live``).

Both start a Jupyter server on 127.0.0.1 on a port chosen free at run time, drive Debian's
chromium with Playwright (offline: requests outside localhost are refused and reported), move
widget controls and assert that the widget's figure changed, i.e. that a kernel recomputed it.
Every server is stopped by its fixture, also on failure (its own process group, SIGTERM then
SIGKILL).  Kept to chapter 1 (two fast explorers) to spare CI time.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from test_site import CHROMIUM_ARGS, SITE, browser, watch  # noqa: F401 (browser is a fixture)

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "ch01_background"
sys.path.insert(0, str(ROOT / "scripts"))
import live  # noqa: E402

pytestmark = pytest.mark.browser

#: where a failing test leaves a screenshot of the page
SHOTS = ROOT / "_build"

# A widget view of an explorer, and the image in its output area.
EXPLORER_IMAGES = ".widget-vbox .widget-output img"


@pytest.fixture(autouse=True)
def _sigterm_stops_servers():
    """A SIGTERM (``timeout``, a cancelled CI job) becomes KeyboardInterrupt, so fixtures still stop
    their servers; pytest would otherwise die without running their ``finally``."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    old = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _stop_group(proc: subprocess.Popen, timeout: float = 15.0) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(5)


@pytest.fixture
def lab(tmp_path):
    """JupyterLab on a copy of chapter 1 (autosave must not touch the repository): (url, token)."""
    shutil.copy(ROOT / "book" / f"{CHAPTER}.ipynb", tmp_path / f"{CHAPTER}.ipynb")
    token = secrets.token_hex(24)
    port = live.free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"))
    cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={tmp_path}", "--LabApp.expose_app_in_browser=True",
           "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = open(tmp_path / "lab.log", "wb")
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, (tmp_path / "lab.log").read_text()[-3000:]
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, "JupyterLab did not start within 90 s"
                time.sleep(0.5)
        yield url, token
    finally:
        _stop_group(proc)
        log.close()


@pytest.fixture
def live_server():
    if not (SITE / "index.html").exists():
        pytest.fail("_build/html is missing: build the book first (make build-strict)")
    running = live.start(SITE)
    try:
        yield running
    finally:
        running.stop()


def nudge_slider(page, explorer) -> None:
    """Move the first slider of an explorer by one step with the keyboard (a released drag)."""
    handle = explorer.locator(".widget-slider .noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")


def wait_for_new_image(page, explorer, old_src: str, what: str, timeout: float = 60_000) -> None:
    img = explorer.locator(".widget-output img").first
    deadline = time.monotonic() + timeout / 1000
    while time.monotonic() < deadline:
        if img.count() and img.get_attribute("src") not in (None, old_src):
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"{what}: the figure did not change after moving a control")


def explorers_with_images(page, n: int, timeout: float):
    page.wait_for_function(
        f"document.querySelectorAll('{EXPLORER_IMAGES}').length >= {n}", timeout=timeout)
    return page.locator(".widget-vbox").filter(has=page.locator(".widget-output img"))


def test_jupyterlab_runs_chapter_and_widgets_redraw(lab, browser):  # noqa: F811
    url, token = lab
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    seen = watch(page)
    try:
        page.goto(f"{url}/lab/tree/{CHAPTER}.ipynb?token={token}", wait_until="load")
        page.wait_for_function("window.jupyterapp && document.querySelector('.jp-Notebook')", timeout=60_000)
        page.wait_for_function(
            "document.querySelector('.jp-Notebook-ExecutionIndicator')?.dataset.status === 'idle'",
            timeout=60_000)
        started = ("Array.from(document.querySelectorAll('.jp-InputArea-prompt'))"
                   ".some(p => /[0-9*]/.test(p.textContent))")
        for _attempt in range(6):  # a run-all sent while the kernel session is still settling is dropped
            page.locator(".jp-Notebook").first.click()  # make the notebook the current widget
            page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            try:
                page.wait_for_function(started, timeout=10_000)
                break
            except Exception:
                continue
        page.wait_for_function(
            "document.querySelectorAll('.jp-Cell .jp-InputArea-prompt').length > 0 && "
            "!Array.from(document.querySelectorAll('.jp-InputArea-prompt'))"
            ".some(p => p.textContent.includes('*'))"
            f" && document.querySelectorAll('{EXPLORER_IMAGES}').length >= 2", timeout=180_000)
        errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        tracebacks = [t for t in errors.all_inner_texts() if "Traceback" in t or "Error" in t]
        assert not tracebacks, tracebacks
        explorers = explorers_with_images(page, 2, 60_000)
        assert explorers.count() >= 2, "chapter 1 should show two live explorers"
        for k in range(2):
            explorer = explorers.nth(k)
            explorer.scroll_into_view_if_needed()
            old = explorer.locator(".widget-output img").first.get_attribute("src")
            nudge_slider(page, explorer)
            wait_for_new_image(page, explorer, old, f"JupyterLab, explorer {k}")
        assert not seen["outside"], f"JupyterLab requested outside localhost: {seen['outside']}"
    except Exception:
        page.screenshot(path=str(SHOTS / "jupyterlab-failure.png"))
        raise
    finally:
        page.close()


def test_live_button_runs_chapter_in_place_of_static_page(live_server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    seen = watch(page)
    try:
        page.goto(f"{live_server.site_url}/book/{CHAPTER}.html", wait_until="load")
        button = page.locator(".dpb-live-banner .dpb-live-button")
        assert button.is_enabled()
        button.click()
        page.wait_for_url(f"{live_server.jupyter_url}/voila/render/book/{CHAPTER}.ipynb*", timeout=30_000)
        explorers = explorers_with_images(page, 2, 180_000)
        explorer = explorers.first
        explorer.scroll_into_view_if_needed()
        old = explorer.locator(".widget-output img").first.get_attribute("src")
        nudge_slider(page, explorer)
        wait_for_new_image(page, explorer, old, "make live (Voila)")
        page.wait_for_timeout(300)
        assert not seen["outside"], f"the live page requested outside localhost: {seen['outside']}"
        errors = list(seen["errors"])
        # the prose is typeset offline (JupyterLab's bundled MathJax 3) and its MyST is rewritten
        assert page.locator("mjx-container").count() > 20, "the live page's math is not typeset"
        raw = page.evaluate(r"document.body.innerText.match(/\{(cite|prf:ref|doc|eq|py:func)\}`|```\{/g)")
        assert not raw, f"the live page shows raw MyST markup: {raw[:5]}"
        assert page.locator("blockquote strong:has-text('Theorem')").count() > 0
        assert not errors, f"the live page logged errors: {errors}"
    except Exception:
        page.screenshot(path=str(SHOTS / "live-failure.png"))
        raise
    finally:
        page.close()
