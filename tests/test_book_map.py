"""The introduction's map of the book (``book/_static/book-map.svg``, drawn by ``scripts/book_map.py``):
it names every chapter of ``_toc.yml``, in order, and the committed file is what the script draws
(its texts: a stale map, after a chapter was added or renamed in the script, fails)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SVG = ROOT / "book" / "_static" / "book-map.svg"
sys.path.insert(0, str(ROOT / "scripts"))

import book_map  # noqa: E402


def _texts(svg: str) -> list[str]:
    return [re.sub(r"\s+", " ", t).strip() for t in re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)]


def test_map_names_every_chapter_in_order():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    numbered = next(p for p in toc["parts"] if p.get("numbered"))
    files = [Path(c["file"]).name for c in numbered["chapters"]]
    assert [c[1] for c in book_map.CHAPTERS] == files
    texts = _texts(SVG.read_text())
    for n, _, title, _, _ in book_map.CHAPTERS:
        assert f"{n}. {title}" in texts, (n, title, texts)
    assert "book-map.svg" in (ROOT / "book" / "intro.md").read_text()


def test_committed_map_is_what_the_script_draws(tmp_path):
    out = tmp_path / "map.svg"
    assert book_map.main(["--out", str(out)]) == 0
    assert _texts(out.read_text()) == _texts(SVG.read_text())
    arrows = {(a, b) for a, b, _ in book_map.ARROWS}
    numbers = {c[0] for c in book_map.CHAPTERS}
    assert all(a in numbers and b in numbers and a < b for a, b in arrows)  # forward arrows only
