"""The server behind ``make live``: the built book and its chapters live (Voilà), on one origin.

Started by ``scripts/live.py`` (never by hand) as::

    DPB_LIVE_TOKEN=T python scripts/site/jupyter/dpb_live_server.py \
        --site _build/html --chapters book --port N

It is Voilà's stand-alone application (``voila.app.Voila``) cut down to what a live chapter needs,
plus the built book:

- **one origin.**  ``http://127.0.0.1:N/`` serves ``_build/html`` (static files, no directory
  listings, nothing outside the folder) and ``/voila/render/chNN_x.ipynb`` renders a chapter live,
  so the book's Live button links to a relative URL and no file of the book carries a secret;
- **one login.**  The token is accepted only at ``/dpb/login?token=...``, once (it sets Jupyter's
  login cookie and redirects to the book, so the token leaves the address bar at once; a second
  use is refused), and in an ``Authorization: token ...`` header (the launcher, the tests);
  everything else works through the cookie, to which Jupyter applies its Origin and XSRF checks;
- **only what Live needs.**  Routes: the book, ``/voila/render/<chapter>`` (the chapters of
  ``--chapters`` only, every other path 404), the page's kernel (model, websocket, shutdown),
  Voilà's and JupyterLab's static assets, ``/dpb/login``, ``/dpb/warm/<chapter>`` and
  ``/dpb/api/kernels``.  No tree, no contents API, no file downloads, no terminals, no way to
  start a kernel except a chapter render; kernels accept only the widget (comm) messages, never
  ``execute_request``; :class:`LiveAuthorizer` allows nothing but reading and talking to kernels;
- **Host and Origin.**  Every request (static files included) with a ``Host`` other than
  ``127.0.0.1``/``localhost`` (with the server's port) is refused (403): a DNS-rebinding page
  cannot read anything; cross-origin requests are refused by Jupyter's Origin check, and a chapter
  render is refused when the browser says another origin asked for it (``Sec-Fetch-Site``, else
  ``Origin``/``Referer``: :func:`own_request`), so a foreign page cannot make the server start
  kernels; every response forbids framing by another origin, cross-origin embedding
  (``Cross-Origin-Resource-Policy``) and keeping a handle on a window (``-Opener-Policy``);
- **cookies.**  The login cookie has a random name per run, ``SameSite=Strict`` and ``HttpOnly``;
  the login page keeps a restore key in the book's ``localStorage`` and brings the cookie back
  when pages of other local ports crowd it out of the jar; a cookie header over
  :data:`COOKIE_LIMIT` gets a page (431) that removes what it can and reloads;
- **limits.**  Bodies, headers, header time and open connections are bounded
  (:class:`LiveHTTPServer`); floods are logged once a minute (:class:`_Once`); the token never
  reaches the log (paths without queries, :class:`_Redacting`); ``next=`` is a path of the book
  (:func:`safe_next`); a live page takes no query (no template or theme from the address bar);
  error pages say what happened (:data:`ERRORS`);
- **fast, bounded kernels.**  A chapter page of the book asks (``/dpb/warm``) for its chapter to be
  pre-rendered in a kernel while the reader reads (Voilà's pre-heated kernels), so Live shows a
  rendered chapter at once; only with the one-time nonce the server wrote into a page the reader
  opened; at most ``--warm-max`` chapters are kept warm (the oldest is shut down), one nobody
  opened is shut down after ``--warm-idle`` seconds, ``--preheat all`` warms every chapter at
  start; used kernels are shut down when their page goes and culled after ``--cull-idle`` seconds
  of idleness; at most ``--max-kernels`` run (a place is reserved before a kernel starts).
  ``--spares`` kernels (default 1) are kept started in advance with dpb's explorers imported
  (kernel ``dpb-live``): a pre-render or a render takes one and a new one starts a second later;
  they belong to no chapter, are not culled, not listed by ``/dpb/api/kernels`` and not counted
  in ``--max-kernels`` (at most ``--max-kernels`` chapter kernels plus ``--spares`` spare ones).
- **stops with its launcher.**  SIGTERM/SIGINT/SIGHUP kill every kernel at once (SIGKILL) and exit;
  so does the death of the parent process (polled every 0.5 s).
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import html
import io
import json
import logging
import os
import re
import secrets
import signal
import sys
import time
from collections import OrderedDict
from pathlib import Path
from urllib.parse import quote, urlparse

import tornado.web
from jupyter_server.auth.authorizer import Authorizer
from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.auth.identity import IdentityProvider
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from tornado import web
from tornado.http1connection import HTTP1ServerConnection
from tornado.httpserver import HTTPServer, _HTTPRequestContext
from tornado.ioloop import PeriodicCallback
from voila.app import Voila
from voila.static_file_handler import TemplateStaticFileHandler
from voila.tornado.handler import TornadoVoilaHandler

#: A chapter's file name; nothing else is ever rendered.
CHAPTER_RE = re.compile(r"ch\d\d_[A-Za-z0-9_]+\.ipynb")
#: Host names a request may carry (with the server's own port); IP literals other than these two
#: are refused too, so the rule is the same for everybody: these names, this port.
LOOPBACK_NAMES = ("127.0.0.1", "localhost")
LOGIN = "/dpb/login"
#: The chapter a render is for (read by the kernel manager when the render starts its kernel).
RENDERING: contextvars.ContextVar[str | None] = contextvars.ContextVar("RENDERING", default=None)
#: The kernel slot a render or a warm-up reserved before its kernel starts (see ``reserve``).
SLOT: contextvars.ContextVar[dict | None] = contextvars.ContextVar("SLOT", default=None)

#: Limits of the HTTP server (issue 36): bodies (the server takes no uploads; a refused body is
#: never buffered), headers (Chromium sends at most ~720 KB of cookies for one host: 180 of 4 KB;
#: a cookie header over COOKIE_LIMIT is answered with the 431 page, headers over MAX_HEADER are
#: dropped by Tornado), seconds to send a request's headers and body, open connections.
MAX_BODY = 64 * 1024
MAX_HEADER = 1024 * 1024
HEADER_TIMEOUT = 10.0
BODY_TIMEOUT = 30.0
MAX_CONNECTIONS = 256
#: A ``Cookie`` header longer than this gets the page that explains it (431) instead of the book.
COOKIE_LIMIT = 32 * 1024
#: The query keys a request may carry at all (none changes what a live page loads).
LOGIN_KEYS = frozenset({"token", "next"})

# Voilà's own routes kept (pattern suffixes); the render route is replaced by ChapterHandler.
_KEEP = (r"/api/kernels/(?P<kernel_id>\w+-\w+-\w+-\w+-\w+)",
         r"/api/kernels/(?P<kernel_id>\w+-\w+-\w+-\w+-\w+)/channels",
         r"/voila/static/(.*)", r"/voila/api/themes/(.*)",
         r"/voila/api/shutdown/(.*)", r"/voila/labextensions/(.*)")


class _Redacting(io.TextIOBase):
    """A text stream that writes to ``stream`` with every occurrence of ``secret`` replaced."""

    def __init__(self, stream, secret: str):
        self._stream, self._secret = stream, secret

    def write(self, text):
        if self._secret:
            text = text.replace(self._secret, "[token]")
        return self._stream.write(text)

    def flush(self):
        self._stream.flush()

    def fileno(self):
        return self._stream.fileno()

    def isatty(self):
        return False


_TOKEN_IN_PATH = re.compile(r"(?i)(token|auth|key)([=:])[^/&;?#\s]*")


def loggable_path(path: str) -> str:
    """A request's path as the log shows it: no query, any ``token=...`` in the path redacted."""
    return _TOKEN_IN_PATH.sub(r"\1\2[redacted]", path)[:300]


