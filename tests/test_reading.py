"""The built site as a reader sees it: legible formulas and tables, working buttons, accessibility.

Every page of ``_toc.yml`` is opened in headless Chromium (offline, the fixtures of
``test_site.py``) and checked on what is drawn, not on the markup:

- **inline math never scrolls** (1366 and 390 px): no inline ``mjx-container`` scrolls
  (``scrollWidth > clientWidth`` of a box that scrolls or clips), shows a scrollbar
  (``offsetHeight > clientHeight``) or sticks out of its column.  Display math wider than the
  column may scroll (``test_layout.py``), and so may an inline formula wider than the column,
  which ``book/_static/dpb-figures.js`` sets on a line of its own (``display: block``) first;
- **table cells do not touch** (1366 and 390 px): in every visible table, the text boxes of two
  adjacent cells of a row (measured with ``Range.getBoundingClientRect`` over the cell's
  contents, clipped to the cell when the cell clips) are at least :data:`MIN_GAP` px apart;
- **every figure says what it shows**: the ``alt`` text of every image of the chapters is words,
  not the file path;
- **menu and contents buttons work on a phone and a tablet** (390 and 800 px): clicking the
  visible menu button opens the navigation drawer, clicking the contents button opens the page's
  table of contents;
- **one search field** at 1366 px, **chapter titles of at most three lines** at 390 px;
- **axe-core** (from npm, ``vendor/package.json``; installed by :func:`axe_script` with ``npm ci``
  when missing, never served by the site): 0 serious or critical violations on every page, in the
  light colour mode (every rule) and in the dark one (the colour rules: contrast >= 4.5:1); the
  colours of highlighted code tokens are checked once, every class of the code style in both modes
  (:func:`test_code_colours_readable_in_both_modes`), not on each of a page's thousands of tokens;
- **page weight**: no page loads more than :data:`MAX_SHARED_BYTES` besides its own HTML and
  figures (the icons used to weigh 1.5 MB of script on every page), and every icon is still drawn.

Every page is opened once per viewport (:func:`visit`, shared with ``test_layout.py``): the
checks read what that one visit measured.  Every Playwright call has a timeout; the server and
browser are stopped by their fixtures.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from test_site import (  # noqa: F401 (fixtures shared with the site test)
    PAGES,
    ROOT,
    browser,
    check_rendered,
    is_chapter,
    server,
    watch,
)


pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 768}
TABLET = {"width": 800, "height": 1024}
PHONE = {"width": 390, "height": 844}
WIDTHS = {"1366": LAPTOP, "390": PHONE}
#: the smallest gap, in CSS pixels, between the texts of two adjacent table cells (a third of an em
#: of the 16 px body text; an unpadded table of right-aligned numbers has 0)
MIN_GAP = 6
#: the most a page may load besides its own HTML and figures (scripts, styles, fonts, the search
#: index), in bytes: MathJax (1.2 MB), the theme (0.6 MB), the search index (0.25 MB) and the icon
#: font (0.16 MB) fit; the theme's Font Awesome script (1.5 MB, drawing the same icons) does not.
MAX_SHARED_BYTES = 2_600_000
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


def test_toc_pages_are_found():
    assert "book/ch02_lower_bound.html" in PAGES and "book/ch07_experiments.html" in PAGES


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("page_path", PAGES)
def test_formulas_and_tables_legible(server, browser, page_path, width):  # noqa: F811
    seen = visit(browser, server, page_path, "laptop" if width == "1366" else "phone")
    math, cells = seen["math"], seen["cells"]
    problems = []
    if math:
        problems.append(f"{len(math)} inline formulas scroll, e.g. {math[:4]}")
    if cells:
        problems.append(f"{len(cells)} pairs of table cells closer than {MIN_GAP} px, e.g. {cells[:4]}")
    assert not problems, f"{page_path} at {width} px: " + "; ".join(problems)


# Images of the page whose alt text is missing, a file path, or not a sentence of a few words.
_BAD_ALT = """() => Array.from(document.querySelectorAll('main img, article img')).map(i => [
    i.getAttribute('src'), i.getAttribute('alt')]).filter(([src, alt]) => !alt
    || /\\.(png|jpe?g|svg|gif)$/i.test(alt.trim()) || alt.includes('_images/')
    || alt.trim().split(/\\s+/).length < 3)"""


@pytest.mark.parametrize("page_path", PAGES)
def test_page_renders_offline(server, browser, page_path):  # noqa: F811
    """``test_site.check_rendered`` on the page's visit at 390 px: local MathJax, images, widget
    notices with static figures, no request outside localhost, no console error."""
    problem = visit(browser, server, page_path, "phone")["site"]
    assert problem is None, problem


@pytest.mark.parametrize("page_path", PAGES)
def test_figures_have_alt_text(server, browser, page_path):  # noqa: F811
    bad = visit(browser, server, page_path, "laptop")["bad_alt"]
    assert not bad, f"{page_path}: {len(bad)} images without a descriptive alt text: {bad[:3]}"


_VISIBLE = """(sel) => Array.from(document.querySelectorAll(sel)).filter(e => {
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none'
        && r.bottom > 0 && r.top < innerHeight;
}).length"""

_DIALOG_OPEN = """(id) => { const d = document.getElementById(id);
    if (!d || !d.open) return 0;
    const r = d.getBoundingClientRect();
    return r.width > 100 && r.height > 100 ? d.querySelectorAll('a').length : 0; }"""


@pytest.mark.parametrize("width", [390, 800])
def test_menu_and_contents_buttons_open_their_drawers(server, browser, width):  # noqa: F811
    viewport = PHONE if width == 390 else TABLET
    context, page = _open(browser, server, "book/ch02_lower_bound.html", viewport)
    try:
        for toggle, dialog in ((".primary-toggle", "pst-primary-sidebar-modal"),
                               (".secondary-toggle", "pst-secondary-sidebar-modal")):
            buttons = page.locator(f"{toggle}:visible")
            assert buttons.count() == 1, f"{width} px: {buttons.count()} visible {toggle} buttons"
            buttons.first.click(timeout=TIMEOUT)
            page.wait_for_timeout(300)
            links = page.evaluate(_DIALOG_OPEN, dialog)
            assert links > 0, f"{width} px: clicking the visible {toggle} did not open #{dialog}"
            page.keyboard.press("Escape")
            page.wait_for_function("(id) => !document.getElementById(id).open", arg=dialog,
                                   timeout=TIMEOUT)
    finally:
        context.close()


def test_one_search_field_on_a_laptop(server, browser):  # noqa: F811
    context, page = _open(browser, server, "book/ch02_lower_bound.html", LAPTOP)
    try:
        fields = page.evaluate(_VISIBLE, ".search-button-field, input[type=search], #searchbox input")
        icons = page.evaluate(_VISIBLE, ".search-button:not(.search-button-field)")
        assert fields + icons == 1, f"{fields} search fields and {icons} search buttons at 1366 px"
    finally:
        context.close()


@pytest.mark.parametrize("page_path", [p for p in PAGES if is_chapter(p)])
def test_chapter_titles_short_on_a_phone(server, browser, page_path):  # noqa: F811
    lines = visit(browser, server, page_path, "phone")["title_lines"]
    assert lines >= 1, f"{page_path}: no visible chapter title"
    assert lines <= 3, f"{page_path}: the chapter title wraps to {lines} lines at 390 px"


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


@pytest.mark.parametrize("page_path", PAGES)
def test_page_weight_and_icons(server, browser, page_path):  # noqa: F811
    """What every page loads besides its own HTML and figures stays under MAX_SHARED_BYTES, and
    every icon of the page is still drawn (by the stylesheet's web font, not by a script)."""
    seen = visit(browser, server, page_path, "laptop")
    own = {seen["url"].split("#")[0]}
    shared = sum(size for url, size in seen["sizes"]
                 if size > 0 and url.split("?")[0] not in own and "/_images/" not in url)
    assert shared <= MAX_SHARED_BYTES, (
        f"{page_path} loads {shared / 1e6:.2f} MB of scripts, styles and fonts; the largest: "
        f"{sorted(seen['sizes'], key=lambda x: -x[1])[:3]}")
    icons = seen["icons"]
    assert icons["icons"] > 0 and icons["drawn"] == icons["icons"] and icons["font"], (
        f"{page_path}: icons not drawn by the theme's font: {icons}")


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


@pytest.mark.parametrize("page_path", PAGES)
def test_axe_no_serious_violations(server, browser, page_path):  # noqa: F811
    """Light mode as the browser asks for it, then dark mode switched the way the theme's button
    switches it (``data-theme`` on ``<html>``), on the same page."""
    found = visit(browser, server, page_path, "laptop")["axe"]
    counts = {m: sum(v["n"] for v in vs) for m, vs in found.items()}
    print(f"axe {page_path}: serious/critical light {counts['light']}, dark {counts['dark']}")
    assert not any(found.values()), f"{page_path}: {counts} serious/critical: {found}"


# Every token class of the site's code style (read from its style sheets) drawn in a code block put
# beside the page's first one, so that it sits on the same background: for each class its text
# colour and the first opaque background colour under it, as computed by the browser.
_CODE_PALETTE = """() => {
  const classes = new Set();
  for (const sheet of document.styleSheets) {
    let rules;
    try { rules = sheet.cssRules; } catch (e) { continue; }
    for (const r of rules) {
      for (const m of (r.selectorText || '').matchAll(/\\.highlight \\.([A-Za-z0-9_-]+)(?![\\w.-])/g)) {
        if (!['hll', 'linenos', 'special', 'normal'].includes(m[1])) classes.add(m[1]);
      }
    }
  }
  let probe = document.getElementById('dpb-code-palette');
  if (!probe) {
    const host = document.querySelector('div.highlight');
    probe = document.createElement('div');
    probe.className = 'highlight';
    probe.id = 'dpb-code-palette';
    const pre = document.createElement('pre');
    for (const c of classes) {
      const span = document.createElement('span');
      span.className = c;
      span.textContent = `token ${c} = 1`;
      pre.append(span, '\\n');
    }
    probe.append(pre);
    host.parentElement.insertBefore(probe, host);
  }
  return Array.from(probe.querySelectorAll('span')).map(span => {
    let e = span, bg = 'rgba(0, 0, 0, 0)';
    while (e && (bg = getComputedStyle(e).backgroundColor).match(/rgba\\(.*, 0\\)$/)) e = e.parentElement;
    return [span.className, getComputedStyle(span).color, e ? bg : 'rgb(255, 255, 255)'];
  });
}"""
CODE_PAGE = "book/ch02_lower_bound.html"


def contrast_ratio(fg: str, bg: str) -> float:
    """WCAG 2 contrast ratio of two CSS colours ``rgb(r, g, b)`` / ``rgba(r, g, b, a)`` (``fg``
    blended over the opaque ``bg``): (L1 + 0.05) / (L2 + 0.05) of their relative luminances."""
    def parse(c):
        v = [float(x) for x in c[c.index("(") + 1:c.index(")")].split(",")]
        return v[:3], (v[3] if len(v) == 4 else 1.0)

    (f, a), (b, _) = parse(fg), parse(bg)
    f = [a * x + (1 - a) * y for x, y in zip(f, b, strict=True)]

    def luminance(rgb):
        lin = [x / 255 / 12.92 if x / 255 <= 0.04045 else ((x / 255 + 0.055) / 1.055) ** 2.4
               for x in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(f), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_ratio_matches_wcag_examples():
    assert contrast_ratio("rgb(0, 0, 0)", "rgb(255, 255, 255)") == pytest.approx(21.0)
    assert contrast_ratio("rgb(119, 119, 119)", "rgb(255, 255, 255)") == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio("rgba(0, 0, 0, 0)", "rgb(250, 250, 250)") == pytest.approx(1.0)


def test_code_colours_readable_in_both_modes(server, browser):  # noqa: F811
    """Every token colour of the site's code style against the code background, light and dark, at
    least 4.5:1: the per-page axe runs leave the token spans out (:data:`AXE_EXCLUDE`), this checks
    every class the style defines, used on the page or not."""
    context, page = _open(browser, server, CODE_PAGE, LAPTOP)
    try:
        low = {}
        for mode in ("light", "dark"):
            if mode == "dark":
                _dark_mode(page)
            tokens = page.evaluate(_CODE_PALETTE)
            assert len(tokens) >= 30, f"only {len(tokens)} token classes found in the style sheets"
            low[mode] = [(c, fg, bg, round(contrast_ratio(fg, bg), 2)) for c, fg, bg in tokens
                         if contrast_ratio(fg, bg) < 4.5]
        assert not any(low.values()), f"token colours below 4.5:1 on {CODE_PAGE}: {low}"
    finally:
        context.close()


# --- one visit of each page per viewport, shared by the tests above (and test_layout.py) --------------

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
            from test_layout import layout_measures  # (test_layout imports this module)

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
