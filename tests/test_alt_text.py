"""Alt text of the book's figures (scripts/site/dpb_site.py): what the figure shows, not its path."""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "site"))
import dpb_site  # noqa: E402


def _page(*paragraphs, alt=None):
    section = nodes.section()
    section += nodes.title(text="The lower bound")
    for p in paragraphs:
        para = nodes.paragraph()
        for part in p:
            para += nodes.math(text=part[1:-1]) if part.startswith("$") else nodes.Text(part)
        section += para
    cell = nodes.container(classes=["cell"])
    output = nodes.container(classes=["cell_output"])
    image = nodes.image(uri="../_images/abc.png", **({"alt": alt} if alt else {}))
    output += image
    cell += output
    section += cell
    doc = nodes.document(None, None)
    doc += section
    return doc, image


def test_alt_text_is_the_description_before_the_figure_with_plain_math():
    doc, image = _page(["An unrelated remark about proofs."],
                       ["Left: ", "$d_\\varepsilon(\\mu_a, \\mu^\\star)$", " against ", "$z$",
                        "; right: the threshold ", "$\\varepsilon^\\star \\approx 1.69$", "."],
                       ["The figure below shows its default parameters."])
    dpb_site._alt_texts(None, doc, "ch02")
    alt = image["alt"]
    assert alt.startswith("Figure (The lower bound): ")
    assert "Left: dε(μa, μ*) against z; right: the threshold ε* ≈ 1.69." in alt, alt
    assert "_images" not in alt and "\\" not in alt


def test_own_alt_text_is_kept_and_long_text_is_cut_at_a_sentence():
    doc, image = _page(["Some text."], alt="Two curves of the divergence")
    dpb_site._alt_texts(None, doc, "x")
    assert image["alt"] == "Two curves of the divergence"
    doc, image = _page(["The figure shows a curve. " * 40])
    dpb_site._alt_texts(None, doc, "x")
    assert len(image["alt"]) < 420 and image["alt"].endswith("curve."), image["alt"]


def test_plain_math():
    assert dpb_site.plain_math(r"\mathrm{kl}(\mu_a, \mu^\star)") == "kl(μa, μ*)"
    assert dpb_site.plain_math(r"\log T / \text{cost}") == "log T / cost"
    assert dpb_site.plain_math(r"10^{-3}") == "10^-3"
    assert dpb_site.plain_math(r"q \mapsto \mathrm{kl}(p, q)") == "q ↦ kl(p, q)"
    assert dpb_site.plain_math(r"e^{\pm\varepsilon}") == "e^±ε"
    assert dpb_site.plain_math(r"\varepsilon\lvert z - \mu_a\rvert") == "ε| z - μa|"
    assert dpb_site.plain_math(r"p \sim \mathrm{Unif}[0, 1]") == "p ~ Unif[0, 1]"


def _figure_cells(nb):
    """(index, own alt text or None) of the code cells whose figure appears on the page; a markdown
    cell in between resets the run (the text before a figure describes it)."""
    run = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "markdown":
            yield run
            run = []
            continue
        tags = cell["metadata"].get("tags", [])
        plain = ["".join(o.get("data", {}).get("text/plain", [])) for o in cell.get("outputs", [])]
        if any(p.startswith("<Figure") for p in plain) and not {"remove-output", "remove-cell"} & set(tags):
            run.append((i, cell["metadata"].get("mystnb", {}).get("image", {}).get("alt")))
    yield run


def test_figures_without_prose_between_them_have_their_own_alt_text():
    """Figures of consecutive code cells would get the same description from the prose before the
    first of them: from the second on, each carries its own (cell metadata mystnb.image.alt)."""
    import json

    book = Path(__file__).resolve().parents[1] / "book"
    shared, texts = [], {}
    for path in sorted(book.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for run in _figure_cells(nb):
            shared += [f"{path.name} cell {i}" for i, alt in run[1:] if not alt]
            for i, alt in run:
                if alt:
                    assert alt not in texts, f"{path.name} cell {i} repeats the alt text of {texts[alt]}"
                    texts[alt] = f"{path.name} cell {i}"
    assert not shared, f"figures that would share the alt text of the figure before them: {shared}"
