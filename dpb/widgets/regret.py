"""Explorers of the upper-bound chapter.

Each explorer redraws a function of :mod:`dpb.plotting.regret` (the same one the chapter's static
figure calls) from the book's cached runs (:func:`dpb.chapters.regret.book_runs`): a configuration already
in the cache redraws in a fraction of a second, a new one is simulated once (a few seconds for
400 runs of horizon 1e8) and cached.  Inputs a plotting function refuses are shown as a message
(:func:`dpb.widgets.lower_bound.message_on_error`).
"""

from __future__ import annotations

import ipywidgets as W

from ..environments import instance_names
from ..plotting.regret import (
    plot_alpha_tradeoff,
    plot_convergence,
    plot_regret_distribution,
)
from ..chapters.regret import POLYNOMIAL
from .core import control, explorer
from .lower_bound import message_on_error

__all__ = [
    "EPS_OPTIONS",
    "ALPHA_OPTIONS",
    "HORIZON_OPTIONS",
    "convergence_explorer",
    "alpha_tradeoff_explorer",
    "distribution_explorer",
]

#: Privacy budgets offered by the explorers.
EPS_OPTIONS = (0.1, 0.25, 0.5, 1.0)
#: Batch schedules offered by the explorers: geometric ratios, and the polynomial schedule.
ALPHA_OPTIONS = (("1.1", 1.1), ("1.25", 1.25), ("1.5", 1.5), ("2", 2), ("3", 3), ("4", 4),
                 ("polynomial (m+1)³", POLYNOMIAL))
#: Horizons offered by the distribution explorer (grid points of the book's runs).
HORIZON_OPTIONS = (("1e3", 10**3), ("1e4", 10**4), ("1e5", 10**5), ("1e6", 10**6), ("1e7", 10**7),
                   ("1e8", 10**8))
_POLICIES = ("DP-IMED", "DP-KLUCB")


def _common(instance, eps, policy, alpha=None) -> dict:
    controls = {
        "instance": control("instance", W.Dropdown, options=instance_names(), value=instance,
                            description="environment", layout=W.Layout(width="190px")),
        "eps": control("eps", W.Dropdown, options=list(EPS_OPTIONS), value=eps, description="ε",
                       layout=W.Layout(width="110px")),
        "policy": control("policy", W.ToggleButtons, options=list(_POLICIES), value=policy,
                          style={"button_width": "85px"}),
    }
    if alpha is not None:
        controls["alpha"] = control("alpha", W.Dropdown, options=list(ALPHA_OPTIONS), value=alpha,
                                    description="batches α", layout=W.Layout(width="230px"))
    return controls


def convergence_explorer(instance: str = "mu2", eps: float = 0.25, alpha: float | str = 2,
                         policy: str = "DP-KLUCB", arm: int = 1) -> W.VBox:
    """Environment, ``eps``, schedule, policy, arm: ``N_i(t)/log t`` against ``t`` and both asymptotes."""
    controls = _common(instance, eps, policy, alpha)
    controls["arm"] = control("arm", W.BoundedIntText, value=arm, min=0, max=9, description="arm",
                              layout=W.Layout(width="110px"))
    return explorer(message_on_error(plot_convergence), controls,
                    "Normalised pulls N_i(t) / log t (400 runs, T = 1e8; a new setting is simulated once)")


def alpha_tradeoff_explorer(instance: str = "mu2", eps: float = 0.25, policy: str = "DP-KLUCB") -> W.VBox:
    """Environment, ``eps``, policy: ``Reg_T / log T`` against the batch ratio ``alpha`` at three horizons."""
    return explorer(message_on_error(plot_alpha_tradeoff), _common(instance, eps, policy),
                    "The α trade-off (six ratios; a new setting is simulated once, about 10 s)")


def distribution_explorer(instance: str = "mu2", eps: float = 0.25, alpha: float | str = 2,
                          policy: str = "DP-IMED", T: int = 10**8) -> W.VBox:
    """Environment, ``eps``, schedule, policy, horizon: histogram and quantile bands of ``Reg_T / log T``."""
    controls = _common(instance, eps, policy, alpha)
    controls["T"] = control("T", W.Dropdown, options=list(HORIZON_OPTIONS), value=T,
                            description="T", layout=W.Layout(width="120px"))
    return explorer(message_on_error(plot_regret_distribution), controls,
                    "The regret over runs: distribution at T and quantiles against t")
