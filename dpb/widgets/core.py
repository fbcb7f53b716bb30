"""The one pattern every explorer uses: controls + an output area redrawn by a plotting function."""

from __future__ import annotations

import ipywidgets as W
import matplotlib.pyplot as plt
from IPython.display import display

__all__ = ["explorer"]


def explorer(plot, controls: dict, title: str | None = None) -> W.VBox:
    """Build a widget that calls ``plot(**values)`` and shows its figure whenever a control changes.

    Parameters
    ----------
    plot : callable
        A :mod:`dpb.plotting` function returning a matplotlib Figure.
    controls : dict
        Keyword name -> ipywidget (its ``value`` is passed to ``plot``).
    title : str, optional
        A line of text above the controls.
    """
    out = W.Output()

    def redraw(**values):
        with out:
            out.clear_output(wait=True)
            fig = plot(**values)
            display(fig)
            plt.close(fig)

    W.interactive_output(redraw, controls)
    box = [W.HBox(list(controls.values()), layout=W.Layout(flex_flow="row wrap")), out]
    if title:
        box.insert(0, W.HTML(f"<b>{title}</b>"))
    return W.VBox(box)
