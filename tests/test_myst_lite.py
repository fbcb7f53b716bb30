"""The live pages' Markdown: MyST roles and directives of the chapters rewritten as plain Markdown.

``scripts/site/myst_lite.py`` is the Jinja filter of the book's Voila template (see
``scripts/live.py``); these tests need no server.  The browser test of ``make live``
(``tests/test_live.py``) checks the rendered page.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts" / "site"))
import myst_lite as M  # noqa: E402

CHAPTERS = sorted((ROOT / "book").glob("ch*.ipynb"))
#: MyST that plain Markdown would show raw
RAW = re.compile(r"\{[\w:-]+\}`|^\s*(?:`{3,}|:{3,})\{|^\s*:(?:label|class|pyobject|language):|^\([\w-]+\)=",
                 re.M)


def markdown_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_no_myst_markup_survives_in_any_chapter(chapter):
    cells = markdown_cells(chapter)
    assert any(RAW.search(c) for c in cells), "the chapter has MyST markup to rewrite"
    for cell in cells:
        out = M.myst_to_markdown(cell)
        left = RAW.findall(out)
        assert not left, (left, out[:300])


def test_statements_become_quoted_paragraphs_with_kind_and_title():
    src = ("Before.\n\n```{prf:lemma} Parallel composition\n:label: lem-x\n\nBody with $x$.\n\n"
           "$$\ny = 1\n$$ (eq-y)\n```\n\n```{prf:proof}\nBecause.\n```\nAfter.")
    out = M.myst_to_markdown(src)
    assert "> **Lemma (Parallel composition).** Body with $x$." in out
    assert "> $$" in out and "(eq-y)" not in out  # the equation stays, its label goes
    assert "> *Proof.* Because. $\\square$" in out
    assert out.startswith("Before.") and out.rstrip().endswith("After.")
    assert ":label:" not in out


def test_nested_fences_and_solutions():
    src = ("````{exercise} Two\n:label: ex-2\n\nText.\n```python\nx = 1\n```\n````\n\n"
           "```{solution} ex-2\nAnswer.\n```")
    out = M.myst_to_markdown(src)
    assert "> **Exercise (Two).** Text." in out and "> ```python" in out and "> x = 1" in out
    assert "<details><summary>Solution</summary>" in out and "Answer." in out


def test_roles_resolve_from_the_book():
    used = set()
    labels = set()
    for chapter in CHAPTERS:
        for cell in markdown_cells(chapter):
            for role, text in re.findall(r"\{([\w:-]+)\}`([^`]*)`", cell):
                target = re.sub(r"^.*<([^<>]+)>$", r"\1", text)
                if role.startswith("cite"):
                    used.update(k.strip() for k in target.split(","))
                elif role == "prf:ref":
                    labels.add(target)
    bib = M._bibliography()
    assert used and used <= set(bib), sorted(used - set(bib))
    statements = M._statements()
    assert labels and labels <= set(statements), sorted(labels - set(statements))
    assert M.myst_to_markdown("{cite}`hu2022near`") == "(Hu and Hegde 2022)"
    assert M.myst_to_markdown("({cite}`hu2022near`, Section 3)") == "(Hu and Hegde 2022, Section 3)"
    assert M.myst_to_markdown("{prf:ref}`thm-lai-robbins`").startswith("Theorem (Lai")
    assert M.myst_to_markdown("{eq}`eq-batch-schedule`") == "(4.1)"  # the 1st labelled equation of ch04
    assert M.myst_to_markdown("{doc}`ch06_regret`").startswith("*") and "ch06" not in M.myst_to_markdown(
        "{doc}`ch06_regret`")
    assert M.myst_to_markdown("{py:func}`dpb.batching.batch_sizes`") == "`dpb.batching.batch_sizes()`"
    assert M.myst_to_markdown("{py:class}`~dpb.policies.DPIMED`") == "`DPIMED`"
    assert M.myst_to_markdown("{numref}`Figure %s <fig-x>`") == "Figure"
    assert M.myst_to_markdown("{unknownrole}`kept`") == "kept"


def test_literalinclude_shows_the_included_function():
    out = M.myst_to_markdown("```{literalinclude} ../dpb/plain.py\n:pyobject: dp_imed\n:language: python\n```"
                             .replace("\n:language: python", ""))
    assert "```python" in out and "def dp_imed(" in out and "def dp_klucb(" not in out
    missing = M.myst_to_markdown("```{literalinclude} ../nowhere.py\n```")
    assert "nowhere.py" in missing and "```" not in missing


def test_unknown_directives_keep_their_content():
    out = M.myst_to_markdown("```{figure-ish} caption\nInside.\n```")
    assert "**Figure-ish (caption).** Inside." in out


def test_literalinclude_of_a_method_shows_that_method_only():
    # ``:pyobject: Class.method`` (Sphinx's form) used to fall back to the whole file
    out = M.myst_to_markdown("```{literalinclude} ../dpb/policies/dp_batched.py\n"
                             ":pyobject: DPIMED.private_index\n:language: python\n```\n")
    code = out.split("```python", 1)[1].split("```", 1)[0].strip()
    assert code.startswith("def private_index(") and "class " not in code, code[:200]
    missing = M.myst_to_markdown("```{literalinclude} ../dpb/policies/dp_batched.py\n"
                                 ":pyobject: DPIMED.no_such_method\n```\n")
    assert "no_such_method" in missing and "class DPIMED" not in missing
