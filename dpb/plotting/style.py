"""Shared figure conventions: sizes, and the book's one palette.

One colour per meaning, for algorithms *and* concepts, read by every plotting module through
:func:`color`:

* an **algorithm**'s colour is its registered style (:func:`dpb.policies.registry.policy_style`),
  the same in every chapter: DP-KLUCB blue, DP-IMED red, AdaP-KLUCB orange, ...;
* a **concept**'s colour is :data:`PALETTE` (kl, d_ε, ε·TV, accumulating and forgetting, the
  lower and upper bounds, a simulation's mean and median, ...). The concepts that sit next to
  algorithms in the same chapters (accumulate, forget, ε·TV, the regret terms) have colours no
  algorithm has;
* the levels of an ordered series (arm 1, 2, ...; the batch ratios α; the horizons T) take
  :func:`series_color`, a sequential scale of its own, fixed per level so that arm 2 is the same
  colour in chapter 4 and chapter 6.

``tests/test_palette.py`` draws every figure of the chapters and checks that a meaning has one
colour in the whole book and a colour one meaning within a chapter.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt

from .._validate import as_int, as_real

__all__ = ["PALETTE", "SERIES", "color", "series_color", "new_figure"]

#: colour of each concept (not algorithm: see :func:`color`), the same in every chapter
PALETTE = {
    # the divergences and their pieces (chapters 1-3)
    "kl": "#1f77b4",
    "d_eps": "#d62728",
    "eps*TV": "#009e73",
    "Pinsker": "#17becf",
    "Hoeffding": "#bcbd22",
    "separate bound": "#8c564b",
    "private Chernoff bound": "#9467bd",
    "Monte Carlo": "#ff7f0e",
    "exact": "#000000",
    "earlier bound": "#8c564b",
    "binned mean": "#e6550d",
    "pooled estimate": "#17becf",
    # privacy (chapters 1, 5)
    "Laplace noise": "#9467bd",
    "list": "#525252",
    "neighbouring list": "#e6550d",
    "refutes the claim": "#d62728",
    "p-value": "#9467bd",
    "audit lower bound": "#8c564b",
    # accumulating against forgetting (chapters 4, 5): colours no algorithm has
    "accumulate": "#17becf",
    "forget": "#e6ab02",
    # batch schedules (chapter 4)
    "geometric": "#009e73",
    "doubling": "#6a3d9a",
    "polynomial": "#bcbd22",
    # bounds, bands and the two terms of the regret (chapters 2, 3, 6)
    "lower bound": "#969696",
    "upper bound": "#222222",
    "band": "#cccccc",
    "pre-convergence (A)": "#e6ab02",
    "post-convergence (B)": "#1b9e77",
    "played": "#d62728",
    "neutral": "#000000",
    "reference": "#777777",
}
#: the book's spelling of the concepts the figures label (for :func:`color`)
_ALIASES = {"tv": "eps*TV", "eps_tv": "eps*TV", "laplace": "Laplace noise",
            "neighbour": "neighbouring list",
            "mc": "Monte Carlo", "separate": "separate bound", "lower": "lower bound", "upper": "upper bound",
            "pre": "pre-convergence (A)", "post": "post-convergence (B)", "chernoff": "kl",
            "private": "d_eps"}
#: the colours of an ordered series (arms, ratios, horizons): dark hues no algorithm or concept has
SERIES = ("#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#5254a3", "#8ca252", "#bd9e39")
#: kept for code written against the old name: the concept colours
COLORS = {"kl": PALETTE["kl"], "d_eps": PALETTE["d_eps"], "tv": PALETTE["eps*TV"],
          "laplace": PALETTE["Laplace noise"], "neighbour": PALETTE["neighbouring list"],
          "band": PALETTE["band"]}


def color(meaning: str) -> str:
    """The colour of ``meaning``: a registered algorithm's name, or a concept of :data:`PALETTE`.

    Raises
    ------
    ValueError
        If ``meaning`` is neither (the message lists the concepts).
    """
    if not isinstance(meaning, str):
        raise TypeError(f"meaning must be a str (an algorithm or a concept), got {type(meaning).__name__}")
    key = _ALIASES.get(meaning, meaning)
    if key in PALETTE:
        return PALETTE[key]
    from ..policies.registry import policy_style, registered

    if meaning in registered():
        return policy_style(meaning)["color"]
    raise ValueError(f"no colour for {meaning!r}: meaning must be a registered algorithm "
                     f"({', '.join(registered())}) or a concept of the palette ({', '.join(PALETTE)})")


def series_color(level: int) -> str:
    """Colour of the ``level``-th member (0-based) of an ordered series: arms, ratios α, horizons T."""
    level = as_int("level", level, minimum=0, maximum=10**6)
    return SERIES[level % len(SERIES)]


def new_figure(ncols: int = 1, width: float = 5.0, height: float = 3.4, **kwargs: Any) -> Any:
    """Create a figure with ``ncols`` side-by-side axes in the book's style; returns (fig, axes)."""
    ncols = as_int("ncols", ncols, minimum=1, maximum=50)
    width = as_real("width", width, low=0.0, high=1000.0, low_open=True)  # inches
    height = as_real("height", height, low=0.0, high=1000.0, low_open=True)
    fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, height), constrained_layout=True, **kwargs)
    return fig, axes
