"""Explorers of the Background chapter."""

from __future__ import annotations

import ipywidgets as W

from ..plotting.background import plot_kl, plot_laplace_mechanism
from .core import control, eps_control, explorer, float_control

__all__ = ["laplace_explorer", "kl_explorer"]



def laplace_explorer(eps: float = 1.0, s: float = 3.0, s_prime: float = 4.0) -> W.VBox:
    """Move eps and two sums; see the output densities and their log ratio against [-eps, eps].

    Redraws :func:`dpb.plotting.background.plot_laplace_mechanism`; sums more than 1 apart are
    not neighbours, and the figure then shows the group-privacy bound instead.
    """
    controls = {
        "eps": eps_control(eps),
        "s": float_control("s", s, 0, 10, 0.5, "sum S"),
        "s_prime": float_control("s_prime", s_prime, 0, 10, 0.5, "sum S'"),
    }
    return explorer(plot_laplace_mechanism, controls, "Laplace mechanism on two sums")


def kl_explorer(p: float = 0.1, c: float = 0.1, eps: float = 1.0) -> W.VBox:
    """Move the empirical mean p, the level c and eps; see kl(p, ·), eps·TV and the KL-UCB index.

    Redraws :func:`dpb.plotting.background.plot_kl`.
    """
    controls = {
        "p": float_control("p", p, 0.0, 1.0, 0.01, "p"),
        "c": control("c", W.FloatLogSlider, value=c, base=10, min=-3, max=0.5, step=0.05,
                     description="level c"),
        "eps": eps_control(eps),
    }
    return explorer(plot_kl, controls, "Bernoulli kl, the KL-UCB index and ε·TV")
