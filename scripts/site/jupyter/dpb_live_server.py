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
  render is refused when the browser says another origin asked for it (``Sec-Fetch-Site``), so a
  foreign page cannot make the server start kernels; every response forbids framing by another
  origin and cross-origin embedding (``Cross-Origin-Resource-Policy: same-origin``);
- **fast, bounded kernels.**  A chapter page of the book asks (``/dpb/warm``) for its chapter to be
  pre-rendered in a kernel while the reader reads (Voilà's pre-heated kernels), so Live shows a
  rendered chapter at once; at most ``--warm-max`` chapters are kept warm (the oldest is shut
  down), ``--preheat all`` warms every chapter at start; used kernels are shut down when their
  page goes and culled after ``--cull-idle`` seconds of idleness; at most ``--max-kernels`` run.
  ``--spares`` kernels (default 1) are kept started in advance with dpb's explorers imported
  (kernel ``dpb-live``): a pre-render or a render takes one and a new one starts a second later;
  they belong to no chapter, are not culled and not listed by ``/dpb/api/kernels``.
- **stops with its launcher.**  SIGTERM/SIGINT/SIGHUP kill every kernel at once (SIGKILL) and exit;
  so does the death of the parent process (polled every 0.5 s).
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import json
import os
import re
import signal
import sys
import time
from collections import OrderedDict
from pathlib import Path
from urllib.parse import urlparse

import tornado.web
from jupyter_server.auth.authorizer import Authorizer
from jupyter_server.auth.decorator import allow_unauthenticated
from jupyter_server.auth.identity import IdentityProvider
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from tornado import web
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

# Voilà's own routes kept (pattern suffixes); the render route is replaced by ChapterHandler.
_KEEP = (r"/api/kernels/(?P<kernel_id>\w+-\w+-\w+-\w+-\w+)",
         r"/api/kernels/(?P<kernel_id>\w+-\w+-\w+-\w+-\w+)/channels",
         r"/voila/static/(.*)", r"/voila/api/themes/(.*)",
         r"/voila/api/shutdown/(.*)", r"/voila/labextensions/(.*)")


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


class LiveApplication(tornado.web.Application):
    """Tornado's application with the ``Host`` check in front of every route."""

    live_port = 0

    def find_handler(self, request, **kwargs):
        if not host_allowed(request.headers.get("Host"), self.live_port):
            return self.get_handler_delegate(request, _Refused, {"status": 403})
        return super().find_handler(request, **kwargs)


def _same_origin_request(handler: web.RequestHandler) -> bool:
    """False when the browser says another site or origin asked (``Sec-Fetch-Site``).

    Browsers send it on every request; ``none`` is the reader typing or bookmarking the address,
    ``same-origin`` a link of the book.  Scripts (no header) are judged by their login alone.
    """
    site = handler.request.headers.get("Sec-Fetch-Site")
    return site in (None, "same-origin", "none")


class ChapterHandler(TornadoVoilaHandler):
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
        if not _same_origin_request(self):
            raise web.HTTPError(403, "a chapter is rendered only for the book's own pages")
        if len(self.kernel_manager.list_kernel_ids()) >= self.max_kernels and \
                not self.kernel_manager.get_pool_size(path):
            raise web.HTTPError(503, "too many live chapters are open: close one and retry")
        km = self.kernel_manager
        pool = km._pools.get(path) or []
        if pool and path not in km.notebook_data:  # warming has begun: wait for its kernel (seconds)
            try:
                await asyncio.wait_for(asyncio.shield(pool[0]), 60)
            except Exception:  # noqa: BLE001 - a failed warm-up: render with a fresh kernel
                pass
        RENDERING.set(path)
        return await super().get(path)


class LoginHandler(JupyterHandler):
    """``/dpb/login?token=...``: sets the login cookie and redirects to the book (token gone)."""

    @allow_unauthenticated
    async def get(self):
        if self.current_user and (self.token_authenticated or self.get_query_argument("token", "")):
            if self.get_query_argument("token", "") and self.token_authenticated:
                self.identity_provider.login_used = True  # a one-time address
            self.xsrf_token  # noqa: B018 - the _xsrf cookie for the book's requests
            nxt = self.get_query_argument("next", "/index.html")
            if not nxt.startswith("/") or nxt.startswith("//") or "\\" in nxt:
                nxt = "/index.html"
            self.redirect(nxt)
            return
        self.set_status(403 if self.get_query_argument("token", "") else 200)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        used = (" That address has been used already (it works once): stop <code>make live</code> "
                "and start it again to log in another browser.") if self.identity_provider.login_used else ""
        self.finish("<!doctype html><title>dpb live: log in</title><p>This live server runs the "
                    "book's chapters for the person who started it. Open the login address that "
                    f"<code>make live</code> printed in its terminal once.{used}</p>")


class WarmHandler(APIHandler):
    """``POST /dpb/warm/<chapter>``: pre-render the chapter in a kernel while its page is read."""

    @web.authenticated
    async def post(self, chapter):
        if chapter not in self.settings["dpb_chapters"]:
            raise web.HTTPError(404)
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
            model = await km.kernel_model(kid) if asyncio.iscoroutinefunction(km.kernel_model) \
                else km.kernel_model(kid)
            rows.append({"id": kid, "chapter": km.chapter_of(kid), "warm": km.is_pooled(kid),
                         "execution_state": model.get("execution_state"),
                         "pid": getattr(km.get_kernel(kid).provisioner, "pid", None)
                         if getattr(km.get_kernel(kid), "provisioner", None) else None})
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


class BookHandler(web.StaticFileHandler):
    """The built book: files under the site folder only, ``index.html`` for a folder, no listing."""

    def set_extra_headers(self, path):
        self.set_header("Cache-Control", "no-cache")

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

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self._warm_order: OrderedDict[str, float] = OrderedDict()
            self._chapter_of: dict[str, str] = {}

        async def start_kernel(self, *args, **kwargs):
            kid = self._take_spare(kwargs.get("kernel_name")) or await super().start_kernel(*args, **kwargs)
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
                self._warm_order.move_to_end(chapter)
                return False
            self._warm_order[chapter] = time.monotonic()
            self._warm_order.move_to_end(chapter)
            while len(self._warm_order) > self.warm_max:
                old, _ = self._warm_order.popitem(last=False)
                asyncio.ensure_future(self._drop_pool(old))
            self._pool_config(chapter, 1)
            self.fill_if_needed(delay=0, notebook_name=chapter)
            self._pool_config(chapter, 0)  # no automatic refill: the next visit warms again
            return True

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
                    if task.done() and not task.exception() and task.result().get("kernel_id") == kernel_id:
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
                while len(self._spare_ids()) < self.spare_max and \
                        len(self.list_kernel_ids()) + 1 < self.max_kernels:
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
            # a pre-render (Voila's pool) runs in a spare kernel when there is one
            return await super()._initialize(notebook_path, kernel_id or self._take_spare(None), **kwargs)

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


class LiveVoila(Voila):
    """Voilà's stand-alone app serving the book and its chapters only (see the module docstring)."""

    site = ""
    chapters: frozenset = frozenset()
    max_kernels = 8
    warm_max = 2
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
        self.kernel_manager.spare_max, self.kernel_manager.max_kernels = self.spares, self.max_kernels
        self.identity_provider = LiveIdentityProvider(parent=self, log=self.log, token=self.token)
        self.authorizer = LiveAuthorizer(parent=self, log=self.log, identity_provider=self.identity_provider)
        origin = f"http://127.0.0.1:{self.port}"
        settings.update(
            identity_provider=self.identity_provider, authorizer=self.authorizer,
            allow_remote_access=False, local_hostnames=["localhost"], allow_origin=origin,
            xsrf_cookies=True, login_url=LOGIN, terminals_available=False,
            dpb_chapters=self.chapters, headers={"Content-Security-Policy": "frame-ancestors 'self'"},
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
        # one port, chosen by the launcher; no retries on others
        self.app.listen(self.port, self.ip)
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
    parser.add_argument("--spares", type=int, default=1, choices=range(0, 5),
                        help="kernels kept started with dpb imported, for the next render (0-4)")
    args, rest = parser.parse_known_args(argv)
    if len(args.token) < 32:
        sys.exit("a token of at least 32 characters is required (--token or $DPB_LIVE_TOKEN)")
    chapters_dir = args.chapters.resolve()
    chapters = frozenset(p.name for p in chapters_dir.glob("ch*.ipynb") if CHAPTER_RE.fullmatch(p.name))
    if not chapters:
        sys.exit(f"no chapter notebooks (chNN_*.ipynb) in {chapters_dir}")
    app = LiveVoila()
    app.site = str(args.site.resolve())
    app.chapters = chapters
    app.max_kernels = args.max_kernels
    app.warm_max = args.warm_max
    app.preheat = args.preheat
    app.spares = args.spares
    app.initialize([
        "--no-browser", "--Voila.ip=127.0.0.1", f"--Voila.port={args.port}", "--Voila.port_retries=0",
        f"--Voila.token={args.token}", f"--Voila.root_dir={chapters_dir}",
        "--VoilaConfiguration.template=dpb", "--VoilaConfiguration.show_tracebacks=True",
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
    app.start()


if __name__ == "__main__":
    main()
