"""``make live``: the built book and its chapters live, from one local server on 127.0.0.1.

Makes the live notebooks (``scripts/live_notebooks.py``: each chapter's prose and explorers, into
``_build/live``; the explorers' first figures drawn once per change of dpb's code), starts
``scripts/site/jupyter/dpb_live_server.py`` on them (Voilà cut down to the book's chapters, see its
docstring) on a free port of 127.0.0.1, in its own process group, and prints a login address that
holds a token.  Opening it once in the browser sets the server's login cookie and shows the book;
from then on every chapter's Live button renders that chapter on the same server.  No page, script
or header the server sends carries the token.

Ctrl-C (SIGINT), SIGTERM or SIGHUP (the terminal closed) stop the server and every kernel within
2 s; so does the launcher's death (the server watches its parent).  Usage::

    python scripts/live.py [--site _build/html] [--open] [--preheat visit|all]

:func:`start` / :meth:`Live.stop` are what the browser tests use.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"
CHAPTERS = ROOT / "book"
JUPYTER = ROOT / "scripts" / "site" / "jupyter"
SERVER = JUPYTER / "dpb_live_server.py"
#: Where kernels find the explorers' first figures (dpb._first_draw).
FIGURES_ENV = "DPB_LIVE_FIGURES"

sys.path.insert(0, str(Path(__file__).resolve().parent))
import live_notebooks  # noqa: E402

#: Seconds between SIGTERM to the server and SIGKILL of whatever is left of it and its kernels.
STOP_GRACE = 1.0


def free_port() -> int:
    """A port on 127.0.0.1 that is free now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (kernels run in sessions of their own, so a group kill misses them)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().decode(errors="replace").rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


#: SIGINT, SIGTERM, SIGHUP as bits of /proc/PID/status masks
_STOP_BITS = sum(1 << (sig - 1) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP))


def _parent_interrupted(ppid: int) -> bool:
    """Whether the parent ``make`` is handling a fatal signal sent to its PID alone.

    GNU make then waits for its children (it forwards nothing to them): its handler blocks the
    signal it is handling (``SigBlk``) while it waits, which is what this reads.
    """
    try:
        comm = Path(f"/proc/{ppid}/comm").read_text().strip()
        if comm not in ("make", "gmake"):
            return False
        for line in Path(f"/proc/{ppid}/status").read_text().splitlines():
            if line.startswith("SigBlk:"):
                return bool(int(line.split()[1], 16) & _STOP_BITS)
    except (OSError, ValueError, IndexError):
        pass
    return False


