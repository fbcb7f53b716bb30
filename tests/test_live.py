"""Live widgets in a real browser: JupyterLab (``make lab``) and the book's Live button (``make live``).

Both start a Jupyter server on 127.0.0.1 on a port chosen free at run time, drive Debian's
chromium with Playwright (offline: requests outside localhost are refused and reported), move
widget controls and assert that the widget's figure changed, i.e. that a kernel recomputed it.
Every server is stopped by its fixture, also on failure (its own process group, SIGTERM then
SIGKILL).  Kept to chapter 1 (two fast explorers) to spare CI time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
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


def test_live_button_runs_chapter_in_place_of_static_page(live_server, browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    seen = watch(page)
    try:
        page.goto(f"{live_server.site_url}/book/{CHAPTER}.html", wait_until="load")
        button = page.locator(".dpb-live-banner .dpb-live-button")
        assert button.is_enabled()
        button.click()
        # "commit": Voila streams the executing chapter; its load event comes only at the end
        page.wait_for_url(f"{live_server.jupyter_url}/voila/render/book/{CHAPTER}.ipynb*", timeout=30_000,
                          wait_until="commit")
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
