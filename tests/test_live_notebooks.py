"""The live notebooks of ``make live`` (``scripts/live_notebooks.py``) and the explorers' stored
first figures (``dpb._first_draw``): every explorer of every chapter is in its live notebook with
what it needs, nothing else executes, a changed chapter is made again, and a stored figure is
used only for the very code and values that drew it."""

from __future__ import annotations

import builtins
import json
import symtable
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import live_notebooks as L  # noqa: E402

CHAPTERS = L.chapters(ROOT / "book")


def _src(cell) -> str:
    return L._source(cell)


def _tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def test_there_are_chapters_with_explorers():
    assert len(CHAPTERS) >= 7
    assert all(any("widget" in _tags(c) for c in json.loads(p.read_text())["cells"]) for p in CHAPTERS)


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_live_notebook_covers_every_explorer_and_runs_nothing_else(path):
    chapter = json.loads(path.read_text())
    live = L.live_notebook(chapter, path.name)
    explorers = [_src(c) for c in chapter["cells"] if c["cell_type"] == "code" and "widget" in _tags(c)]
    live_code = [c for c in live["cells"] if c["cell_type"] == "code"]
    assert [_src(c) for c in live_code if "widget" in _tags(c)] == explorers  # all, in order
    assert all(set(_tags(c)) & {"widget", L.IMPORTS_TAG} for c in live_code), "other code executes live"
    assert all(not c["outputs"] for c in live_code)
    for cell in live_code:
        if L.IMPORTS_TAG in _tags(cell):  # import statements only
            assert all(line.startswith(("import ", "from ")) for line in _src(cell).splitlines()), _src(cell)
    # the prose, all of it and in order; the kernel that has dpb imported
    prose = [_src(c) for c in chapter["cells"] if c["cell_type"] == "markdown"]
    kept = [_src(c) for c in live["cells"] if c["cell_type"] == "markdown" and L.OUTPUT_TAG not in _tags(c)]
    assert kept == prose
    assert live["metadata"]["kernelspec"]["name"] == L.KERNEL


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_live_imports_bind_every_name_the_explorers_use(path):
    """Executing the live notebook's imports binds every global an explorer reads (symtable's view,
    independent of the generator's own analysis)."""
    live = L.live_notebook(json.loads(path.read_text()), path.name)
    scope: dict = {}
    for cell in live["cells"]:
        if cell["cell_type"] != "code":
            continue
        if L.IMPORTS_TAG in _tags(cell):
            exec(_src(cell), scope)  # noqa: S102 - imports only (checked above)
            continue
        table = symtable.symtable(_src(cell), "explorer", "exec")
        for sym in table.get_symbols():
            if sym.is_referenced() and not (sym.is_assigned() or sym.is_imported()):
                assert sym.get_name() in scope or hasattr(builtins, sym.get_name()), \
                    f"{path.name}: {sym.get_name()} is not bound before its explorer"
        scope.update({s.get_name(): True for s in table.get_symbols() if s.is_imported()})


def _nb(*cells) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3"}},
            "cells": [dict(c, metadata=c.get("metadata", {})) for c in cells]}


def _code(source, tags=(), outputs=()):
    return {"cell_type": "code", "source": source, "metadata": {"tags": list(tags)}, "outputs": list(outputs),
            "execution_count": 1}


def test_an_explorer_needing_computed_data_is_refused():
    nb = _nb(_code("from m import f\nx = f()"), _code("show(x)", ["widget"]), )
    with pytest.raises(ValueError, match=r"chX.*cell 1 uses show, x"):
        L.live_notebook(nb, "chX")
    with pytest.raises(TypeError, match="nb must be a notebook"):
        L.live_notebook([], "chX")


def test_imports_and_outputs_carried_over():
    table = {"output_type": "display_data", "data": {"text/html": ["<table>\n\n<tr><td>1</td></tr></table>"],
                                                     "text/plain": ["t"]}}
    printed = {"output_type": "stream", "name": "stdout", "text": ["C = 7.1283\n"]}
    figure = {"output_type": "display_data", "data": {"text/plain": ["<Figure size 800x400 with 1 Axes>"]}}
    nb = _nb({"cell_type": "markdown", "source": "# T\n$x$"},
             _code("import numpy as np\nfrom a.b import f as g, h\nheavy = np.ones(3)",
                   outputs=[table, printed]),
             _code("assert heavy.all()", ["remove-cell"], outputs=[printed]),
             _code("fig = plot()", ["static-figure"], outputs=[figure]),
             _code("fig2 = plot()", outputs=[figure]),
             _code("g(np.pi)", ["widget", "nbval-ignore-output"], outputs=[table]))
    live = L.live_notebook(nb, "chX")
    kinds = [(c["cell_type"], tuple(_tags(c))) for c in live["cells"]]
    assert kinds == [("markdown", ()), ("markdown", (L.OUTPUT_TAG,)), ("code", (L.IMPORTS_TAG,)),
                     ("code", ("widget", "nbval-ignore-output"))]
    assert _src(live["cells"][2]) == "from a.b import f as g\nimport numpy as np"
    carried = _src(live["cells"][1])
    assert "<table>\n<tr><td>1</td></tr></table>" in carried and "```text\nC = 7.1283\n```" in carried
    assert "Figure" not in carried


