"""The live notebooks of ``make live``: each chapter cut down to its prose and its explorers.

Pressing Live on a chapter renders that chapter in a kernel (Voila).  A whole chapter executes
its tables, checks and simulations first (45-120 s, and minutes for chapter 7 without
``results/``), while the reader only wants the explorers.  So ``make live`` renders a *live
notebook* made from each chapter, here, every time it starts (never committed; a chapter edited
since is made again, a chapter gone is removed):

- every Markdown cell of the chapter (the prose, with its math and theorems);
- every explorer (a code cell tagged ``widget``), with the imports it needs: for each name the
  explorer's code uses without binding it, the chapter's last ``import`` of that name before
  it (an explorer needing a name computed by other code is refused with a ``ValueError``: the
  live notebook executes imports and explorers only);
- in place of every other code cell, its committed text output (tables, printed numbers) as a
  static Markdown cell, so the page reads like the chapter; nothing of it executes.  Figures are
  left to the book page (the committed notebooks hold no images); so are hidden and removed cells.

The notebooks use the kernel ``dpb-live`` (``scripts/site/jupyter/kernels/dpb-live``), which imports
dpb's explorers and loads its compiled kernels before it answers (the live server keeps one started
in advance), and the explorers' first figures come from ``$DPB_LIVE_FIGURES``
(:mod:`dpb._first_draw`), which :func:`prefill` fills once per change of dpb's code.

Usage (``scripts/live.py`` calls :func:`prepare`)::

    python scripts/live_notebooks.py [--book book] [--out _build/live]      # make + prefill
"""

from __future__ import annotations

import argparse
import ast
import builtins
import copy
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
OUT = ROOT / "_build" / "live"
CHAPTER_RE = re.compile(r"ch\d\d_[A-Za-z0-9_]+\.ipynb")
#: The kernel spec of the live notebooks (``scripts/site/jupyter/kernels/dpb-live/kernel.json``).
KERNEL = "dpb-live"
#: Code cells whose output the chapter page does not show either: not carried over.
HIDDEN_OUTPUT_TAGS = frozenset({"remove-cell", "remove-output", "hide-output", "hide-cell", "static-figure"})
#: Tags of the cells this module makes (the tests read them).
IMPORTS_TAG, OUTPUT_TAG = "dpb-live-imports", "dpb-live-output"
#: Seconds the prefill of the explorers' first figures may take before it is given up.
PREFILL_TIMEOUT = 900


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _free_names(source: str) -> set[str]:
    """Names the code loads without binding them itself (builtins excluded)."""
    tree = ast.parse(source)
    loaded, bound = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return loaded - bound - set(dir(builtins))


def _imports(source: str) -> dict[str, str]:
    """Name -> a one-name import statement binding it, for the top-level imports of the code."""
    out = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            for a in node.names:
                name = a.asname or a.name.split(".")[0]
                out[name] = ast.unparse(ast.Import(names=[a]))
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name != "*":
                    out[a.asname or a.name] = ast.unparse(ast.ImportFrom(module=node.module, names=[a],
                                                                         level=node.level))
    return out


def _output_markdown(cell) -> str | None:
    """A code cell's committed text output as Markdown (HTML tables kept), or None if it has none."""
    parts = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream" and out.get("name") == "stdout":
            text = "".join(out.get("text", ""))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "text/html" in data:
                html = "".join(data["text/html"])
                parts.append("\n".join(line for line in html.splitlines() if line.strip()))
                continue
            text = "".join(data.get("text/plain", ""))
            if not text or re.fullmatch(r"<(Figure|matplotlib)[^>]*>\s*", text):
                continue  # a figure: on the book page
        else:
            continue  # errors, stderr: none in a committed chapter
        if text.strip():
            fence = "````" if "```" in text else "```"
            parts.append(f"{fence}text\n{text.rstrip()}\n{fence}")
    return "\n\n".join(parts) or None


