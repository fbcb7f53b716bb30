"""scripts/site/dpb_pdf.py, the Sphinx extension of the single-page build that `make pdf` prints:
the page is moved to the top of the output folder with its links into itself made anchors, and the
singlehtml builder gets every html visitor that no extension registered for it."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts" / "site"))

import dpb_pdf  # noqa: E402


def _app(tmp_path, name="singlehtml", handlers=None):
    return SimpleNamespace(outdir=str(tmp_path), config=SimpleNamespace(root_doc="book/intro"),
                           builder=SimpleNamespace(name=name, out_suffix=".html"),
                           registry=SimpleNamespace(translation_handlers=handlers or {}))


def test_page_moved_and_links_made_anchors(tmp_path):
    (tmp_path / "book").mkdir()
    page = tmp_path / "book" / "intro.html"
    page.write_text('<a href="book/intro.html#thm-lower-bound">Theorem 2.1</a> '
                    '<a href="book/intro.html">top</a> <img src="_images/x.png"> '
                    '<a href="https://example.org/book/intro.html#x">out</a>')
    dpb_pdf._move_page(_app(tmp_path), None)
    html = (tmp_path / dpb_pdf.PAGE).read_text()
    assert 'href="#thm-lower-bound"' in html and 'href="#"' in html
    assert 'src="_images/x.png"' in html and "https://example.org/book/intro.html#x" in html
    assert not page.exists()


def test_other_builders_and_failed_builds_are_left_alone(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.html").write_text("x")
    dpb_pdf._move_page(_app(tmp_path, name="html"), None)
    dpb_pdf._move_page(_app(tmp_path), RuntimeError("build failed"))
    assert not (tmp_path / dpb_pdf.PAGE).exists()


def test_html_visitors_copied_to_singlehtml_without_overriding(tmp_path):
    def visit(*a):
        return None

    handlers = {"html": {"HideCodeCellNode": (visit, visit), "exercise_node": ("html", None)},
                "singlehtml": {"exercise_node": ("single", None)}}
    dpb_pdf._html_visitors_for_singlehtml(_app(tmp_path, handlers=handlers))
    assert handlers["singlehtml"]["HideCodeCellNode"] == (visit, visit)
    assert handlers["singlehtml"]["exercise_node"] == ("single", None)  # its own kept
    before = {"html": {"n": (visit, None)}}
    dpb_pdf._html_visitors_for_singlehtml(_app(tmp_path, name="html", handlers=before))
    assert "singlehtml" not in before
