"""The rules of the test suite itself: a test module never imports another test module (what test
files share is in the package ``tests/helpers`` or in ``tests/conftest.py``), and no test file is
named after a ticket (``test_<topic>_<issue number>.py``): test files are named after what they
test."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def imported_test_modules(source: str) -> list[str]:
    """The test modules (``test_*``) that ``source`` imports: ``import test_x``, ``from test_x import
    y``, ``from tests.test_x import y``, ``from tests import test_x`` and the literal calls
    ``importlib.import_module("test_x")`` / ``__import__("test_x")``."""
    found = []

    def note(dotted: str) -> None:
        parts = dotted.split(".")
        if parts[0] == "tests":
            parts = parts[1:]
        if parts and parts[0].startswith("test_"):
            found.append(parts[0])

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                note(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            note(node.module)
            if node.module == "tests":
                for alias in node.names:
                    note(alias.name)
        elif (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Name) and node.func.id == "__import__")
                   or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"))):
            note(node.args[0].value)
    return found


def test_the_check_finds_every_form_of_import():
    source = ("import test_a\nimport test_b.c as d\nfrom test_c import x\nfrom tests.test_d import y\n"
              "from tests import test_e\nimport importlib\nimportlib.import_module('test_f')\n"
              "__import__('test_g')\ndef f():\n    from test_h import z\n"
              "import helpers.site\nfrom helpers.processes import stop_group\nimport pytest\n")
    assert imported_test_modules(source) == [f"test_{c}" for c in "abcdefgh"]


def test_no_test_module_imports_another():
    files = sorted([*TESTS.glob("*.py"), *(TESTS / "helpers").glob("*.py")])
    assert len(files) > 50, files  # the suite is where this test looks for it
    offenders = {str(f.relative_to(TESTS)): names for f in files
                 if (names := imported_test_modules(f.read_text()))}
    assert not offenders, f"put what they share in tests/helpers or tests/conftest.py: {offenders}"


def test_no_test_file_is_named_after_a_ticket():
    names = [p.name for p in TESTS.glob("test_*.py")]
    assert "test_test_modules.py" in names
    ticket = [n for n in names if re.search(r"_\d+\.py$", n)]
    assert not ticket, f"name test files after the module they test: {ticket}"
