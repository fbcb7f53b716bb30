"""The built site served on 127.0.0.1 and a headless Chromium, for the browser tests.

Fixtures (module scope) ``server`` (``_build/html`` on a free port) and ``browser`` (Debian's
``chromium`` through Playwright, every wait bounded by ``browser_guard``); a test module imports
them (``from helpers.site import browser, server  # noqa: F401``).  :func:`watch` keeps a page
offline and records its errors; :func:`check_rendered` is the offline rendering check of a page.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml
from browser_guard import GuardedBrowser, evaluate

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "html"
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")


def toc_pages() -> list[str]:
    """Every document listed in _toc.yml (root, chapters, sections), as site-relative .html paths."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))
            for part in entry.get("parts", []) or []:
                walk(part.get("chapters"))

    walk(toc.get("chapters"))
    for part in toc.get("parts", []) or []:
        walk(part.get("chapters"))
    return [f"{Path(f).with_suffix('')}.html" for f in files]


PAGES = toc_pages()


def is_chapter(page_path: str) -> bool:
    """A chapter of the book (``book/chNN_<topic>.html``), not an API page such as
    ``book/api/chapters_regret.html``."""
    return re.fullmatch(r"book/ch\d\d_\w+\.html", page_path) is not None


@contextlib.contextmanager
def serve_directory(directory: Path):
    """A static HTTP server of ``directory`` on a free port of 127.0.0.1, in a thread; yields its
    address (``http://127.0.0.1:PORT``) and stops it on exit."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def server():
    """The built site (``_build/html``) served on 127.0.0.1 (:func:`serve_directory`)."""
    if not (SITE / "index.html").exists():
        pytest.fail("_build/html is missing: build the book first (make build-strict)")
    with serve_directory(SITE) as address:
        yield address


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output readable
        pass


CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    """Headless Chromium; every page and context it makes has bounded waits (browser_guard)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"chromium not found at {CHROMIUM}: install Debian's chromium (see .ci/run)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                              timeout=60_000)
        try:
            yield GuardedBrowser(b)
        finally:
            b.close()


def watch(page) -> dict[str, list[str]]:
    """Record what a page asks of the outside world and what it logs as errors; keep it offline.

    Returns lists that fill while the page runs: ``outside`` (requests not to localhost, which are
    refused), ``failed`` (requests that failed) and ``errors`` (console errors, uncaught exceptions).
    """
    seen: dict[str, list[str]] = {"outside": [], "failed": [], "errors": []}

    def on_request(req):
        if req.url.startswith(("data:", "blob:", "about:")):
            return
        if urlparse(req.url).hostname not in ("127.0.0.1", "localhost"):
            seen["outside"].append(req.url)

    page.on("request", on_request)
    page.on("requestfailed", lambda req: seen["failed"].append(f"{req.url} ({req.failure})"))
    page.on("console", lambda msg: seen["errors"].append(f"console: {msg.text}")
            if msg.type == "error" else None)
    page.on("pageerror", lambda exc: seen["errors"].append(f"uncaught: {exc}"))
    page.route("**/*", lambda route: route.continue_()
               if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost")
               else route.abort())
    return seen


def check_rendered(page, page_path: str, seen: dict[str, list[str]]) -> None:
    """The page (loaded with :func:`watch` attached, which filled ``seen``) rendered offline: local
    MathJax typeset every formula, every image loaded, chapters' widgets are notices beside their
    static figures, and nothing was asked of the outside world or logged as an error.  Presses the
    Live button last (it changes the page)."""
    has_math = page.evaluate("document.querySelectorAll('.math').length") > 0
    if has_math:
        loads = page.evaluate("Array.from(document.scripts).some(s => s.src.includes('tex-chtml'))")
        assert loads, f"{page_path}: has math (e.g. in a chapter title) but does not load MathJax"
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=20000)
        evaluate(page, "MathJax.startup.promise.then(() => true)", 20_000, "MathJax startup")
        page.wait_for_function("document.querySelectorAll('mjx-container').length > 0", timeout=20000)
        src = page.evaluate(
            "Array.from(document.scripts).map(s => s.src).filter(s => s.includes('tex-chtml'))")
        assert src and all(urlparse(s).hostname == "127.0.0.1" for s in src), src
        errors = page.evaluate("document.querySelectorAll('mjx-merror').length")
        assert errors == 0, f"{page_path}: {errors} formulas failed to typeset"

    page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=20000)
    broken = page.evaluate(
        "Array.from(document.images).filter(i => !(i.naturalWidth > 0)).map(i => i.src)")
    assert not broken, f"{page_path}: images did not load: {broken}"

    if is_chapter(page_path):
        widgets = page.evaluate("document.querySelectorAll('.cell.tag_widget').length")
        statics = page.evaluate(
            "Array.from(document.querySelectorAll('.cell.tag_static-figure'))"
            ".filter(c => Array.from(c.querySelectorAll('img')).some(i => i.naturalWidth > 0)).length")
        assert widgets >= 1, f"{page_path}: a chapter without a widget"
        assert statics >= widgets, f"{page_path}: {widgets} widgets but only {statics} static figures"
        check_no_dead_widgets(page, page_path, widgets)

    page.wait_for_timeout(300)  # let late requests (fonts) and errors show up
    assert not seen["outside"], f"{page_path}: requested outside localhost: {seen['outside']}"
    assert not seen["failed"], f"{page_path}: failed requests: {seen['failed']}"
    assert not seen["errors"], f"{page_path}: console errors: {seen['errors']}"


def check_no_dead_widgets(page, page_path: str, widgets: int) -> None:
    """Every widget cell is the notice with a working Live button; no widget view, state or copy."""
    cells = page.evaluate("""Array.from(document.querySelectorAll('.cell.tag_widget')).map(c => ({
        notice: c.querySelectorAll('.dpb-live-notice').length,
        button: c.querySelectorAll('.dpb-live-notice .dpb-live-button:not([disabled])').length,
        images: c.querySelectorAll('img').length,
        views: c.querySelectorAll('script[type*="jupyter.widget"], .jupyter-widgets, input').length,
        text: c.innerText}))""")
    for i, cell in enumerate(cells):
        assert cell["notice"] == 1 and cell["button"] == 1, f"{page_path}: cell {i} has no notice: {cell}"
        assert "make live" in cell["text"] and "make lab" in cell["text"], cell["text"]
        assert cell["images"] == 0, f"{page_path}: widget cell {i} repeats a figure"
        assert cell["views"] == 0, f"{page_path}: widget cell {i} still has widget views/controls"
    html = page.content()
    assert "widget-state+json" not in html, f"{page_path}: embeds widget state"
    srcs = page.evaluate("Array.from(document.querySelectorAll('.cell img')).map(i => i.src)")
    assert len(srcs) == len(set(srcs)), f"{page_path}: a figure appears twice: {srcs}"
    # Without a server (this static copy), Live says in one line how to start one.
    banner = page.locator(".dpb-live-banner .dpb-live-button")
    assert banner.count() == 1, f"{page_path}: no Live control at the top of the chapter"
    banner.click()
    help_text = page.locator(".dpb-live-banner .dpb-live-help").inner_text()
    assert "make live" in help_text, help_text
    assert page.url.endswith(page_path), f"{page_path}: Live navigated away without a server: {page.url}"
