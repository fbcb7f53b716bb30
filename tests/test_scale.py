"""dpb.scale: the converged scale of experiment cells (blocks of the same cached sweep machinery).

Small horizons keep these tests to a few seconds; the statistics of the rule itself are tested in
tests/test_estimates.py."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from dpb import experiments as E
from dpb.experiments import scale as S
from dpb.estimates import BLOCK_EDGES, mean_interval
from dpb.experiments.store import _load_cell


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("scale")
    exp = E.figure1(T=2000, algorithms=("DP-SE", "DP-KLUCB", "DP-IMED"))
    paper = E.ensure(exp, out, progress=False, jobs=1)
    report = S.run_converged(exp, out, progress=False, jobs=1, cap=1280)
    return out, exp, paper, report


def test_paper_scale_files_are_unchanged():
    # twenty runs: one file per cell (Lazy-DP-TS in chunks of its class's cost_chunk_runs, 10), as
    # before the converged scale existed
    for pol, n in (("DP-IMED", 1), ("Lazy-DP-TS", 2), ("IMED", 1)):
        cell = E.Cell.make(pol, "mu1", 10**6, 20, E.paper_params(pol, 0.25))
        assert len(cell.chunks()) == n and cell.chunks()[-1][1] == 20
    big = E.Cell.make("DP-IMED", "mu1", 10**6, 160, E.paper_params("DP-IMED", 0.25))
    assert big.chunks() == [(0, 20), (20, 40), (40, 80), (80, 160)]
    # IMED's large blocks split every 160 runs (its cost_chunk_runs), so the pool shares them out
    imed = E.Cell.make("IMED", "mu1", 10**6, 640, E.paper_params("IMED", 0.25))
    assert imed.chunks() == [(0, 20), (20, 40), (40, 80), (80, 160), (160, 320), (320, 480), (480, 640)]


def _rule(x, cap, first):
    """The converged scale's rule on runs in order: the first block edge at or above ``first``
    whose tail_interval is within +-10 % of the mean, or the cap."""
    edges = [e for e in BLOCK_EDGES if first <= e <= cap] or [cap]
    for n in edges:
        est = S.tail_interval(x[:n])
        if est.rel_half_width <= S.REL_TARGET:
            return n, est, True
    return edges[-1], est, False


def test_first_block_is_the_paper_runs(small):
    out, exp, paper, _ = small
    conv = S.load_converged(exp, out, cap=1280)
    for cell in exp.cells:
        p, c = paper.results[cell], conv.results[cell]
        assert np.array_equal(c.run_ids[:20], np.arange(20))
        assert np.array_equal(c.regret[:20], p.regret) and np.array_equal(c.pulls[:20], p.pulls)


def test_decision_matches_the_rule_on_the_cached_runs(small):
    out, exp, _, _ = small
    conv = S.load_converged(exp, out, cap=1280)
    for cell in exp.cells:
        ce = conv.estimates[cell]
        x = conv.results[cell].final_regret
        assert x.size == ce.runs == ce.estimate.runs
        n, est, ok = _rule(x, cap=1280, first=S.min_runs(cell.policy))
        assert ce.runs >= min(S.min_runs(cell.policy), 1280)
        assert (n, ok) == (ce.runs, ce.converged)
        assert est == ce.estimate
        # the runs are those of an ordinary cell of that size
        plain = _load_cell(replace(cell, runs=ce.runs), out, E.DEFAULT_SEED)
        assert np.array_equal(plain.final_regret, x)


def test_ensure_converged_hands_over_the_runs_it_decided_on(tmp_path):
    # ensure_converged keeps the runs its decisions read instead of reading them again: the same
    # runs (and decisions) as loading the cache afresh, IMED's many rounds included
    exp = E.figure1(T=300, algorithms=("DP-KLUCB", "IMED"))
    held = S.ensure_converged(exp, tmp_path, progress=False, jobs=1, cap=1280)
    read = S.load_converged(exp, tmp_path, cap=1280)
    for cell in exp.cells:
        a, b = held.results[cell], read.results[cell]
        assert held.estimates[cell] == read.estimates[cell]
        assert a.runs == b.runs == held.estimates[cell].runs
        for name in ("regret", "pulls", "run_ids", "final_regret"):
            assert np.array_equal(getattr(a, name), getattr(b, name)), (cell.policy, name)
        assert a.extra["runs"] == b.extra["runs"] == [0, a.runs]


def test_rerun_computes_nothing_and_status(small):
    out, exp, _, _ = small
    again = S.run_converged(exp, out, progress=False, jobs=1, cap=1280)
    assert again.computed == 0 and again.cpu_seconds == 0
    assert S.converged_status(exp, out, cap=1280) == {"decided": len(exp.cells), "undecided": 0}
    # another rule is another decision (not decided yet), never a silent reuse
    assert S.converged_status(exp, out, cap=1280, rel=0.05)["decided"] == 0
    with pytest.raises(E.MissingResultsError):
        S.load_converged(exp, out, cap=1280, rel=0.05)


def test_tables(small):
    out, exp, paper, _ = small
    conv = S.load_converged(exp, out, cap=1280)
    rows = S.expected_regret_table(paper, conv)
    assert len(rows) == len(exp.cells)
    for r in rows:
        assert r["lo"] <= r["mean"] <= r["hi"] and r["runs"] >= 20
        assert r["runs"] >= min(S.min_runs(r["algorithm"]), 1280)
    order = S.ordering_table(conv)
    assert {r["verdict"] for r in order} <= {"<", ">", "overlap"}
    dom = S.expected_dominance(conv, baselines=("DP-SE",))
    assert all(r["DP-IMED"] in ("yes", "no", "unclear") for r in dom)


def test_min_runs_see_rare_tails():
    # batched cells at T <= 1e6: a one-in-a-thousand tail is met at least once except with
    # probability < 1e-4; the sweep's horizon starts lower; per-step baselines by their cost
    for pol in ("DP-SE", "AdaP-KLUCB", "DP-KLUCB", "DP-IMED"):
        n = S.min_runs(pol)
        assert n == S.min_runs(pol, 10**6) == S.TAIL_RUNS and 0.999**n < 1e-4
        assert S.min_runs(pol, 10**7) == S.LONG_RUNS and 0.999**S.LONG_RUNS < 0.1
    assert S.min_runs("IMED") == 320 and S.min_runs("Lazy-DP-TS") == 20
    assert all(n in S.BLOCK_EDGES for n in (S.TAIL_RUNS, S.LONG_RUNS, S.MIN_RUNS))
    with pytest.raises(ValueError, match="T"):
        S.min_runs("DP-IMED", 0)


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="cap"):
        S.run_converged("fig1", tmp_path, cap=100)
    with pytest.raises(ValueError, match="rel"):
        S.converged_status("fig1", tmp_path, rel=2.0)
    with pytest.raises(TypeError):
        S.load_converged(42, tmp_path)


def test_tail_decomposition():
    class R:
        final_regret = np.array([1.0] * 18 + [100.0, 200.0])

    d = S.tail_decomposition(R())
    assert d["tail_runs"] == 2 and d["tail_fraction"] == 0.1
    assert np.isclose(d["tail_share"], 300 / 318) and d["body_mean"] == 1.0
    with pytest.raises(ValueError, match="factor"):
        S.tail_decomposition(R(), factor=1.0)


def test_command_line_scale(tmp_path, capsys):
    from dpb.__main__ import main

    args = ["fig1", "--horizon", "1000", "--out", str(tmp_path), "--no-progress"]
    assert main(["reproduce", *args, "--scale", "converged", "--jobs", "1", "--no-figures"]) == 0
    out = capsys.readouterr().out
    assert "converged scale" in out and "DP-IMED" in out and "CPU-s" in out
    assert main(["status", *args[:-1], "--scale", "converged"]) == 0
    assert "12 decided, 0 undecided" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["reproduce", *args, "--scale", "converged", "--runs", "3"])


def test_tail_interval_widens_for_a_few_rare_runs():
    from scipy.stats import chi2

    # one run far above ten times the median: the count k = 1 has Garwood bounds (0.025, 5.57),
    # whose error is added to the BCa interval's
    x = np.concatenate([np.linspace(0.5, 1.5, 99), [1000.0]])
    bca, est = mean_interval(x), S.tail_interval(x)
    assert est.mean == bca.mean and est.lo < bca.lo and est.hi > bca.hi
    k_up = 0.5 * chi2.ppf(0.975, 4)
    assert abs(k_up - 5.5716) < 1e-3
    assert est.hi == pytest.approx(bca.hi + (k_up - 1) * 1000.0 / 100)
    assert est.lo == pytest.approx(bca.lo - (1 - 0.5 * chi2.ppf(0.025, 2)) * 1000.0 / 100)
    # no tail run: the BCa interval (a tail never met cannot be weighed)
    y = np.linspace(0.5, 1.5, 1000)
    assert S.tail_interval(y) == mean_interval(y)
    # many tail runs: the count's error is about the bootstrap's own (which sees it too), so the
    # sum is conservative, at most about twice the BCa half-width
    rng = np.random.default_rng(5)
    z = np.where(rng.random(20_000) < 0.05, 100.0, 1.0) * rng.uniform(0.5, 1.5, 20_000)
    b, t = mean_interval(z), S.tail_interval(z)
    assert 1.5 * (b.hi - b.mean) < t.hi - t.mean < 2.2 * (b.hi - b.mean)
    # a constant or non-positive sample has the BCa interval
    assert S.tail_interval(np.zeros(5)) == mean_interval(np.zeros(5))
    with pytest.raises(ValueError, match="factor"):
        S.tail_interval(y, factor=1.0)


def test_rounds_share_one_pool_of_workers(tmp_path, monkeypatch):
    # the converged rule's rounds run on one local pool (started once, closed at the end) instead of
    # a new pool per round, each cell checked as soon as its block is written; the decisions are
    # those of a run in this process
    from dpb.experiments import execution, workers

    started, rounds, checks, inside = [], [], [], [False]
    start, run_cells, tail_interval = workers.Pool.start, S.run_cells, S.tail_interval

    def counting_start(self):
        started.append(self)
        return start(self)

    def counting_run(*args, **kwargs):
        rounds.append(kwargs.get("desc"))
        inside[0] = True
        try:
            return run_cells(*args, **kwargs)
        finally:
            inside[0] = False

    def seen_check(*args, **kwargs):
        checks.append(inside[0])
        return tail_interval(*args, **kwargs)

    monkeypatch.setattr(workers.Pool, "start", counting_start)
    monkeypatch.setattr(S, "run_cells", counting_run)
    monkeypatch.setattr(S, "tail_interval", seen_check)
    exp = E.figure1(T=300, algorithms=("DP-KLUCB", "IMED"))
    # IMED: blocks to 320, 640, 1280 runs
    S.run_converged(exp, tmp_path / "pool", progress=False, jobs=2, cap=1280, rel=0.02)
    assert len(rounds) >= 3 and len(started) == 1, (rounds, started)
    assert not started[0].alive() and not execution._kept  # closed when the rule is done
    # every cell is checked while the round's other chunks run, as soon as its own block is written
    assert checks and all(checks), checks
    here = S.load_converged(exp, tmp_path / "pool", cap=1280, rel=0.02)
    S.run_converged(exp, tmp_path / "one", progress=False, jobs=1, cap=1280, rel=0.02)
    one = S.load_converged(exp, tmp_path / "one", cap=1280, rel=0.02)
    assert here.estimates == one.estimates


def test_a_kept_pool_that_lost_a_worker_is_replaced(tmp_path):
    from dpb.experiments import execution

    cells = [c for c in E.figure1(T=300, algorithms=("DP-KLUCB", "DP-IMED")).cells]
    with execution._kept_workers():
        E.run(cells[:2], tmp_path, progress=False, jobs=2)
        first = execution._kept[-1]["pool"]
        first._workers[0][0].kill()  # a worker gone between two runs (e.g. the out-of-memory killer)
        first._workers[0][0].join(timeout=10)
        report = E.run(cells[2:], tmp_path, progress=False, jobs=2)
        second = execution._kept[-1]["pool"]
        assert second is not first and second.alive() and report.computed == len(cells) - 2
    assert not second.alive() and not first.alive()
