"""MyST markup of the chapters rewritten as plain Markdown, for the live (Voila) pages.

The book is built by Jupyter Book, which understands MyST: roles such as ``{cite}`key``` or
``{prf:ref}`label```, and directives such as a ``{prf:theorem}`` fence.  Voila renders the same
notebooks with plain Markdown, where these show up as raw markup (a theorem as a code block, a
citation as ``{cite}`` in code font).  :func:`myst_to_markdown` rewrites the markup the chapters
use into Markdown that reads well:

* statements (``prf:theorem``, ``prf:lemma``, ...) and exercises become quoted paragraphs headed
  "**Theorem (title).**"; a proof ends with a square; a solution folds into ``<details>``;
* ``{cite}`a,b``` becomes "(Author Year; Author Year)" from ``book/references.bib``;
* ``{prf:ref}``, ``{ref}`` and ``{numref}`` become the statement's kind and title, ``{eq}`` the
  equation's number "(c.n)"; ``{doc}`` the chapter's title; ``{py:func}`` and friends code;
* ``{literalinclude}`` is replaced by the lines it includes (a whole file or one ``:pyobject:``).

Voila's template ``dpb`` applies it to every Markdown cell through the Jinja filter
``myst_lite`` (registered by ``scripts/live.py``).  Unknown roles keep their text; unknown
directives become a quoted block titled by their name, so nothing is lost.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"

#: how a statement kind is printed
KINDS = {
    "prf:theorem": "Theorem", "prf:lemma": "Lemma", "prf:proposition": "Proposition",
    "prf:corollary": "Corollary", "prf:definition": "Definition", "prf:remark": "Remark",
    "prf:algorithm": "Algorithm", "prf:example": "Example", "prf:conjecture": "Conjecture",
    "prf:assumption": "Assumption", "prf:property": "Property", "prf:axiom": "Axiom",
    "prf:observation": "Observation", "prf:criterion": "Criterion",
    "exercise": "Exercise", "note": "Note", "warning": "Warning", "tip": "Tip",
    "important": "Important", "attention": "Attention", "caution": "Caution", "hint": "Hint",
}

_OPEN = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}[ \t]*(?P<arg>.*)$")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):[ \t]*(?P<value>.*)$")
_ROLE = re.compile(r"\{(?P<role>[\w:-]+)\}`(?P<text>[^`]*)`")
_TARGET = re.compile(r"^\([\w:.-]+\)=[ \t]*$")
_EQ_LABEL = re.compile(r"^(?P<math>.*\$\$)[ \t]*\([\w:.-]+\)[ \t]*$")


def myst_to_markdown(source: str) -> str:
    """Return the Markdown cell ``source`` with its MyST roles and directives rewritten."""
    return _blocks(source.split("\n"))


def _blocks(lines: list[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _OPEN.match(line.strip())
        if m is None:
            if _TARGET.match(line.strip()):
                i += 1
                continue
            eq = _EQ_LABEL.match(line)
            out.append(_roles(eq.group("math") if eq else line))
            i += 1
            continue
        fence, name, arg = m.group("fence"), m.group("name"), m.group("arg").strip()
        close = re.compile(rf"^{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        options: dict[str, str] = {}
        while j < len(lines) and (opt := _OPTION.match(lines[j].strip())):
            options[opt.group("key")] = opt.group("value").strip()
            j += 1
        body: list[str] = []
        while j < len(lines) and not close.match(lines[j].strip()):
            body.append(lines[j])
            j += 1
        out.extend(_directive(name, arg, options, body))
        i = j + 1
    return "\n".join(out)


def _quote(text: str) -> list[str]:
    return [("> " + line).rstrip() for line in text.split("\n")]


def _directive(name: str, arg: str, options: dict[str, str], body: list[str]) -> list[str]:
    inner = _blocks(body).strip("\n")
    if name == "literalinclude":
        return _literalinclude(arg, options)
    if name in ("math",):
        return ["$$", inner, "$$"]
    if name == "prf:proof":
        head = "*Proof" + (f" ({_roles(arg)})" if arg else "") + ".*"
        return ["", *_quote(f"{head} {inner} $\\square$"), ""]
    if name == "solution":
        return ["", "<details><summary>Solution</summary>", "", inner, "", "</details>", ""]
    kind = KINDS.get(name, name.split(":")[-1].capitalize())
    title = f" ({_roles(arg)})" if arg else ""
    return ["", *_quote(f"**{kind}{title}.** {inner}"), ""]


def _literalinclude(path: str, options: dict[str, str]) -> list[str]:
    file = (BOOK / path).resolve()
    try:
        text = file.read_text()
    except OSError:
        return [f"*(the listing `{path}` is in the book)*"]
    obj = options.get("pyobject")
    if obj:  # "name" or "Class.method", as Sphinx's literalinclude reads it
        node = ast.parse(text)
        for part in obj.split("."):
            node = next((n for n in getattr(node, "body", []) if getattr(n, "name", None) == part), None)
            if node is None:
                return [f"*(the listing `{obj}` of `{path}` is in the book)*"]
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        text = "\n".join(text.split("\n")[first - 1:node.end_lineno])
    language = options.get("language", "python" if file.suffix == ".py" else "")
    return ["", f"```{language}", text.rstrip("\n"), "```", ""]


def _roles(line: str) -> str:
    return _ROLE.sub(_role, line)


def _role(m: re.Match) -> str:
    role, text = m.group("role"), m.group("text")
    explicit = re.match(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", text)
    title, target = (explicit.group("title"), explicit.group("target")) if explicit else ("", text)
    if role.startswith("cite"):
        cited = "; ".join(_citation(k.strip()) for k in target.split(",") if k.strip())
        inside = m.start() > 0 and m.string[m.start() - 1] in "(["  # already in parentheses
        return cited if inside else f"({cited})"
    if role in ("prf:ref", "ref", "numref"):
        if title:
            return re.sub(r"%s|\{number\}|\{name\}", "", title).strip() or target
        return _statements().get(target, target)
    if role == "eq":
        return _equations().get(target, f"({target})")
    if role == "doc":
        return f"*{title or _titles().get(Path(target).name, target)}*"
    if role.startswith("py:"):
        shown = target.lstrip("~")
        if target.startswith("~"):
            shown = shown.rsplit(".", 1)[-1]
        return f"`{title or shown}{'()' if role in ('py:func', 'py:meth') else ''}`"
    if role == "math":
        return f"${text}$"
    return title or text


@functools.lru_cache(maxsize=1)
def _markdown_sources() -> tuple[tuple[str, str], ...]:
    """(stem, text) of every chapter's Markdown and every Markdown page of the book."""
    found = []
    for nb in sorted(BOOK.glob("*.ipynb")):
        cells = json.loads(nb.read_text()).get("cells", [])
        text = "\n".join("".join(c["source"]) for c in cells if c.get("cell_type") == "markdown")
        found.append((nb.stem, text))
    for md in sorted(BOOK.glob("*.md")):
        found.append((md.stem, md.read_text()))
    return tuple(found)