class _Once(logging.Filter):
    """Let a repeated warning through once a minute, with the count of those held back.

    A flood of refused or broken requests (slow connections, a script hammering one address)
    writes one line per kind and minute to the log, not one (or one traceback) per request.
    """

    def __init__(self, period: float = 60.0):
        super().__init__()
        self.period = period
        self._seen: dict = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING and record.name != "tornado.access":
            return True
        exc = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else ""
        key = (record.name, str(record.msg)[:80], exc,
               record.args[:3] if record.name == "tornado.access" and isinstance(record.args, tuple) else "")
        now = time.monotonic()
        first, held = self._seen.get(key, (None, 0))
        if first is not None and now - first < self.period:
            self._seen[key] = (first, held + 1)
            return False
        self._seen[key] = (now, 0)
        if len(self._seen) > 4096:
            self._seen.clear()
        if held:
            record.msg = f"{record.msg} ({held} more like this in the last minute, not logged)"
        return True


def log_request(handler: web.RequestHandler) -> None:
    """The access log: status, method, the path without its query (no token ever), time."""
    status = handler.get_status()
    log = logging.getLogger("tornado.access")
    level = logging.INFO if status < 400 else logging.WARNING if status < 500 else logging.ERROR
    log.log(level, "%d %s %s %.2fms", status, handler.request.method,
            loggable_path(handler.request.path), 1000.0 * handler.request.request_time())


#: What each refusal means for the reader, and what to do (the error pages).
ERRORS = {
    400: ("Bad request", "The server could not read this request."),
    403: ("Refused", "This live server answers only the book's own pages on this computer, to the "
                     "browser logged in with the address <code>make live</code> printed."),
    404: ("Not found", "This live server serves the built book and its chapters only."),
    405: ("Not allowed", "This address does not take this kind of request."),
    431: ("Too many cookies", "Your browser sent more cookie data for 127.0.0.1 than this server "
                              "reads: a page served from another port of 127.0.0.1 (any local web "
                              "server) can set cookies this server receives. Clear the cookies of "
                              "127.0.0.1 in your browser's settings (Site settings, 127.0.0.1, "
                              "Clear data), then open the login address again."),
    503: ("Too many live chapters", "Too many live chapters are open or starting at once: each runs "
                                    "in a kernel of its own, and this server runs at most a few. "
                                    "Close a live chapter's tab (its kernel stops), then retry."),
}


def error_page(status: int, detail: str = "") -> str:
    """An error page that says what happened, why, and what to do, with a link to the book."""
    title, text = ERRORS.get(status, ("Error", "The live server could not answer this request."))
    more = f"<p>{html.escape(detail)}</p>" if detail else ""
    return (f"<!doctype html><meta charset=\"utf-8\"><title>dpb live: {title}</title>"
            f"<body style=\"font-family: sans-serif; max-width: 40em; margin: 2em auto\">"
            f"<h1>{status}: {title}</h1><p>{text}</p>{more}"
            f"<p><a href=\"/index.html\">Back to the book</a></p></body>\n")


class _PageErrors:
    """``write_error`` as a page that says what happened (``HTTPError``'s message as its detail)."""

    def write_error(self, status_code, **kwargs):
        exc = kwargs.get("exc_info", (None, None, None))[1]
        detail = ""
        if isinstance(exc, web.HTTPError) and exc.log_message and status_code < 500:
            detail = exc.log_message % exc.args if exc.args else exc.log_message
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(error_page(status_code, detail))


def _own_origins(port: int) -> set[str]:
    return {f"http://{name}:{port}" for name in LOOPBACK_NAMES}


def own_request(handler: web.RequestHandler, port: int) -> bool:
    """Whether the reader's own book (or the reader, typing an address) asked for this request.

    Fetch Metadata first: ``Sec-Fetch-Site`` is ``same-origin`` for the book's links and scripts and
    ``none`` for an address typed or bookmarked; anything else is another site or origin (a page on
    another port of 127.0.0.1 is ``same-site``).  Browsers without Fetch Metadata (Safari < 16.4,
    Firefox < 90) are judged by ``Origin``, then ``Referer`` (the book sends it to itself:
    ``Referrer-Policy: same-origin``); with neither, only a script with the token header counts.
    """
    headers = handler.request.headers
    site = headers.get("Sec-Fetch-Site")
    if site is not None:
        return site in ("same-origin", "none")
    own = _own_origins(port)
    origin = headers.get("Origin")
    if origin is not None:
        return origin in own
    referer = headers.get("Referer")
    if referer:
        parts = urlparse(referer)
        return f"{parts.scheme}://{parts.netloc}" in own
    return bool(LiveIdentityProvider.auth_header_pat.match(headers.get("Authorization", "")))


