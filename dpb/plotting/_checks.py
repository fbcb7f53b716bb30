"""Figures that a reader can read: no two pieces of text of a figure overlap, none is clipped.

:func:`check_text_overlap` lays a figure out as it will be drawn and compares the boxes of all
its visible texts -- tick labels (only those of ticks that are drawn), axis labels, offset texts
(``1e6``), titles, legend entries and titles, annotations, figure texts and table cells.  Two
boxes overlap when they intersect by more than :data:`TOLERANCE` pixels in both directions (at the
figure's own dpi); then it raises :class:`FigureTextOverlapError` naming both texts.  A text that
runs off the figure's edge by more than the same tolerance (a clipped title) is refused alike.

The tests run this check on the figure of every public ``plot_*`` function of ``dpb.plotting``
(``tests/test_figure_text.py``: at its defaults, or on small results), and ``dpb run`` on the figures
it saves; a reader's own call of a plotting function returns its figure unchecked.
"""

from __future__ import annotations

from matplotlib.figure import Figure, SubFigure
from matplotlib.legend import Legend
from matplotlib.text import Text

__all__ = ["FigureTextOverlapError", "check_text_overlap", "CLIPPED"]

#: how far (pixels at the figure's dpi) two text boxes may run into each other in both directions
#: before they count as overlapping: glyph boxes include the font's full ascent and descent, so
#: boxes of two stacked lines of text that do not touch on the page can share a pixel.
TOLERANCE = 1.0


class FigureTextOverlapError(ValueError):
    """Two texts of a figure overlap (the figure would be printed with text over text)."""


def _axes_texts(ax, name: str):
    """(text, where) of one axes: drawn tick labels, axis labels, titles, texts, legends, tables."""
    for axis_name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
        if axis.get_visible():
            for tick in axis._update_ticks():  # only the ticks inside the view limits are drawn
                yield from ((lab, f"{name} {axis_name}-axis") for lab in (tick.label1, tick.label2)
                            if lab.get_visible())
            yield from ((t, f"{name} {axis_name}-axis") for t in (axis.label, axis.offsetText))
    yield from ((t, f"{name} title") for t in (ax.title, ax._left_title, ax._right_title))
    yield from ((t, f"{name} text") for t in ax.texts)
    for child in ax.get_children():
        if isinstance(child, Legend):
            yield from ((t, f"{name} legend") for t in [*child.get_texts(), child.get_title()])
        elif isinstance(child, Text):
            yield child, f"{name} text"
        elif hasattr(child, "get_celld"):  # a matplotlib Table
            yield from ((cell.get_text(), f"{name} table") for cell in child.get_celld().values())


def _figure_texts(f):
    """(text, where) of one figure or subfigure: texts, legends, super title and labels."""
    yield from ((t, "figure text") for t in f.texts)
    for legend in f.legends:
        yield from ((t, "figure legend") for t in [*legend.get_texts(), legend.get_title()])
    for attr in ("_suptitle", "_supxlabel", "_supylabel"):
        if getattr(f, attr, None) is not None:
            yield getattr(f, attr), "figure title"


def _texts(fig: Figure) -> list[tuple[Text, str]]:
    """Every visible, non-empty text of ``fig`` with a short description of where it is."""
    figures = [fig, *fig.subfigs] if isinstance(fig, Figure) else [fig]
    candidates = [pair for i, ax in enumerate(fig.get_axes()) if ax.get_visible()
                  for pair in _axes_texts(ax, f"axes {i}")]
    candidates += [pair for f in figures for pair in _figure_texts(f)]
    found: list[tuple[Text, str]] = []
    seen: set[int] = set()
    for text, where in candidates:
        if id(text) not in seen and text.get_visible() and text.get_text().strip():
            seen.add(id(text))
            found.append((text, where))
    return found


#: What :func:`check_text_overlap` refuses when it runs off the figure's edge: titles only (the
#: default: a notebook shows the figure's tight bounding box, so a tick label past the edge is
#: still seen, a title cut by the layout is not), every text (a file saved as laid out, e.g. the
#: figures of ``dpb run``), or nothing.
CLIPPED = ("titles", "all", "none")


def _is_title(where: str) -> bool:
    return where.endswith("title")


def check_text_overlap(fig: Figure, *, tolerance: float = TOLERANCE, clipped: str = "titles") -> Figure:
    """Raise :class:`FigureTextOverlapError` when two texts of ``fig`` overlap; return ``fig``.

    The figure is laid out as it will be drawn (``Figure.draw_without_rendering``: constrained or
    tight layout included, no pixels rendered), then the window extent of every visible text is
    compared with every other: boxes ``a`` and ``b`` overlap when
    ``min(a.x1, b.x1) - max(a.x0, b.x0) > tolerance`` and the same holds for ``y``; a box
    reaching more than ``tolerance`` pixels beyond the figure's edge is clipped on the page and
    refused too: a title by default, any text with ``clipped="all"`` (see ``CLIPPED``).
    """
    if not isinstance(fig, (Figure, SubFigure)):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    tolerance = float(tolerance)
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0 pixels, got {tolerance}")
    if clipped not in CLIPPED:
        raise ValueError(f"clipped must be one of {', '.join(CLIPPED)}, got {clipped!r}")
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    boxes = []
    clashes = []
    page = fig.bbox if isinstance(fig, Figure) else fig.figure.bbox
    for text, where in _texts(fig):
        box = text.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            boxes.append((box, text.get_text().strip(), where))
            out = max(page.x0 - box.x0, box.x1 - page.x1, page.y0 - box.y0, box.y1 - page.y1)
            # cut at the figure's edge: a clipped title reads as wrong as an overprint
            if out > tolerance and (clipped == "all" or (clipped == "titles" and _is_title(where))):
                clashes.append(f"{text.get_text().strip()!r} ({where}) runs off the figure by {out:.0f} px")
    for i, (a, ta, wa) in enumerate(boxes):
        for b, tb, wb in boxes[i + 1:]:
            dx = min(a.x1, b.x1) - max(a.x0, b.x0)
            dy = min(a.y1, b.y1) - max(a.y0, b.y0)
            if dx > tolerance and dy > tolerance:
                clashes.append(f"{ta!r} ({wa}) and {tb!r} ({wb}) overlap by "
                               f"{dx:.0f} x {dy:.0f} px")
    if clashes:
        more = f" (and {len(clashes) - 3} more)" if len(clashes) > 3 else ""
        raise FigureTextOverlapError("the figure prints text over text: "
                                     + "; ".join(clashes[:3]) + more)
    return fig
