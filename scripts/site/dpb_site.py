"""Sphinx extension of the dpb book: honest widgets on the static site, and the "Live" control.

Loaded by ``_config.yml`` (``sphinx.local_extensions``).  What it does:

- drops the ipywidgets state myst-nb would embed in every chapter page (the widgets' own copies of
  the static figures, 130-440 KB a chapter) and the widget JavaScript: the static site shows no
  widget views at all (``nb_mime_priority_overrides`` in ``_config.yml`` removes them); each widget
  cell shows its HTML fallback instead, a one-line notice with a "Live" button
  (:data:`dpb.widgets.core.NOTICE_HTML`);
- sets the theme's default colour mode (left empty, it logs a console error on a fresh browser);
- removes sphinx-thebe's scripts (the book does not use Thebe; they declared ``THEBE_JS_URL``
  twice and pointed at a CDN);
- gives every figure of a code cell an alt text that says what it shows (:func:`figure_alt_text`:
  the paragraph before the cell that describes the figure, its formulas spelled in plain symbols);
  a figure with its own alt text (cell metadata ``mystnb: image: alt:``) keeps it;
- drops pydata-sphinx-theme's ``fontawesome.js`` (1.5 MB on every page, "so that users can add
  custom icons" -- the book adds none): the theme's stylesheet already draws every icon the pages
  show from its Font Awesome web font (:func:`_drop_fontawesome_js`);
- tags every notebook page with ``<meta name="dpb-notebook" content="book/chXX.ipynb">`` and loads
  ``dpb-live.js``, which wires the Live buttons: they open the page's notebook live on the server
  named by ``window.DPB_LIVE.url`` (written into ``_static/dpb-live-config.js`` from the setting
  ``dpb_live_url``; the server of ``make live`` answers that file itself with a relative,
  same-origin address), or, with no server, say in one line how to get one (with the clone
  command of ``dpb_repository_url`` when it is set).  The file never holds a secret: it is
  served to anybody.

The setting ``dpb_live_url`` is a URL template with ``{notebook}`` standing for the notebook's path
in the repository (``{name}`` for its file name), e.g. ``https://mybinder.org/v2/gh/OWNER/REPO/HEAD?urlpath=voila/render/{notebook}``
or ``https://hub.example.org/user-redirect/voila/render/{notebook}``.  Empty (the default): no
server is assumed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from docutils import nodes

STATIC = Path(__file__).resolve().parent / "static"
CONFIG_JS = "dpb-live-config.js"


def _add_static_path(app, config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC)]
    # Left empty, the theme logs "Got invalid theme mode" on a browser that never chose one.
    config.html_context = {**config.html_context,
                           "default_mode": config.html_context.get("default_mode") or "auto"}


def _drop_widget_state(app, env) -> None:
    """Remove the ipywidgets state and widget scripts myst-nb registered for each page."""
    for data in getattr(env, "nb_metadata", {}).values():
        js_files = data.get("js_files", {})
        for key in [k for k in js_files if k.startswith("ipywidgets_")]:
            del js_files[key]


def _is_thebe(script) -> bool:
    name = getattr(script, "filename", None) or str(script)
    body = (getattr(script, "attributes", None) or {}).get("body", "")
    return "thebe" in (name or "").lower() or "THEBE_JS_URL" in (body or "")


def _page_context(app, pagename, templatename, context, doctree) -> None:
    if "script_files" in context:
        context["script_files"] = [s for s in context["script_files"] if not _is_thebe(s)]
    try:
        source = Path(app.env.doc2path(pagename))
    except Exception:  # generated pages (search, genindex) have no source
        return
    if source.suffix == ".ipynb":
        rel = source.resolve().relative_to(Path(app.srcdir).resolve()).as_posix()
        context["metatags"] = context.get("metatags", "") + f'\n<meta name="dpb-notebook" content="{rel}">'


#: words of a paragraph that describes what a figure draws, and words that only mention one
_DRAWING_WORDS = re.compile(r"\b(panels?|left|right|top|bottom|curves?|axis|axes|histogram|bands?|"
                            r"shaded|dashed|dotted|lines?|bars?|dots?|markers?|plots?|plotted)\b", re.I)
_FIGURE_WORDS = re.compile(r"\b(figures?|shows?|drawn|draws)\b", re.I)
#: LaTeX spelled in the symbols a screen reader reads
_TEX = [(r"\\(?:mathrm|mathbf|mathit|mathcal|mathbb|operatorname|text|textrm|boldsymbol)\s*", ""),
        (r"\\(?:varepsilon|epsilon)", "ε"), (r"\\mu", "μ"), (r"\\Delta", "Δ"), (r"\\delta", "δ"),
        (r"\\alpha", "α"), (r"\\beta", "β"), (r"\\gamma", "γ"), (r"\\lambda", "λ"),
        (r"\\sigma", "σ"), (r"\\tau", "τ"), (r"\\pi", "π"), (r"\\theta", "θ"), (r"\\eta", "η"),
        (r"\\rho", "ρ"), (r"\\nu", "ν"), (r"\\star", "*"), (r"\\leq?\b", "≤"), (r"\\geq?\b", "≥"),
        (r"\\mapsto", "↦"), (r"\\pm", "±"), (r"\\mp", "∓"), (r"\\[lr]?[vV]ert", "|"),
        (r"\\sim", "~"), (r"\\prime", "′"), (r"\\c?dots", "…"), (r"\\[lr]angle", ""),
        (r"\\approx", "≈"), (r"\\neq?\b", "≠"), (r"\\times", "×"), (r"\\cdot", "·"),
        (r"\\infty", "∞"), (r"\\sum", "Σ"), (r"\\to\b", "→"), (r"\\in\b", "∈"),
        (r"\\l?dots", "…"), (r"\\mid", "|"), (r"\\(?:left|right|big|Big|bigl|bigr)", ""),
        (r"\\[lr]ceil", ""), (r"\\[lr]floor", ""), (r"\\log", "log"), (r"\\exp", "exp"),
        (r"\\min", "min"), (r"\\max", "max"), (r"\\%", "%"), (r"\\[,;:! ]", " "),
        (r"\\([A-Za-z]+)", r"\1"), (r"_\{([^{}]*)\}", r"\1"), (r"_(\w)", r"\1"),
        (r"\^\{([^{}]*)\}", r"^\1"), (r"[{}]", ""), (r"\s+", " ")]


def plain_math(tex: str) -> str:
    """A LaTeX formula in plain symbols, for alt text (``\\varepsilon^\\star`` -> ``ε^*``)."""
    out = tex
    for pattern, repl in _TEX:
        out = re.sub(pattern, repl, out)
    return out.replace("^*", "*").strip()


def _plain_text(node) -> str:
    parts = []
    for child in node.findall(lambda n: isinstance(n, (nodes.Text, nodes.math))):
        if isinstance(child, nodes.math):
            parts.append(plain_math(child.astext()))
        elif not isinstance(child.parent, nodes.math):
            parts.append(child.astext())
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def _shorten(text: str, limit: int = 360) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return cut[:end + 1] if end > 80 else cut.rsplit(" ", 1)[0] + " …"


def figure_alt_text(cell) -> str:
    """What a figure of the code cell ``cell`` shows, from the prose just before the cell.

    Of the (at most three) paragraphs that precede the cell in its section, the nearest one that
    says what is drawn (panels, left/right, curves, axes, bands, lines) is the description; with
    none, the nearest one that mentions a figure; with none, the nearest paragraph.  Formulas are
    spelled in plain symbols, the text is cut after a sentence near 360 characters, and the
    section's title comes first.
    """
    parent = cell.parent
    paragraphs = []
    index = parent.index(cell)
    for sibling in reversed(parent.children[:index]):
        if isinstance(sibling, nodes.paragraph):
            paragraphs.append(sibling)
        elif isinstance(sibling, (nodes.bullet_list, nodes.enumerated_list, nodes.target,
                                  nodes.comment)):
            continue
        elif paragraphs:
            break
        if len(paragraphs) == 3:
            break
    texts = [_plain_text(p) for p in paragraphs]
    described = next((t for t in texts if _DRAWING_WORDS.search(t)),
                     next((t for t in texts if _FIGURE_WORDS.search(t)), texts[0] if texts else ""))
    section = next((a for a in _ancestors(cell) if isinstance(a, nodes.section)), None)
    title = _plain_text(section[0]) if section is not None and isinstance(section[0], nodes.title) else ""
    head = f"Figure ({title})" if title else "Figure"
    return f"{head}: {_shorten(described)}" if described else f"{head} drawn by the code above"


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def _is_cell(node) -> bool:
    return isinstance(node, nodes.container) and "cell" in node.get("classes", [])


def _alt_texts(app, doctree, docname) -> None:
    """Give every figure of a code cell that has no alt text of its own a description."""
    for image in list(doctree.findall(nodes.image)):
        if image.get("alt") and image["alt"] != image.get("uri"):
            continue
        cell = next((a for a in _ancestors(image) if _is_cell(a)), None)
        if cell is not None and cell.parent is not None:
            image["alt"] = figure_alt_text(cell)


#: the theme's script tag of fontawesome.js (pydata-sphinx-theme's ``head_js_preload`` macro)
_FONTAWESOME_TAG = re.compile(
    r'[ \t]*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>\n?')


def _drop_fontawesome_js(outdir: Path) -> int:
    """Remove the script tag of ``fontawesome.js`` from every page and the script from ``_static``.

    The icons stay: ``pydata-sphinx-theme.css`` maps every ``fa-*`` class the pages use to a glyph
    of the Font Awesome web font it ships (``_static/vendor/fontawesome/webfonts``).  The same pass
    gives the bibliography's entries the role ``listitem`` their ``role="list"`` container requires
    (docutils writes the deprecated ``doc-biblioentry``, which axe reports as critical).  Returns
    the number of pages changed.
    """
    changed = 0
    for page in outdir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new = _FONTAWESOME_TAG.sub("", text).replace('role="doc-biblioentry"', 'role="listitem"')
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed += 1
    for name in ("fontawesome.js", "fontawesome.js.map", "fontawesome.js.LICENSE.txt"):
        (outdir / "_static" / "scripts" / name).unlink(missing_ok=True)
    return changed


def _write_config(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    _drop_fontawesome_js(Path(app.outdir))
    out = Path(app.outdir) / "_static" / CONFIG_JS
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(live_config_js(app.config.dpb_live_url, "the hosted server",
                                  app.config.dpb_repository_url))


def live_config_js(url: str, label: str, repository: str = "") -> str:
    """The body of ``_static/dpb-live-config.js``: where the Live buttons send the reader.

    Served to anybody, so it must never hold a secret (a token, a signed address).
    """
    if "token=" in (url or ""):
        raise ValueError("dpb_live_url must not carry a token: this file is public")
    cfg = {"url": url or "", "label": label, "repository": repository or ""}
    return ("// Where the Live buttons open this book's notebooks (see scripts/site/dpb_site.py).\n"
            f"window.DPB_LIVE = {json.dumps(cfg)};\n")


def setup(app):
    app.add_config_value("dpb_live_url", "", "html")
    app.add_config_value("dpb_repository_url", "", "html")
    app.connect("config-inited", _add_static_path)
    app.connect("env-updated", _drop_widget_state)
    app.connect("html-page-context", _page_context)
    app.connect("doctree-resolved", _alt_texts)
    app.connect("build-finished", _write_config)
    app.add_js_file(CONFIG_JS, priority=100)
    app.add_js_file("dpb-live.js", priority=101, defer="defer")
    app.add_css_file("dpb-live.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
