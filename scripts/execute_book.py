"""Execute the book's chapters into Jupyter Book's execution cache, several at a time.

Jupyter Book (``execute_notebooks: cache``) executes the chapters one after another while it reads
them, on one core; chapter 7's long serial stretches (bootstraps, figures, reading results back)
then leave the second core idle.  This script fills the same cache first, ``--jobs`` chapters at a
time, longest first, so that the build that follows finds every chapter executed and only renders::

    python scripts/execute_book.py --cache _build/.jupyter_cache --jobs 2

The chapters after the first run at a lower priority (:data:`NICE`), each in a fresh process: the
first, chapter 7, is the build's critical path, and the short chapters then use the cores it leaves
idle instead of slowing it down.

Each chapter is executed exactly as the build would (jupyter-cache's ``single_nb_execution``, the
chapter's folder as working directory, ``execute.timeout`` of ``_config.yml`` per cell, errors not
allowed) and stored as the build stores it; a chapter that fails is not stored, its error is printed
and the script exits with status 1.  One line per chapter says when it finished and how long it
took.  Ctrl-C stops everything: the pool's processes are ended and their kernels exit with them.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the chapters that take longest first (chapter 7's sweeps, then the longer chapters), so that the
# short ones fill the other core
FIRST = ("ch07_experiments", "ch06_regret", "ch04_algorithms", "ch05_privacy")


def chapters(toc: Path = ROOT / "_toc.yml") -> list[Path]:
    """The notebooks the book's table of contents lists, longest-running first."""
    import yaml

    def files(node) -> list[str]:
        out = []
        if isinstance(node, dict):
            if "file" in node:
                out.append(node["file"])
            for value in node.values():
                out += files(value)
        elif isinstance(node, list):
            for value in node:
                out += files(value)
        return out

    toc_data = yaml.safe_load(toc.read_text())
    names = [toc_data.get("root", "")] + files(toc_data)
    books = [ROOT / f"{name}.ipynb" for name in names if (ROOT / f"{name}.ipynb").is_file()]
    rank = {name: i for i, name in enumerate(FIRST)}
    return sorted(books, key=lambda p: rank.get(p.stem, len(FIRST)))


def _timeout(config: Path = ROOT / "_config.yml") -> int:
    import yaml

    return int(yaml.safe_load(config.read_text()).get("execute", {}).get("timeout", 600))


#: Niceness of the chapters after the first (longest) one: chapter 7 is the build's critical path,
#: and the short chapters then take the cores when it leaves one idle (its serial stretches, the
#: ends of its rounds) instead of slowing it down beside it.
NICE = 10


def _execute(path: str, timeout: int, nice: int = 0) -> tuple[str, dict | None, float, str | None]:
    """Execute one notebook as the build does, at niceness ``nice`` (this process and its kernel);
    (path, executed notebook as JSON, seconds, error)."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    if nice and hasattr(os, "nice"):
        os.nice(nice)

    nb = nbformat.read(path, as_version=4)
    started = time.monotonic()
    result = single_nb_execution(nb, cwd=str(Path(path).parent), timeout=timeout, allow_errors=False,
                                 meta_override=True)
    seconds = time.monotonic() - started
    if result.err is not None:
        return path, None, seconds, result.exc_string or repr(result.err)
    return path, nbformat.from_dict(nb), seconds, None


def _store(cache_path: Path, path: str, nb, seconds: float) -> None:
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(str(cache_path))
    record = cache.add_nb_to_project(path)
    cache.cache_notebook_bundle(CacheBundleIn(nb, record.uri, data={"execution_seconds": seconds}),
                                check_validity=False, overwrite=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=ROOT / "_build" / ".jupyter_cache",
                    help="Jupyter Book's execution cache (default: _build/.jupyter_cache)")
    ap.add_argument("--jobs", type=int, default=2, help="chapters executed at once (default: 2)")
    ap.add_argument("notebooks", nargs="*", type=Path, help="default: every chapter of _toc.yml")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error(f"--jobs must be a positive integer, got {args.jobs}")
    missing = [str(p) for p in args.notebooks if p.suffix != ".ipynb" or not p.is_file()]
    if missing:
        ap.error(f"notebooks must be existing .ipynb files; not: {', '.join(missing)}")
    books = [p.resolve() for p in args.notebooks] or chapters()
    timeout = _timeout()
    started = time.monotonic()
    failed = []
    # a fresh process for every chapter: a niceness once raised cannot be lowered again
    pool = ProcessPoolExecutor(max_workers=args.jobs, max_tasks_per_child=1)
    try:
        chapter_of = {pool.submit(_execute, str(p), timeout, NICE if k else 0): p
                      for k, p in enumerate(books)}
        pending = set(chapter_of)
        print(f"execute_book: {len(books)} chapter(s), {args.jobs} at a time", flush=True)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                try:
                    path, nb, seconds, error = future.result()
                except Exception as exc:  # the worker itself failed (e.g. its kernel died)
                    path, nb, seconds = str(chapter_of[future]), None, 0.0
                    error = f"{type(exc).__name__}: {exc}"
                name = Path(path).name
                if error is not None:
                    failed.append(name)
                    print(f"execute_book: {name} FAILED after {seconds:.0f} s:\n{error}", flush=True)
                    continue
                _store(args.cache, path, nb, seconds)
                print(f"execute_book: {name} executed in {seconds:.0f} s "
                      f"({time.monotonic() - started:.0f} s so far)", flush=True)
    except KeyboardInterrupt:
        print("execute_book: interrupted; stopping the chapters", file=sys.stderr, flush=True)
        for child in multiprocessing.active_children():  # the pool's processes (their kernels
            child.terminate()                              # exit when their parent does)
        pool.shutdown(wait=False, cancel_futures=True)
        return 130
    pool.shutdown()
    print(f"execute_book: {len(books) - len(failed)} of {len(books)} chapters executed in "
          f"{time.monotonic() - started:.0f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
