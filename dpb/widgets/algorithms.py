"""Explorers of the Algorithms chapter: a run phase by phase, forgetting, batch schedules."""

from __future__ import annotations

import ipywidgets as W

from .._validate import as_int
from ..environments import instance_names
from ..chapters.algorithms import trace_for
from ..plotting.algorithms import plot_forgetting, plot_schedules, plot_trace_phase
from ..policies import POLICIES
from .core import control, explorer, float_control, int_control

__all__ = ["trace_explorer", "forgetting_explorer", "schedule_explorer"]

#: horizons offered by the step-through (per-step policies record one phase per round)
_T_CHOICES = (500, 1000, 2000, 5000, 10_000)
#: privacy budgets offered by the sliders (exact values, so that the default run is the static one)
_EPS_CHOICES = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def trace_explorer(policy: str = "DP-IMED", env: str = "mu2", eps: float = 0.25, seed: int = 0,
                   phase: int = 25, T: int = 2000) -> W.VBox:
    """Step through one run of a policy, phase by phase (a slider and previous/next buttons).

    Redraws :func:`dpb.plotting.algorithms.plot_trace_phase`.  Changing the policy, environment,
    eps, seed or horizon re-runs :func:`dpb.chapters.algorithms.trace_for` (cached) and resets the
    range of the phase slider to the new run's phases.
    """
    if T not in _T_CHOICES:
        raise ValueError(f"T must be one of {_T_CHOICES}, got {T!r}")
    if eps not in _EPS_CHOICES:
        raise ValueError(f"eps must be one of {_EPS_CHOICES}, got {eps!r}")
    n_phases = len(trace_for(policy, env, eps, seed, T))
    phase = min(as_int("phase", phase, minimum=0), n_phases - 1)  # past the run: its last phase
    controls = {
        "policy": control("policy", W.Dropdown, options=list(POLICIES), value=policy,
                          description="policy"),
        "env": control("env", W.Dropdown, options=instance_names(), value=env,
                       description="environment"),
        "eps": control("eps", W.SelectionSlider, options=_EPS_CHOICES, value=eps, description="ε"),
        "seed": control("seed", W.BoundedIntText, value=seed, min=0, max=10**6, description="seed",
                        layout=W.Layout(width="150px")),
        "T": control("T", W.Dropdown, options=_T_CHOICES, value=T, description="horizon T"),
        "phase": int_control("phase", phase, 0, n_phases - 1, "phase"),
    }
    slider = controls["phase"]

    run_keys = ("policy", "env", "eps", "seed", "T")  # the run; the phase only moves along it

    def rerun(_change=None) -> None:
        slider.max = len(trace_for(**{k: controls[k].value for k in run_keys})) - 1

    for key in run_keys:
        controls[key].observe(rerun, names="value")

    prev_btn = W.Button(description="◀ previous phase")
    next_btn = W.Button(description="next phase ▶")

    def step(delta: int):
        def go(_button) -> None:
            slider.value = min(max(slider.value + delta, slider.min), slider.max)

        return go

    prev_btn.on_click(step(-1))
    next_btn.on_click(step(+1))
    box = explorer(plot_trace_phase, controls, "One run, phase by phase")
    box.children = (*box.children[:2], W.HBox([prev_btn, next_btn]), *box.children[2:])
    return box


def forgetting_explorer(n0: int = 1, alpha: float = 2.0, eps: float = 0.25, mu: float = 0.5,
                        x: float = 0.6) -> W.VBox:
    """Move the schedule, eps, the arm's mean and a threshold; compare accumulating with forgetting.

    Redraws :func:`dpb.plotting.algorithms.plot_forgetting` (noise standard deviation of the
    private mean, exact and simulated, and the exact tail of the private mean for both designs).
    A threshold ``x`` below ``mu`` is moved to ``mu``.
    """
    if eps not in _EPS_CHOICES:
        raise ValueError(f"eps must be one of {_EPS_CHOICES}, got {eps!r}")
    controls = {
        "n0": int_control("n0", n0, 1, 20, "first batch n0"),
        "alpha": float_control("alpha", alpha, 1.1, 4.0, 0.1, "ratio α"),
        "eps": control("eps", W.SelectionSlider, options=_EPS_CHOICES, value=eps, description="ε"),
        "mu": float_control("mu", mu, 0.05, 0.9, 0.05, "mean μ"),
        "x": float_control("x", x, 0.05, 1.0, 0.01, "threshold x"),
    }

    def plot(n0, alpha, eps, mu, x):
        # slider floats such as 1.2000000000000002 are rounded to the decimal they stand for
        return plot_forgetting(n0=n0, alpha=round(alpha, 6), eps=eps, mu=mu, x=max(x, mu))

    return explorer(plot, controls, "Accumulating vs forgetting the phase sums")


def schedule_explorer(n0: int = 1, alpha: float = 1.1, power: float = 2.0) -> W.VBox:
    """Move n0, the geometric ratio and the polynomial power; see batches and Laplace draws per arm.

    Redraws :func:`dpb.plotting.algorithms.plot_schedules`.
    """
    controls = {
        "n0": int_control("n0", n0, 1, 50, "first batch n0"),
        "alpha": float_control("alpha", alpha, 1.05, 4.0, 0.05, "ratio α"),
        "power": float_control("power", power, 0.5, 4.0, 0.5, "power p"),
    }
    def plot(n0, alpha, power):
        return plot_schedules(n0=n0, alpha=round(alpha, 6), power=round(power, 6))

    return explorer(plot, controls, "Batch schedules: geometric, doubling, polynomial")
