"""``--nbval-replay`` (the root ``conftest.py``) keeps nbval's guarantee on the build's executions.

``make test`` does not execute the chapters a second time: nbval's rules are applied to the
executions the book build stored in its jupyter-cache. These checks build a tiny notebook and a
cache holding an "execution" of it, then run pytest on it in a subprocess (bounded) and assert
that the replay passes when the outputs agree up to the sanitizers, and fails when a printed
number differs, when the execution raised, and when the cache has no execution of the
notebook's current code; ``nbval-ignore-output`` and ``nbval-skip`` act as under ``--nbval``.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.timeout(180)

# The inner session's conftest: the hooks of the repository's root conftest.py.
INNER_CONFTEST = f"""
import importlib.util

_spec = importlib.util.spec_from_file_location("dpb_root_conftest", {str(ROOT / "conftest.py")!r})
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
globals().update({{k: v for k, v in vars(_mod).items() if k.startswith("pytest_")}})
"""


def notebook():
    """A committed notebook: four code cells with text outputs and execution counts."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cells = [nbformat.v4.new_code_cell("print(f'{0.1234:.4f}')", execution_count=1),
             nbformat.v4.new_code_cell("print('took 3.2 s')", execution_count=2),
             nbformat.v4.new_code_cell("import random; print(random.random())", execution_count=3),
             nbformat.v4.new_code_cell("1 + 1", execution_count=4)]
    cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="0.1234\n")]
    cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="took 3.2 s\n")]
    cells[2].outputs = [nbformat.v4.new_output("stream", name="stdout", text="0.42\n")]
    cells[2].metadata["tags"] = ["nbval-ignore-output"]
    cells[3].outputs = [nbformat.v4.new_output("display_data", data={"text/plain": "<Figure>"}),
                        nbformat.v4.new_output("execute_result", data={"text/plain": "2"},
                                               execution_count=4)]
    nb.cells = [nbformat.v4.new_markdown_cell("# A chapter"), *cells]
    return nb


def executed(nb):
    """What the build's execution of ``nb`` produced: other timings and random numbers, a figure's
    image (committed notebooks keep only its text)."""
    ex = copy.deepcopy(nb)
    code = [c for c in ex.cells if c.cell_type == "code"]
    code[1].outputs[0].text = "took 17.9 s\n"  # the sanitizers replace timings
    code[2].outputs[0].text = "0.97\n"  # ignored output
    code[3].outputs[0]["data"]["image/png"] = "iVBORw0KGgo="
    return ex


def run_replay(tmp_path: Path, committed, execution, cache_name="cache"):
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    folder = tmp_path / "book"
    folder.mkdir(exist_ok=True)
    path = folder / "ch99_toy.ipynb"
    nbformat.write(committed, path)
    if execution is not None:
        cache = get_cache(str(tmp_path / cache_name))
        cache.cache_notebook_bundle(CacheBundleIn(execution, str(path)), check_validity=False,
                                    overwrite=True)
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path),
         "-p", "no:cacheprovider", "-q", "-rA", str(path), "--nbval-replay", str(tmp_path / cache_name),
         "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg")],
        cwd=tmp_path, capture_output=True, text=True, timeout=150)
    return proc.returncode, proc.stdout + proc.stderr


def test_replay_passes_when_outputs_agree_up_to_sanitizers_and_tags(tmp_path):
    nb = notebook()
    rc, out = run_replay(tmp_path, nb, executed(nb))
    assert rc == 0 and "4 passed" in out, out[-3000:]


def test_replay_fails_on_a_different_number(tmp_path):
    nb = notebook()
    ex = executed(nb)
    [c for c in ex.cells if c.cell_type == "code"][0].outputs[0].text = "0.1235\n"
    rc, out = run_replay(tmp_path, nb, ex)
    assert rc == 1 and "1 failed, 3 passed" in out and "Cell outputs differ" in out, out[-3000:]
    assert "FAILED book/ch99_toy.ipynb::Cell 0" in out, out[-3000:]


def test_replay_fails_when_the_execution_raised(tmp_path):
    nb = notebook()
    ex = executed(nb)
    code = [c for c in ex.cells if c.cell_type == "code"]
    code[2].outputs = [nbformat.v4.new_output("error", ename="ValueError", evalue="boom",
                                              traceback=["ValueError: boom"])]
    rc, out = run_replay(tmp_path, nb, ex)
    # an exception fails even a cell whose output is ignored, as under --nbval
    assert rc == 1 and "Cell execution caused an exception" in out and "ValueError: boom" in out, out[-3000:]


def test_replay_fails_without_an_execution_of_the_current_code(tmp_path):
    nb = notebook()
    ex = executed(nb)
    edited = copy.deepcopy(nb)
    edited.cells[1].source += "  # edited after the build"
    rc, out = run_replay(tmp_path, edited, ex)
    assert rc == 1 and "4 failed" in out and "has no execution" in out, out[-3000:]


def test_replay_fails_without_a_cache(tmp_path):
    rc, out = run_replay(tmp_path, notebook(), None, cache_name="missing")
    assert rc == 1 and "4 failed" in out and "no execution cache at" in out, out[-3000:]


def test_skip_tag_skips_as_under_nbval(tmp_path):
    nb = notebook()
    nb.cells[1].metadata["tags"] = ["nbval-skip"]
    ex = executed(nb)
    [c for c in ex.cells if c.cell_type == "code"][0].outputs[0].text = "9.9999\n"
    rc, out = run_replay(tmp_path, nb, ex)
    assert rc == 0 and "3 passed, 1 skipped" in out, out[-3000:]


def test_the_research_page_is_in_the_book_and_checked_like_the_chapters():
    """The page is in the book (the build executes it once) and among the Makefile's NOTEBOOKS, which
    ``make test`` checks under nbval's rules on that very execution (--nbval-replay)."""
    assert "file: book/research" in (ROOT / "_toc.yml").read_text()
    notebooks = next(line for line in (ROOT / "Makefile").read_text().splitlines()
                     if line.startswith("NOTEBOOKS :="))
    assert "book/research.ipynb" in notebooks, notebooks
