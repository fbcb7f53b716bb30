"""One measured visit of a built page per viewport, shared by ``test_reading.py`` and
``test_layout.py``.

:func:`visit` opens a page once at a viewport ("laptop": 1366 px, light then dark; "phone": 390
px), measures everything the per-page checks of both test modules read (the reading checks, the
phone layout of :func:`layout_measures`, axe, the offline rendering check of
``helpers.site.check_rendered``) and keeps it for the other tests of the same page.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers.site import ROOT, check_rendered, watch

LAPTOP = {"width": 1366, "height": 768}


PHONE = {"width": 390, "height": 844}


#: the smallest gap, in CSS pixels, between the texts of two adjacent table cells (a third of an em
#: of the 16 px body text; an unpadded table of right-aligned numbers has 0)
MIN_GAP = 6


TIMEOUT = 30_000  # ms, for every navigation, wait and click


AXE_TIMEOUT = 90_000  # ms, one axe run on the largest page


VENDOR = ROOT / "vendor"


#: the axe rules whose outcome depends on the colours, the only ones run again in the dark mode (the
#: theme's switch changes colours, not structure, names or roles)
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def axe_script() -> Path:
    """``axe.min.js`` of the pinned axe-core (``vendor/package-lock.json``), installing it if needed."""
    path = VENDOR / "node_modules" / "axe-core" / "axe.min.js"
    if not path.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is needed to fetch axe-core for the accessibility check (Node.js)")
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=VENDOR,
                       check=True, timeout=300)
    return path


def _open(browser, server, page_path, viewport, color_scheme="light"):  # noqa: F811
    context = browser.new_context(viewport=viewport, color_scheme=color_scheme)
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    sizes: list[int] = []
    page.seen = watch(page)  # offline: what it asks outside is refused and recorded, with its errors

    def on_finished(req):
        try:
            sizes.append((req.url, req.sizes()["responseBodySize"]))
        except Exception:  # a request cancelled before its response
            pass

    page.on("requestfinished", on_finished)
    page.goto(f"{server}/{page_path}", wait_until="load", timeout=TIMEOUT)
    if page.evaluate("document.querySelectorAll('.math').length") > 0:
        page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise",
                               timeout=TIMEOUT)
        page.evaluate("""Promise.race([MathJax.startup.promise,
            new Promise((_, no) => setTimeout(() => no(new Error('MathJax timed out')), 30000))])""")
    page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=TIMEOUT)
    page.evaluate("""Promise.race([document.fonts.ready,
        new Promise((_, no) => setTimeout(() => no(new Error('fonts timed out')), 30000))])""")
    page.wait_for_timeout(200)  # late requests (icon fonts) show up in the page weight
    page.sizes = sizes
    return context, page


# Inline formulas that scroll, show a scrollbar, or stick out of the text column.  A box that does
# not clip (overflow visible) draws the few pixels by which italic glyphs overhang it: its
# scrollWidth exceeds its clientWidth but nothing scrolls, so only boxes that scroll or clip count.
_SCROLLING_INLINE_MATH = """() => {
  const bad = [];
  for (const m of document.querySelectorAll('mjx-container:not([display="true"])')) {
    if (m.getClientRects().length === 0) continue;  // inside a closed dropdown
    const cs = getComputedStyle(m);
    if (cs.display === 'block') continue;  // too wide for any line: set as display math
    const tex = (m.querySelector('mjx-assistive-mml, math') || m).textContent.trim().slice(0, 30);
    const scrolls = ['auto', 'scroll', 'hidden', 'clip'].includes(cs.overflowX)
        || ['auto', 'scroll', 'hidden', 'clip'].includes(cs.overflowY);
    const bar = scrolls && (m.offsetHeight - m.clientHeight
        - parseFloat(cs.borderTopWidth) - parseFloat(cs.borderBottomWidth) > 0.5);
    if (scrolls && (m.scrollWidth > m.clientWidth || m.scrollHeight > m.clientHeight) || bar) {
      bad.push(`${tex} (scrollWidth ${m.scrollWidth}, clientWidth ${m.clientWidth}, bar ${bar})`);
      continue;
    }
    let block = m.parentElement;
    while (block && getComputedStyle(block).display.startsWith('inline')) block = block.parentElement;
    const r = m.getBoundingClientRect(), b = block.getBoundingClientRect();
    if (r.right > b.right + 2 || r.left < b.left - 2) {
      bad.push(`${tex} (sticks out of its ${Math.round(b.width)} px column by `
               + `${Math.round(Math.max(r.right - b.right, b.left - r.left))} px)`);
    }
  }
  return bad;
}"""


# Adjacent cells of a table row whose texts are closer than MIN_GAP (or overlap).
_TOUCHING_CELLS = """(minGap) => {
  const bad = [];
  function textBox(cell) {
    const range = document.createRange();
    range.selectNodeContents(cell);
    const rects = Array.from(range.getClientRects()).filter(r => r.width > 0 && r.height > 0);
    if (!rects.length) return null;
    let left = Math.min(...rects.map(r => r.left)), right = Math.max(...rects.map(r => r.right));
    if (getComputedStyle(cell).overflowX !== 'visible') {   // what the cell shows of it
      const c = cell.getBoundingClientRect();
      left = Math.max(left, c.left); right = Math.min(right, c.right);
    }
    return {left, right, top: Math.min(...rects.map(r => r.top)),
            bottom: Math.max(...rects.map(r => r.bottom))};
  }
  const tables = Array.from(document.querySelectorAll('main table, article table'));
  tables.forEach((table, ti) => {
    if (table.getClientRects().length === 0) return;  // inside a closed dropdown
    for (const row of table.rows) {
      const cells = Array.from(row.cells).filter(c => c.textContent.trim());
      for (let i = 0; i + 1 < cells.length; i++) {
        const a = textBox(cells[i]), b = textBox(cells[i + 1]);
        if (!a || !b) continue;
        if (a.bottom <= b.top || b.bottom <= a.top) continue;  // not on the same line
        const gap = b.left - a.right;
        if (gap < minGap) {
          bad.push(`table ${ti}: "${cells[i].textContent.trim().slice(0, 25)}" | `
                   + `"${cells[i + 1].textContent.trim().slice(0, 25)}" gap ${gap.toFixed(1)} px`);
        }
      }
    }
  });
  return bad;
}"""


# Images of the page whose alt text is missing, a file path, or not a sentence of a few words.
_BAD_ALT = """() => Array.from(document.querySelectorAll('main img, article img')).map(i => [
    i.getAttribute('src'), i.getAttribute('alt')]).filter(([src, alt]) => !alt
    || /\\.(png|jpe?g|svg|gif)$/i.test(alt.trim()) || alt.includes('_images/')
    || alt.trim().split(/\\s+/).length < 3)"""


#: Icons the theme shows, each drawn from the Font Awesome web font of the theme's stylesheet.
_ICONS = """async () => {
  await document.fonts.load('900 16px "Font Awesome 6 Free"');
  const icons = Array.from(document.querySelectorAll('i[class*="fa-"], span[class*="fa-"]'))
      .filter(e => e.getClientRects().length);
  const drawn = icons.filter(e => {
      const b = getComputedStyle(e, '::before');
      return b.content && b.content !== 'none' && b.content !== 'normal'
          && b.fontFamily.includes('Font Awesome');
  });
  return {icons: icons.length, drawn: drawn.length,
          font: document.fonts.check('900 16px "Font Awesome 6 Free"'),
          svg: document.querySelectorAll('svg.svg-inline--fa').length};
}"""


# MathJax's own elements are left out (thousands of nodes a page, the slowest part of axe): a formula
# is drawn in the colour of the text around it, which is checked.  So are the token spans of
# highlighted code (thousands more): a token's colour depends only on its class and the colour mode,
# and every class of the site's code style is checked in both modes on one page instead
# (:func:`test_code_colours_readable_in_both_modes`); the code blocks themselves (scrolling,
# focus, their plain text) stay in.  ``rules``: null for every rule of axe, or the list to run (the
# dark mode changes colours only, so there the colour rules run).
AXE_EXCLUDE = [["mjx-container"], ["div.highlight span"]]


_AXE_RUN = """([ms, rules, scope]) => Promise.race([
  axe.run(scope, Object.assign({resultTypes: ['violations']},
          rules ? {runOnly: {type: 'rule', values: rules}} : {})).then(r => r.violations.map(v => ({
      id: v.id, impact: v.impact, n: v.nodes.length,
      where: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' ' + (n.failureSummary || '')
                                           .replace(/\\s+/g, ' ').slice(0, 160))}))),
  new Promise((_, no) => setTimeout(() => no(new Error('axe timed out')), ms))])"""


def _dark_mode(page) -> None:
    """Switch the page to the dark colour mode the way the theme's button does (``data-theme`` on
    ``<html>``), with colours at rest, not halfway through the theme's colour transitions."""
    page.add_style_tag(content="*, *::before, *::after { transition: none !important;"
                               " animation: none !important; }")
    page.evaluate("document.documentElement.dataset.theme = 'dark';"
                  "document.documentElement.dataset.mode = 'dark'")
    page.wait_for_timeout(300)


