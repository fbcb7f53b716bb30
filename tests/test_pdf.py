"""The PDF edition (``make pdf`` -> ``_build/pdf/dpb.pdf``), read as a reader would read it.

The PDF is the single-page build of the book printed by headless Chromium
(``scripts/print_pdf.py``).  These tests read its text with ``pdftotext`` and render pages with
``pdftoppm`` (Debian's poppler-utils, installed by ``.ci/run``) and check what a reader would:
the numbered chapters in order, numbered theorems and equations, mathematics typeset as text (not
left as TeX, not images), no unresolved reference (``??``) and no raw MyST role, the citations
and the bibliography, every static figure, each widget replaced by its one-line notice, a
plausible page count, and two pages that are not blank.

Marked ``pdf``: ``make pdf`` runs them right after printing (``make test`` runs that beside the
browser tests); the other test runs leave them out.  Every subprocess has a timeout.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "_build" / "pdf" / "dpb.pdf"
pytestmark = [pytest.mark.pdf, pytest.mark.timeout(300)]

#: the statements sphinx-proof numbers per chapter ("Theorem 2.1"), by directive
NUMBERED = {"theorem": "Theorem", "lemma": "Lemma", "proposition": "Proposition",
            "definition": "Definition", "corollary": "Corollary"}


def _run(*cmd: str, timeout: int = 120) -> str:
    if shutil.which(cmd[0]) is None:
        pytest.fail(f"{cmd[0]} not found: install Debian's poppler-utils (see .ci/run)")
    return subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=timeout).stdout


@pytest.fixture(scope="module")
def pages() -> list[str]:
    if not PDF.is_file():
        pytest.fail(f"{PDF} is missing: run `make pdf` (after `make build-strict` or `make book`)")
    text = _run("pdftotext", "-layout", "-enc", "UTF-8", str(PDF), "-")
    return text.split("\f")[:-1] if text.endswith("\f") else text.split("\f")


def _flat(text: str) -> str:
    """One line, single spaces, straight quotes: titles wrapped over two lines still match."""
    return re.sub(r"\s+", " ", text.replace("\u2019", "'").replace("\u2018", "'"))


def _chapters() -> list[tuple[int, Path]]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    numbered = next(p for p in toc["parts"] if p.get("numbered"))
    return [(n, ROOT / f"{c['file']}.ipynb") for n, c in enumerate(numbered["chapters"], start=1)]


def _title(path: Path) -> str:
    first = nbformat.read(path, as_version=4).cells[0].source
    return re.match(r"#\s+(.+)", first).group(1).strip()


def test_page_count(pages):
    info = _run("pdfinfo", str(PDF))
    count = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    assert count == len(pages)
    # seven chapters, the research page, the appendices and the API reference: well over a
    # hundred A4 pages, and not thousands (a page per line would mean a broken print stylesheet)
    assert 100 <= count <= 1500, count


def test_chapters_are_numbered_and_in_order(pages):
    text = _flat("\n".join(pages))
    where = []
    for n, path in _chapters():
        title = _flat(_title(path))
        heading = f"{n}. {title}"
        assert heading in text, f"chapter heading {heading!r} not in the PDF"
        where.append(text.index(heading))
    assert where == sorted(where)


def test_chapters_start_on_a_new_page(pages):
    for n, path in _chapters():
        title = _flat(_title(path))
        starts = [i for i, p in enumerate(pages) if _flat(p).strip().startswith(f"{n}. {title[:25]}")]
        assert starts, f"chapter {n} does not open a page"


def test_statements_and_equations_are_numbered(pages):
    text = _flat("\n".join(pages))
    for n, path in _chapters():
        cells = nbformat.read(path, as_version=4).cells
        source = "\n".join(c.source for c in cells if c.cell_type == "markdown")
        for kind, name in NUMBERED.items():
            count = len(re.findall(r"```\{prf:" + kind + r"\}", source))
            if count:
                for k in (1, count):
                    assert f"{name} {n}.{k}" in text, f"{name} {n}.{k} missing"
        labels = re.findall(r"\$\$\s*\((eq-[\w-]+)\)", source)
        if labels:
            assert f"({n}.1)" in text and f"({n}.{len(labels)})" in text, (n, labels)


def test_no_unresolved_reference_or_raw_markup(pages):
    text = "\n".join(pages)
    assert "??" not in text
    roles = re.findall(r"\{(?:prf:ref|cite|eq|doc|numref|ref|glue:text|glue|py:\w+|math)\}`", text)
    assert not roles, roles[:5]
    assert not re.search(r"^\s*```\{", text, re.M), "a directive printed as text"
    # the mathematics was typeset (MathJax output is text): no TeX left in the prose
    for tex in (r"\varepsilon", r"\mathrm{", r"\frac{", r"\log T", "$$"):
        assert tex not in text, f"untypeset TeX {tex!r} in the PDF"


def test_mathematics_is_text(pages):
    text = "\n".join(pages)
    assert text.count("ε") > 500  # every budget, every d_ε: typeset as glyphs, extractable
    assert "inf" in text and "kl(" in text


def test_citations_and_bibliography(pages):
    text = _flat("\n".join(pages))
    assert "[Azize et al., 2025]" in text
    assert "arXiv:2505.05613" in text  # the paper's entry in the bibliography
    assert "Bibliography" in text


def test_widgets_replaced_by_figure_and_a_line(pages):
    text = _flat("\n".join(pages))
    widgets = sum("widget" in c.metadata.get("tags", []) for p in sorted((ROOT / "book").glob("*.ipynb"))
                  for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code")
    notice = "Interactive explorer: it needs a running Python kernel. Go live with make live"
    assert text.count(notice) >= widgets > 0


def test_every_figure_is_printed():
    figures = 0
    for p in sorted((ROOT / "book").glob("*.ipynb")):
        for c in nbformat.read(p, as_version=4).cells:
            tags = set(c.metadata.get("tags", []))
            if c.cell_type == "code" and not tags & {"remove-cell", "remove-output"} and \
                    any(line.startswith("fig = ") for line in c.source.splitlines()):
                figures += 1
    listing = _run("pdfimages", "-list", str(PDF))
    # the figures are colour images; the print stylesheet drops shadows, which Chromium would
    # otherwise rasterise into grey images of their own
    images = [ln.split() for ln in listing.splitlines()[2:]]
    images = [f for f in images if f[2:3] == ["image"]]
    assert not [f for f in images if f[5] == "gray"], "grey images: shadows rasterised?"
    assert len(images) >= figures > 0, (len(images), figures)
    assert "book-map" in (ROOT / "book" / "intro.md").read_text()


def test_two_pages_render_and_are_not_blank(pages, tmp_path):
    from PIL import Image

    (_, ch1), = _chapters()[:1]
    opening = f"1. {_flat(_title(ch1))[:25]}"
    first_chapter = next(i for i, p in enumerate(pages) if _flat(p).strip().startswith(opening)) + 1
    for page in (1, first_chapter):
        stem = tmp_path / f"page{page}"
        _run("pdftoppm", "-r", "40", "-png", "-singlefile", "-f", str(page), "-l", str(page), str(PDF),
             str(stem))
        img = Image.open(f"{stem}.png").convert("L")
        dark = sum(1 for v in img.getdata() if v < 200) / (img.width * img.height)
        assert img.width > 200 and img.height > 200
        assert dark > 0.01, f"page {page} is blank ({dark:.4f} of its pixels are dark)"
