"""Sphinx extension of the dpb book: the single-page HTML build that ``make pdf`` prints.

Loaded by ``_config.yml`` (``sphinx.local_extensions``); it does nothing for the other builders.
``make pdf`` builds the whole book as one HTML page (``jupyter-book build . --builder singlehtml``,
rendered from the execution cache of the HTML build: nothing is executed again) and
``scripts/print_pdf.py`` prints that page with headless Chromium once MathJax has typeset it.

The fix it makes: Sphinx looks up a node's visitors by the builder's *name* first and falls back to
its *format* ("html") only when no extension registered any visitor under that name.
sphinx-exercise registers its nodes for ``singlehtml`` too, so for that builder Sphinx never falls
back, and myst-nb's ``HideCodeCellNode`` (registered for ``html`` only) stops the build with
"unknown node type".  On ``builder-inited`` every ``html`` visitor missing under ``singlehtml`` is
copied there, which is what the fallback would have done.

And where the page goes: the single page is written as ``<root_doc>.html`` (``book/intro.html``),
but every address in it (``_static/...``, ``_images/...``, ``book/intro.html#label``) is relative to
the output folder itself.  On ``build-finished`` the page is moved to ``dpb.html`` at the top of the
output folder, its links into itself made plain anchors (``#label``), so that its styles, MathJax
and figures load and its cross-references are links inside one document (inside one PDF).
"""

from __future__ import annotations

import re
from pathlib import Path


def _html_visitors_for_singlehtml(app) -> None:
    if app.builder.name != "singlehtml":
        return
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for node, visitors in handlers.get("html", {}).items():
        single.setdefault(node, visitors)


#: the single page, at the top of the output folder
PAGE = "dpb.html"


def _move_page(app, exception) -> None:
    if exception is not None or app.builder.name != "singlehtml":
        return
    out = Path(app.outdir)
    name = app.config.root_doc + app.builder.out_suffix
    src = out / name
    html = src.read_text(encoding="utf-8")
    html = re.sub(r'href="' + re.escape(name) + '#', 'href="#', html)
    html = html.replace(f'href="{name}"', 'href="#"')
    (out / PAGE).write_text(html, encoding="utf-8")
    src.unlink()


def setup(app):
    app.connect("builder-inited", _html_visitors_for_singlehtml)
    app.connect("build-finished", _move_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