def host_allowed(host: str | None, port: int) -> bool:
    """Whether a ``Host`` header names this server on a loopback name (DNS rebinding refused)."""
    if not host:
        return False
    return host.lower() in {f"{name}:{port}" for name in LOOPBACK_NAMES}


class LiveIdentityProvider(IdentityProvider):
    """Jupyter's token identity, but the token is read from the URL only at ``/dpb/login``.

    Anywhere else only the ``Authorization: token ...`` header (scripts, the tests) or the login
    cookie count, so no address of a live page ever carries the token (nor leaks it in a Referer).
    """

    #: Whether the login address has been used (it works once; the header token always).
    login_used = False

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # a login cookie whose name no other page can guess (so none can overwrite or shadow it),
        # sent to this site only and never to scripts
        self.cookie_name = f"dpb-live-{secrets.token_hex(8)}"
        self.cookie_options = {"samesite": "Strict", "httponly": True, "path": "/"}
        #: restore key -> user: the login kept in the book's own localStorage (another port's
        #: page cannot read or clear it) brings the cookie back if the cookie jar dropped it
        self.restore_keys: OrderedDict[str, object] = OrderedDict()

    def new_restore_key(self, user) -> str:
        key = secrets.token_urlsafe(32)
        self.restore_keys[key] = user
        while len(self.restore_keys) > 16:
            self.restore_keys.popitem(last=False)
        return key

    def get_token(self, handler: web.RequestHandler) -> str | None:
        if urlparse(handler.request.uri or "").path == LOGIN:
            token = handler.get_query_argument("token", "")
            if token and not self.login_used:
                return token
        m = self.auth_header_pat.match(handler.request.headers.get("Authorization", ""))
        return m.group(2) if m else ""

    def get_handlers(self) -> list:
        return []  # no password form, no /login or /logout pages: see LoginHandler

    @property
    def login_available(self) -> bool:
        return True


class LiveAuthorizer(Authorizer):
    """Allow what a live chapter needs and nothing else: read a kernel's model, talk to it.

    Voilà's page reads its kernel (``GET /api/kernels/<id>``) and opens its websocket
    (``execute`` on ``kernels``).  Every other resource (contents, files, sessions, terminals,
    nbconvert, config, kernelspecs, server, ...) and every write (delete, restart, start) is denied.
    """

    ALLOWED = frozenset({("read", "kernels"), ("execute", "kernels")})

    def is_authorized(self, handler, user, action, resource) -> bool:
        return (action, resource) in self.ALLOWED


class SecurityHeaders(tornado.web.OutputTransform):
    """Headers on every response: no framing by others, no cross-origin embedding, no sniffing."""

    def transform_first_chunk(self, status_code, headers, chunk, finishing):
        headers.setdefault("X-Frame-Options", "SAMEORIGIN")
        headers.setdefault("X-Content-Type-Options", "nosniff")
        headers["Cross-Origin-Resource-Policy"] = "same-origin"
        headers["Cross-Origin-Opener-Policy"] = "same-origin"  # an opener of another origin loses its handle
        headers.setdefault("Referrer-Policy", "same-origin")
        if "Content-Security-Policy" not in headers:
            headers["Content-Security-Policy"] = "frame-ancestors 'self'"
        return status_code, headers, chunk


class _Refused(web.RequestHandler):
    """The answer to a request with a foreign ``Host`` (no body worth reading)."""

    def initialize(self, status: int = 403):
        self._status = status

    def prepare(self):
        self.set_status(self._status)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish("refused: this server answers to 127.0.0.1 and localhost only\n")

    def check_xsrf_cookie(self):
        pass


#: The 431 page's script: expire every cookie the page can see (those another port's page set by
#: script; the login cookie is HttpOnly and stays), then reload if that was enough.
_CLEAR_COOKIES_JS = """<script>(function () {
  var paths = ["/"], parts = location.pathname.split("/");
  for (var i = 2; i < parts.length; i++) paths.push(parts.slice(0, i).join("/"));
  document.cookie.split(";").forEach(function (c) {
    var name = c.split("=")[0].trim(); if (!name || name === "_xsrf") return;
    paths.forEach(function (p) {
      var gone = name + "=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=" + p;
      document.cookie = gone; document.cookie = gone + "; domain=" + location.hostname;
    });
  });
  if (document.cookie.length < %d && !sessionStorage.getItem("dpb-cookies-cleared")) {
    sessionStorage.setItem("dpb-cookies-cleared", "1");
    document.getElementById("dpb-clear").textContent = "Cookies set by other pages removed: reloading.";
    location.reload();
  } else { sessionStorage.removeItem("dpb-cookies-cleared"); }
})();</script>"""


class _TooManyCookies(_Refused):
    """431 for a ``Cookie`` header over :data:`COOKIE_LIMIT`: a page that says why and clears them."""

    def prepare(self):
        self.set_status(431)
        self.set_header("Cache-Control", "no-store")
        if "text/html" not in self.request.headers.get("Accept", ""):
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.finish("431: too many cookies for 127.0.0.1 (set by another local page): clear them\n")
            return
        self.set_header("Content-Type", "text/html; charset=utf-8")
        page = error_page(431, "This page now removes the cookies it can (those set by other pages' "
                               "scripts) and reloads.")
        script = _CLEAR_COOKIES_JS % COOKIE_LIMIT
        self.finish(page.replace("</body>", f'<p id="dpb-clear"></p>{script}</body>'))


