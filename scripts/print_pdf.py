"""Print the single-page build of the book (``_build/singlehtml``) to one PDF with headless Chromium.

``make pdf`` runs ``jupyter-book build . --builder singlehtml`` (rendered from the execution cache
of the HTML build, ``_build/.jupyter_cache``: no chapter is executed again) and then this script:

    python scripts/print_pdf.py [--site _build/singlehtml] [--out _build/pdf/dpb.pdf]

It serves the page on 127.0.0.1 (a free port, this process only, for as long as it prints), opens
it in Debian's ``chromium`` through Playwright, refuses every request that leaves the machine,
waits until MathJax has typeset every formula (mathematics stays text in the PDF, not images),
opens the folded dropdowns (solutions, caveats) and prints A4 pages with page numbers.  The print
stylesheet below hides what only a screen needs: the navigation, the theme's buttons, the folded
code cells of the site, and the "Live" button of each widget notice, whose one line of text, how to
go live, stays under the widget's static figure.

Every wait is bounded: each Playwright call has a timeout, and the script as a whole is stopped
after ``--timeout`` seconds (default 600).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

#: what the printed page hides or changes (screen-only chrome, folded code, the Live button)
PRINT_CSS = """
@page { size: A4; margin: 16mm 14mm 18mm 14mm; }
html, body { background: white !important; }
.bd-header, .bd-header-article, .bd-sidebar-primary, .bd-sidebar-secondary, .bd-footer,
.bd-footer-article, .bd-footer-content, .header-article-items, .prev-next-area, .headerlink,
.search-button, .theme-switch-button, .dpb-live-button, .skip-link, #pst-back-to-top,
.bd-search, .toggle-details__summary, details.hide > summary, .sd-summary-up, .sd-summary-down,
.bd-toc, nav.bd-links, .bd-sidebar, .primary-toggle, .secondary-toggle,
div.cell.tag_hide-input > .cell_input, div.cell.tag_hide-cell, div.cell.tag_widget > .cell_input,
details.hide { display: none !important; }
.bd-main, .bd-main .bd-content, .bd-main .bd-content .bd-article-container, .bd-page-width,
.bd-container, .bd-container__inner, .bd-article {
  max-width: 100% !important; width: 100% !important; padding-left: 0 !important;
  padding-right: 0 !important; margin: 0 !important; display: block !important; }
body { font-size: 10.5pt; }
* { --pst-color-shadow: transparent !important; box-shadow: none !important; text-shadow: none !important;
    filter: none !important; }
html body .admonition, html body div.admonition, html body div.proof, html body .sd-card,
html body .sd-shadow-sm, html body .sd-shadow-md { box-shadow: none !important; }
pre, .highlight pre { white-space: pre-wrap !important; word-break: break-word; font-size: 8.5pt; }
div.cell_output pre { font-size: 8pt; }
img { max-width: 100% !important; page-break-inside: avoid; break-inside: avoid; }
div.cell_input, div.highlight, div.cell_output > div.output { break-inside: avoid-page; }
figure, .cell_output img, div.proof, div.theorem, div.lemma { break-inside: avoid-page; }
h1, h2, h3 { break-after: avoid-page; }
.dpb-live-banner, .dpb-live-help { display: none !important; }
span[id^="document-"] + section { break-before: page; }
span[id^="document-book/api/"] + section { break-before: auto; }
span[id^="document-"] + section > h2 { font-size: 2.1em; margin-bottom: 0.8em; }
.dpb-live-notice { border: none !important; padding: 0 !important; font-style: italic; }
table { font-size: 8.5pt; }
.pst-scrollable-table-container, .table-wrapper, div.cell_output { overflow: visible !important; }
"""

#: the folded dropdowns (solutions, caveats, tables) open on paper; returns the number of documents
OPEN_JS = """
() => {
  document.querySelectorAll('details.sd-dropdown, details.dropdown, details.admonition:not(.hide)')
    .forEach(d => { d.open = true; });
  return document.querySelectorAll('span[id^="document-"] + section').length;
}
"""

#: resolves once MathJax 3 has typeset the page (its startup promise), then marks the document
MATH_JS = """
() => {
  if (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) { return 'no MathJax'; }
  MathJax.startup.promise.then(() => { window.__dpbMathDone = true; },
                               (e) => { window.__dpbMathDone = 'error: ' + e; });
  return 'waiting';
}
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _serve(site: Path):
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