@dataclass
class Live:
    """A running ``make live``: the book and the chapters at :attr:`url`."""

    url: str
    token: str
    server: subprocess.Popen
    log: Path
    _stopped: bool = field(default=False, repr=False)

    @property
    def login_url(self) -> str:
        """The address to open once (it works once): sets the login cookie, redirects to the book."""
        return f"{self.url}/dpb/login?token={self.token}"

    def chapter_url(self, chapter: str) -> str:
        """The live (Voilà) address of a chapter, e.g. ``ch01_background.ipynb`` (needs the cookie)."""
        return f"{self.url}/voila/render/{chapter}"

    def api(self, path: str, method: str = "GET", timeout: float = 10.0):
        """A request to the server authenticated by the token header (what scripts and tests use)."""
        req = urllib.request.Request(f"{self.url}{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = r.read()
        return json.loads(body) if body else None

    def kernels(self) -> list[dict]:
        """The server's own list of running kernels (id, chapter, warm, pid)."""
        return self.api("/dpb/api/kernels")

    def processes(self) -> list[int]:
        """The server and every process below it (the kernels) that are alive now."""
        return [p for p in [self.server.pid, *_descendants(self.server.pid)] if _alive(p)]

    def stop(self, grace: float = STOP_GRACE) -> None:
        """Stop the server and every kernel: SIGTERM (it kills its kernels and exits), then SIGKILL."""
        if self._stopped:
            return
        self._stopped = True
        procs = self.processes()
        if self.server.poll() is None:
            try:
                os.killpg(self.server.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.server.wait(grace)
            except subprocess.TimeoutExpired:
                pass
        for pid in [*procs, *_descendants(self.server.pid)]:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        try:
            self.server.wait(2)
        except subprocess.TimeoutExpired:
            pass


def start(site: Path = SITE, timeout: float = 90.0, log: Path | None = None,
          preheat: str = "visit", extra: list[str] | None = None, quiet: bool = False) -> Live:
    """Make the live notebooks (``scripts/live_notebooks.py``: each chapter's prose and explorers,
    into ``site/../live``), start the server on them and wait until it answers; raise
    ``RuntimeError`` if it does not."""
    site = Path(site)
    if not (site / "index.html").exists():
        raise FileNotFoundError(f"{site}/index.html is missing: build the book first (make book)")
    # the live notebooks (each chapter's prose and explorers) and the explorers' first figures
    live_dir = site.parent / "live"
    live_notebooks.prepare(CHAPTERS, live_dir, quiet=quiet)
    token = secrets.token_hex(24)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ)
    env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(JUPYTER), env.get("JUPYTER_PATH", "")) if p)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(JUPYTER.parent), str(ROOT), env.get("PYTHONPATH", "")) if p)
    env["DPB_LIVE_TOKEN"] = token  # not on the command line, which every local user can read
    env[FIGURES_ENV] = str(live_dir / "figures")
    cmd = [sys.executable, str(SERVER), "--site", str(site), "--chapters", str(live_dir),
           "--port", str(port), "--preheat", preheat, *(extra or [])]
    log = log or (ROOT / "_build" / "live-server.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    # the log is the owner's alone (0600); it holds no token (the server redacts it), but it
    # names the chapters read and the addresses asked
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with open(fd, "wb") as fh:
        server = subprocess.Popen(cmd, cwd=live_dir, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
    live = Live(url, token, server, log)
    deadline = time.monotonic() + timeout
    try:
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"the live server exited ({server.returncode}); see {log}")
            try:
                live.kernels()
                return live
            except (OSError, urllib.error.HTTPError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the live server did not answer within {timeout:g} s; see {log}")
            time.sleep(0.3)
    except BaseException:
        live.stop()
        raise


class _Stop(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=SITE, help="the built book (default: _build/html)")
    parser.add_argument("--open", action="store_true", help="open the login address in the default browser")
    parser.add_argument("--preheat", choices=("visit", "all"), default="visit",
                        help="pre-render a chapter when its page is opened (visit, default) or every "
                             "chapter at start (all: faster Live, ~300 MB a chapter)")
    args = parser.parse_args(argv)

    def stop_signal(signum, frame):
        raise _Stop(signal.Signals(signum).name)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop_signal)
    live = None
    try:
        live = start(args.site, preheat=args.preheat)
        print(f"The book, live. Open this address once (it logs this browser in, and works once):\n\n"
              f"    {live.login_url}\n\n"
              f"Then each chapter's Live button runs it on this server (127.0.0.1 only; log: {live.log}).\n"
              f"Keep the address to yourself: it lets a browser run the chapters. Ctrl-C stops everything.",
              flush=True)
        if args.open:
            import webbrowser

            webbrowser.open(live.login_url)
        parent = os.getppid()
        while live.server.poll() is None:
            if os.getppid() != parent or _parent_interrupted(parent):
                print("make live: `make` was stopped (a signal to its PID alone): stopping", file=sys.stderr)
                return 0
            time.sleep(0.2)
        print("make live: the live server stopped; see its log", file=sys.stderr)
        return 1
    except (FileNotFoundError, RuntimeError) as exc:
        print(f"make live: {exc}", file=sys.stderr)
        return 1
    except (_Stop, KeyboardInterrupt) as why:
        print(f"make live: stopping ({why or 'SIGINT'})", file=sys.stderr)
        return 0
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        if live is not None:
            live.stop()


if __name__ == "__main__":
    raise SystemExit(main())