class LiveApplication(tornado.web.Application):
    """Tornado's application with the ``Host`` check in front of every route."""

    live_port = 0

    def find_handler(self, request, **kwargs):
        if not host_allowed(request.headers.get("Host"), self.live_port):
            return self.get_handler_delegate(request, _Refused, {"status": 403})
        if len(request.headers.get("Cookie", "")) > COOKIE_LIMIT:
            return self.get_handler_delegate(request, _TooManyCookies, {"status": 431})
        return super().find_handler(request, **kwargs)


class ChapterHandler(_PageErrors, TornadoVoilaHandler):
    """Voilà's render handler for the book's chapters only (no other path, no traversal)."""

    def initialize(self, **kwargs):
        self.chapters = kwargs.pop("chapters")
        self.max_kernels = kwargs.pop("max_kernels")
        super().initialize(**kwargs)

    async def prepare(self):
        await super().prepare()
        self.xsrf_token  # noqa: B018 - sets the _xsrf cookie Voilà's shutdown beacon sends back

    @web.authenticated
    async def get(self, path=None):
        if path not in self.chapters:
            raise web.HTTPError(404)
        if self.request.query:  # no template, theme or anything else from the address bar
            self.redirect(f"/voila/render/{quote(path)}")
            return
        if not own_request(self, self.settings["dpb_port"]):
            raise web.HTTPError(403, "A chapter goes live only from the book's own Live button: "
                                     "open the chapter in the book and press Live.")
        km = self.kernel_manager
        slot = None
        if not km.get_pool_size(path):  # a fresh kernel: reserve its place first (no await between)
            slot = km.reserve()
            if slot is None:
                raise web.HTTPError(503)
            SLOT.set(slot)
        try:
            pool = km._pools.get(path) or []
            if pool and path not in km.notebook_data:  # warming has begun: wait for its kernel (seconds)
                try:
                    await asyncio.wait_for(asyncio.shield(pool[0]), 60)
                except Exception:  # noqa: BLE001 - a failed warm-up: render with a fresh kernel
                    pass
            RENDERING.set(path)
            return await super().get(path)
        finally:
            km.release(slot)


#: A ``next=`` the login may redirect to: a path of the book (letters, digits, ``_-.`` segments; no
#: ``//``, ``..``, backslash, control character, scheme or host).
_NEXT_RE = re.compile(r"/(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*/)*(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)?")


def safe_next(nxt: str, site: str, chapters) -> str:
    """``nxt`` if it is a page of the book (a file of the site or a chapter's live page), else the index."""
    if not nxt or not _NEXT_RE.fullmatch(nxt):
        return "/index.html"
    if nxt.startswith("/voila/render/"):
        return nxt if nxt[len("/voila/render/"):] in chapters else "/index.html"
    target = Path(site, nxt.lstrip("/"))
    if nxt.endswith("/"):
        target = target / "index.html"
    return nxt if target.is_file() else "/index.html"


_LOGIN_PAGE = """<!doctype html><meta charset="utf-8"><title>dpb live: log in</title>
<body style="font-family: sans-serif; max-width: 40em; margin: 2em auto"><p id="dpb-login">%s</p>
<script>(function () {
  var key = %s, next = %s, out = document.getElementById("dpb-login");
  if (key) {  // logged in: keep a restore key where only this origin reads it, then the book
    try { localStorage.setItem("dpb-live-restore", key); } catch (e) {}
    location.replace(next); return;
  }
  var saved = ""; try { saved = localStorage.getItem("dpb-live-restore") || ""; } catch (e) {}
  if (!saved || !window.fetch) return;
  out.textContent = "This browser lost its login cookie (other local pages can crowd it out of the "
    + "cookie jar); restoring it ...";
  fetch("/dpb/restore", {method: "POST", credentials: "same-origin", headers: {"X-DPB-Restore": saved}})
    .then(function (r) { if (r.ok) { location.replace(next); }
      else { out.textContent = "The saved login is no longer valid (the server was restarted): open the "
        + "login address make live printed."; } });
})();</script></body>
"""


class LoginHandler(_PageErrors, JupyterHandler):
    """``/dpb/login?token=...``: sets the login cookie and sends the browser on to the book.

    The page stores a restore key in the book's ``localStorage`` (per origin: a page on another
    port cannot read or clear it) and replaces itself with ``next`` (a path of the book only, see
    :func:`safe_next`), so the token leaves the address bar and the history at once.  Without a
    login it says how to log in, or brings back a login cookie the browser dropped.
    """

    @allow_unauthenticated
    async def get(self):
        token = self.get_query_argument("token", "")
        nxt = safe_next(self.get_query_argument("next", ""), self.settings["dpb_site"],
                        self.settings["dpb_chapters"])
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        if self.current_user and token and self.token_authenticated:
            self.identity_provider.login_used = True  # a one-time address
            self.xsrf_token  # noqa: B018 - the _xsrf cookie for the book's requests
            key = self.identity_provider.new_restore_key(self.current_user)
            self.finish(_LOGIN_PAGE % ("Logged in: opening the book ...", json.dumps(key), json.dumps(nxt)))
            return
        if self.current_user:
            self.redirect(nxt)
            return
        self.set_status(403 if token else 200)
        used = (" That address has been used already (it works once): stop <code>make live</code> "
                "and start it again to log in another browser.") if self.identity_provider.login_used else ""
        self.finish(_LOGIN_PAGE % (
            "This live server runs the book's chapters for the person who started it. Open the login "
            f"address that <code>make live</code> printed in its terminal once.{used}",
            '""', json.dumps(nxt)))


class RestoreHandler(_PageErrors, JupyterHandler):
    """``POST /dpb/restore``: the login cookie again, for the restore key the login page stored."""

    def check_xsrf_cookie(self):
        pass  # the cookies may be gone; a same-origin Origin and a custom header stand in for them

    @allow_unauthenticated
    async def post(self):
        headers = self.request.headers
        if headers.get("Origin") not in _own_origins(self.settings["dpb_port"]) or \
                headers.get("Sec-Fetch-Site", "same-origin") != "same-origin":
            raise web.HTTPError(403)
        user = self.identity_provider.restore_keys.get(headers.get("X-DPB-Restore", ""))
        if user is None:
            raise web.HTTPError(403)
        self.identity_provider.set_login_cookie(self, user)
        self.xsrf_token  # noqa: B018
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps({"restored": True}))


