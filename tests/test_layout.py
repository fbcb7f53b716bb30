"""The built site's layout on a phone (390 px) and on a laptop (1366 px), in headless Chromium.

For every page of ``_toc.yml`` at 390 x 844 CSS pixels (an iPhone 12-14 viewport):

- **no horizontal scroll of the page**: ``document.documentElement.scrollWidth`` does not exceed
  the viewport width (long inline identifiers must wrap, wide tables, code and formulas must
  scroll inside their own box);
- **no clipped math**: every display formula either fits in the box that shows it or sits in a box
  that scrolls sideways (``overflow-x: auto/scroll``); a formula wider than an ancestor that hides
  its overflow (the theorem and admonition boxes do) and with no scrolling box in between fails;
- **figures fit the column**: every figure of a code cell lies within the viewport and within the
  box around it (no figure scrolls inside its box); on ch02 a shrunk two-panel figure opens at its
  own size when tapped and closes again (``book/_static/dpb-figures.js``).

At 1366 x 768 the notation table must show its last column ("in dpb") completely.

The rules under test live in ``book/_static/dpb.css``.  Needs ``_build/html`` (``make build-strict``)
and Debian's ``chromium``; the server and browser fixtures are those of ``helpers/site.py`` (a free
port on 127.0.0.1, stopped in a ``finally``, also when a test fails).
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from browser_guard import evaluate
from helpers.pages import LAPTOP, PHONE, visit
from helpers.site import PAGES, browser, server  # noqa: F401 (the server and browser fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def _open(browser, server, page_path, viewport):
    context = browser.new_context(viewport=viewport)  # bounded waits: see browser_guard
    try:
        page = context.new_page()
        # offline: anything that is not localhost is refused
        page.route("**/*", lambda route: route.continue_()
                   if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost")
                   else route.abort())
        page.goto(f"{server}/{page_path}", wait_until="load")
        if page.evaluate("document.querySelectorAll('.math').length") > 0:
            page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise",
                                   timeout=20000)
            evaluate(page, "MathJax.startup.promise.then(() => true)", 20_000, "MathJax startup")
        page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=20000)
    except BaseException:
        context.close()
        raise
    return context, page


def test_toc_pages_are_found():
    assert "book/ch02_lower_bound.html" in PAGES and "book/api/divergences.html" in PAGES


@pytest.mark.parametrize("page_path", PAGES)
def test_phone_no_horizontal_scroll_and_no_clipped_math(server, browser, page_path):  # noqa: F811
    seen = visit(browser, server, page_path, "phone")["layout"]
    assert seen["scroll_width"] <= seen["width"], (
        f"{page_path} scrolls sideways at {PHONE['width']} px (content {seen['scroll_width']} px "
        f"wide); sticking out: {seen['overflowing']}")
    assert not seen["clipped"], f"{page_path}: display math cut off at {PHONE['width']} px: {seen['clipped']}"
    assert not seen["wide"], (f"{page_path}: figures wider than the page or their box at 390 px: "
                              f"{seen['wide']}")


def test_phone_figures_fit_and_enlarge_on_a_tap(server, browser):
    # a two-panel figure fits the 390 px column (scaled, not scrolled in its box); tapped, it shows
    # at its own size in a full-screen view that scrolls, and a tap or Escape closes it
    context, page = _open(browser, server, "book/ch02_lower_bound.html", PHONE)
    try:
        figs = page.evaluate("""Array.from(document.querySelectorAll('div.cell_output img')).map(i => ({
            shown: i.getBoundingClientRect().width, natural: i.naturalWidth,
            zoomable: i.classList.contains('dpb-zoomable')}))""")
        assert figs, "ch02 shows no figure"
        column = page.evaluate("document.querySelector('article, main').getBoundingClientRect().width")
        assert all(f["shown"] <= column + 1 for f in figs), (column, figs)
        two_panel = [i for i, f in enumerate(figs) if f["natural"] > 2 * PHONE["width"]]
        assert two_panel, f"ch02 has no figure wider than two phone screens: {figs}"
        assert all(figs[i]["zoomable"] for i in two_panel), figs
        img = page.locator("div.cell_output img").nth(two_panel[0])
        img.scroll_into_view_if_needed()
        img.click()
        view = page.locator("div.dpb-figure-zoom")
        assert view.is_visible()
        big = page.evaluate("""(() => { const v = document.querySelector('div.dpb-figure-zoom');
            const i = v.querySelector('img');
            return {shown: i.getBoundingClientRect().width, natural: i.naturalWidth,
                    scrolls: v.scrollWidth > v.clientWidth, box: v.getBoundingClientRect().width}; })()""")
        assert abs(big["shown"] - big["natural"]) <= 1 and big["scrolls"], big
        assert big["box"] <= PHONE["width"], big
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.keyboard.press("Escape")
        assert page.locator("div.dpb-figure-zoom").count() == 0
        img.click()
        page.locator("div.dpb-figure-zoom").click(position={"x": 20, "y": 300})
        assert page.locator("div.dpb-figure-zoom").count() == 0
    finally:
        context.close()


def test_notation_table_last_column_visible_on_a_laptop(server, browser):
    context, page = _open(browser, server, "book/notation.html", LAPTOP)
    try:
        cut = page.evaluate("""() => {
          const bad = [];
          for (const td of document.querySelectorAll('table tr > *:last-child')) {
            const r = td.getBoundingClientRect();
            let p = td.parentElement;
            while (p && p !== document.body) {
              const ox = getComputedStyle(p).overflowX;
              if (ox !== 'visible') {
                const b = p.getBoundingClientRect();
                if (r.right > b.right + 1) bad.push(td.textContent.trim().slice(0, 40));
                break;
              }
              p = p.parentElement;
            }
            if (r.right > document.documentElement.clientWidth) bad.push(td.textContent.trim().slice(0, 40));
          }
          return bad;
        }""")
        assert not cut, f"notation table cut off at {LAPTOP['width']} px: {cut}"
    finally:
        context.close()