def _axe(page, page_path) -> dict[str, list]:
    page.add_script_tag(path=str(axe_script()))
    # MathJax's drawing of each formula (``mjx-math``, most of a chapter's nodes) is excluded from the
    # runs below, yet axe still walks it: taking it out halves the contrast rule's time.  The formula's
    # MathML for assistive technology (``mjx-assistive-mml``) stays, so names and headings keep their
    # text; the measures that read the drawn formulas ran before.
    page.evaluate("document.querySelectorAll('mjx-container > mjx-math').forEach(e => e.remove())")
    found = {}
    for mode in ("light", "dark"):
        if mode == "dark":
            _dark_mode(page)
        theme = page.evaluate("document.documentElement.dataset.theme")
        assert theme == mode, f"{page_path}: the page shows the {theme} mode, not {mode}"
        violations = page.evaluate(_AXE_RUN, [AXE_TIMEOUT, None if mode == "light" else COLOUR_RULES,
                                              {"exclude": AXE_EXCLUDE}])
        found[mode] = [v for v in violations if v["impact"] in ("serious", "critical")]
    return found


_TITLE_LINES = """() => {
    const h = Array.from(document.querySelectorAll('article h1, main h1'))
        .find(e => e.getBoundingClientRect().height > 0);  // the title shown
    if (!h) return 0;
    const cs = getComputedStyle(h);
    const box = h.getBoundingClientRect().height - parseFloat(cs.paddingTop)
        - parseFloat(cs.paddingBottom);
    return Math.round(box / parseFloat(cs.lineHeight)); }"""


