"""Live widgets in a real browser: JupyterLab (``make lab``) and the book's Live button (``make live``).

Both start a Jupyter server on 127.0.0.1 on a port chosen free at run time, drive Debian's
chromium with Playwright (offline: requests outside localhost are refused and reported), move
widget controls and assert that the widget's figure changed, i.e. that a kernel recomputed it.
Every server is stopped by its fixture, also on failure (its own process group, SIGTERM then
SIGKILL).  Kept to chapter 1 (two fast explorers) to spare CI time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest
from helpers.processes import stop_group
from helpers.site import CHROMIUM_ARGS, SITE, browser, serve_directory, watch  # noqa: F401 (browser is a fixture)

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = "ch01_background"
sys.path.insert(0, str(ROOT / "scripts"))
import live  # noqa: E402

pytestmark = pytest.mark.browser  # one group under --dist loadgroup: tests/conftest.py

#: where a failing test leaves a screenshot of the page
SHOTS = ROOT / "_build"

# A widget view of an explorer, and the image in its output area.
EXPLORER_IMAGES = ".widget-vbox .widget-output img"


@pytest.fixture(autouse=True)
def _sigterm_stops_servers():
    """A SIGTERM (``timeout``, a cancelled CI job) becomes KeyboardInterrupt, so fixtures still stop
    their servers; pytest would otherwise die without running their ``finally``."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    old = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@pytest.fixture(scope="module")
def live_server():
    """One ``make live`` for the module: the honest Live path and the attacks run against it."""
    if not (SITE / "index.html").exists():
        pytest.fail("_build/html is missing: build the book first (make build-strict)")
    running = live.start(SITE)
    try:
        yield running
    finally:
        running.stop()


def nudge_slider(page, explorer) -> None:
    """Move the first slider of an explorer by one step with the keyboard (a released drag)."""
    handle = explorer.locator(".widget-slider .noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")


