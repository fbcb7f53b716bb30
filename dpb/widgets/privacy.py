"""Explorers of the privacy chapter: the audit, and the continual release of running sums."""

from __future__ import annotations

import ipywidgets as W

from ..audit import audit_policy_names
from ..plotting.privacy import plot_audit, plot_continual_release
from .core import control, eps_control, explorer, int_control

__all__ = ["audit_explorer", "continual_release_explorer"]



def audit_explorer(policy: str = "DP-IMED", eps: float = 1.0, runs: int = 2000, t_star: int = 1,
                   pattern: str = "ones") -> W.VBox:
    """Pick a policy (private or broken), eps, the number of runs and the neighbouring lists.

    Redraws :func:`dpb.plotting.privacy.plot_audit` (horizon 30, two arms): the trajectories on
    both lists and the audit's lower bound eps_lower against the claimed eps.  A redraw takes
    about a second at 2000 runs.
    """
    controls = {
        "policy": control("policy", W.Dropdown, options=audit_policy_names(), value=policy,
                          description="policy"),
        "eps": eps_control(eps, -1, 0.6),
        "runs": int_control("runs", runs, 200, 6000, "runs per list", step=200),
        "t_star": int_control("t_star", t_star, 1, 10, "changed step t*"),
        "pattern": control("pattern", W.Dropdown, options=["ones", "zeros", "alternate"],
                           value=pattern, description="base list"),
    }
    return explorer(plot_audit, controls, "Empirical privacy audit (View DP, two arms, T = 30)")


def continual_release_explorer(T: int = 24, t_star: int = 5, eps: float = 1.0, schedule: str = "doubling",
                               seed: int = 2) -> W.VBox:
    """Move the changed step, eps, the phase structure and the seed of the stream and noise.

    Redraws :func:`dpb.plotting.privacy.plot_continual_release`.
    """
    controls = {
        "T": int_control("T", T, 4, 64, "T"),
        "t_star": int_control("t_star", t_star, 1, 64, "changed step t*"),
        "eps": eps_control(eps, -1, 1),
        "schedule": control("schedule", W.Dropdown, options=["doubling", "constant", "steps"],
                            value=schedule, description="phases"),
        "seed": int_control("seed", seed, 0, 50, "seed"),
    }

    def plot(T, t_star, eps, schedule, seed):
        return plot_continual_release(T=T, t_star=min(t_star, T), eps=eps, schedule=schedule, seed=seed)

    plot.__doc__ = plot_continual_release.__doc__
    return explorer(plot, controls, "Continual release of noisy running sums")