class WarmHandler(APIHandler):
    """``POST /dpb/warm/<chapter>``: pre-render the chapter in a kernel while its page is read.

    Only for the reader's own page: the request must carry the one-time nonce the server wrote
    into that chapter page (``X-DPB-Warm``), which it writes only for a page the reader opened
    (a link of the book or the address bar, not a window another site opened).
    """

    @web.authenticated
    async def post(self, chapter):
        if chapter not in self.settings["dpb_chapters"]:
            raise web.HTTPError(404)
        nonces = self.settings["dpb_warm_nonces"]
        issued = nonces.pop(self.request.headers.get("X-DPB-Warm", ""), None)
        if not own_request(self, self.settings["dpb_port"]) or issued is None or \
                issued[0] != chapter or issued[1] < time.monotonic():
            raise web.HTTPError(403, "pre-rendering is only for the reader's own chapter pages")
        warm = self.kernel_manager.warm(chapter)
        self.finish(json.dumps({"chapter": chapter, "warming": warm}))


class KernelListHandler(APIHandler):
    """``GET /dpb/api/kernels``: the running kernels and the chapter each belongs to."""

    @web.authenticated
    async def get(self):
        km = self.kernel_manager
        rows = []
        for kid in km.list_kernel_ids():
            if km.is_spare(kid):  # started in advance, no chapter yet (``--spares``): not listed
                continue
            try:  # a kernel may be starting or stopping while this runs: list what is there
                model = await km.kernel_model(kid) if asyncio.iscoroutinefunction(km.kernel_model) \
                    else km.kernel_model(kid)
                prov = getattr(km.get_kernel(kid), "provisioner", None)
                rows.append({"id": kid, "chapter": km.chapter_of(kid), "warm": km.is_pooled(kid),
                             "execution_state": model.get("execution_state"),
                             "pid": getattr(prov, "pid", None) if prov else None})
            except Exception:  # noqa: BLE001 - gone meanwhile, or not registered yet
                self.log.debug("kernel %s not listed", kid, exc_info=True)
        self.finish(json.dumps(rows))


class ConfigJSHandler(web.RequestHandler):
    """The live server's ``_static/dpb-live-config.js``: Live opens ``/voila/render/<chapter>``."""

    def get(self):
        self.set_header("Content-Type", "text/javascript; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        cfg = {"url": "/voila/render/{name}", "label": "this computer (make live)",
               "warm": "/dpb/warm/{name}"}
        self.finish("// make live: the chapters open live on this same server (no secret here).\n"
                    f"window.DPB_LIVE = {json.dumps(cfg)};\n")


class BookHandler(_PageErrors, web.StaticFileHandler):
    """The built book: files under the site folder only, ``index.html`` for a folder, no listing.

    A chapter's page opened by the reader (:func:`own_request`) carries a one-time nonce
    (``<meta name="dpb-warm">``) that lets its script ask for a pre-render; a page another site
    opened in a window gets none.
    """

    #: seconds a warm nonce stays valid; nonces kept at most
    NONCE_SECONDS, NONCES = 1800, 64

    def set_extra_headers(self, path):
        self.set_header("Cache-Control", "no-cache")

    async def get(self, path, include_body=True):
        m = re.fullmatch(r"book/(ch\d\d_[A-Za-z0-9_]+)\.html", path or "")
        chapter = f"{m.group(1)}.ipynb" if m else None
        if chapter not in self.settings["dpb_chapters"] or \
                not own_request(self, self.settings["dpb_port"]):
            return await super().get(path, include_body)
        if not Path(self.root, path).is_file():
            raise web.HTTPError(404)
        page = Path(self.root, path).read_bytes()
        nonce = secrets.token_urlsafe(24)
        nonces = self.settings["dpb_warm_nonces"]
        nonces[nonce] = (chapter, time.monotonic() + self.NONCE_SECONDS)
        while len(nonces) > self.NONCES:
            nonces.popitem(last=False)
        page = page.replace(b"<head>", f'<head><meta name="dpb-warm" content="{nonce}">'.encode(), 1)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self._nonce_page = True
        self.finish(page if include_body else None)

    def compute_etag(self):
        return None if getattr(self, "_nonce_page", False) else super().compute_etag()

    def validate_absolute_path(self, root, absolute_path):
        if any(part.startswith(".") for part in Path(os.path.relpath(absolute_path, root)).parts):
            raise web.HTTPError(404)
        return super().validate_absolute_path(root, absolute_path)


class TemplateStatic(TemplateStaticFileHandler):
    """Voilà's template assets; a path that leaves a template's ``static`` folder is a 404 (not a 500)."""

    @classmethod
    def get_absolute_path(cls, root, path):
        try:
            return super().get_absolute_path(root, path)
        except (AssertionError, ValueError) as exc:
            raise web.HTTPError(404) from exc

    def parse_url_path(self, path):
        try:
            return super().parse_url_path(path)
        except (AssertionError, ValueError) as exc:
            raise web.HTTPError(404) from exc