def wait_for_new_image(page, explorer, old_src: str, what: str, timeout: float = 60_000) -> None:
    """Wait until the explorer's figure is an image other than ``old_src``: checked inside the page
    every 20 ms (asking from the test every 250 ms added up to a quarter of a second, an eighth on
    average, to every redraw it timed)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    changed = ("([root, old]) => { const img = root.querySelector('.widget-output img');"
               " const src = img === null ? null : img.getAttribute('src');"
               " return src !== null && src !== old; }")
    try:
        page.wait_for_function(changed, arg=[explorer.element_handle(), old_src], polling=20, timeout=timeout)
    except PlaywrightTimeout:
        raise AssertionError(f"{what}: the figure did not change after moving a control") from None


def explorers_with_images(page, n: int, timeout: float):
    page.wait_for_function(
        f"document.querySelectorAll('{EXPLORER_IMAGES}').length >= {n}", timeout=timeout)
    return page.locator(".widget-vbox").filter(has=page.locator(".widget-output img"))


# ---------------------------------------------------------------------------------------------
# `make live`: the honest path (log in once, press Live, move a slider) and, against the same
# running server, a page of another loopback origin that tries to take it over (issue 21).
# ---------------------------------------------------------------------------------------------

#: How long the browser waits from pressing Live to every explorer drawn (then the page fails).
#: ``test_every_chapter_goes_live`` holds each chapter to :func:`live_bound` (5 s quiet, 15 s at
#: load 10, measured by hand with ten tries; three times that in the suite's single try); this
#: wait only keeps a slow try measurable on a shared, loaded machine.
LIVE_TIMEOUT_MS = 240_000
#: Seconds the reader spends on a chapter's page before pressing Live (0: at once, the worst case;
#: ``DPB_LIVE_READ_SECONDS=60`` measures Live after a minute of reading, the chapter pre-rendered).
READ_SECONDS = float(os.environ.get("DPB_LIVE_READ_SECONDS", "0"))


def _origins(server) -> list[str]:
    """Every HTTP origin ``make live`` serves (one since issue 21; two before: book + Jupyter)."""
    if hasattr(server, "url"):
        return [server.url]
    return [server.site_url, server.jupyter_url]


def _kernel_ids(server) -> set[str]:
    """The server's own list of kernels, asked with the real token from this process."""
    if hasattr(server, "kernels"):
        return {k["id"] for k in server.kernels()}
    req = urllib.request.Request(f"{server.jupyter_url}/api/kernels",
                                 headers={"Authorization": f"token {server.token}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        import json
        return {k["id"] for k in json.load(r)}


@pytest.fixture(scope="module")
def logged_in(live_server, browser):  # noqa: F811
    """The reader's login: the printed address opened once; its cookies, for every new context."""
    if not hasattr(live_server, "login_url"):  # before issue 21 there was no login
        return None
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(live_server.login_url, wait_until="load", timeout=30_000)
        assert live_server.token not in page.url, "the token stays in the address bar after login"
        assert "/dpb/login" not in page.url, page.url  # redirected to the book
        return context.storage_state()
    finally:
        context.close()


def _context(browser, state, **kwargs):  # noqa: F811
    return browser.new_context(storage_state=state, **kwargs)


def test_login_address_works_once(live_server, logged_in, browser):  # noqa: F811
    """A second browser (no cookie) cannot log in with the used address; the chapters need a login."""
    context = browser.new_context()
    try:
        page = context.new_page()
        response = page.goto(live_server.login_url, wait_until="load", timeout=30_000)
        assert response.status == 403, response.status
        assert "works once" in page.content()
        response = page.goto(live_server.chapter_url(f"{CHAPTER}.ipynb"), wait_until="load", timeout=30_000)
        assert "/dpb/login" in page.url and response.status == 200, page.url
        assert "kernelId" not in page.content()
    finally:
        context.close()


def _open_live(page, server, chapter: str, n_explorers: int, timeout_ms: float = LIVE_TIMEOUT_MS):
    """Open a chapter's book page, press Live; return (seconds to every explorer drawn, explorers)."""
    page.goto(f"{_origins(server)[0]}/book/{chapter}.html", wait_until="load", timeout=30_000)
    button = page.locator(".dpb-live-banner .dpb-live-button")
    assert button.is_enabled()
    message = page.locator(".dpb-live-banner .dpb-live-msg").inner_text()
    plural = "explorer" if n_explorers == 1 else "explorers"
    assert f"its {n_explorers} interactive {plural} on" in message, message
    page.wait_for_timeout(READ_SECONDS * 1000)  # the reader reads; the server pre-renders meanwhile
    t0 = time.monotonic()
    button.click()
    # "commit": the render streams in while the kernel runs the chapter; "load" waits for all of it
    page.wait_for_url(f"**/voila/render/{chapter}.ipynb*", timeout=30_000, wait_until="commit")
    explorers = explorers_with_images(page, n_explorers, timeout_ms)
    return time.monotonic() - t0, explorers


def _slider_redraw_seconds(page, explorer, what: str) -> float:
    explorer.scroll_into_view_if_needed()
    old = explorer.locator(".widget-output img").first.get_attribute("src")
    t0 = time.monotonic()
    nudge_slider(page, explorer)
    wait_for_new_image(page, explorer, old, what)
    return time.monotonic() - t0


def test_live_button_runs_chapter_on_the_same_origin(live_server, logged_in, browser):  # noqa: F811
    context = _context(browser, logged_in, viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    seen = watch(page)
    try:
        before = _kernel_ids(live_server)
        seconds, explorers = _open_live(page, live_server, CHAPTER, 2)
        assert page.url == live_server.chapter_url(f"{CHAPTER}.ipynb"), page.url  # relative, no token
        assert live_server.token not in page.content()
        _slider_redraw_seconds(page, explorers.first, "make live (Voila)")
        page.wait_for_timeout(300)
        assert not seen["outside"], f"the live page requested outside localhost: {seen['outside']}"
        errors = list(seen["errors"])
        # the prose is typeset offline (JupyterLab's bundled MathJax 3) and its MyST is rewritten
        assert page.locator("mjx-container").count() > 20, "the live page's math is not typeset"
        raw = page.evaluate(r"document.body.innerText.match(/\{(cite|prf:ref|doc|eq|py:func)\}`|```\{/g)")
        assert not raw, f"the live page shows raw MyST markup: {raw[:5]}"
        assert page.locator("blockquote strong:has-text('Theorem')").count() > 0
        assert not errors, f"the live page logged errors: {errors}"
        # the chapter's title, a way back to the book, one figure per explorer
        assert page.title().startswith("Background"), page.title()
        back = page.locator("a.dpb-live-back")
        assert back.get_attribute("href") == f"/book/{CHAPTER}.html"
        visible_static = page.locator(".celltag_static-figure img:visible").count()
        assert visible_static == 0, f"{visible_static} static figures still shown above live explorers"
        # the page's kernel is shut down when the page goes (Voila's beacon, with its _xsrf)
        mine = {k["id"] for k in live_server.kernels() if not k["warm"]} - before
        assert len(mine) == 1, (mine, live_server.kernels())
        back.click()
        page.wait_for_url(f"**/book/{CHAPTER}.html", timeout=30_000)
        deadline = time.monotonic() + 10
        while mine & _kernel_ids(live_server) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not mine & _kernel_ids(live_server), "leaving the live page left its kernel running"
    except Exception:
        page.screenshot(path=str(SHOTS / "live-failure.png"))
        raise
    finally:
        context.close()


# --- the attacker: a page of another loopback origin, open in the reader's (logged-in) browser ---

ATTACK_PAGE = r"""<!doctype html><meta charset="utf-8"><title>any web page</title>
<body><script>
window.leaks = [];
window.addEventListener("error", function (e) {
  window.leaks.push("error:" + (e.message || "") + (e.filename || "")); }, true);
function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
function loadScript(src) {
  return new Promise(function (resolve) {
    var s = document.createElement("script"); s.src = src;
    s.onload = function () { resolve("loaded"); }; s.onerror = function () { resolve("error"); };
    document.head.appendChild(s); setTimeout(function () { resolve("timeout"); }, 5000);
  });
}
async function tryFetch(url, opts) {
  try { var r = await fetch(url, opts); var t = ""; try { t = await r.text(); } catch (e) {}
        return {status: r.status, type: r.type, body: t.slice(0, 20000)}; }
  catch (e) { return {error: String(e)}; }
}
function tryXHR(url) {
  return new Promise(function (resolve) {
    var x = new XMLHttpRequest(); x.open("GET", url); x.withCredentials = true;
    x.onload = function () { resolve({status: x.status, body: x.responseText.slice(0, 20000)}); };
    x.onerror = function () { resolve({error: "xhr error", status: x.status}); };
    x.timeout = 5000; x.ontimeout = function () { resolve({error: "timeout"}); };
    x.send();
  });
}
function tryFrame(url) {
  return new Promise(function (resolve) {
    var f = document.createElement("iframe"); f.src = url; document.body.appendChild(f);
    f.onload = function () { var out = {loaded: true};
      try { out.body = f.contentWindow.document.documentElement.outerHTML.slice(0, 20000); }
      catch (e) { out.error = String(e); }
      try { out.href = String(f.contentWindow.location.href); } catch (e) { out.hrefError = String(e); }
      resolve(out); };
    setTimeout(function () { resolve({timeout: true}); }, 8000);
  });
}
function tryLink(url) {
  return new Promise(function (resolve) {
    var l = document.createElement("link"); l.rel = "stylesheet"; l.href = url;
    l.onload = function () { var out = {loaded: true};
      try { out.rules = Array.from(l.sheet.cssRules).map(function (r) { return r.cssText; }).join("\n"); }
      catch (e) { out.error = String(e); } resolve(out); };
    l.onerror = function () { resolve({error: "link error"}); };
    document.head.appendChild(l); setTimeout(function () { resolve({timeout: true}); }, 5000);
  });
}
function tryImg(url) {
  return new Promise(function (resolve) {
    var i = new Image(); i.onload = function () { resolve({loaded: true, w: i.naturalWidth}); };
    i.onerror = function () { resolve({error: "img error"}); }; i.src = url;
    setTimeout(function () { resolve({timeout: true}); }, 5000);
  });
}
function tryWS(url, send) {
  return new Promise(function (resolve) {
    var ws, out = {opened: false, messages: 0};
    try { ws = new WebSocket(url); } catch (e) { resolve({error: String(e)}); return; }
    ws.onopen = function () { out.opened = true; (send || []).forEach(function (m) { ws.send(m); }); };
    ws.onmessage = function () { out.messages += 1; };
    ws.onerror = function () { out.error = "ws error"; };
    ws.onclose = function (e) { out.closed = e.code; resolve(out); };
    setTimeout(function () { try { ws.close(); } catch (e) {} resolve(out); }, 6000);
  });
}
function postForm(url, fields) {
  return new Promise(function (resolve) {
    var name = "sink" + Math.random().toString(36).slice(2);
    var f = document.createElement("iframe"); f.name = name; document.body.appendChild(f);
    var form = document.createElement("form"); form.method = "POST"; form.action = url; form.target = name;
    Object.keys(fields || {}).forEach(function (k) { var i = document.createElement("input");
      i.type = "hidden"; i.name = k; i.value = fields[k]; form.appendChild(i); });
    document.body.appendChild(form);
    f.onload = function () { resolve("submitted"); }; form.submit();
    setTimeout(function () { resolve("timeout"); }, 6000);
  });
}
function cookie(name) {
  var m = document.cookie.match("(?:^|;\\s*)" + name + "=([^;]*)"); return m ? m[1] : ""; }
function executeRequest(code) {
  var id = Math.random().toString(36).slice(2);
  return JSON.stringify({header: {msg_id: id, username: "", session: id, msg_type: "execute_request",
    version: "5.3", date: new Date().toISOString()}, parent_header: {}, metadata: {}, channel: "shell",
    content: {code: code, silent: false, store_history: false, user_expressions: {}, allow_stdin: false},
    buffers: []});
}
</script>
"""


@pytest.fixture(scope="module")
def attacker(tmp_path_factory):
    """A static server on another port of 127.0.0.1 serving :data:`ATTACK_PAGE` (any web page)."""
    root = tmp_path_factory.mktemp("attacker")
    (root / "index.html").write_text(ATTACK_PAGE)
    with serve_directory(root) as address:
        yield address


@pytest.fixture(scope="module")
def reader(live_server, logged_in, browser):  # noqa: F811
    """The reader's browser: logged in to ``make live`` and with a live chapter open (its kernel)."""
    context = _context(browser, logged_in, viewport={"width": 1200, "height": 900})
    page = context.new_page()
    watch(page)
    # kernels other tests' renders left are not the reader's (a pre-rendered one may become it)
    earlier = {k["id"] for k in live_server.kernels() if not k["warm"]} if hasattr(live_server, "kernels") \
        else set()
    if hasattr(live_server, "login_url"):
        _open_live(page, live_server, CHAPTER, 2)
    else:  # before issue 21: the Live button carried the token to the Jupyter server
        page.goto(f"{live_server.site_url}/book/{CHAPTER}.html", wait_until="load", timeout=30_000)
        page.locator(".dpb-live-banner .dpb-live-button").click()
        explorers_with_images(page, 2, LIVE_TIMEOUT_MS)
    if hasattr(live_server, "kernels"):  # the live page's kernel, not a chapter warming up
        kernels = {k["id"] for k in live_server.kernels()
                   if not k["warm"] and k["chapter"] == f"{CHAPTER}.ipynb"} - earlier
    else:
        kernels = _kernel_ids(live_server)
    assert len(kernels) == 1, kernels
    try:
        yield context, next(iter(kernels))
    finally:
        context.close()


@pytest.fixture
def evil(reader, attacker):
    """The attacker's page, open in the same browser as the reader's live chapter."""
    context, _kernel = reader
    page = context.new_page()
    page.goto(f"{attacker}/index.html", wait_until="load", timeout=30_000)
    try:
        yield page
    finally:
        page.close()


def _marker(tmp_path) -> Path:
    return tmp_path / "owned"


def _no_token(server, value) -> None:
    assert server.token not in repr(value), f"the attacker read the token: {repr(value)[:300]}"


def test_attacker_cannot_read_the_token(live_server, evil):
    """(a) <script src>, fetch/XHR, <iframe>, <link>, <img> and error events: no token anywhere."""
    for origin in _origins(live_server):
        for path in ("/_static/dpb-live-config.js", "/index.html", f"/book/{CHAPTER}.html",
                     "/dpb/login", f"/voila/render/{CHAPTER}.ipynb", "/api/status"):
            url = origin + path
            got = {
                "script": evil.evaluate(
                    "u => loadScript(u).then(r => [r, JSON.stringify(window.DPB_LIVE || null)])", url),
                "fetch": evil.evaluate("u => tryFetch(u, {credentials: 'include'})", url),
                "fetch-no-cors": evil.evaluate(
                    "u => tryFetch(u, {credentials: 'include', mode: 'no-cors'})", url),
                "xhr": evil.evaluate("u => tryXHR(u)", url),
                "link": evil.evaluate("u => tryLink(u)", url),
                "img": evil.evaluate("u => tryImg(u)", url),
            }
            _no_token(live_server, got)
            for how in ("fetch", "xhr"):
                assert "body" not in got[how] or got[how]["body"] == "", (
                    f"{how} of {url} from another origin could read the response: {got[how]}")
            assert got["fetch-no-cors"].get("body", "") == "", got["fetch-no-cors"]
            assert "rules" not in got["link"], f"<link> read {url} as a stylesheet: {got['link']}"
        got = evil.evaluate("u => tryFrame(u)", origin + f"/book/{CHAPTER}.html")
        _no_token(live_server, got)
        assert "body" not in got, f"an <iframe> of another origin read the book page: {got}"
    _no_token(live_server, evil.evaluate("window.leaks"))
    _no_token(live_server, evil.evaluate("document.cookie"))


def _learned_token(evil) -> str:
    """Whatever the attacker could learn of the token through <script src> (nothing, since issue 21)."""
    url = evil.evaluate("JSON.stringify(window.DPB_LIVE || {})")
    import re
    m = re.search(r"token=([0-9a-f]+)", url)
    return m.group(1) if m else ""


def test_attacker_cannot_start_a_kernel(live_server, reader, evil):
    """(b) POST /api/kernels by fetch and by a plain form (with the readable _xsrf cookie)."""
    before = _kernel_ids(live_server)
    for origin in _origins(live_server):
        evil.evaluate("u => loadScript(u)", origin + "/_static/dpb-live-config.js")
    token = _learned_token(evil)
    results = []
    for origin in _origins(live_server):
        q = f"?token={token}" if token else ""
        results.append(evil.evaluate(
            "u => tryFetch(u, {method: 'POST', credentials: 'include',"
            " headers: {'X-XSRFToken': cookie('_xsrf')},"
            " body: JSON.stringify({name: 'python3'})})", f"{origin}/api/kernels{q}"))
        results.append(evil.evaluate(
            "u => tryFetch(u, {method: 'POST', credentials: 'include', mode: 'no-cors', body: '{}'})",
            f"{origin}/api/kernels{q}"))
        for api in ("kernels", "sessions"):
            results.append(evil.evaluate("u => postForm(u, {_xsrf: cookie('_xsrf')})",
                                         f"{origin}/api/{api}{q}"))
    time.sleep(1.0)
    after = _kernel_ids(live_server)
    assert after == before, f"the attacker started kernels {after - before} ({results})"


def test_attacker_cannot_run_code_through_a_kernel_or_a_terminal(live_server, reader, evil, tmp_path):
    """(b) kernel and terminal websockets, with a real kernel id and whatever token was learned."""
    _context, kernel = reader
    marker = _marker(tmp_path)
    for origin in _origins(live_server):
        evil.evaluate("u => loadScript(u)", origin + "/_static/dpb-live-config.js")
    token = _learned_token(evil)
    code = f"open({str(marker)!r}, 'w').write('kernel')"
    outcomes = {}
    for origin in _origins(live_server):
        ws = origin.replace("http://", "ws://")
        q = f"?token={token}" if token else ""
        outcomes[f"{origin} kernel"] = evil.evaluate(
            "([u, m]) => tryWS(u, [m])", [f"{ws}/api/kernels/{kernel}/channels{q}", code and
                                          evil.evaluate("c => executeRequest(c)", code)])
        term = evil.evaluate(
            "u => tryFetch(u, {method: 'POST', credentials: 'include',"
            " headers: {'X-XSRFToken': cookie('_xsrf')}})",
            f"{origin}/api/terminals{q}")
        outcomes[f"{origin} terminal-create"] = term
        outcomes[f"{origin} terminal-create-form"] = evil.evaluate(
            "u => postForm(u, {_xsrf: cookie('_xsrf')})", f"{origin}/api/terminals{q}")
        outcomes[f"{origin} terminal"] = evil.evaluate(
            "([u, m]) => tryWS(u, [m])",
            [f"{ws}/terminals/websocket/1{q}", f'["stdin", "echo terminal > {marker}\\r"]'])
    time.sleep(2.0)
    assert not marker.exists(), f"the attacker ran code on the reader's machine: {outcomes}"
    for what, got in outcomes.items():
        if what.endswith(("kernel", "terminal")):
            assert not got.get("opened"), f"{what}: a websocket from another origin was accepted: {got}"


def test_attacker_cannot_list_files_or_render_other_notebooks(live_server, reader, evil, tmp_path):
    """(b) contents, files, tree, nbconvert, lab; a notebook outside the chapters rendered."""
    marker = _marker(tmp_path)
    outside = ROOT / "_build" / "attack_outside.ipynb"
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"open({str(marker)!r}, 'w').write('x')")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, outside)
    before = _kernel_ids(live_server)
    try:
        for origin in _origins(live_server):
            evil.evaluate("u => loadScript(u)", origin + "/_static/dpb-live-config.js")
        token = _learned_token(evil)
        q = f"?token={token}" if token else ""
        for origin in _origins(live_server):
            for path in ("/api/contents", "/api/contents/Makefile", "/files/Makefile", "/voila/tree",
                         "/voila/api/contents", "/voila/files/Makefile", "/tree", "/lab", "/api/sessions",
                         "/nbconvert/html/book/ch01_background.ipynb", "/api/kernelspecs", "/api/terminals"):
                got = evil.evaluate("u => tryFetch(u, {credentials: 'include'})", f"{origin}{path}{q}")
                assert not got.get("body"), f"another origin read {path}: {got}"
            for path in ("/voila/render/_build/attack_outside.ipynb",
                         "/voila/render/../_build/attack_outside.ipynb",
                         "/voila/render/%2e%2e/_build/attack_outside.ipynb"):
                evil.evaluate("u => tryFrame(u)", f"{origin}{path}{q}")
                evil.evaluate("u => tryImg(u)", f"{origin}{path}{q}")
        # a chapter too: a foreign page must not make the server start kernels
        for origin in _origins(live_server):
            evil.evaluate("u => tryFrame(u)", f"{origin}/voila/render/book/{CHAPTER}.ipynb{q}")
            evil.evaluate("u => tryFrame(u)", f"{origin}/voila/render/{CHAPTER}.ipynb{q}")
        time.sleep(2.0)
        assert not marker.exists(), "a notebook outside the chapters was rendered (and ran)"
        assert _kernel_ids(live_server) == before, "a page of another origin made the server start a kernel"
    finally:
        outside.unlink(missing_ok=True)


def _listening_ports(pids: list[int]) -> set[int]:
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except OSError:
            continue
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if cols[3] == "0A" and cols[9] in inodes:  # LISTEN
                ports.add(int(cols[1].rsplit(":", 1)[1], 16))
    return ports


def _raw_get(port: int, path: str, host: str, timeout: float = 5.0) -> tuple[int | None, bytes]:
    """A GET with exactly this path and Host (no normalisation); (status or None, body)."""
    status, _, body = _raw(port, f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode(),
                           timeout)
    return status, body


def test_dns_rebinding_hosts_are_refused_on_every_port(live_server, reader):
    """(c) Every port the server and its kernels listen on, with Host names a rebinding page sends."""
    pids = live_server.processes() if hasattr(live_server, "processes") else [live_server.server.pid]
    if not hasattr(live_server, "processes"):
        ports = {int(o.rsplit(":", 1)[1]) for o in _origins(live_server)}
    else:
        ports = _listening_ports(pids)
    http_ports = {int(o.rsplit(":", 1)[1]) for o in _origins(live_server)}
    assert http_ports <= ports, (http_ports, ports)
    answered = {}
    for port in sorted(ports - http_ports):  # the kernels' ZMQ ports: no HTTP at all
        status, body = _raw_get(port, "/_static/dpb-live-config.js", f"attacker.example:{port}", timeout=2.0)
        assert status is None and live_server.token.encode() not in body, f"kernel port {port}: {status}"
    for port in sorted(http_ports):
        for host in (f"attacker.example:{port}", f"127.0.0.1.nip.io:{port}",
                     f"localhost.attacker.example:{port}",
                     "attacker.example", f"127.0.0.1:{port}.attacker.example"):
            for path in ("/_static/dpb-live-config.js", "/index.html", f"/voila/render/{CHAPTER}.ipynb",
                         "/dpb/login", "/api/kernels"):
                status, body = _raw_get(port, path, host)
                answered[(port, host, path)] = status
                assert live_server.token.encode() not in body
                assert status == 403, f"port {port}, Host {host}, {path}: {status}"
    # and the honest names still work
    for port in http_ports:
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            assert _raw_get(port, "/index.html", host)[0] == 200, host


def test_path_traversal_is_refused(live_server):
    """(d) Voilà and the static files, with raw (unnormalised) paths and encoded dots/slashes."""
    makefile = (ROOT / "Makefile").read_bytes()[:200]
    for origin in _origins(live_server):
        port = int(origin.rsplit(":", 1)[1])
        host = f"127.0.0.1:{port}"
        for path in ("/../Makefile", "/%2e%2e/Makefile", "/..%2fMakefile", "/_static/..%2f..%2f..%2fMakefile",
                     "/book/../../Makefile", "/_static/../../../Makefile", "//etc/passwd", "/%2fetc%2fpasswd",
                     "/voila/render/..%2fMakefile", "/voila/render/../Makefile",
                     "/voila/render/%2e%2e/README.md",
                     "/voila/render/book/../../Makefile", f"/voila/render/{CHAPTER}.ipynb/../../Makefile",
                     "/voila/static/..%2f..%2f..%2f..%2fMakefile", "/voila/templates/..%2f..%2fMakefile",
                     "/voila/templates/lab/static/..%2f..%2f..%2f..%2f..%2fMakefile",
                     "/voila/labextensions/..%2f..%2f..%2fMakefile", "/voila/files/..%2fMakefile",
                     "/_static/", "/book/", "/_images/"):
            status, body = _raw_get(port, path, host)
            assert makefile not in body and b"root:x:0:0" not in body, f"{path} served a file outside"
            assert b"Directory listing" not in body and b"<li><a href" not in body, f"{path} listed a folder"
            assert status in (302, 400, 403, 404), f"{path}: {status}"


# --- the launcher: every signal a terminal or a process manager sends stops everything fast ---

def _start_launcher(tmp_path):
    """``python scripts/live.py`` in a session of its own; returns (process, login URL)."""
    import queue

    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "live.py")], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            text=True, start_new_session=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    deadline = time.monotonic() + 90
    seen = ""
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1.0)
        except queue.Empty:
            if proc.poll() is not None:
                break
            continue
        seen += line
        if "/dpb/login?token=" in line:
            return proc, line.strip()
    stop_group(proc)
    raise AssertionError(f"make live printed no login address within 90 s:\n{seen}")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_launcher_stops_server_and_kernels_within_two_seconds(signum, tmp_path):
    """A signal to ``make live`` during a chapter render: launcher, server and kernels gone in 2 s."""
    if not (SITE / "index.html").exists():
        pytest.fail("_build/html is missing: build the book first (make build-strict)")
    proc, login = _start_launcher(tmp_path)
    try:
        base, token = login.split("/dpb/login?token=")
        headers = {"Authorization": f"token {token}"}

        def render():
            req = urllib.request.Request(f"{base}/voila/render/{CHAPTER}.ipynb", headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=120) as r:
                    r.read()
            except Exception:  # noqa: BLE001 - the server goes away mid-render: that is the point
                pass

        threading.Thread(target=render, daemon=True).start()
        deadline = time.monotonic() + 60
        kernels = []
        while not kernels and time.monotonic() < deadline:  # a kernel is running the chapter
            req = urllib.request.Request(f"{base}/dpb/api/kernels", headers=headers)
            with urllib.request.urlopen(req, timeout=10) as r:
                import json
                kernels = json.load(r)
            time.sleep(0.2)
        assert kernels, "the render started no kernel within 60 s"
        procs = [proc.pid, *live._descendants(proc.pid)]
        assert len(procs) >= 3, f"launcher, server and a kernel expected: {procs}"
        t0 = time.monotonic()
        os.kill(proc.pid, signum)
        while time.monotonic() - t0 < 5 and any(live._alive(p) for p in procs):
            time.sleep(0.05)
        elapsed = time.monotonic() - t0
        left = [p for p in procs if live._alive(p)]
        assert not left, f"{signum.name}: still running after {elapsed:.1f} s: {left}"
        assert elapsed <= 2.0, f"{signum.name}: everything stopped, but after {elapsed:.1f} s"
        print(f"\nSTOP {signum.name}: {len(procs)} processes gone {elapsed:.2f} s after the signal "
              f"(load {os.getloadavg()[0]:.1f})")
    finally:
        stop_group(proc)
        for p in live._descendants(proc.pid):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


