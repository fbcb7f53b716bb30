"""The book's CLI reference is the command's own help (issue 33, item 5): ``book/api/cli.md`` is
what :func:`dpb.__main__.cli_reference` renders from the argparse parser, so an option added to the
parser and not to the page (or the reverse) fails here; ``dpb --version`` prints the version."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import dpb
from dpb.__main__ import build_parser, cli_reference

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "api" / "cli.md"


def test_the_cli_page_is_the_parsers_help():
    page = PAGE.read_text()
    made = re.search(r"with Python (\d+\.\d+)", page)
    assert made, "book/api/cli.md does not say which Python wrote it: run `make cli-reference`"
    if made.group(1) != f"{sys.version_info[0]}.{sys.version_info[1]}":
        pytest.skip(f"the page was written with Python {made.group(1)} (argparse's layout differs)")
    assert page == cli_reference(), "book/api/cli.md is out of date: run `make cli-reference`"


def test_every_option_is_on_the_page():
    page = PAGE.read_text()
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, command in sub.choices.items():
        assert f"## dpb {name}" in page
        for action in command._actions:
            for option in action.option_strings:
                assert option in page, (name, option)


def test_version():
    proc = subprocess.run([sys.executable, "-m", "dpb", "--version"], capture_output=True, text=True,
                          timeout=60, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0 and proc.stdout.split()[-1] == dpb.__version__, proc.stdout + proc.stderr
