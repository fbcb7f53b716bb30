"""Shared figure conventions (sizes, colours) for every plot of the book."""

from __future__ import annotations

import matplotlib.pyplot as plt

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
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), constrained_layout=True, **kwargs)
    return fig, axes