@functools.lru_cache(maxsize=1)
def _statements() -> dict[str, str]:
    """label -> "Lemma (title)" for every labelled directive of the book."""
    labels: dict[str, str] = {}
    for _, text in _markdown_sources():
        lines = text.split("\n")
        for i, line in enumerate(lines):
            m = _OPEN.match(line.strip())
            if m is None:
                continue
            for opt_line in lines[i + 1:i + 6]:
                opt = _OPTION.match(opt_line.strip())
                if opt is None:
                    break
                if opt.group("key") == "label":
                    name, arg = m.group("name"), _roles(m.group("arg").strip())
                    kind = KINDS.get(name, name.split(":")[-1].capitalize())
                    labels[opt.group("value").strip()] = f"{kind} ({arg})" if arg else kind
    return labels


@functools.lru_cache(maxsize=1)
def _equations() -> dict[str, str]:
    """label -> "(c.n)": the n-th labelled display equation of chapter c, as the book numbers it."""
    numbers = {}
    for stem, text in _markdown_sources():
        chapter = re.match(r"ch(\d+)_", stem)
        if chapter is None:
            continue
        labels = re.findall(r"\$\$[ \t]*\(([\w:.-]+)\)[ \t]*$", text, re.M)
        for n, label in enumerate(labels, start=1):
            numbers[label] = f"({int(chapter.group(1))}.{n})"
    return numbers


@functools.lru_cache(maxsize=1)
def _titles() -> dict[str, str]:
    """page stem -> its first heading."""
    titles = {}
    for stem, text in _markdown_sources():
        m = re.search(r"^#\s+(.+)$", text, re.M)
        if m:
            titles[stem] = m.group(1).strip()
    return titles


@functools.lru_cache(maxsize=1)
def _bibliography() -> dict[str, str]:
    """bib key -> "Author Year" / "Author and Author Year" / "Author et al. Year"."""
    try:
        bib = (BOOK / "references.bib").read_text()
    except OSError:
        return {}
    out = {}
    for entry in re.split(r"\n(?=@)", bib):
        key = re.match(r"@\w+\{([^,\s]+),", entry.strip())
        if key is None:
            continue
        author = re.search(r"\bauthor\s*=\s*[{\"](.+?)[}\"]\s*,?\s*\n", entry, re.S | re.I)
        year = re.search(r"\byear\s*=\s*[{\"]?(\d{4})", entry, re.I)
        names = []
        if author:
            for person in re.split(r"\s+and\s+", " ".join(author.group(1).split())):
                person = person.replace("{", "").replace("}", "").strip()
                last = person.split(",")[0] if "," in person else person.split(" ")[-1]
                names.append(last.strip())
        if not names:
            continue
        who = names[0] if len(names) == 1 else (
            f"{names[0]} and {names[1]}" if len(names) == 2 else f"{names[0]} et al.")
        out[key.group(1)] = f"{who} {year.group(1)}" if year else who
    return out


def _citation(key: str) -> str:
    return _bibliography().get(key, key)
