"""Execute chapters in place, then strip what must not be committed.

Chapters are committed WITH their text outputs and execution counts (nbval compares every printed
number against them) but WITHOUT images, widget state and per-cell execution timestamps (images and
widget state bloat the repository and the book build re-executes everything anyway; timestamps
would change the diff of every cell on every run).  Usage::

    python scripts/execute_notebooks.py book/ch01_background.ipynb [...]
    python scripts/execute_notebooks.py --strip-only book/*.ipynb
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

DROP_MIME = ("image/png", "image/jpeg", "image/svg+xml", "application/pdf",
             "application/vnd.jupyter.widget-view+json", "application/vnd.jupyter.widget-state+json")


def strip(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Remove images, widget state and execution timestamps; keep text outputs and counts."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.get("metadata", {}).pop("execution", None)
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.get("outputs", []):
            if "data" in out:
                for mime in DROP_MIME:
                    out["data"].pop(mime, None)
                if not out["data"]:
                    continue
            kept.append(out)
        cell["outputs"] = kept
    return nb


def execute(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    # a cell's bound: the notebook's own `mystnb: execution_timeout` when it sets one (as the book
    # build reads it; chapter 7's first cell computes every experiment on a cold cache), else 600 s
    timeout = int(nb.metadata.get("mystnb", {}).get("execution_timeout", 600))
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    nbformat.write(strip(nb), path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--strip-only", action="store_true", help="only strip, do not execute")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        if args.strip_only:
            nbformat.write(strip(nbformat.read(path, as_version=4)), path)
        else:
            print(f"executing {path} ...", flush=True)
            execute(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
