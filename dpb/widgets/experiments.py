"""Explorer of the Experiments chapter: rerun the paper's comparison at any size, live."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import ipywidgets as W
from matplotlib.figure import Figure

from ..environments import instance_names
from ..experiments import ALGORITHMS
from ..plotting import experiments as pe
from ..plotting import new_figure
from .core import control, eps_control, explorer, int_control

__all__ = ["experiment_explorer", "live_figure"]

_HORIZONS = [("10^3", 1_000), ("10^4", 10_000), ("10^5", 100_000), ("10^6", 1_000_000)]


def live_figure(progress: Callable[[int, int], object] | None = None, **values: Any) -> Figure:
    """:func:`dpb.plotting.experiments.plot_live`, or a figure with the message of a bad input
    (e.g. unparsable custom means) instead of a traceback.  ``progress(done, total)`` is called
    after each algorithm (the explorer's progress bar)."""
    try:
        return pe.plot_live(progress=progress, **values)
    except (ValueError, TypeError) as exc:
        fig, ax = new_figure(1, width=8.0, height=1.2)
        ax.axis("off")
        ax.text(0.0, 0.5, f"Cannot simulate: {exc}", va="center", fontsize="medium", color="#d62728",
                wrap=True)
        return fig


def experiment_explorer(env: str = "mu2", means: str = "0.9, 0.8, 0.8", eps: float = 0.25, T: int = 100_000,
                        runs: int = 10, algorithms: Iterable[str] = ALGORITHMS) -> W.VBox:
    """Choose an instance (or custom means), eps, T, runs and algorithms; see the regret curves and
    the final-regret table of a fresh simulation.

    Redraws :func:`dpb.plotting.experiments.plot_live` (the paper's parameters for every
    algorithm) when the "Run" button is pressed, with a progress bar over the algorithms: a
    simulation takes seconds at the defaults (T = 1e5, 10 runs, six algorithms) and minutes at
    T = 1e6, where the per-step policies (Lazy-DP-TS, IMED) dominate the time.
    """
    if isinstance(algorithms, (str, bytes)) or not hasattr(algorithms, "__iter__"):
        raise TypeError(f"algorithms must be a sequence of policy names, got {algorithms!r}")
    if T not in [v for _, v in _HORIZONS]:
        raise ValueError(f"T must be one of {[v for _, v in _HORIZONS]}, got {T!r}")
    controls = {
        "env": control("env", W.Dropdown, options=[*instance_names(), "custom"], value=env,
                       description="instance"),
        "means": control("means", W.Text, value=means, description="custom means"),
        "eps": eps_control(eps, -2, 0.5),
        "T": control("T", W.Dropdown, options=_HORIZONS, value=T, description="T"),
        "runs": int_control("runs", runs, 2, 50, "runs"),
        "algorithms": control("algorithms", W.SelectMultiple, options=list(ALGORITHMS),
                              value=tuple(algorithms), rows=len(ALGORITHMS),
                              description="algorithms"),
    }
    return explorer(live_figure, controls, "The paper's comparison, simulated live (press Run)",
                    run_button=True)
