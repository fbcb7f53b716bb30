"""Explorers of the Concentration chapter: the private sum's tail and its exponent."""

from __future__ import annotations

import ipywidgets as W

from ..chapters.concentration import M_RULES
from ..plotting.concentration import plot_tail_bounds, plot_tail_exponent
from .core import control, eps_control, explorer, float_control, int_control

__all__ = ["tail_explorer", "exponent_explorer"]

#: sample sizes offered by the tail explorer (the exact tail costs O(n m) per threshold)
_N_CHOICES = (20, 50, 100, 200, 500, 1000, 2000)


def tail_explorer(n: int = 1000, m: int = 7, eps: float = 0.25, mu: float = 0.5, x: float = 0.7) -> W.VBox:
    """Move n, m, eps, mu and a threshold x; see the exact tail of the private sum against the bounds.

    Redraws :func:`dpb.plotting.concentration.plot_tail_bounds` (exact tail, Monte Carlo with a fixed
    seed and 20000 runs, private Chernoff, separate and noise-free Chernoff bounds; and the terms of
    the convolution at ``x``).
    """
    if n not in _N_CHOICES:
        raise ValueError(f"n must be one of {_N_CHOICES}, got {n!r}")
    controls = {
        "n": control("n", W.SelectionSlider, options=_N_CHOICES, value=n, description="samples n"),
        "m": int_control("m", m, 0, 20, "noises m"),
        "eps": eps_control(eps),
        "mu": float_control("mu", mu, 0.05, 0.95, 0.05, "mean μ"),
        "x": float_control("x", x, 0.05, 1.0, 0.01, "threshold x"),
    }
    return explorer(plot_tail_bounds, controls, "Tail of the private sum: exact, simulated and bounded")


def exponent_explorer(x: float = 0.9, mu: float = 0.5, eps: float = 0.25, m_rule: str = "log n") -> W.VBox:
    """Move x, mu, eps and the growth of m; see -(1/n) log P approach d_eps(x, mu) rather than kl(x, mu).

    Redraws :func:`dpb.plotting.concentration.plot_tail_exponent`.  A threshold ``x`` below ``mu``
    is moved to ``mu`` (the upper tail is shown).
    """
    controls = {
        "x": float_control("x", x, 0.05, 1.0, 0.01, "threshold x"),
        "mu": float_control("mu", mu, 0.05, 0.95, 0.05, "mean μ"),
        "eps": eps_control(eps),
        "m_rule": control("m_rule", W.Dropdown, options=M_RULES, value=m_rule,
                          description="m grows like"),
    }
    return explorer(plot_tail_exponent, controls, "Exponent of the private tail against n")
