"""Digests of a handful of results, to check that a refactoring keeps every number bit for bit.

``python benchmarks/same_numbers.py`` prints one line ``label sha256`` per result: cells of the
paper's scale (Figure 1, the appendix, the eps-sweep) split into several run ranges, the generic
engine (``fast=False``), the Python engine, a teaching trace, the decomposed runs of chapter 6 and
the transcripts of :mod:`dpb.interaction`.  Run it with two versions of the package on
``PYTHONPATH`` and compare the outputs (``diff``); ``tests/test_same_numbers.py`` holds the digests
that ``main`` printed before the split of ``dpb/simulate.py`` and checks the cheap ones.
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np


def digest(*arrays) -> str:
    """SHA-256 of the bytes, dtypes and shapes of ``arrays``."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def result_digest(res) -> str:
    return digest(res.run_ids, res.checkpoints, res.log_grid, res.linear_grid, res.regret, res.pulls,
                  res.n_phases, res.laplace_draws)


def paper_cases():
    """(label, thunk) of cells at the paper's scale: one policy each, two or three run splits."""
    import dpb
    from dpb.experiments import DEFAULT_SEED, appendix, eps_sweep, figure1

    fig1, app, sweep = figure1(), appendix(), eps_sweep()
    picks = [(fig1, "mu1", 0.25, "DP-SE"), (fig1, "mu2", 0.25, "AdaP-KLUCB"), (fig1, "mu1", 0.25, "DP-KLUCB"),
             (fig1, "mu2", 0.25, "DP-IMED"), (fig1, "mu1", 0.25, "IMED"), (fig1, "mu2", 0.25, "Lazy-DP-TS"),
             (app, "mu3", 0.01, "DP-IMED"), (app, "mu4", 1.0, "DP-KLUCB"), (app, "mu3", 0.1, "Lazy-DP-TS")]
    cells = []
    for exp, env, eps, policy in picks:
        cells += [c for s in exp.settings if (s.env, s.eps) == (env, eps)
                  for c in s.cells if c.policy == policy]
    cells.append(sweep.settings[37].cells[0])
    for cell in cells:
        for ids in ([0, 1, 2], [3], [17, 19]):
            label = f"{cell.policy}/{cell.env}/eps={cell.eps}/T={cell.T:.0e}/runs={ids}"

            def thunk(cell=cell, ids=ids):
                return result_digest(dpb.simulate(cell.policy, cell.bandit(), cell.T,
                                                  seed=cell.seed_sequence(DEFAULT_SEED), params=cell.params,
                                                  run_ids=ids, max_seconds=None))
            yield label, thunk


def small_cases():
    """(label, thunk) of cheap results: every engine and simulator that draws."""
    import dpb
    from dpb import interaction, regret

    def sim(policy, env, T, **kw):
        return lambda: result_digest(dpb.simulate(policy, env, T, max_seconds=None, **kw))

    yield "DP-SE/mu1/1e5/fast", sim("DP-SE", "mu1", 10**5, runs=3, seed=5, eps=0.5)
    yield "AdaP-KLUCB/mu2/1e5/phases", sim("AdaP-KLUCB", "mu2", 10**5, runs=2, seed=6, eps=0.5, fast=False)
    yield "DP-KLUCB/mu3/1e5/phases", sim("DP-KLUCB", "mu3", 10**5, runs=3, seed=7, eps=0.1, fast=False)
    yield "DP-KLUCB/mu3/1e5/fast", sim("DP-KLUCB", "mu3", 10**5, runs=3, seed=7, eps=0.1)
    yield "DP-IMED/mu1/1e5/python", sim("DP-IMED", "mu1", 10**5, run_ids=[4, 2], seed=8, eps=1.0,
                                        engine="python")
    yield "DP-IMED/mu1/1e5/phases", sim("DP-IMED", "mu1", 10**5, run_ids=[4, 2], seed=8, eps=1.0, fast=False)
    yield "IMED/mu2/1e5/python", sim("IMED", "mu2", 10**5, runs=2, seed=9, engine="python")
    yield "IMED/mu2/2e3/phases", sim("IMED", "mu2", 2000, runs=2, seed=9, fast=False)
    yield "KL-UCB/mu4/1e5", sim("KL-UCB", "mu4", 10**5, runs=2, seed=10)
    yield "Lazy-DP-TS/mu2/1e4", sim("Lazy-DP-TS", "mu2", 10**4, runs=2, seed=11, eps=0.5)
    yield "Lazy-DP-TS/mu2/2e3/phases", sim("Lazy-DP-TS", "mu2", 2000, runs=2, seed=11, eps=0.5, fast=False)
    yield "DP-IMED/seed=Generator", sim("DP-IMED", "mu2", 10**4, runs=2, seed=np.random.default_rng(3),
                                        eps=0.25, checkpoints=17)

    def trace():
        tr = dpb.simulate.simulate_trace("DP-KLUCB", "mu2", 3000, seed=4, eps=0.5, run_id=2)
        tab = tr.table()
        return digest(*(np.asarray(tab[k], dtype=float) for k in sorted(tab)))

    def decomposed():
        d = regret.decompose_runs("DP-IMED", "mu1", 10**5, 3, 12, params={"eps": 0.5, "alpha": 2})
        return digest(d.grid, d.pulls, d.n_phases, d.last_pre, d.pre_at_end, d.final_means)

    def on_list():
        rewards = np.random.default_rng(0).random(300).round()
        tr = interaction.run_on_list("DP-SE", rewards, 5, seed=3, K=3, params={"eps": 1.0}, offset=2)
        return digest(tr.actions, tr.starts, tr.laplace_draws)

    def game():
        tr = interaction.run_game("DP-IMED", interaction.LeaderAdversary(), 40, "R", 4, 200, seed=5, K=2,
                                  params={"eps": 1.0})
        return digest(tr.actions, tr.starts, tr.laplace_draws)

    yield "trace/DP-KLUCB", trace
    yield "decompose/DP-IMED", decomposed
    yield "run_on_list/DP-SE", on_list
    yield "run_game/DP-IMED", game


def main(which: str = "all") -> None:
    cases = {"small": small_cases, "paper": paper_cases}
    for name, make in cases.items():
        if which in ("all", name):
            for label, thunk in make():
                print(label, thunk(), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
