"""Shared figure conventions (sizes, colours) for every plot of the book."""

from __future__ import annotations

import matplotlib.pyplot as plt

from .._validate import as_int, as_real

#: colour of each concept, reused across chapters
COLORS = {
    "kl": "#1f77b4",
    "d_eps": "#d62728",
    "tv": "#2ca02c",
    "laplace": "#9467bd",
    "neighbour": "#ff7f0e",
    "band": "#bbbbbb",
}


def new_figure(ncols: int = 1, width: float = 5.0, height: float = 3.4, **kwargs):
    """Create a figure with ``ncols`` side-by-side axes in the book's style; returns (fig, axes)."""
    ncols = as_int("ncols", ncols, minimum=1, maximum=50)
    width = as_real("width", width, low=0.0, high=1000.0, low_open=True)  # inches
    height = as_real("height", height, low=0.0, high=1000.0, low_open=True)
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), constrained_layout=True, **kwargs)
    return fig, axes
