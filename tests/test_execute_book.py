"""scripts/execute_book.py: the chapters executed into Jupyter Book's cache before the build.

What the build relies on: every notebook of the table of contents is executed (chapter 7 first),
a stored execution is one the build's own lookup finds (the same cache match that myst-nb does), and
a chapter that fails is reported and not stored, with exit status 1."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("execute_book", ROOT / "scripts" / "execute_book.py")
execute_book = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(execute_book)


def test_every_notebook_of_the_toc_once_and_the_longest_first():
    books = execute_book.chapters()
    names = [p.name for p in books]
    on_disk = {p.name for p in (ROOT / "book").glob("*.ipynb")}
    assert set(names) == on_disk and len(names) == len(set(names)), (names, on_disk)
    assert names[0] == "ch07_experiments.ipynb"


def _notebook(path: Path, source: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(source)]
    nbformat.write(nb, path)
    return path


@pytest.mark.timeout(240)
def test_a_stored_execution_is_found_by_the_build_and_a_failure_is_not_stored(tmp_path):
    from jupyter_cache import get_cache

    good = _notebook(tmp_path / "good.ipynb", "print(6 * 7)")
    bad = _notebook(tmp_path / "bad.ipynb", "raise ValueError('this chapter fails')")
    cache = tmp_path / "cache"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "execute_book.py"), "--cache", str(cache),
                           "--jobs", "2", str(good), str(bad)], capture_output=True, text=True, timeout=200)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "bad.ipynb FAILED" in proc.stdout and "this chapter fails" in proc.stdout
    assert "1 of 2 chapters executed" in proc.stdout
    store = get_cache(str(cache))
    record = store.match_cache_notebook(nbformat.read(good, as_version=4))  # myst-nb's lookup
    outputs = store.get_cache_bundle(record.pk).nb.cells[0].outputs
    assert outputs[0]["text"] == "42\n"
    with pytest.raises(KeyError):
        store.match_cache_notebook(nbformat.read(bad, as_version=4))


def test_jobs_must_be_positive():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "execute_book.py"), "--jobs", "0"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--jobs must be a positive integer, got 0" in proc.stderr


def test_a_missing_notebook_is_refused_before_anything_runs(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "execute_book.py"), "--cache",
                           str(tmp_path / "cache"), str(tmp_path / "nope.ipynb")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "notebooks must be existing .ipynb files" in proc.stderr
    assert "nope.ipynb" in proc.stderr and not (tmp_path / "cache").exists()


@pytest.mark.timeout(240)
def test_the_first_chapter_keeps_its_priority_and_the_others_yield(tmp_path):
    # the first (longest) chapter, the build's critical path, runs at this niceness; every other at
    # NICE more, its kernel included (each chapter in a fresh process: a niceness cannot go back)
    from jupyter_cache import get_cache

    source = "import os\nprint(os.nice(0))"
    books = [_notebook(tmp_path / f"nb{k}.ipynb", f"{source}  # {k}") for k in range(2)]
    cache = tmp_path / "cache"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "execute_book.py"), "--cache", str(cache),
                           "--jobs", "2", *map(str, books)], capture_output=True, text=True, timeout=200)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    store = get_cache(str(cache))
    seen = [int(store.get_cache_bundle(store.match_cache_notebook(nbformat.read(b, as_version=4)).pk)
                .nb.cells[0].outputs[0]["text"]) for b in books]
    import os

    base = os.nice(0)
    yielded = min(base + execute_book.NICE, 19)  # (the largest niceness)
    assert seen == [base, yielded], seen