def _kernel_manager_class(base):
    """Voilà's pre-heating kernel manager, warmed on demand and bounded, with a chapter index."""

    class LiveKernelManager(base):
        warm_max = 2
        max_kernels = 8
        #: seconds a pre-rendered kernel nobody opened is kept (then shut down)
        warm_idle = 600.0

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self._warm_order: OrderedDict[str, float] = OrderedDict()
            self._chapter_of: dict[str, str] = {}
            self._reserved = 0

        def reserve(self) -> dict | None:
            """A place for one more kernel, or None at the limit (checked and taken at once).

            Running kernels and places reserved by renders and warm-ups whose kernel has not
            registered yet count, so renders sent at once cannot all pass the check.
            """
            chapters = [k for k in self.list_kernel_ids() if not self.is_spare(k)]
            if len(chapters) + self._reserved >= self.max_kernels:
                return None
            self._reserved += 1
            return {"held": True}

        def release(self, slot: dict | None) -> None:
            if slot is not None and slot["held"]:
                slot["held"] = False
                self._reserved -= 1

        async def start_kernel(self, *args, **kwargs):
            try:
                kid = (self._take_spare(kwargs.get("kernel_name"))
                       or await super().start_kernel(*args, **kwargs))
            finally:  # registered (or failed): the running kernel counts from now on
                self.release(SLOT.get())
            if RENDERING.get():
                self._chapter_of[kid] = RENDERING.get()
            return kid

        def _pool_config(self, chapter: str, size: int) -> None:
            cfg = dict(self.kernel_pools_config)
            cfg[chapter] = {"pool_size": size}
            self.kernel_pools_config = cfg

        def warm(self, chapter: str) -> bool:
            """Start pre-rendering ``chapter`` unless it is warm already; evict the oldest warm."""
            if self.get_pool_size(chapter):
                self._warm_order[chapter] = time.monotonic()
                self._warm_order.move_to_end(chapter)
                return False
            while len(self._warm_order) >= self.warm_max:
                old, _ = self._warm_order.popitem(last=False)
                asyncio.ensure_future(self._drop_pool(old))
            slot = self.reserve()  # the kernel limit holds for warm-ups too
            if slot is None:
                return False
            self._warm_order[chapter] = time.monotonic()
            self._warm_order.move_to_end(chapter)
            self._pool_config(chapter, 1)

            def fill():  # the pool's task inherits this context: its start_kernel frees the slot
                SLOT.set(slot)
                self.fill_if_needed(delay=0, notebook_name=chapter)

            contextvars.copy_context().run(fill)
            self._pool_config(chapter, 0)  # no automatic refill: the next visit warms again
            return True

        def cull_warm(self) -> list[str]:
            """Shut down pre-rendered kernels nobody opened within :attr:`warm_idle` seconds."""
            now = time.monotonic()
            stale = [c for c, t in self._warm_order.items() if now - t > self.warm_idle]
            for chapter in stale:
                self._warm_order.pop(chapter, None)
                self.log.info("culling the pre-rendered kernel of %s (unused for %.0f s)", chapter,
                              self.warm_idle)
                asyncio.ensure_future(self._drop_pool(chapter))
            return stale

        async def _drop_pool(self, chapter: str) -> None:
            for task in list(self._pools.pop(chapter, [])):
                try:
                    result = await task
                except Exception:  # noqa: BLE001 - a failed warm-up has no kernel to stop
                    continue
                kid = result["kernel_id"]
                if kid in self:
                    await self.shutdown_kernel(kid, now=True)

        async def get_rendered_notebook(self, notebook_name, *args, **kwargs):
            self._warm_order.pop(notebook_name, None)
            return await super().get_rendered_notebook(notebook_name, *args, **kwargs)

        def is_pooled(self, kernel_id: str) -> bool:
            for pool in self._pools.values():
                for task in pool:
                    if task.done() and not task.cancelled() and not task.exception() and \
                            task.result().get("kernel_id") == kernel_id:
                        return True
            return False

        def chapter_of(self, kernel_id: str) -> str | None:
            return self._get_notebook_from_kernel(kernel_id) or self._chapter_of.get(kernel_id)

        # --- spare kernels (issue 37): started in advance with dpb imported, handed to renders ---
        #: Kernels kept started with no chapter (``--spares``), the kernel they run, the limit.
        spare_max = 0
        spare_kernel = "dpb-live"
        max_kernels = 8
        #: Seconds between handing a spare out and starting its replacement.
        spare_delay = 1.0

        def _spare_ids(self) -> list[str]:
            spares = self.__dict__.setdefault("_spares", [])
            spares[:] = [k for k in spares if k in self]
            return spares

        def is_spare(self, kernel_id: str) -> bool:
            return kernel_id in self._spare_ids()

        async def start_spares(self) -> None:
            """Start spare kernels up to ``spare_max``, leaving room for one render in ``max_kernels``."""
            if self.__dict__.get("_filling"):
                return
            self._filling = True
            try:
                while len(self._spare_ids()) < self.spare_max:  # (spares are outside --max-kernels)
                    kid = await super().start_kernel(kernel_name=self.spare_kernel, path="")
                    self._spare_ids().append(kid)
                    self.log.info("spare kernel %s started (%s)", kid, self.spare_kernel)
            except Exception:  # noqa: BLE001 - no spare: renders start their own kernel
                self.log.exception("starting a spare kernel failed")
            finally:
                self._filling = False

        def _take_spare(self, kernel_name: str | None) -> str | None:
            spares = self._spare_ids()
            if not spares or kernel_name not in (None, self.spare_kernel):
                return None
            kid = spares.pop(0)
            asyncio.get_event_loop().call_later(self.spare_delay,
                                                lambda: asyncio.ensure_future(self.start_spares()))
            return kid

        async def _initialize(self, notebook_path, kernel_id=None, **kwargs):
            # a pre-render (Voila's pool) runs in a spare kernel when there is one; the spare is now
            # this chapter's kernel, so the place the warm-up reserved is taken (start_kernel, which
            # frees it otherwise, is not called)
            spare = None if kernel_id else self._take_spare(None)
            if spare is not None:
                self.release(SLOT.get())
            return await super()._initialize(notebook_path, kernel_id or spare, **kwargs)

        async def shutdown_kernel(self, kernel_id, *args, **kwargs):
            if kernel_id in self._spare_ids():
                self._spare_ids().remove(kernel_id)
            return await super().shutdown_kernel(kernel_id, *args, **kwargs)

        async def cull_kernel_if_idle(self, kernel_id):
            if kernel_id in self._spare_ids():
                return None  # a spare waits for a reader; there are at most ``spare_max``
            return await super().cull_kernel_if_idle(kernel_id)
        # --- end of spare kernels ---

        def kill_all_now(self) -> None:
            """SIGKILL every kernel process at once (the server is stopping)."""
            for kid in list(self.list_kernel_ids()):
                km = self.get_kernel(kid)
                prov = getattr(km, "provisioner", None)
                pid = getattr(prov, "pid", None)
                if pid:
                    for kill in (os.killpg, os.kill):  # the kernel's own session, then the process
                        try:
                            kill(pid, signal.SIGKILL)
                        except OSError:
                            pass

    return LiveKernelManager


