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
from pathlib import Path

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


def _write_config(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
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
    app.connect("build-finished", _write_config)
    app.add_js_file(CONFIG_JS, priority=100)
    app.add_js_file("dpb-live.js", priority=101, defer="defer")
    app.add_css_file("dpb-live.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