# --- every chapter, live: time to every explorer drawn and slider -> figure, repeated tries ---

#: Tries per chapter: 1 in CI (the honest path on every chapter), 10 by hand
#: (``DPB_LIVE_TRIES=10 pytest tests/test_live.py -k every_chapter -s``).
LIVE_TRIES = int(os.environ.get("DPB_LIVE_TRIES", "1"))
#: The bound on Live -> every explorer drawn (issue 37): 5 s on a quiet machine (1-minute load
#: average <= 1), 15 s at load 10, in proportion in between and beyond (the machine is shared).
LIVE_QUIET_SECONDS, LIVE_SECONDS_AT_LOAD_10 = 5.0, 15.0


#: In the suite (one try a chapter) the bound is this many times wider: there it guards against the
#: old path coming back (the whole chapter executed before the explorers: 46-123 s), not against
#: a busy machine's jitter (CI's own tests load it: one try took 17.0 s at load 11.4, bound 16.5 s).
#: The issue's bound itself is the measurement by hand, ``DPB_LIVE_TRIES=10`` (benchmarks/README.md).
SUITE_SLACK = 3.0


def live_bound(load: float, tries: int = 10) -> float:
    """Seconds allowed from Live to every explorer drawn at this 1-minute load average (``tries``:
    the tries a chapter of the run; one try, the suite's, gets :data:`SUITE_SLACK` times more)."""
    bound = LIVE_QUIET_SECONDS + max(0.0, load - 1.0) * (LIVE_SECONDS_AT_LOAD_10 - LIVE_QUIET_SECONDS) / 9.0
    return bound * (SUITE_SLACK if tries == 1 else 1.0)