class _Busy:
    """A request delegate that tells :class:`LiveHTTPServer` when the request's headers arrived."""

    def __init__(self, delegate, server, conn):
        self._delegate, self._server, self._conn = delegate, server, conn

    def headers_received(self, start_line, headers):
        self._server._waiting.pop(self._conn, None)
        return self._delegate.headers_received(start_line, headers)

    def data_received(self, chunk):
        return self._delegate.data_received(chunk)

    def finish(self):
        return self._delegate.finish()

    def on_connection_close(self):
        return self._delegate.on_connection_close()


class LiveHTTPServer(HTTPServer):
    """Tornado's HTTP server with a bound on open connections.

    Every client of a loopback server has the address 127.0.0.1, so the bound is the server's:
    at :data:`MAX_CONNECTIONS`, a new connection first closes the connection that has waited
    longest for a request's headers (a slow or half-sent request, or an idle keep-alive the
    browser reopens), so a flood of slow connections cannot lock the reader out; when every
    connection is busy (a request in progress, a kernel's websocket) the new one is refused.
    Either is logged once a minute, with a count (:class:`_Once`).  Headers must arrive within
    :data:`HEADER_TIMEOUT` seconds.
    """

    def initialize(self, *args, max_connections: int = MAX_CONNECTIONS, **kwargs):
        super().initialize(*args, **kwargs)
        self.max_connections = max_connections
        self._waiting: OrderedDict = OrderedDict()  # connection -> None, oldest wait first

    def handle_stream(self, stream, address) -> None:
        log = logging.getLogger("tornado.general")
        if len(self._connections) >= self.max_connections:
            if self._waiting:
                victim, _ = self._waiting.popitem(last=False)
                log.warning("connection limit (%d) reached: closing the oldest idle connection",
                            self.max_connections)
                victim.stream.close()
            else:
                log.warning("connection limit (%d) reached: refusing a new connection", self.max_connections)
                stream.close()
                return
        context = _HTTPRequestContext(stream, address, self.protocol, self.trusted_downstream)
        conn = HTTP1ServerConnection(stream, self.conn_params, context)
        self._connections.add(conn)
        self._waiting[conn] = None
        conn.start_serving(self)

    def start_request(self, server_conn, request_conn):
        self._waiting.pop(server_conn, None)
        self._waiting[server_conn] = None  # waits for the next request's headers
        return _Busy(super().start_request(server_conn, request_conn), self, server_conn)

    def on_close(self, server_conn) -> None:
        self._waiting.pop(server_conn, None)
        super().on_close(server_conn)