def _page_path(site: Path) -> str:
    if not (site / "dpb.html").is_file():
        raise SystemExit(f"{site / 'dpb.html'} is missing: build it first (jupyter-book build . "
                         "--builder singlehtml; scripts/site/dpb_pdf.py writes it)")
    return "dpb.html"


def print_pdf(site: Path, out: Path, timeout_ms: int = 120_000) -> dict:
    """Print the single page under ``site`` to ``out``; return what was measured."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"chromium not found at {CHROMIUM}: apt-get install chromium")
    path = _page_path(site)
    httpd = _serve(site)
    outside: list[str] = []
    times: dict[str, float] = {}
    t0 = time.monotonic()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS,
                                        timeout=60_000)
            try:
                page = browser.new_page(viewport={"width": 1000, "height": 1400})
                page.set_default_timeout(timeout_ms)
                page.set_default_navigation_timeout(timeout_ms)

                def route(r):
                    if urlparse(r.request.url).hostname == "127.0.0.1":
                        r.continue_()
                    else:
                        outside.append(r.request.url)
                        r.abort()

                page.route("**/*", route)
                page.goto(f"{base}/{path}", wait_until="load")
                times["load"] = time.monotonic() - t0
                state = page.evaluate(MATH_JS)
                if state != "waiting":
                    raise SystemExit(f"the page has no MathJax ({state}): is _vendor/ there (make vendor)?")
                page.wait_for_function("window.__dpbMathDone !== undefined", timeout=timeout_ms)
                done = page.evaluate("window.__dpbMathDone")
                if done is not True:
                    raise SystemExit(f"MathJax failed: {done}")
                pending = page.evaluate("document.querySelectorAll('.math:not(:has(mjx-container))').length")
                if pending:
                    raise SystemExit(f"{pending} formulas were not typeset by MathJax")
                times["math"] = time.monotonic() - t0 - times["load"]
                page.add_style_tag(content=PRINT_CSS)
                sections = page.evaluate(OPEN_JS)
                page.emulate_media(media="print")
                out.parent.mkdir(parents=True, exist_ok=True)
                page.pdf(path=str(out), format="A4", print_background=True,
                         prefer_css_page_size=True, display_header_footer=True,
                         header_template="<span></span>",
                         footer_template='<div style="font-size:8px;width:100%;text-align:center;">'
                                         '<span class="pageNumber"></span> / <span class="totalPages">'
                                         '</span></div>')
                times["pdf"] = time.monotonic() - t0 - times["load"] - times["math"]
            finally:
                browser.close()
    finally:
        httpd.shutdown()
        httpd.server_close()
    return {"pdf": str(out), "bytes": out.stat().st_size, "sections": sections,
            "seconds": round(time.monotonic() - t0, 1), "blocked": outside,
            "times": {k: round(v, 1) for k, v in times.items()}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", type=Path, default=ROOT / "_build" / "singlehtml")
    ap.add_argument("--out", type=Path, default=ROOT / "_build" / "pdf" / "dpb.pdf")
    ap.add_argument("--timeout", type=int, default=600, help="seconds for the whole script (default 600)")
    a = ap.parse_args(argv)
    if a.timeout <= 0:
        raise SystemExit("--timeout must be a positive number of seconds")
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError(
        f"print_pdf.py: stopped after --timeout {a.timeout} s")))
    signal.alarm(a.timeout)
    info = print_pdf(a.site, a.out)
    signal.alarm(0)
    phases = ", ".join(f"{k} {v} s" for k, v in info["times"].items())
    blocked = f"; blocked {len(info['blocked'])} outside requests" if info["blocked"] else ""
    print(f"{info['pdf']}: {info['bytes'] / 1e6:.1f} MB, {info['sections']} documents, "
          f"printed in {info['seconds']} s ({phases}){blocked}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
