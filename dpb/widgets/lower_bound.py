"""Explorers of the lower-bound chapter.

Each explorer redraws a function of :mod:`dpb.plotting.lower_bound` (the same one the chapter's
static figure calls).  Inputs the plotting functions refuse (for instance custom means that do not
parse, or a sub-optimal arm made optimal) are shown as a message in the output area instead of a
traceback: see :func:`message_on_error`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import ipywidgets as W
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from ..chapters.lower_bound import PULLING_RULES
from ..environments import instance_names
from ..plotting.lower_bound import (
    plot_coupled_hamming,
    plot_d_eps,
    plot_double_change,
    plot_lower_bound_constants,
)
from .core import control, eps_control, explorer, float_control, int_control

__all__ = [
    "parse_means",
    "message_on_error",
    "plot_environment_constants",
    "d_eps_explorer",
    "lower_bound_explorer",
    "double_change_explorer",
    "coupled_simulation_explorer",
]

#: The entry of the environment menu that reads the means from the text box.
CUSTOM = "custom"


def parse_means(text: str) -> list[float]:
    """Parse arm means typed as text: numbers separated by commas, semicolons or spaces.

    Brackets are ignored, so ``"[0.9, 0.5, 0.5]"``, ``"0.9 0.5 0.5"`` and ``"0.9; 0.5; 0.5"`` all give
    ``[0.9, 0.5, 0.5]``.

    Parameters
    ----------
    text : str
        The typed means.

    Returns
    -------
    list of float
        At least two means, each in [0, 1], not all equal.

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    ValueError
        If a token is not a number, a mean is outside [0, 1], fewer than two means are given, or all
        means are equal (no sub-optimal arm).
    """
    if not isinstance(text, str):
        raise TypeError(f"means must be typed as a string, got {type(text).__name__}")
    cleaned = text.replace("[", " ").replace("]", " ").replace("(", " ").replace(")", " ")
    tokens = [tok for tok in cleaned.replace(",", " ").replace(";", " ").split() if tok]
    means = []
    for tok in tokens:
        try:
            value = float(tok)
        except ValueError:
            raise ValueError(f"means: cannot read {tok!r} as a number") from None
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"means must each lie in [0, 1], got {value:g}")
        means.append(value)
    if len(means) < 2:
        raise ValueError(f"type at least two means, got {len(means)}")
    if max(means) == min(means):
        raise ValueError("all means are equal: there is no sub-optimal arm")
    return means


def message_on_error(plot: Callable[..., Figure]) -> Callable[..., Figure]:
    """Wrap a plotting function so that a ``ValueError``/``TypeError`` becomes a figure with the message.

    Live controls can reach inputs a plotting function refuses (a half-typed mean, ``mu2 >= mu1``);
    the explorer then shows the reason instead of a traceback, and records the exception in
    ``Explorer.last_error`` (:class:`dpb.widgets.core.Explorer`).
    """
    if not callable(plot):
        raise TypeError(f"plot must be a plotting function, got {type(plot).__name__} {plot!r}")

    @functools.wraps(plot)
    def wrapped(**values: Any) -> Figure:
        try:
            return plot(**values)
        except (ValueError, TypeError) as exc:
            fig, ax = plt.subplots(figsize=(8, 1.2))
            ax.axis("off")
            ax.text(0.0, 0.5, f"Cannot draw: {exc}", fontsize=11, va="center", color="#b00020")
            fig.dpb_error = exc  # type: ignore[attr-defined]  # (the explorer records it: Explorer.last_error)
            return fig

    return wrapped


def plot_environment_constants(instance: str = "mu2", custom_means: str = "0.9, 0.8, 0.6, 0.3") -> Figure:
    """Draw :func:`dpb.plotting.lower_bound.plot_lower_bound_constants` for a menu choice.

    ``instance`` is a name of the paper's environments, or ``"custom"`` to use ``custom_means`` parsed
    by :func:`parse_means`.
    """
    if not isinstance(custom_means, str):
        raise TypeError(f"custom_means must be a string, got {type(custom_means).__name__}")
    if not isinstance(instance, str):
        raise TypeError(f"instance must be an instance name or {CUSTOM!r}, got {instance!r}")
    env = parse_means(custom_means) if instance == CUSTOM else instance
    return plot_lower_bound_constants(env)


def d_eps_explorer(mu_a: float = 0.3, mu_star: float = 0.7, eps: float = 0.5) -> W.VBox:
    """Move ``mu_a``, ``mu*`` and ``eps``; see the objective defining ``d_eps``, its minimiser, the regime."""
    controls = {
        "mu_a": float_control("mu_a", mu_a, 0.01, 0.99, 0.01, "μ_a"),
        "mu_star": float_control("mu_star", mu_star, 0.01, 0.99, 0.01, "μ*"),
        "eps": eps_control(eps),
    }
    return explorer(message_on_error(plot_d_eps), controls, "The divergence d_ε and its two regimes")


def lower_bound_explorer(instance: str = "mu2", custom_means: str = "0.9, 0.8, 0.6, 0.3") -> W.VBox:
    """Pick one of the paper's environments or type means; see the three regret constants against ``eps``."""
    controls = {
        "instance": control("instance", W.Dropdown, options=[*instance_names(), CUSTOM],
                            value=instance, description="environment"),
        "custom_means": control("custom_means", W.Text, value=custom_means,
                                description="custom means", placeholder="e.g. 0.9, 0.8, 0.6, 0.3"),
    }
    return explorer(message_on_error(plot_environment_constants), controls,
                    "Regret lower bounds against ε (custom means: choose 'custom', type, press Enter)")


def double_change_explorer(mu2: float = 0.3, mu1: float = 0.7, eps: float = 0.5,
                           mu2_prime: float = 0.45) -> W.VBox:
    """Move the intermediate mean ``mu2'``; see the TV leg, the KL leg, their sum and the optimum."""
    controls = {
        "mu2_prime": float_control("mu2_prime", mu2_prime, 0.0, 1.0, 0.005, "intermediate μ₂'",
                                   readout_format=".3f"),
        "mu2": float_control("mu2", mu2, 0.01, 0.98, 0.01, "μ₂"),
        "mu1": float_control("mu1", mu1, 0.02, 0.99, 0.01, "μ₁"),
        "eps": eps_control(eps),
    }
    return explorer(message_on_error(plot_double_change), controls,
                    "The double change of environment: ν → ν' (TV leg) → ν'' (KL leg)")


def coupled_simulation_explorer(mu2: float = 0.3, mu2_prime: float = 0.5, mu1: float = 0.7,
                                policy: str = "random rate", horizon: int = 1000, seed: int = 0) -> W.VBox:
    """Simulate the coupled environment; see the Hamming distance of the reward lists against ``N_2 TV``."""
    controls = {
        "mu2_prime": float_control("mu2_prime", mu2_prime, 0.0, 1.0, 0.01, "μ₂'"),
        "mu2": float_control("mu2", mu2, 0.0, 1.0, 0.01, "μ₂"),
        "mu1": float_control("mu1", mu1, 0.0, 1.0, 0.01, "μ₁"),
        "policy": control("policy", W.Dropdown, options=list(PULLING_RULES), value=policy,
                          description="rule"),
        "horizon": int_control("horizon", horizon, 50, 3000, "T", step=50),
        "seed": control("seed", W.BoundedIntText, value=seed, min=0, max=10**9, description="seed",
                        layout=W.Layout(width="140px")),
    }
    return explorer(message_on_error(plot_coupled_hamming), controls,
                    "The coupled environment γ: Hamming distance between r and r'")