class LiveVoila(Voila):
    """Voilà's stand-alone app serving the book and its chapters only (see the module docstring)."""

    site = ""
    chapters: frozenset = frozenset()
    max_kernels = 8
    warm_max = 2
    warm_idle = 600.0
    preheat = "visit"
    spares = 1

    def init_settings(self):
        # Voilà builds its kernel manager from the factory below; we want ours (on-demand warming).
        import voila.app as voila_app

        original = voila_app.voila_kernel_manager_factory

        def factory(base_class, preheat_kernel, pool_size, page_config_hook=None):
            return _kernel_manager_class(original(base_class, True, 0, page_config_hook))

        voila_app.voila_kernel_manager_factory = factory
        try:
            settings = super().init_settings()
        finally:
            voila_app.voila_kernel_manager_factory = original
        self.kernel_manager.warm_max = self.warm_max
        self.kernel_manager.max_kernels = self.max_kernels
        self.kernel_manager.warm_idle = self.warm_idle
        self.kernel_manager.spare_max = self.spares
        self.identity_provider = LiveIdentityProvider(parent=self, log=self.log, token=self.token)
        self.authorizer = LiveAuthorizer(parent=self, log=self.log, identity_provider=self.identity_provider)
        origin = f"http://127.0.0.1:{self.port}"
        settings.update(
            identity_provider=self.identity_provider, authorizer=self.authorizer,
            allow_remote_access=False, local_hostnames=["localhost"], allow_origin=origin,
            xsrf_cookies=True, login_url=LOGIN, terminals_available=False,
            xsrf_cookie_kwargs={"path": "/", "samesite": "Strict"},
            dpb_chapters=self.chapters, dpb_site=self.site, dpb_port=self.port,
            dpb_warm_nonces=OrderedDict(), log_function=log_request,
            headers={"Content-Security-Policy": "frame-ancestors 'self'"},
        )
        return settings

    def init_handlers(self):
        kept = []
        for rule in super().init_handlers():
            pattern = rule[0]
            if any(pattern.endswith(k) for k in _KEEP):
                kept.append(rule)
            elif pattern.endswith("/voila/templates/(.*)"):  # only the templates the page uses
                kept.append((r"/voila/templates/((?:dpb|lab|base)/static/.*)", TemplateStatic))
            elif pattern.endswith("/voila/render/(.*)"):
                kwargs = dict(rule[2], chapters=self.chapters, max_kernels=self.max_kernels)
                kept.append((r"/voila/render/(.*)", ChapterHandler, kwargs))
        return [
            (LOGIN, LoginHandler),
            (r"/dpb/restore", RestoreHandler),
            (r"/dpb/warm/([^/]+)", WarmHandler),
            (r"/dpb/api/kernels", KernelListHandler),
            (r"/_static/dpb-live-config\.js", ConfigJSHandler),
            *kept,
            (r"/(.*)", BookHandler, {"path": self.site, "default_filename": "index.html"}),
        ]

    def start(self):
        import tempfile

        self.connection_dir = tempfile.mkdtemp(prefix="voila_", dir=self.connection_dir_root)
        settings = self.init_settings()
        self.app = LiveApplication(transforms=[SecurityHeaders],
                                   **settings)
        self.app.live_port = self.port
        self.app.settings.update(self.tornado_settings)
        self.app.add_handlers(".*$", self.init_handlers())
        if self.preheat == "all":
            for chapter in sorted(self.chapters):
                self.kernel_manager.warm_max = len(self.chapters)
                self.kernel_manager.warm(chapter)
        asyncio.get_event_loop().create_task(self.kernel_manager.start_spares())
        self.listen()

    def listen(self):
        # one port, chosen by the launcher; no retries on others; bounded bodies, headers, time
        # and connections (LiveHTTPServer)
        server = LiveHTTPServer(self.app, max_body_size=MAX_BODY, max_header_size=MAX_HEADER,
                                idle_connection_timeout=HEADER_TIMEOUT, body_timeout=BODY_TIMEOUT)
        server.listen(self.port, self.ip)
        PeriodicCallback(self.kernel_manager.cull_warm,
                         1000 * max(1.0, min(60.0, self.warm_idle / 4))).start()
        self.log.info("dpb live server on http://%s:%i/", self.ip, self.port)
        self.ioloop = tornado.ioloop.IOLoop.current()
        parent = os.getppid()

        def orphaned():
            if os.getppid() != parent:
                self._stop_now("the launcher died")

        PeriodicCallback(orphaned, 500).start()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, lambda s, f: self._stop_now(f"signal {s}"))
        try:
            self.ioloop.start()
        finally:
            self.kernel_manager.kill_all_now()

    def _stop_now(self, why: str) -> None:
        self.log.info("stopping (%s): killing every kernel", why)
        self.kernel_manager.kill_all_now()
        import shutil

        shutil.rmtree(self.connection_dir, ignore_errors=True)
        os._exit(0)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, required=True)
    parser.add_argument("--chapters", type=Path, required=True, help="the folder of chNN_*.ipynb")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", default=os.environ.pop("DPB_LIVE_TOKEN", ""),
                        help="default: $DPB_LIVE_TOKEN (the launcher's way: no token in `ps`)")
    parser.add_argument("--max-kernels", type=int, default=8)
    parser.add_argument("--warm-max", type=int, default=2)
    parser.add_argument("--preheat", choices=("visit", "all"), default="visit")
    parser.add_argument("--cull-idle", type=int, default=1800)
    parser.add_argument("--warm-idle", type=float, default=600.0,
                        help="seconds a pre-rendered kernel nobody opened is kept")
    parser.add_argument("--spares", type=int, default=1, choices=range(0, 5),
                        help="kernels kept started with dpb imported, for the next render (0-4)")
    args, rest = parser.parse_known_args(argv)
    if len(args.token) < 32:
        sys.exit("a token of at least 32 characters is required (--token or $DPB_LIVE_TOKEN)")
    # no token in the log, whatever writes it (the access log logs paths without queries anyway)
    sys.stdout, sys.stderr = _Redacting(sys.stdout, args.token), _Redacting(sys.stderr, args.token)
    _raise_open_files_limit()
    chapters_dir = args.chapters.resolve()
    chapters = frozenset(p.name for p in chapters_dir.glob("ch*.ipynb") if CHAPTER_RE.fullmatch(p.name))
    if not chapters:
        sys.exit(f"no chapter notebooks (chNN_*.ipynb) in {chapters_dir}")
    app = LiveVoila()
    app.site = str(args.site.resolve())
    app.chapters = chapters
    app.max_kernels = args.max_kernels
    app.warm_max = args.warm_max
    app.warm_idle = args.warm_idle
    app.preheat = args.preheat
    app.spares = args.spares
    app.initialize([
        "--no-browser", "--Voila.ip=127.0.0.1", f"--Voila.port={args.port}", "--Voila.port_retries=0",
        f"--Voila.token={args.token}", f"--Voila.root_dir={chapters_dir}",
        "--VoilaConfiguration.template=dpb", "--VoilaConfiguration.show_tracebacks=True",
        # the address bar chooses nothing a live page loads (ChapterHandler also drops any query)
        "--VoilaConfiguration.allow_template_override=NO", "--VoilaConfiguration.allow_theme_override=NO",
        # JupyterLab-only extensions a live chapter does not use (jupyterlab-myst breaks Voila's page)
        "--VoilaConfiguration.extension_denylist", "jupyterlab-myst",
        "--VoilaConfiguration.extension_denylist", "@voila-dashboards/jupyterlab-preview",
        f"--MappingKernelManager.cull_idle_timeout={args.cull_idle}",
        "--MappingKernelManager.cull_interval=60", "--MappingKernelManager.cull_connected=True",
        "--MappingKernelManager.cull_busy=False",
        # the string "null" for both makes Voila's front end typeset with the MathJax 3 bundled
        # in JupyterLab's mathjax extension instead of loading MathJax from cdnjs
        "--Voila.tornado_settings", "mathjax_url=null", "--Voila.tornado_settings", "mathjax_config=null",
        # MyST roles and directives of the chapters as plain Markdown (scripts/site/myst_lite.py)
        "--VoilaExporter.filters", "myst_lite=myst_lite.myst_to_markdown",
        *rest,
    ])
    once = _Once()
    for logger in (logging.getLogger("tornado.access"), logging.getLogger("tornado.application"),
                   logging.getLogger("tornado.general"), app.log):
        logger.addFilter(once)
    app.start()


def _raise_open_files_limit() -> None:
    """The soft limit of open files up to the hard one (kernels, sockets; see LiveHTTPServer)."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = hard if hard != resource.RLIM_INFINITY else 65536
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, 65536), hard))
    except (ImportError, ValueError, OSError):
        pass


if __name__ == "__main__":
    main()
