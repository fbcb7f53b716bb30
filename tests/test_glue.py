"""Numbers in chapter prose come from the computation, never typed (issue 23, item 2).

Every chapter (``book/ch*.ipynb``, and ``book/ch*.md`` should a chapter ever be a page) is scanned,
markdown cells only. A number a cell computes is inserted into the prose with MyST-NB's ``glue``
(``from myst_nb import glue`` in the cell, ``{glue:text}`name:.1f``` in the text), so a re-run
that changes it changes the page; a typed copy would go stale silently. The test fails on any
*computed-looking* number typed in the prose, that is:

* **What is scanned.** The text a reader reads: prose, headings, lists, tables, admonitions,
  directive bodies (theorems, proofs, exercises *and their solutions*) and **math** (inline and
  display: ``$7.13$`` is as stale as ``7.13``). Not scanned: MyST roles and their targets
  (``{cite}`...```, ``{prf:ref}``, ``{glue:text}``, ``{py:func}`` ...), inline code and code blocks
  (code literals are parameters a reader types, not results), directive option lines
  (``:label:``, ``:class:``), equation labels ``(eq-...)``, link targets and HTML comments.
* **What a number is.** A decimal token: ``917``, ``0.588``, ``2.47e4``, ``2.47 \\times 10^{4}``
  (the mantissa is the token), ``1,234`` (thousands separators), ``1\\,234`` or ``6 250`` (thin or
  plain space between digit groups of three). Digits glued to letters (``mu2``, ``H_2``, ``log2``)
  are names, not numbers.
* **Computed-looking.** Three or more significant digits: leading zeros never count and trailing
  zeros of an integer do not count (``1000``, ``2000``, ``10^6`` are round choices; ``1946`` and
  ``0.500`` are not). A label number such as "Lemma 4.1" has two and passes by construction.
* **Exempt.** A year: a four-digit integer in 1900-2039 that is not followed by a count noun
  ("1946 pulls" is a count, "Lai and Robbins (1985)" a year). Everything in the allow-list
  ``tests/glue_allowlist.txt``: the paper's constants (instance means such as 0.625, AdaP-KLUCB's
  3.1 ...), each with a written reason and optionally restricted to one chapter.

A number that is glued in, or whose paragraph is rewritten not to type it, passes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CHAPTERS = sorted(BOOK.glob("ch*.ipynb")) + sorted(BOOK.glob("ch*.md"))
ALLOWLIST = Path(__file__).with_name("glue_allowlist.txt")

COUNT_NOUNS = ("pull", "run", "round", "phase", "draw", "step", "sample", "time", "cell", "arm",
               "noise", "second", "episode", "epoch", "event", "point", "reward", "decision")

# a role with its target: {cite}`a,b`, {glue:text}`x:.1f`, {py:func}`dpb.x <dpb.x>` ...
_ROLE = re.compile(r"\{[A-Za-z0-9_:.-]+\}`[^`]*`")
_FENCE_OPEN = re.compile(r"^(```+|:::+|~~~+)")
_CODE = re.compile(r"`[^`\n]*`")
_OPTION = re.compile(r"^\s*:[A-Za-z_-]+:.*$", re.M)
_EQLABEL = re.compile(r"\$\$\s*\((eq-[^)]*)\)")
_LINK = re.compile(r"\]\([^)]*\)")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
# a number: optional thousands groups (",", thin space "\,", or a plain space between groups of 3),
# optional decimals, optional exponent e4 / e-4; not glued to a letter, digit or underscore before
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.\\])"
    r"(\d{1,3}(?:(?:,|\\,| )\d{3})+(?![\d])|\d+)"
    r"(\.\d+)?"
    r"(?:[eE][+-]?\d+)?"
    r"(?![A-Za-z_]|\d)"
)
# code blocks that are code (python, bash, literalinclude ...), not prose directives
_CODE_DIRECTIVES = {"literalinclude", "code", "code-block", "code-cell", "python", "bash", "text",
                    "console", "toml", ""}


def prose(markdown: str) -> str:
    """The text of a markdown cell a reader reads, with roles, code and directive options removed."""
    text = _ROLE.sub(" ", _COMMENT.sub(" ", markdown))
    out, stack, skip = [], [], None
    for line in text.split("\n"):
        stripped = line.strip()
        if skip is not None:  # inside a code block: drop until its own fence closes it
            if stripped == skip:
                skip = None
            continue
        m = _FENCE_OPEN.match(stripped)
        if not m:
            out.append(line)
            continue
        fence, rest = m.group(1), stripped[len(m.group(1)):].strip()
        if not rest and stack and stack[-1] == fence:
            stack.pop()  # the end of a prose directive
            continue
        directive = re.match(r"\{([A-Za-z0-9_:.-]+)\}\s*(.*)", rest)
        if directive and directive.group(1) not in _CODE_DIRECTIVES:
            stack.append(fence)
            out.append(directive.group(2))  # a directive's title is prose
        else:
            skip = fence  # a code block: ```python, ```{literalinclude}, plain ```
    text = "\n".join(out)
    text = _OPTION.sub(" ", text)
    text = _EQLABEL.sub("$$", text)
    text = _CODE.sub(" ", text)
    return _LINK.sub("]", text)


def significant_digits(integer: str, decimals: str | None) -> int:
    """Significant digits of a number written ``integer[.decimals]`` (separators removed)."""
    digits = re.sub(r"\D", "", integer)
    if decimals:
        whole = (digits + decimals[1:]).lstrip("0")
        return len(whole)
    stripped = digits.lstrip("0").rstrip("0")
    return len(stripped)


def is_year(integer: str, decimals: str | None, after: str) -> bool:
    if decimals or not re.fullmatch(r"\d{4}", integer) or not 1900 <= int(integer) <= 2039:
        return False
    word = re.match(r"\s*([A-Za-z]+)", after)
    return not (word and word.group(1).lower().startswith(COUNT_NOUNS))


def computed_looking(text: str) -> list[str]:
    """The computed-looking numbers typed in ``text`` (already reduced to prose)."""
    found = []
    for m in _NUMBER.finditer(text):
        integer, decimals = m.group(1), m.group(2)
        if significant_digits(integer, decimals) < 3:
            continue
        if is_year(integer, decimals, text[m.end():m.end() + 30]):
            continue
        found.append(m.group(0).replace("\\,", ",").replace(" ", ","))
    return found


def load_allowlist(path: Path = ALLOWLIST) -> list[tuple[str, str, str]]:
    """Entries ``number | chapter-glob | reason``; every entry needs a reason."""
    entries = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"{path.name}:{n}: expected 'number | chapter glob | reason', got {raw!r}")
        entries.append((parts[0], parts[1], parts[2]))
    return entries


def allowed(number: str, chapter: str, entries) -> bool:
    from fnmatch import fnmatch

    return any(number == num and fnmatch(chapter, glob) for num, glob, _ in entries)


def markdown_cells(path: Path):
    if path.suffix == ".md":
        yield 0, path.read_text(encoding="utf-8")
        return
    nb = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown":
            yield i, "".join(cell["source"])


def typed_numbers(path: Path, entries) -> list[str]:
    bad = []
    for i, source in markdown_cells(path):
        for number in computed_looking(prose(source)):
            if not allowed(number, path.name, entries):
                bad.append(f"cell {i}: {number}")
    return bad


# ---------------------------------------------------------------- the rules, on examples

@pytest.mark.parametrize("text, expected", [
    ("DP-KLUCB on mu_1 reports 917 [892, 954].", ["917", "892", "954"]),
    ("a ratio of 0.588, then $2.47e4$ and 1,234 runs", ["0.588", "2.47e4", "1,234"]),
    ("$C \\approx 17.9$ and $\\alpha C = 35.8$", ["17.9", "35.8"]),
    ("the 6 250 words and 1\\,492 pulls", ["6,250", "1,492"]),
    ("1946 pulls per arm; Lai and Robbins (1985); in 2022 the bound", ["1946"]),
    ("$T = 10^6$, 1000 runs, 20 cells, 0.25, 0.01, 120 phases, Lemma 4.1, (4.1)", []),
    ("instance mu2 and arm H_123, log2, x1000", []),
    ("0.500 is three digits", ["0.500"]),
])
def test_rules_on_examples(text, expected):
    assert computed_looking(prose(text)) == expected


def test_roles_code_and_options_are_not_prose():
    md = ("See {cite}`lai1985asymptotically` and {glue:text}`regret:.1f`, `seed=20261121`.\n"
          "```{prf:theorem} Bound 123.4\n:label: thm-x-2025\n\nholds with 4.567.\n```\n"
          "```python\nx = 917.5\n```\n"
          "$$\nx = 1\n$$ (eq-abc-123)\n")
    assert computed_looking(prose(md)) == ["123.4", "4.567"]


def test_allowlist_entries_have_reasons(tmp_path):
    entries = load_allowlist()
    assert entries, "the allow-list is empty"
    bad = tmp_path / "bad.txt"
    bad.write_text("0.625 | * |\n", encoding="utf-8")
    with pytest.raises(ValueError, match="reason"):
        load_allowlist(bad)


# ---------------------------------------------------------------- the chapters

@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_chapter_prose_types_no_computed_number(path):
    bad = typed_numbers(path, load_allowlist())
    assert not bad, (f"{path.name} types computed-looking numbers in its prose; glue them from the "
                     f"cell that computes them ({{glue:text}}) or add them to {ALLOWLIST.name} with a "
                     f"reason if they are constants of the paper:\n  " + "\n  ".join(bad))
