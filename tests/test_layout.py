"""The built site's layout on a phone (390 px) and on a laptop (1366 px), in headless Chromium.

For every page of ``_toc.yml`` at 390 x 844 CSS pixels (an iPhone 12-14 viewport):

- **no horizontal scroll of the page**: ``document.documentElement.scrollWidth`` does not exceed
  the viewport width (long inline identifiers must wrap, wide tables, code and formulas must
  scroll inside their own box);
- **no clipped math**: every display formula either fits in the box that shows it or sits in a box
  that scrolls sideways (``overflow-x: auto/scroll``); a formula wider than an ancestor that hides
  its overflow (the theorem and admonition boxes do) and with no scrolling box in between fails.

At 1366 x 768 the notation table must show its last column ("in dpb") completely.

The rules under test live in ``book/_static/dpb.css``.  Needs ``_build/html`` (``make build-strict``)
and Debian's ``chromium``; the server and browser fixtures are those of ``test_site.py`` (a free
port on 127.0.0.1, stopped in a ``finally``, also when a test fails).
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from test_site import PAGES, browser, server  # noqa: F401 (fixtures shared with the site test)

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}

pytestmark = pytest.mark.browser


def _open(browser, server, page_path, viewport):
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    # offline: anything that is not localhost is refused
    page.route("**/*", lambda route: route.continue_()
               if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost")
               else route.abort())
    page.goto(f"{server}/{page_path}", wait_until="load")
    if page.evaluate("document.querySelectorAll('.math').length") > 0:
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise",
                               timeout=20000)
        page.evaluate("MathJax.startup.promise")
    page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=20000)
    return context, page


# The widest elements of the page that stick out to the right of the viewport, for the message.
_OVERFLOWING = """() => {
  const W = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= W + 1) continue;
    // an element inside a box that scrolls sideways does not widen the page
    let p = el.parentElement, contained = false;
    while (p && p !== document.body) {
      const ox = getComputedStyle(p).overflowX;
      if (ox === 'auto' || ox === 'scroll' || ox === 'hidden' || ox === 'clip') { contained = true; break; }
      p = p.parentElement;
    }
    const name = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`;
    if (!contained) out.push(`${name} right=${Math.round(r.right)}`);
  }
  return out.slice(0, 8);
}"""

# Display formulas cut off by an ancestor that hides its overflow, with no scrolling box between.
_CLIPPED_MATH = """() => {
  const bad = [];
  for (const m of document.querySelectorAll('mjx-container[display="true"]')) {
    const r = m.getBoundingClientRect();
    if (r.width === 0) continue;  // inside a closed dropdown
    let el = m, scrolls = false;
    while (el && el !== document.body) {
      const cs = getComputedStyle(el);
      const ox = cs.overflowX;
      if (ox === 'auto' || ox === 'scroll') { scrolls = true; break; }
      if (ox === 'hidden' || ox === 'clip') {
        const b = el.getBoundingClientRect();
        if (r.right > b.right + 1 || r.left < b.left - 1) {
          const what = (m.textContent || '').slice(0, 40);
          bad.push(`${what} (width ${Math.round(r.width)} in ${Math.round(b.width)})`);
        }
        break;
      }
      el = el.parentElement;
    }
    if (!scrolls && r.right > document.documentElement.clientWidth + 1) {
      bad.push(`${(m.textContent || '').slice(0, 40)} (past the viewport at ${Math.round(r.right)})`);
    }
  }
  return bad.slice(0, 8);
}"""


def test_toc_pages_are_found():
    assert "book/ch02_lower_bound.html" in PAGES and "book/api/divergences.html" in PAGES


@pytest.mark.parametrize("page_path", PAGES)
def test_phone_no_horizontal_scroll_and_no_clipped_math(server, browser, page_path):
    context, page = _open(browser, server, page_path, PHONE)
    try:
        scroll_width, width = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert scroll_width <= width, (
            f"{page_path} scrolls sideways at {PHONE['width']} px (content {scroll_width} px wide); "
            f"sticking out: {page.evaluate(_OVERFLOWING)}")
        clipped = page.evaluate(_CLIPPED_MATH)
        assert not clipped, f"{page_path}: display math cut off at {PHONE['width']} px: {clipped}"
    finally:
        context.close()


def test_phone_figures_keep_a_readable_width(server, browser):
    # a two-panel figure squeezed into 360 px is unreadable: on a phone figures keep >= 500 px and
    # scroll inside their own box
    context, page = _open(browser, server, "book/ch02_lower_bound.html", PHONE)
    try:
        widths = page.evaluate("Array.from(document.querySelectorAll('div.cell_output img'))"
                               ".map(i => i.getBoundingClientRect().width)")
        assert widths, "ch02 shows no figure"
        assert min(widths) >= 500, widths
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
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