def _chapters() -> list[tuple[str, int]]:
    import json
    out = []
    for path in sorted((ROOT / "book").glob("ch[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        n = sum("widget" in c.get("metadata", {}).get("tags", []) for c in cells)
        if n:
            out.append((path.stem, n))
    return out


@pytest.mark.timeout(180 + 60 * LIVE_TRIES)  # a try: Live, a slider step, back to the book
@pytest.mark.parametrize(("chapter", "n_explorers"), _chapters(), ids=[c for c, _ in _chapters()])
def test_every_chapter_goes_live(chapter, n_explorers, live_server, logged_in, browser):  # noqa: F811
    """Press Live: every explorer of the chapter drawn, a slider redraws; ``LIVE_TRIES`` times."""
    rows = []
    for attempt in range(LIVE_TRIES):
        context = _context(browser, logged_in, viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        seen = watch(page)
        try:
            load_before = os.getloadavg()[0]
            seconds, explorers = _open_live(page, live_server, chapter, n_explorers)
            load = max(load_before, os.getloadavg()[0])
            assert explorers.count() >= n_explorers
            no_run = explorers.filter(has_not=page.locator("button:has-text('Run')"))
            no_run = no_run.filter(has=page.locator(".widget-slider"))
            if no_run.count():
                redraw = _slider_redraw_seconds(page, no_run.first, f"{chapter} try {attempt + 1}")
            elif not explorers.filter(has=page.locator(".widget-slider")).count():
                redraw = float("nan")  # no slider in this chapter's explorers (dropdowns, text)
            else:  # every explorer redraws behind its Run button: move a slider, press Run
                run = explorers.filter(has=page.locator(".widget-slider")).first
                run.scroll_into_view_if_needed()
                old = run.locator(".widget-output img").first.get_attribute("src")
                t0 = time.monotonic()
                nudge_slider(page, run)
                run.locator("button:has-text('Run')").first.click()
                wait_for_new_image(page, run, old, f"{chapter} try {attempt + 1} (Run)", timeout=120_000)
                redraw = time.monotonic() - t0
            errors = [e for e in seen["errors"] if "widget model not found" in e.lower()]
            assert not errors, errors
            rows.append((seconds, redraw, load))
            print(f"\nLIVE {chapter} try {attempt + 1}/{LIVE_TRIES}: explorers drawn {seconds:.1f} s after "
                  f"Live (bound {live_bound(load, LIVE_TRIES):.1f} s), slider -> figure {redraw:.2f} s "
                  f"(load {load:.1f})")
            page.locator("a.dpb-live-back").click()  # leaving shuts the page's kernel down
            page.wait_for_url(f"**/book/{chapter}.html", timeout=30_000)
        except Exception:
            page.screenshot(path=str(SHOTS / f"live-{chapter}-failure.png"))
            raise
        finally:
            context.close()
    slow = [f"try {k}: {seconds:.1f} s at load {load:.1f} (bound {live_bound(load, LIVE_TRIES):.1f} s)"
            for k, (seconds, _, load) in enumerate(rows, 1) if seconds > live_bound(load, LIVE_TRIES)]
    assert not slow, f"{chapter}: Live -> every explorer drawn over the bound: {'; '.join(slow)}"


def test_live_kernels_take_widget_messages_only(live_server, reader, tmp_path):
    """Even the logged-in reader's own page cannot run code: a chapter's kernel is fed comm
    (widget) and info messages only, never ``execute_request`` (Voilà's stand-alone rule)."""
    if not hasattr(live_server, "kernels"):
        pytest.skip("before issue 21 the live kernels took every message")
    import asyncio
    import json
    import uuid

    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    _context, kernel = reader
    marker = _marker(tmp_path)

    def message(msg_type, content):
        mid = uuid.uuid4().hex
        return json.dumps({"header": {"msg_id": mid, "username": "", "session": mid,
                                      "msg_type": msg_type, "version": "5.3", "date": ""},
                           "parent_header": {}, "metadata": {}, "content": content, "channel": "shell",
                           "buffers": []})

    async def talk():
        url = live_server.url.replace("http://", "ws://") + f"/api/kernels/{kernel}/channels"
        request = HTTPRequest(url, headers={"Authorization": f"token {live_server.token}"},
                              connect_timeout=10, request_timeout=30)
        ws = await websocket_connect(request)
        try:
            ws.write_message(message("execute_request", {
                "code": f"open({str(marker)!r}, 'w').write('x')", "silent": False, "store_history": False,
                "user_expressions": {}, "allow_stdin": False}))
            ws.write_message(message("kernel_info_request", {}))
            replies = []
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and "kernel_info_reply" not in replies:
                raw = await asyncio.wait_for(ws.read_message(), 20)
                if raw is None:
                    break
                if isinstance(raw, str):
                    replies.append(json.loads(raw)["header"]["msg_type"])
            return replies
        finally:
            ws.close()

    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # Playwright's loop owns this thread
        replies = pool.submit(asyncio.run, talk()).result(60)
    time.sleep(2.0)
    assert "kernel_info_reply" in replies, f"the kernel's websocket did not answer at all: {replies}"
    assert "execute_reply" not in replies and not marker.exists(), "an execute_request reached the kernel"


# ---------------------------------------------------------------------------------------------
# Issue 36: the hardening still missing after issue 21, one attempt per test (each seen failing on
# the server before issue 36; the README's threat model lists them with their results).
# ---------------------------------------------------------------------------------------------

def _port(server) -> int:
    return int(server.url.rsplit(":", 1)[1])


def _raw(port: int, request: bytes, timeout: float = 10.0) -> tuple[int | None, dict, bytes]:
    """Send ``request`` as is; (status or None, headers lower-cased, body) of the answer."""
    import socket
    data = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        try:
            while chunk := s.recv(65536):
                data += chunk
        except (TimeoutError, OSError):
            pass
    if not data.startswith(b"HTTP/"):
        return None, {}, data
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers: dict = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers.setdefault(k.strip().lower(), []).append(v.strip())
    return int(lines[0].split()[1]), headers, body


def _get(port: int, path: str, headers: dict | None = None, method: str = "GET", timeout: float = 10.0):
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    return _raw(port, f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
                      f"{extra}\r\n".encode(), timeout)


def _auth(server) -> dict:
    return {"Authorization": f"token {server.token}"}


@pytest.fixture
def own_server(tmp_path):
    """``make live`` of a test's own (its arguments), stopped by the fixture; log in tmp_path."""
    if not (SITE / "index.html").exists():
        pytest.fail("_build/html is missing: build the book first (make build-strict)")
    started = []

    def start(*extra: str, **kwargs):
        running = live.start(SITE, log=tmp_path / f"live-{len(started)}.log", extra=list(extra), **kwargs)
        started.append(running)
        return running

    try:
        yield start
    finally:
        for running in started:
            running.stop()


def test_no_token_in_the_log_or_any_file(live_server, logged_in):
    """(1) The login address opened again, a 404 and a render with ``?token=``: nothing on disk
    holds the token (the log, its folder, the server's runtime files); the log is the owner's."""
    port = _port(live_server)
    t = live_server.token
    for path in (f"/dpb/login?token={t}", f"/nope?token={t}", f"/index.html?token={t}",
                 f"/voila/render/nope.ipynb?token={t}", f"/dpb/token={t}/x", f"/api/kernels?token={t}"):
        _get(port, path)
    time.sleep(0.5)
    text = live_server.log.read_bytes()
    assert t.encode() not in text, "the token is in the server's log"
    mode = live_server.log.stat().st_mode & 0o777
    assert mode & 0o077 == 0, f"the log is readable by others: {oct(mode)}"
    import glob
    for pattern in (str(live_server.log.parent / "*"), "/tmp/voila_*/*", os.path.expanduser(
            "~/.local/share/jupyter/runtime/*")):
        for name in glob.glob(pattern):
            try:
                if Path(name).is_file() and Path(name).stat().st_size < 50_000_000:
                    assert t.encode() not in Path(name).read_bytes(), f"the token is in {name}"
            except PermissionError:
                pass


EVIL_NEXT = ["/%09/evil.example", "//evil.example", "/%5Cevil.example", "/\\evil.example",
             "https://evil.example/", "/%0d%0aSet-Cookie:%20x=1", "/%2F%2Fevil.example", "/%2F/evil.example",
             "/%E3%80%82/evil.example", "/../../evil.example", "/.%2e/x", "javascript:alert(1)",
             "/%00/evil.example", "/\t/evil.example", "/ /evil.example", "/index.html%0d%0aX:%20y"]


def test_login_redirects_only_to_a_path_of_the_book(live_server):
    """(2) ``/dpb/login?next=`` with control characters, ``//``, ``/\\``, encoded tricks: the book."""
    port = _port(live_server)
    from urllib.parse import quote
    bad = {}
    for nxt in EVIL_NEXT:
        q = nxt if "%" in nxt else quote(nxt, safe="/:")
        status, headers, _ = _get(port, f"/dpb/login?next={q}", _auth(live_server))
        where = (headers.get("location") or [""])[0]
        if status != 302 or where != "/index.html":
            bad[nxt] = (status, where)
    assert not bad, f"the login redirected elsewhere than the book's index: {bad}"
    for good in ("/book/ch01_background.html", f"/voila/render/{CHAPTER}.ipynb"):
        status, headers, _ = _get(port, f"/dpb/login?next={good}", _auth(live_server))
        assert (status, headers.get("location")) == (302, [good]), (good, status, headers.get("location"))


def test_kernel_limit_holds_for_renders_sent_at_once(own_server):
    """(3) Five renders at once against ``--max-kernels 2``: at most two kernels ever run, the
    others get the 503 page that says "too many live chapters"."""
    server = own_server("--max-kernels", "2")
    port = _port(server)
    results: list = []

    def render():
        results.append(_get(port, f"/voila/render/{CHAPTER}.ipynb", _auth(server), timeout=180))

    threads = [threading.Thread(target=render, daemon=True) for _ in range(5)]
    for th in threads:
        th.start()
    peak, list_errors = 0, []
    while any(th.is_alive() for th in threads):
        try:
            peak = max(peak, len(server.kernels()))
        except OSError as exc:  # the kernel list itself failing (a 500 while kernels start)
            list_errors.append(repr(exc))
        time.sleep(0.1)
    for th in threads:
        th.join(1)
    statuses = sorted(r[0] for r in results)
    print(f"\nATTEMPT kernel limit: statuses {statuses}, peak {peak} kernels, "
          f"{len(list_errors)} failed kernel lists")
    assert not list_errors, f"the kernel list failed while kernels started: {list_errors[:3]}"
    assert peak <= 2, f"{peak} kernels ran at once with --max-kernels 2 ({statuses})"
    refused = [r for r in results if r[0] == 503]
    assert len(refused) >= 3, statuses
    assert all(b"Too many live chapters" in r[2] for r in refused), refused[0][2][:500]
    assert statuses.count(200) >= 1, statuses


def test_a_foreign_page_cannot_prerender_or_keep_a_handle(live_server, logged_in, browser, attacker):  # noqa: F811
    """(3, 8) A page of another port opens the book's chapter pages in windows (and walks one
    window on): no kernel starts and it keeps no handle (COOP); the reader's own visit warms."""
    context = _context(browser, logged_in)
    try:
        evil = context.new_page()
        evil.goto(f"{attacker}/index.html", wait_until="load", timeout=30_000)
        before = _kernel_ids(live_server)
        handles = evil.evaluate("""async ([a, b]) => {
            var w1 = window.open(a), w2 = window.open(b);
            await new Promise(r => setTimeout(r, 4000));
            var out = {closed1: w1 ? w1.closed : 'blocked', closed2: w2 ? w2.closed : 'blocked'};
            try { w2.location = a; out.walked = true; } catch (e) { out.walked = String(e); }
            await new Promise(r => setTimeout(r, 3000));
            return out; }""", [f"{live_server.url}/book/ch02_lower_bound.html",
                               f"{live_server.url}/book/ch03_concentration.html"])
        time.sleep(3.0)
        started = _kernel_ids(live_server) - before
        print(f"\nATTEMPT foreign windows: {handles}, kernels started {len(started)}")
        assert not started, f"book pages opened by another site started {len(started)} kernels"
        assert handles["closed1"] is True and handles["closed2"] is True, \
            f"the opener kept a handle on the book's windows: {handles}"
    finally:
        context.close()
    # the reader's own visit (address bar) does pre-render: the refusal above is not vacuous
    context = _context(browser, logged_in)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/book/ch02_lower_bound.html", wait_until="load", timeout=30_000)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not any(
                k["warm"] or k["chapter"] == "ch02_lower_bound.ipynb" for k in live_server.kernels()):
            time.sleep(0.3)
        assert any(k["chapter"] == "ch02_lower_bound.ipynb" for k in live_server.kernels()), \
            live_server.kernels()
    finally:
        context.close()


def test_the_address_bar_chooses_nothing_a_live_page_loads(live_server):
    """(4) ``?template=lab&theme=dark`` (and any query) on a live chapter: no other template, no CDN."""
    port = _port(live_server)
    for q in ("template=lab&theme=dark", "voila-template=lab", "theme=dark"):
        status, headers, body = _get(port, f"/voila/render/{CHAPTER}.ipynb?{q}", _auth(live_server),
                                     timeout=240)
        print(f"\nATTEMPT ?{q}: {status} {headers.get('location')}")
        assert b"jsdelivr" not in body and b"cdn." not in body, f"?{q}: the page loads from a CDN"
        assert status == 302 and headers.get("location") == [f"/voila/render/{CHAPTER}.ipynb"], \
            (q, status, headers.get("location"))


def test_login_cookie_is_strict_httponly_and_unguessable(live_server, logged_in):
    """(5) The login cookie: SameSite=Strict, HttpOnly, a name no other page can guess."""
    cookies = {c["name"]: c for c in logged_in["cookies"]}
    guessable = f"username-127-0-0-1-{_port(live_server)}"
    login = [c for name, c in cookies.items() if name != "_xsrf"]
    assert guessable not in cookies, f"the login cookie has Jupyter's guessable name {guessable}"
    assert login and all(c["httpOnly"] and c["sameSite"] == "Strict" for c in login), login
    assert cookies["_xsrf"]["sameSite"] == "Strict", cookies["_xsrf"]


FLOOD = r"""async ([n, size]) => {
  var v = "x".repeat(size);
  for (var i = 0; i < n; i++) document.cookie = "flood" + i + "=" + v + "; path=/; max-age=600";
  return document.cookie.length; }"""


def test_a_cookie_flood_does_not_log_the_reader_out(live_server, logged_in, browser, attacker):  # noqa: F811
    """(5) 200 small cookies set by a page of another port push the login cookie out of the jar:
    the reader stays logged in (the login comes back from the book's own localStorage)."""
    context = _context(browser, logged_in)
    try:
        evil = context.new_page()
        evil.goto(f"{attacker}/index.html", wait_until="load", timeout=30_000)
        evil.evaluate(FLOOD, [200, 10])
        names = {c["name"] for c in context.cookies()}
        login_names = {c["name"] for c in logged_in["cookies"]} - {"_xsrf"}
        page = context.new_page()
        evicted = not login_names & names
        page.goto(f"{live_server.url}/dpb/login?next=/book/{CHAPTER}.html", wait_until="load", timeout=30_000)
        try:
            page.wait_for_url(lambda url: urlparse(url).path == f"/book/{CHAPTER}.html", timeout=15_000)
        except Exception:  # noqa: BLE001 - the assertion below says where the reader ended
            pass
        print(f"\nATTEMPT 200 cookies: login cookie evicted: {evicted}, ended on {page.url}")
        assert evicted, "the flood did not push the login cookie out (the attempt did not happen)"
        assert urlparse(page.url).path == f"/book/{CHAPTER}.html", f"the reader was logged out: {page.url}"
    finally:
        context.close()


def test_an_oversized_cookie_header_gets_a_page_that_fixes_it(live_server, logged_in, browser, attacker):  # noqa: F811
    """(5) 24 cookies of 3.9 KB from another port: the book answers with a page that says what
    happened, removes them and reloads (before: every request failed, ERR_EMPTY_RESPONSE)."""
    port = _port(live_server)
    status, _, body = _get(port, "/index.html", {"Cookie": "; ".join(f"c{i}={'x' * 3900}" for i in range(24)),
                                                 "Accept": "text/html"})
    assert status == 431 and b"cookies" in body.lower(), (status, body[:300])
    # the most Chromium sends for one host: 180 cookies of 4 KB
    jar = "; ".join(f"c{i}={'x' * 4000}" for i in range(180))
    status, _, body = _get(port, "/index.html", {"Cookie": jar})
    assert status == 431, (status, body[:300])
    context = _context(browser, logged_in)
    try:
        evil = context.new_page()
        evil.goto(f"{attacker}/index.html", wait_until="load", timeout=30_000)
        evil.evaluate(FLOOD, [24, 3900])
        page = context.new_page()
        try:
            page.goto(f"{live_server.url}/book/{CHAPTER}.html", wait_until="load", timeout=30_000)
            page.wait_for_selector(".dpb-live-banner", timeout=15_000)
            assert urlparse(page.url).path == f"/book/{CHAPTER}.html", page.url
        except Exception as exc:
            raise AssertionError(f"the book did not open after a cookie flood: {exc}") from exc
    finally:
        context.close()


def test_a_large_body_is_refused_before_it_is_buffered(live_server):
    """(8) A POST announcing 100 MiB: answered at once, without reading the body."""
    port = _port(live_server)
    t0 = time.monotonic()
    status, _, _ = _raw(port, (f"POST /dpb/warm/{CHAPTER}.ipynb HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                               f"Content-Length: {100 * 1024 * 1024}\r\nContent-Type: text/plain\r\n"
                               f"Authorization: token {live_server.token}\r\n\r\n").encode() + b"x" * 65536,
                        timeout=5.0)
    print(f"\nATTEMPT 100 MiB body: {status} after {time.monotonic() - t0:.1f} s")
    assert status in (400, 413), f"no refusal within 5 s of a 100 MiB body's headers: {status}"


def test_slow_connections_cannot_lock_the_reader_out(own_server):
    """(6) 1,100 half-sent requests against a server started with the desktop's 1,024 open files:
    the reader's request is still answered, the log does not fill with one line per refusal, and a
    half-sent request is closed after the header timeout."""
    import resource
    import socket
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))  # the server inherits it
    try:
        server = own_server()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    if soft < 2400:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    port = _port(server)
    socks = []
    try:
        for _ in range(1100):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                s.sendall(f"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode())
                socks.append(s)
            except OSError:
                break
        time.sleep(1.0)
        size0 = server.log.stat().st_size
        t0 = time.monotonic()
        try:
            status, _, _ = _get(port, "/index.html", timeout=10)
        except OSError as exc:
            status = repr(exc)
        took = time.monotonic() - t0
        time.sleep(2.0)
        grown = server.log.stat().st_size - size0
        print(f"\nATTEMPT 1100 slow connections: reader got {status} in {took:.1f} s, log +{grown} bytes")
        assert status == 200 and took < 5, f"the reader's request failed during a slow flood: {status}"
        assert grown < 20_000, f"the log grew by {grown} bytes during the flood"
    finally:
        for s in socks:
            s.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    # one half-sent request: closed by the server after the header timeout
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
        t0 = time.monotonic()
        try:
            closed = s.recv(1) == b""
        except TimeoutError:
            closed = False
        assert closed and time.monotonic() - t0 < 20, "a half-sent request was kept open for 30 s"


@pytest.mark.timeout(300)
def test_an_unopened_prerender_is_culled(own_server):
    """(7) A chapter pre-rendered for a page nobody goes live from is shut down after ``--warm-idle``."""
    server = own_server("--warm-idle", "8")
    port = _port(server)
    status, _, body = _get(port, f"/book/{CHAPTER}.html", {"Sec-Fetch-Site": "none"})
    import re
    m = re.search(rb'name="dpb-warm" content="([^"]+)"', body)
    assert status == 200 and m, "the reader's own chapter page carries no pre-render nonce"
    status, _, body = _get(port, f"/dpb/warm/{CHAPTER}.ipynb",
                           {**_auth(server), "X-DPB-Warm": m.group(1).decode(), "Content-Length": "0"},
                           method="POST")
    assert status == 200 and b'"warming": true' in body, (status, body[:300])
    deadline = time.monotonic() + 120
    seen = False
    while time.monotonic() < deadline:
        rows = server.kernels()
        seen = seen or bool(rows)
        if seen and not rows:
            break
        time.sleep(0.5)
    assert seen and not server.kernels(), f"the unused pre-rendered kernel still runs: {server.kernels()}"


def test_error_pages_and_coop_on_every_page(live_server):
    """(8) Cross-Origin-Opener-Policy on every answer; error pages say what happened."""
    port = _port(live_server)
    for path, headers in (("/index.html", {}), (f"/book/{CHAPTER}.html", {}), ("/dpb/login", {}),
                          ("/nope", {}), ("/_static/dpb-live-config.js", {}), ("/api/contents", {}),
                          ("/voila/render/nope.ipynb", _auth(live_server))):
        status, got, body = _get(port, path, headers)
        assert got.get("cross-origin-opener-policy") == ["same-origin"], (path, status, got)
        if status >= 400:
            assert b"<h1>" in body or b"refused" in body or b'"message"' in body, (path, status, body[:300])
    status, _, body = _get(port, "/nope.html")
    assert status == 404 and b"Not found" in body and b"Back to the book" in body, body[:300]


def test_a_path_with_the_token_header_gives_no_500(live_server):
    """(8) Paths asked with the token header (scripts): an answer, never a server error."""
    port = _port(live_server)
    bad = {}
    for method, path in (("GET", "/dpb/warm/x"), ("GET", f"/dpb/warm/{CHAPTER}.ipynb"),
                         ("POST", "/dpb/warm/nope.ipynb"), ("GET", "/voila/api/shutdown/x"),
                         ("GET", "/voila/templates/dpb/static/x"), ("GET", "/voila/static/x"),
                         ("GET", "/api/kernels/00000000-0000-0000-0000-000000000000"),
                         ("GET", "/api/kernels/00000000-0000-0000-0000-000000000000/channels"),
                         ("GET", "/voila/render/"), ("GET", "/voila/render/ch99_x.ipynb"),
                         ("POST", "/dpb/login"), ("GET", "/dpb/api/kernels/x"), ("GET", "/book/ch99_x.html"),
                         ("GET", "/voila/labextensions/x"), ("GET", "/voila/api/themes/x")):
        status, _, _ = _get(port, path, {**_auth(live_server), "Content-Length": "0"}, method=method)
        if status is None or status >= 500:
            bad[f"{method} {path}"] = status
    assert not bad, f"server errors: {bad}"


def test_renders_without_fetch_metadata_are_judged_by_origin_and_referer(live_server, logged_in):
    """(8) A browser without Fetch Metadata: a render or pre-render with the reader's cookie asked
    by a page of another port (its Origin or Referer) starts no kernel."""
    port = _port(live_server)
    jar = "; ".join(f"{c['name']}={c['value']}" for c in logged_in["cookies"])
    xsrf = next(c["value"] for c in logged_in["cookies"] if c["name"] == "_xsrf")
    evil = f"http://127.0.0.1:{port + 1}"
    before = _kernel_ids(live_server)
    status, _, body = _get(port, f"/voila/render/{CHAPTER}.ipynb",
                           {"Cookie": jar, "Referer": f"{evil}/index.html"}, timeout=240)
    status2, _, _ = _get(port, f"/dpb/warm/{CHAPTER}.ipynb",
                         {"Cookie": jar, "Origin": evil, "X-XSRFToken": xsrf, "Content-Length": "0"},
                         method="POST")
    time.sleep(1.0)
    started = _kernel_ids(live_server) - before
    print(f"\nATTEMPT no Fetch Metadata: render {status}, warm {status2}, kernels started {len(started)}")
    # (Jupyter's own Origin check already answered the cross-origin POST with 404 before issue 36)
    assert status == 403 and status2 in (403, 404) and not started, (status, status2, started)
    assert b"Live button" in body, body[:400]


def test_controls_outside_their_range_are_clamped_in_the_kernel(live_server, reader):
    """(8) Through the page's kernel websocket: a slider's ``max`` and ``value`` set far outside its
    range.  The kernel keeps its range and clamps the value (the explorer never computes at it)."""
    import asyncio
    import concurrent.futures
    import json
    import uuid

    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    _context, kernel = reader
    session = uuid.uuid4().hex

    def message(msg_type, content, channel="shell"):
        return json.dumps({"header": {"msg_id": uuid.uuid4().hex, "username": "", "session": session,
                                      "msg_type": msg_type, "version": "5.3", "date": ""},
                           "parent_header": {}, "metadata": {}, "content": content, "channel": channel,
                           "buffers": []})

    async def talk():
        url = live_server.url.replace("http://", "ws://") + f"/api/kernels/{kernel}/channels"
        ws = await websocket_connect(HTTPRequest(url, headers=_auth(live_server), connect_timeout=10,
                                                 request_timeout=30))
        states: dict = {}

        async def read_until(pred, seconds=20):
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                try:
                    raw = await asyncio.wait_for(ws.read_message(), max(0.1, deadline - time.monotonic()))
                except asyncio.TimeoutError:
                    break
                if raw is None:
                    break
                if isinstance(raw, str):
                    msg = json.loads(raw)
                    if msg["header"]["msg_type"] == "comm_msg":
                        data = msg["content"]["data"]
                        if data.get("method") == "update":
                            states.setdefault(msg["content"]["comm_id"], {}).update(data.get("state", {}))
                    if pred(msg):
                        return msg
            return None

        try:
            ws.write_message(message("comm_info_request", {"target_name": "jupyter.widget"}))
            reply = await read_until(lambda m: m["header"]["msg_type"] == "comm_info_reply")
            comms = list((reply or {}).get("content", {}).get("comms", {}))
            for cid in comms:
                ws.write_message(message("comm_msg", {"comm_id": cid, "data": {"method": "request_state"}}))
            await read_until(lambda m: False, 8)
            models = ("IntSliderModel", "FloatSliderModel", "FloatLogSliderModel")
            sliders = {cid: s for cid, s in states.items() if s.get("_model_name") in models}
            before = {cid: dict(s) for cid, s in sliders.items()}
            for cid in sliders:
                hostile = {"max": 1e9, "min": -1e9, "value": 1e9}
                ws.write_message(message("comm_msg", {"comm_id": cid, "data": {
                    "method": "update", "state": hostile, "buffer_paths": []}}))
            await read_until(lambda m: False, 4)
            states.clear()
            for cid in sliders:
                ws.write_message(message("comm_msg", {"comm_id": cid, "data": {"method": "request_state"}}))
            await read_until(lambda m: False, 8)
            return before, {cid: states.get(cid, {}) for cid in sliders}
        finally:
            ws.close()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        before, after = pool.submit(asyncio.run, talk()).result(90)
    assert before, "no slider found through the kernel's websocket"

    def top(state):  # the largest value a slider can send (a log slider's max is an exponent)
        return state.get("base", 10) ** state["max"] if state["_model_name"] == "FloatLogSliderModel" \
            else state["max"]

    bad = {cid: (b.get("max"), after[cid].get("max"), after[cid].get("value"))
           for cid, b in before.items() if after[cid].get("max") != b.get("max")
           or not (after[cid].get("value", 0) <= top(b) * (1 + 1e-9))}
    print(f"\nATTEMPT slider out of range: {len(before)} sliders, {len(bad)} widened or set outside")
    assert not bad, f"a slider's range or value was set from the websocket: {bad}"


@pytest.mark.timeout(240)
def test_sigint_to_make_alone_stops_server_and_kernels(tmp_path):
    """(8) ``make live`` and a SIGINT to make's PID alone (not its process group), during a render:
    launcher, server and kernel gone within a few seconds."""
    if not (SITE / "index.html").exists():
        pytest.fail("_build/html is missing: build the book first (make build-strict)")
    import queue
    import shutil
    if not shutil.which("make"):
        pytest.skip("no make")
    # the Makefile's recipe (`$(PY) scripts/live.py $(LIVE_ARGS)`) without its venv/vendor steps
    (tmp_path / "Makefile").write_text(f"live:\n\t{sys.executable} {ROOT / 'scripts' / 'live.py'}\n")
    proc = subprocess.Popen(["make", "-s", "-C", str(tmp_path), "live"], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
        login = None
        deadline = time.monotonic() + 90
        while login is None and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1.0)
            except queue.Empty:
                continue
            if "/dpb/login?token=" in line:
                login = line.strip()
        assert login, "make live printed no login address"
        base, token = login.split("/dpb/login?token=")
        port = int(base.rsplit(":", 1)[1])
        threading.Thread(target=lambda: _get(port, f"/voila/render/{CHAPTER}.ipynb",
                                             {"Authorization": f"token {token}"}, timeout=120),
                         daemon=True).start()
        deadline = time.monotonic() + 60
        procs: list[int] = []
        while time.monotonic() < deadline and len(procs) < 4:  # make, launcher, server, a kernel
            procs = [proc.pid, *live._descendants(proc.pid)]
            time.sleep(0.2)
        assert len(procs) >= 4, procs
        t0 = time.monotonic()
        os.kill(proc.pid, signal.SIGINT)  # make's PID alone
        while time.monotonic() - t0 < 10 and any(live._alive(p) for p in procs):
            time.sleep(0.1)
        left = [p for p in procs if live._alive(p)]
        print(f"\nATTEMPT SIGINT to make alone: {len(procs)} processes, left {left} "
              f"after {time.monotonic() - t0:.1f} s")
        assert not left, f"still running 10 s after SIGINT to make: {left}"
    finally:
        pids = [proc.pid, *live._descendants(proc.pid)]
        stop_group(proc)
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
