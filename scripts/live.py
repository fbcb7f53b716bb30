"""``make live``: the built book plus a local Jupyter server that runs its chapters live.

Starts, both on 127.0.0.1 and on ports chosen free at run time:

- a static server for ``_build/html`` that also answers ``_static/dpb-live-config.js`` with the
  address of the Jupyter server, so every chapter's "Live" button opens that chapter there;
- a Jupyter server (token-protected, cross-origin requests allowed from the book's origin only) with
  Voilà, which executes the chapter and shows its outputs with every widget live (the book's Voilà
  template, ``scripts/site/jupyter/voila/templates/dpb``, fetches nothing outside localhost).

Prints the book's address and serves until Ctrl-C; then stops the Jupyter server (its kernels
included).  Usage::

    python scripts/live.py [--site _build/html] [--open]

:func:`start` / :meth:`Live.stop` are what the browser test uses.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
TEMPLATES = ROOT / "scripts" / "site" / "jupyter"
sys.path.insert(0, str(ROOT / "scripts" / "site"))
from dpb_site import CONFIG_JS, live_config_js  # noqa: E402


def free_port() -> int:
    """A port on 127.0.0.1 that is free now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    config_js = b""

    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.path.split("?")[0].endswith("/_static/" + CONFIG_JS):
            body = self.config_js
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, *args):
        pass


@dataclass
class Live:
    """A running ``make live``: the book at :attr:`site_url`, Jupyter at :attr:`jupyter_url`."""

    site_url: str
    jupyter_url: str
    token: str
    httpd: http.server.ThreadingHTTPServer
    server: subprocess.Popen
    log: Path
    _stopped: bool = field(default=False, repr=False)

    def notebook_url(self, notebook: str) -> str:
        """The live (Voilà) address of a notebook given by its path in the repository."""
        return f"{self.jupyter_url}/voila/render/{notebook}?token={self.token}"

    def stop(self, timeout: float = 15.0) -> None:
        """Stop the Jupyter server and its kernels (SIGTERM, then SIGKILL), then the site server."""
        if self._stopped:
            return
        self._stopped = True
        try:
            if self.server.poll() is None:
                try:
                    os.killpg(self.server.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                try:
                    self.server.wait(timeout)
                except subprocess.TimeoutExpired:
                    pass
            try:  # whatever is left of the group (kernels started by the server)
                os.killpg(self.server.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.server.wait(5)
        finally:
            self.httpd.shutdown()
            self.httpd.server_close()


def start(site: Path = SITE, timeout: float = 90.0, log: Path | None = None) -> Live:
    """Start both servers and wait until Jupyter answers; raise ``RuntimeError`` if it does not."""
    site = Path(site)
    if not (site / "index.html").exists():
        raise FileNotFoundError(f"{site}/index.html is missing: build the book first (make book)")
    handler = functools.partial(_SiteHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    site_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    threading.Thread(target=httpd.serve_forever, daemon=True).start()

    token = secrets.token_hex(24)
    port = free_port()
    jupyter_url = f"http://127.0.0.1:{port}"
    env = dict(os.environ)
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(TEMPLATES), env.get("JUPYTER_PATH", "")) if p)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(TEMPLATES.parent), env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "jupyter", "server", "--no-browser",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={token}", f"--ServerApp.allow_origin={site_url}",
           f"--ServerApp.root_dir={ROOT}", "--ServerApp.jpserver_extensions={'voila': True}",
           "--VoilaConfiguration.template=dpb", "--VoilaConfiguration.show_tracebacks=True",
           # the string "null" for both makes Voila's front end typeset with the MathJax 3 bundled
           # in JupyterLab's mathjax extension instead of loading MathJax from cdnjs
           "--ServerApp.tornado_settings={'mathjax_url': 'null', 'mathjax_config': 'null'}",
           # MyST roles and directives of the chapters as plain Markdown (scripts/site/myst_lite.py)
           "--VoilaExporter.filters={'myst_lite': 'myst_lite.myst_to_markdown'}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers and CI machines run as root
        cmd.append("--allow-root")
    log = log or (ROOT / "_build" / "live-jupyter.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as fh:
        server = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
    live = Live(site_url, jupyter_url, token, httpd, server, log)
    _SiteHandler.config_js = live_config_js(
        f"{jupyter_url}/voila/render/{{notebook}}?token={token}", "the local Jupyter server").encode()
    deadline = time.monotonic() + timeout
    try:
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"the Jupyter server exited ({server.returncode}); see {log}")
            try:
                with urllib.request.urlopen(f"{jupyter_url}/api/status?token={token}", timeout=2) as r:
                    if r.status == 200:
                        return live
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Jupyter server did not answer within {timeout:g} s; see {log}")
            time.sleep(0.5)
    except BaseException:
        live.stop()
        raise


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=SITE, help="the built book (default: _build/html)")
    parser.add_argument("--open", action="store_true", help="open the book in the default browser")
    args = parser.parse_args(argv)
    try:
        live = start(args.site)
    except (FileNotFoundError, RuntimeError) as exc:
        print(f"make live: {exc}", file=sys.stderr)
        return 1
    try:
        print(f"The book, live: {live.site_url}/index.html\n"
              f"  (each chapter's Live button runs it on the Jupyter server at {live.jupyter_url};"
              f" log: {live.log})\nCtrl-C stops both servers.", flush=True)
        if args.open:
            import webbrowser

            webbrowser.open(f"{live.site_url}/index.html")
        while live.server.poll() is None:
            time.sleep(1)
        print("make live: the Jupyter server stopped", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        live.stop()


if __name__ == "__main__":
    raise SystemExit(main())
