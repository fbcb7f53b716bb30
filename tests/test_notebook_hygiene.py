"""The committed chapters are stripped as scripts/execute_notebooks.py promises.

No per-cell execution timestamps (they would change the diff of every cell on every run), no
images and no widget state (the book build re-executes everything), but text outputs are kept
(nbval compares them).  The strip function itself is checked on a notebook that has all of these.
"""

import importlib.util
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book").glob("ch*.ipynb"))
_spec = importlib.util.spec_from_file_location("execute_notebooks", ROOT / "scripts" / "execute_notebooks.py")
execute_notebooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(execute_notebooks)


def test_strip_removes_timestamps_images_and_widget_state():
    nb = nbformat.v4.new_notebook(metadata={"widgets": {"state": {}}})
    cell = nbformat.v4.new_code_cell("1")
    cell.metadata["execution"] = {"iopub.execute_input": "2026-11-21T10:00:00Z"}
    cell.metadata["tags"] = ["remove-cell"]
    figure = {"image/png": "AAAA", "text/plain": "<Figure>"}
    cell.outputs = [nbformat.v4.new_output("display_data", data=figure),
                    nbformat.v4.new_output("display_data", data={"image/png": "AAAA"}),
                    nbformat.v4.new_output("stream", text="0.1234\n")]
    md = nbformat.v4.new_markdown_cell("text")
    md.metadata["execution"] = {}
    nb.cells = [cell, md]
    out = execute_notebooks.strip(nb)
    assert "widgets" not in out.metadata
    assert "execution" not in out.cells[0].metadata and "execution" not in out.cells[1].metadata
    assert out.cells[0].metadata["tags"] == ["remove-cell"]
    assert [set(o["data"]) for o in out.cells[0].outputs if "data" in o] == [{"text/plain"}]
    assert out.cells[0].outputs[-1]["text"] == "0.1234\n"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_committed_chapter_is_stripped(path):
    nb = nbformat.read(path, as_version=4)
    assert "widgets" not in nb.metadata
    for i, cell in enumerate(nb.cells):
        assert "execution" not in cell.metadata, f"{path.name} cell {i} has execution timestamps"
        for out in cell.get("outputs", []):
            assert not set(out.get("data", {})) & set(execute_notebooks.DROP_MIME), (path.name, i)
