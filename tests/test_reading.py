"""The built site as a reader sees it: legible formulas and tables, working buttons, accessibility.

Every page of ``_toc.yml`` is opened in headless Chromium (offline, the fixtures of
``tests/helpers/site.py``) and checked on what is drawn, not on the markup:

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

Every page is opened once per viewport (``helpers.pages.visit``, shared with ``test_layout.py``): the
checks read what that one visit measured.  Every Playwright call has a timeout; the server and
browser are stopped by their fixtures.
"""

from __future__ import annotations

import pytest
from helpers.pages import LAPTOP, MIN_GAP, PHONE, TIMEOUT, _dark_mode, _open, visit
from helpers.site import PAGES, browser, is_chapter, server  # noqa: F401 (the server and browser fixtures)

pytestmark = pytest.mark.browser

TABLET = {"width": 800, "height": 1024}
WIDTHS = {"1366": LAPTOP, "390": PHONE}
#: the most a page may load besides its own HTML and figures (scripts, styles, fonts, the search
#: index), in bytes: MathJax (1.2 MB), the theme (0.6 MB), the search index (0.25 MB) and the icon
#: font (0.16 MB) fit; the theme's Font Awesome script (1.5 MB, drawing the same icons) does not.
MAX_SHARED_BYTES = 2_600_000


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


@pytest.mark.parametrize("page_path", PAGES)
def test_page_renders_offline(server, browser, page_path):  # noqa: F811
    """``helpers.site.check_rendered`` on the page's visit at 390 px: local MathJax, images, widget
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
