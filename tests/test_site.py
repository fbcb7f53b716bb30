"""The built site, opened in a real headless Chromium, offline.

Reads ``_toc.yml`` so every page of the book is covered, including chapters added later. For each
page ``helpers.site.check_rendered`` asserts (run by ``test_reading.test_page_renders_offline`` on the one
visit of the page at 390 px that the reading and layout checks share) that:

- math is typeset by the *local* MathJax (``mjx-container`` elements appear and MathJax was loaded
  from the site itself);
- every image has loaded (``naturalWidth > 0``);
- chapters show a static figure for every widget cell (cells tagged ``widget`` and
  ``static-figure``; myst-nb turns tags into ``tag_<name>`` classes);
- no dead widgets: every widget cell shows the one-line notice with its "Live" button
  (``.dpb-live-notice``) and no widget controls, no image (every figure appears once) and no
  embedded widget state; pressing Live with no server says how to start one;
- the console shows no error and no uncaught exception;
- nothing is requested from outside localhost.

Needs ``_build/html`` (``make build-strict`` or ``make book``) and Debian's ``chromium``; driven by
Playwright with ``executable_path`` (Playwright's own browser download is not reachable here).
The ``server`` and ``browser`` fixtures are in ``tests/helpers/site.py``.
"""

from __future__ import annotations

import pytest
from helpers.site import PAGES

# Each page's own waits are bounded (browser_guard: 30 s an action); the test as a whole too.
pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def test_toc_lists_the_chapters():
    assert any("ch01_background" in p for p in PAGES), PAGES