def _measure(browser, server, page_path, where) -> dict:  # noqa: F811
    """Everything the per-page checks read, from one opening of the page at one viewport; the
    checks that change the page (axe's dark mode) come last."""
    if where == "laptop":
        context, page = _open(browser, server, page_path, LAPTOP)
    else:
        context, page = _open(browser, server, page_path, PHONE)
    try:
        seen = {"url": page.url, "sizes": list(page.sizes),
                "math": page.evaluate(_SCROLLING_INLINE_MATH),
                "cells": page.evaluate(_TOUCHING_CELLS, MIN_GAP)}
        if where == "laptop":
            seen["bad_alt"] = page.evaluate(_BAD_ALT)
            seen["icons"] = page.evaluate(_ICONS)
            seen["axe"] = _axe(page, page_path)
        else:
            seen["title_lines"] = page.evaluate(_TITLE_LINES)
            seen["layout"] = layout_measures(page)
            try:  # last: it presses the Live button
                check_rendered(page, page_path, page.seen)
                seen["site"] = None
            except AssertionError as exc:
                seen["site"] = str(exc)
        return seen
    finally:
        context.close()


_VISITS: dict[tuple[str, str], dict | BaseException] = {}


def visit(browser, server, page_path: str, where: str) -> dict:  # noqa: F811
    """What :func:`_measure` saw of ``page_path`` at ``where`` ("laptop": 1366 px, light then dark;
    "phone": 390 px), measured on the first call and kept for the other tests of the same page
    (the site does not change during a run).  Each page's tests form one group under ``--dist
    loadgroup`` (``tests/conftest.py``), so under pytest-xdist they run in the same worker and the
    page is opened once per viewport, not once per check; a failure to open or measure the page
    fails every test that reads it."""
    key = (page_path, where)
    if key not in _VISITS:
        try:
            _VISITS[key] = _measure(browser, server, page_path, where)
        except Exception as exc:  # noqa: BLE001 (re-raised by every test that reads the page)
            _VISITS[key] = exc
    seen = _VISITS[key]
    if isinstance(seen, BaseException):
        raise AssertionError(f"{page_path} at the {where} viewport could not be measured: {seen!r}")
    return seen


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


# Figures of code cells wider than the viewport or than the box around them (shown scrolled).
_WIDE_FIGURES = """() => {
  const W = document.documentElement.clientWidth;
  const bad = [];
  for (const img of document.querySelectorAll('div.cell_output img')) {
    const r = img.getBoundingClientRect();
    if (r.width === 0) continue;  // inside a closed dropdown
    const box = img.parentElement.getBoundingClientRect();
    if (r.left < -1 || r.right > W + 1 || r.width > box.width + 1) {
      bad.push(`${img.getAttribute('src')} ${Math.round(r.width)} px at ${Math.round(r.left)}`
               + ` in a ${Math.round(box.width)} px box`);
    }
  }
  return bad;
}"""


def layout_measures(page) -> dict:
    """The phone checks of a page opened at 390 px (:func:`visit` calls it during its
    one visit of the page at that width)."""
    scroll_width, width = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    return {"scroll_width": scroll_width, "width": width,
            "overflowing": page.evaluate(_OVERFLOWING) if scroll_width > width else [],
            "clipped": page.evaluate(_CLIPPED_MATH), "wide": page.evaluate(_WIDE_FIGURES)}
