"""Bounds and failure evidence for every browser test (imported by ``conftest.py`` and the tests).

Nothing a browser test does may wait without a bound, and a failing or hung browser test must say
what the page showed and what its server logged. This module gives the three pieces:

- :class:`GuardedBrowser` wraps the Playwright ``Browser`` of the ``browser`` fixture
  (``tests/helpers/site.py``): every page and context it makes gets ``set_default_timeout`` and
  ``set_default_navigation_timeout``, so every Playwright call that waits (``goto``, ``click``,
  ``wait_for_function``, locators, ``screenshot``...) ends with a ``TimeoutError`` after
  :data:`ACTION_TIMEOUT_MS` / :data:`NAVIGATION_TIMEOUT_MS` unless the test gives its own bound.
  A page or context closed while an exception is propagating (a failed assertion, a timeout)
  is photographed first.
- :func:`evaluate` is ``page.evaluate`` with a bound: Playwright's ``evaluate`` has no timeout and
  waits forever on a promise that never settles (a JupyterLab command did exactly that for 21
  minutes), so the expression races a timer in the page and the call fails with a message
  naming the expression.
- :func:`attach_log` registers a server's log file for the running test; when the test fails,
  ``conftest.py`` copies the log and screenshots of the test's open pages under
  :data:`ARTIFACTS` (``_build/test-failures/<test>/``) and appends the log's tail and the file
  names to the failure report.

The per-test timeout (pytest-timeout, ``signal`` method, see ``conftest.py``) is the last
resort behind these bounds: it raises in the test's own thread, so fixtures still stop their
servers, the evidence above is still collected and the suite goes on.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: where a failing browser test leaves its screenshots and server logs
ARTIFACTS = ROOT / "_build" / "test-failures"
#: default bound of every Playwright action and wait (ms); a test passes its own for longer waits
ACTION_TIMEOUT_MS = 30_000
#: default bound of every navigation (ms)
NAVIGATION_TIMEOUT_MS = 60_000
#: bound of a screenshot taken as evidence (ms): evidence never hangs a failing test
SHOT_TIMEOUT_MS = 10_000
#: characters of a server log's tail put into the failure report
LOG_TAIL = 4000

_test: dict = {"name": None, "pages": [], "logs": [], "shots": [], "notes": [], "made": False}


def _slug(nodeid: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid).strip("_")[:150]


def begin(nodeid: str) -> None:
    """Start recording for the test ``nodeid`` (conftest calls it before every test's setup)."""
    _test.update(name=_slug(nodeid), pages=[], logs=[], shots=[], notes=[], made=False)


def folder() -> Path:
    """The evidence folder of the running test (created on first use, emptied when it starts)."""
    path = ARTIFACTS / (_test["name"] or "unknown")
    if not _test["made"]:
        shutil.rmtree(path, ignore_errors=True)  # a previous run's evidence of this test
        _test["made"] = True
    path.mkdir(parents=True, exist_ok=True)
    return path


def attach_log(path, title: str = "server log") -> None:
    """Attach the log file ``path`` of a server the running test started (read only on failure)."""
    _test["logs"].append((Path(path), title))


def snapshot(page, reason: str) -> Path | None:
    """Save a screenshot of ``page`` as evidence; bounded, and never raises."""
    try:
        if page.is_closed():
            return None
    except Exception:  # noqa: BLE001 - the browser may be gone
        return None
    target = folder() / f"page{len(_test['shots']) + 1}-{reason}.png"
    try:
        page.screenshot(path=str(target), timeout=SHOT_TIMEOUT_MS, full_page=False)
    except Exception as exc:  # noqa: BLE001 - evidence is best effort, the failure is the test's
        _test["notes"].append(f"screenshot of {page.url} failed: {type(exc).__name__}: {exc}"[:300])
        return None
    _test["shots"].append((target, page.url))
    return target


def _failing() -> bool:
    """True inside a ``finally`` or ``except`` block run by a propagating exception."""
    return sys.exc_info()[1] is not None


def guard_page(page):
    """Give ``page`` the default bounds and photograph it if it is closed by a failure."""
    page.set_default_timeout(ACTION_TIMEOUT_MS)
    page.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
    _test["pages"].append(page)
    close = page.close

    def guarded_close(*args, **kwargs):
        if _failing():
            snapshot(page, "at-failure")
        return close(*args, **kwargs)

    page.close = guarded_close
    return page


def guard_context(context):
    """Give ``context`` (and so each of its pages) the default bounds; photograph on failure."""
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    context.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
    new_page, close = context.new_page, context.close

    def guarded_new_page(*args, **kwargs):
        return guard_page(new_page(*args, **kwargs))

    def guarded_close(*args, **kwargs):
        if _failing():
            for page in list(context.pages):
                snapshot(page, "at-failure")
        return close(*args, **kwargs)

    context.new_page, context.close = guarded_new_page, guarded_close
    return context


class GuardedBrowser:
    """A Playwright ``Browser`` whose pages and contexts all have bounded waits (see above)."""

    def __init__(self, browser):
        self._browser = browser

    def new_page(self, *args, **kwargs):
        return guard_page(self._browser.new_page(*args, **kwargs))

    def new_context(self, *args, **kwargs):
        return guard_context(self._browser.new_context(*args, **kwargs))

    def __getattr__(self, name):
        return getattr(self._browser, name)


def evaluate(page, expression: str, timeout_ms: float = ACTION_TIMEOUT_MS, what: str | None = None):
    """``page.evaluate(expression)`` that fails after ``timeout_ms`` if its promise never settles.

    ``expression`` is a JavaScript expression (a value or a promise); it races a timer in the
    page, so a promise that never settles rejects with an error naming ``what`` (or the
    expression) instead of waiting forever. A page whose JavaScript never yields is stopped by
    the per-test timeout.
    """
    label = json.dumps(f"{what or expression[:160]}: no answer within {timeout_ms / 1000:g} s")
    race = (f"Promise.race([Promise.resolve(({expression})), new Promise((_, reject) => "
            f"setTimeout(() => reject(new Error({label})), {int(timeout_ms)}))])")
    return page.evaluate(race)


def collect_evidence() -> str:
    """On a failure: screenshots of the test's pages still open and its server logs, as text.

    Files go to :func:`folder`; the returned text (for the failure report) names them and quotes
    the tail of each log.
    """
    for page in _test["pages"]:
        snapshot(page, "open-at-failure")
    lines = []
    for path, title in _test["logs"]:
        if not path.exists():
            lines.append(f"{title}: {path} does not exist")
            continue
        target = folder() / f"{_slug(title)}.log"
        try:
            shutil.copyfile(path, target)
        except OSError as exc:
            lines.append(f"{title}: could not copy {path}: {exc}")
        text = path.read_text(errors="replace")
        lines.append(f"---- {title} ({path}, copied to {target}), last {LOG_TAIL} characters ----")
        lines.append(text[-LOG_TAIL:])
    for target, url in _test["shots"]:
        lines.append(f"screenshot of {url}: {target}")
    lines.extend(_test["notes"])
    _test["pages"] = []
    return "\n".join(lines)
