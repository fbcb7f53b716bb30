"""Draw the one-figure map of the book that the introduction shows (``book/_static/book-map.svg``).

    python scripts/book_map.py [--out book/_static/book-map.svg]

Matplotlib only, no network: the figure is committed, and ``tests/test_book_map.py`` checks that it
names every chapter of ``_toc.yml`` and that this script redraws the same boxes and arrows.  Rerun
it after changing :data:`CHAPTERS` or :data:`ARROWS`, and commit the result.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "book" / "_static" / "book-map.svg"

#: the chapters: number, file (as in _toc.yml), two lines of text, position (x, y) on the map
CHAPTERS = [
    (1, "ch01_background", "Background", "bandits, regret, DP", (0.0, 1.0)),
    (2, "ch02_lower_bound", "Lower bound", r"$C_\varepsilon(\mu)\log T$, divergence $d_\varepsilon$",
     (1.2, 1.6)),
    (3, "ch03_concentration", "Private Chernoff bound", r"rate $d_\varepsilon$, few noises", (1.2, 0.4)),
    (4, "ch04_algorithms", "DP-KLUCB, DP-IMED", "batches, no forgetting", (2.4, 1.0)),
    (5, "ch05_privacy", "Privacy", "proof, game, audit", (3.6, 1.6)),
    (6, "ch06_regret", "Upper bound", r"within $\alpha$ of the lower bound", (3.6, 0.4)),
    (7, "ch07_experiments", "Experiments", "the paper's claims, rerun", (4.8, 1.0)),
]
#: what each chapter uses: (from, to, what travels along the arrow)
ARROWS = [
    (1, 2, ""), (1, 3, ""), (2, 3, r"$d_\varepsilon$"), (3, 4, "index"),
    (4, 5, ""), (4, 6, ""), (3, 6, "concentration"), (6, 7, ""), (4, 7, ""),
]
#: the pages beside the chapters (text only, under the map)
BESIDE = ("Using dpb for research: your own instances, policies and experiments  ·  "
          "Appendices: algorithms as run, speed")


def draw():
    """The map as a matplotlib figure (boxes for the chapters, arrows for what each one uses)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    w, h = 1.08, 0.5
    fig, ax = plt.subplots(figsize=(10.4, 3.6))
    ax.set_xlim(-0.55, 5.35)
    ax.set_ylim(-0.25, 2.0)
    ax.axis("off")
    pos = {}
    for n, _, title, sub, (x, y) in CHAPTERS:
        pos[n] = (x, y)
        ax.add_patch(FancyBboxPatch((x - w / 2, y - h / 2), w, h,
                                    boxstyle="round,pad=0.02,rounding_size=0.06",
                                    fc="#eef3fa" if n != 7 else "#f3f3f3", ec="#393b79", lw=1.2))
        ax.text(x, y + 0.08, f"{n}. {title}", ha="center", va="center", fontsize=8.5, weight="bold")
        ax.text(x, y - 0.11, sub, ha="center", va="center", fontsize=7)
    for a, b, what in ARROWS:
        (x0, y0), (x1, y1) = pos[a], pos[b]
        if x0 == x1:  # same column: from the bottom of one box to the top of the other
            start, end = (x0, y0 - h / 2 * (1 if y1 < y0 else -1)), (x1, y1 + h / 2 * (1 if y1 < y0 else -1))
        else:
            start, end = (x0 + w / 2, y0), (x1 - w / 2, y1)
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=11, color="#555555", lw=1.0,
                                     shrinkA=2, shrinkB=2))
        if what:
            dx = 0.03 if x0 == x1 or y0 == y1 else -0.06  # beside a vertical or slanted arrow
            ax.text((start[0] + end[0]) / 2 + dx, (start[1] + end[1]) / 2 + 0.04, what, fontsize=7.5,
                    color="#444444", ha="left" if x0 == x1 else ("center" if y0 == y1 else "right"))
    ax.text(2.4, -0.15, BESIDE, ha="center", va="center", fontsize=8, color="#444444")
    fig.tight_layout(pad=0.2)
    return fig


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "dpb-book-map"  # the same file on every run
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text (searchable in the PDF)
    fig = draw()
    a.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(a.out, format="svg", metadata={"Date": None})
    print(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