def live_notebook(nb: dict, name: str = "chapter") -> dict:
    """The live notebook of the chapter ``nb`` (a notebook as a dict); see the module docstring.

    Raises ``ValueError`` naming the chapter, the cell and the names when an explorer uses a name
    that no import of the chapter before it binds.
    """
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise TypeError(f"nb must be a notebook (a dict with 'cells'), got {type(nb).__name__}")
    bindings: dict[str, str] = {}
    imported: set[str] = set()
    cells = []
    for index, cell in enumerate(nb["cells"]):
        kind, tags, source = cell.get("cell_type"), _tags(cell), _source(cell)
        if kind == "markdown":
            prose = {"cell_type": "markdown", "metadata": copy.deepcopy(cell.get("metadata", {})),
                     "source": source}
            if "attachments" in cell:
                prose["attachments"] = cell["attachments"]
            cells.append(prose)
            continue
        if kind != "code":
            continue
        if "widget" in tags:
            needed = _free_names(source) - imported
            missing = sorted(needed - bindings.keys())
            if missing:
                raise ValueError(f"{name}: the explorer in cell {index} uses {', '.join(missing)}, which no "
                                 f"import of the chapter before it binds (a live notebook runs only "
                                 f"imports and explorers)")
            if needed:
                cells.append({"cell_type": "code", "metadata": {"tags": [IMPORTS_TAG]}, "outputs": [],
                              "execution_count": None,
                              "source": "\n".join(sorted({bindings[n] for n in needed}))})
                imported |= needed
            cells.append({"cell_type": "code", "metadata": {"tags": tags}, "execution_count": None,
                          "outputs": [], "source": source})
        elif not set(tags) & HIDDEN_OUTPUT_TAGS:
            text = _output_markdown(cell)
            if text:
                cells.append({"cell_type": "markdown", "metadata": {"tags": [OUTPUT_TAG]}, "source": text})
        try:
            bindings.update(_imports(source))
        except SyntaxError as exc:  # IPython magics: no imports to take from this cell
            if "widget" in tags:
                raise ValueError(f"{name}: the explorer in cell {index} is not plain Python: {exc}") from None
    meta = copy.deepcopy(nb.get("metadata", {}))
    meta["kernelspec"] = {"name": KERNEL, "display_name": "Python 3 (dpb live)", "language": "python"}
    meta["dpb_live"] = {"chapter": name}
    return {"nbformat": 4, "nbformat_minor": max(int(nb.get("nbformat_minor", 5)), 5), "metadata": meta,
            "cells": [dict(c, id=f"live-{k}") for k, c in enumerate(cells)]}


def chapters(book: Path = BOOK) -> list[Path]:
    """The chapter notebooks ``chNN_*.ipynb`` of ``book``, sorted."""
    return sorted(p for p in Path(book).glob("ch*.ipynb") if CHAPTER_RE.fullmatch(p.name))


def _write_if_changed(path: Path, text: str) -> bool:
    try:
        if path.read_text() == text:
            return False
    except OSError:
        pass
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return True


def generate(book: Path = BOOK, out: Path = OUT) -> list[Path]:
    """Write the live notebook of every chapter of ``book`` into ``out`` (only those that changed)
    and remove those of chapters that are gone; returns the live notebooks' paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for path in chapters(book):
        live = live_notebook(json.loads(path.read_text()), path.name)
        _write_if_changed(out / path.name, json.dumps(live, indent=1, ensure_ascii=False) + "\n")
        made.append(out / path.name)
    for old in out.glob("ch*.ipynb"):
        if old not in made:
            old.unlink()
    return made


def _stamp(notebooks: list[Path]) -> dict:
    sys.path.insert(0, str(ROOT))
    try:
        from dpb._first_draw import source_digest
    finally:
        sys.path.pop(0)
    h = hashlib.sha256()
    for nb in sorted(notebooks):
        h.update(nb.name.encode() + b"\0" + nb.read_bytes())
    return {"dpb": source_digest(), "notebooks": h.hexdigest()}


def prefill(notebooks: list[Path], figures: Path, timeout: float = PREFILL_TIMEOUT,
            quiet: bool = False) -> float:
    """Draw every explorer of ``notebooks`` once with ``$DPB_LIVE_FIGURES=figures`` (in a child
    process: imports and explorer cells only), unless that was done for this very code and these
    notebooks; returns the seconds it took (0 when nothing was to do)."""
    figures = Path(figures)
    stamp_file = figures / "prefilled.json"
    stamp = _stamp(notebooks)
    try:
        before = json.loads(stamp_file.read_text())
    except (OSError, ValueError):
        before = {}
    if before == stamp:
        return 0.0
    figures.mkdir(parents=True, exist_ok=True)
    if before.get("dpb") != stamp["dpb"]:  # figures of other code are unreachable: drop them
        for old in figures.glob("*.png"):
            old.unlink(missing_ok=True)
            old.with_suffix(".txt").unlink(missing_ok=True)
    env = dict(os.environ, MPLBACKEND="Agg", **{"DPB_LIVE_FIGURES": str(figures)})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    if not quiet:
        print(f"make live: drawing the explorers' first figures once for this code (into {figures}) ...",
              flush=True)
    t0 = time.monotonic()
    subprocess.run([sys.executable, __file__, "--draw", *map(str, notebooks)], env=env, check=True,
                   timeout=timeout, stdin=subprocess.DEVNULL)
    stamp_file.write_text(json.dumps(stamp))
    return time.monotonic() - t0


def _draw(notebooks: list[str]) -> None:
    """(child of :func:`prefill`) Execute the imports and explorers of each live notebook."""
    for path in notebooks:
        nb = json.loads(Path(path).read_text())
        scope: dict = {"__name__": "__live__"}
        t0 = time.monotonic()
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                exec(compile(_source(cell), f"{path}:{cell.get('id')}", "exec"), scope)  # noqa: S102
        print(f"  {Path(path).name}: {time.monotonic() - t0:.1f} s", flush=True)


def prepare(book: Path = BOOK, out: Path = OUT, quiet: bool = False) -> list[Path]:
    """:func:`generate` the live notebooks into ``out`` and :func:`prefill` ``out/figures``."""
    notebooks = generate(book, out)
    prefill(notebooks, Path(out) / "figures", quiet=quiet)
    return notebooks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--book", type=Path, default=BOOK)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--draw", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.draw:
        _draw(args.draw)
        return 0
    for path in prepare(args.book, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