def test_generate_makes_fresh_notebooks_and_removes_stale_ones(tmp_path):
    book, out = tmp_path / "book", tmp_path / "live"
    book.mkdir()
    first = _nb(_code("from m import f"), _code("f(1)", ["widget"]))
    (book / "ch01_a.ipynb").write_text(json.dumps(first))
    (book / "ch02_b.ipynb").write_text(json.dumps(first))
    (book / "research.ipynb").write_text(json.dumps(first))  # not a chapter
    made = L.generate(book, out)
    assert [p.name for p in made] == ["ch01_a.ipynb", "ch02_b.ipynb"]
    assert sorted(p.name for p in out.iterdir()) == ["ch01_a.ipynb", "ch02_b.ipynb"]
    (book / "ch01_a.ipynb").write_text(json.dumps(_nb(_code("from m import f"), _code("f(2)", ["widget"]))))
    (book / "ch02_b.ipynb").unlink()
    L.generate(book, out)
    assert sorted(p.name for p in out.iterdir()) == ["ch01_a.ipynb"]
    live = json.loads((out / "ch01_a.ipynb").read_text())
    assert [_src(c) for c in live["cells"]][-1] == "f(2)"


# --- dpb._first_draw: an explorer's first figure, stored for `make live` ---

def _explorer(calls, value=0.5, title="t"):
    import ipywidgets as W
    import matplotlib.pyplot as plt

    from dpb.widgets.core import explorer

    def plot(p):
        calls.append(p)
        fig, ax = plt.subplots(figsize=(2, 1))
        ax.plot([0, 1], [0, p])
        return fig

    return explorer(plot, {"p": W.FloatSlider(value=value, min=0, max=1, step=0.1)}, title)


def test_first_figure_stored_and_reused_only_for_the_same_code_and_values(tmp_path, monkeypatch):
    from dpb import _first_draw as F

    calls: list = []
    monkeypatch.delenv(F.ENV, raising=False)
    _explorer(calls), _explorer(calls)
    assert calls == [0.5, 0.5] and not list(tmp_path.iterdir())  # no store: drawn every time
    monkeypatch.setenv(F.ENV, str(tmp_path / "figs"))
    box = _explorer(calls)
    assert calls == [0.5, 0.5, 0.5] and box.redraws == 1
    stored = list((tmp_path / "figs").glob("*.png"))
    assert len(stored) == 1
    again = _explorer(calls)
    assert calls == [0.5, 0.5, 0.5] and again.redraws == 0  # the stored figure, not drawn
    assert again.output.outputs[0]["data"]["image/png"] == box.output.outputs[0]["data"]["image/png"]
    again.controls["p"].value = 0.7  # a control moved: computed as always (at once outside a kernel)
    assert calls[-1] == 0.7
    _explorer(calls, value=0.6)
    _explorer(calls, title="other")
    assert calls[-2:] == [0.6, 0.5]  # other values, another explorer: drawn
    monkeypatch.setattr(F, "source_digest", lambda: "other code")
    _explorer(calls)
    assert calls[-1] == 0.5 and len(calls) == 7  # other code: drawn afresh
    stored[0].write_bytes(b"not a png")
    monkeypatch.undo()
    monkeypatch.setenv(F.ENV, str(tmp_path / "figs"))
    _explorer(calls)
    assert len(calls) == 8  # a damaged file is no figure


def test_source_digest_covers_the_package():
    from dpb import _first_draw as F

    digest = F.source_digest()
    assert len(digest) == 64 and int(digest, 16) >= 0
    assert F.figure_key(len, {"a": 1}, "x") != F.figure_key(len, {"a": 2}, "x")
    assert F.figure_key(len, {"a": 1}, "x") != F.figure_key(len, {"a": 1}, "y")
