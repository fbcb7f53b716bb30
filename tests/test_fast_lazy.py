"""The exact fast path of Lazy-DP-TS: its rare-side events, and the whole simulator in distribution.

Two levels of checks, with fixed seeds and a significance of ALPHA = 1e-3 per statistical
assertion (or 4.5 standard errors for the normal approximations, < 1e-5); there are about 50 of
them here, so the family-wise false-alarm rate is below 5% (Bonferroni), and a failure is
reproducible:

* **Unit level, the envelope sampler.**  In a window of rounds with fixed private statistics, a
  skipped arm's rare-side events must form independent Bernoulli(r(s)) trials with
  r(s) = P(theta(s) on the rare side of tau) (an incomplete-beta value, computed here with
  :func:`scipy.special.betainc`), and the sample of an event must have the Beta law conditioned on
  the rare side.  We check that the envelope dominates every round's density on the rare side,
  that the number of events in each quarter of the window matches the summed rates (chi-square),
  and that the samples mapped through their conditional CDF are uniform (Kolmogorov-Smirnov).  The
  states are chosen where the drift of the Beta parameters over the window is large (small O,
  small t, long windows), the clip at 1 (b = 1) and at 0 (a = 1), and both sides (the leader's
  lower tail, another arm's upper tail).  A deliberately wrong envelope (its height lowered by
  5 %, so that it no longer dominates the density near tau) is rejected by the same statistics.
* **Arms clipped at 1 as one virtual arm**: a window simulated with the group has the law of the
  same window without it (KS on the released arm, rounds used and pulls); uniform labels instead of
  labels proportional to O_j + 1 are rejected.
* **Whole simulator, against the literal per-step reference** (:mod:`dpb.reference`), two-sample
  KS on the final regret, the mid-horizon regret and the optimal arm's pulls, on instances where
  uncertain rounds dominate (mu1-like challengers close to the best arm at a small budget), a tiny
  budget (every Beta clipped at 1 for most of the horizon), exact ties, and a two-arm instance.
"""

from functools import lru_cache

import numpy as np
import pytest
from oracle_cache import reference_sample
from scipy.special import betainc
from scipy.stats import beta as beta_law
from scipy.stats import chisquare, ks_2samp, kstest

import dpb.policies._lazy_windows as lazy
from dpb.simulate import Result, simulate

ALPHA = 1e-3


def _window(mu_tilde, obs, eps, t, L, A, tau, c=3.0, seed=0):
    """A window with a hand-made plan: leader ``A``, threshold ``tau``, every arm skipped."""
    mu_tilde = np.asarray(mu_tilde, dtype=float)
    obs = np.asarray(obs, dtype=float)
    w = lazy._Window(np.random.default_rng(seed), mu_tilde, (c / eps) / obs, obs, t, L)
    w._plan()  # (also for a short window, which the simulator would run plain)
    w.A, w.tau = A, float(tau)
    w.plain = np.zeros(mu_tilde.size, dtype=bool)
    w.plan = True
    return w


def _rates(w, j, s):
    a, b = w.params(s, [j])
    a, b = a[:, 0], b[:, 0]
    return (betainc(a, b, w.tau) if j == w.A else betainc(b, a, 1.0 - w.tau)), a, b


# (mu_tilde, obs, eps, t, L, leader, tau, arm): large drift over the window, both sides, clips
STATES = {
    "other-upper-tail-drifting": ((0.8, 0.45), (4096, 64), 2.0, 20, 2000, 0, 0.72, 1),
    "other-moderate-rate": ((0.75, 0.62), (8192, 512), 1.0, 1000, 20000, 0, 0.7, 1),
    "leader-lower-tail": ((0.6, 0.3), (256, 4096), 2.0, 2000, 5000, 0, 0.55, 0),
    "leader-narrow-beta": ((0.7, 0.2), (2048, 64), 4.0, 100, 3000, 0, 0.685, 0),
    "other-reaching-the-clip-at-1": ((0.9, 0.3), (8192, 16), 1.0, 10, 200, 0, 0.985, 1),
    "other-clipped-at-1": ((0.9, 0.95), (8192, 8), 1.0, 500, 3000, 0, 0.99, 1),  # b = 1
    "leader-clipped-at-0": ((-0.5, 0.0), (64, 64), 100.0, 10, 2000, 0, 0.002, 0),  # a = 1
}


def _events(key, reps=300, shift=0.0):
    mu_tilde, obs, eps, t, L, A, tau, j = STATES[key]
    w = _window(mu_tilde, obs, eps, t, L, A, tau, seed=12345)
    env = w._envelope(j)
    H, g, gw, width, M = env
    assert np.isfinite(M) and M <= 1.0, (key, M)
    offs, xs = [], []
    for _ in range(reps):  # one generator, consumed window after window
        o, x = w._rare_events_many([j], [(H - shift, g, gw, width, M)])[j]
        assert np.all(np.diff(o) > 0) and (o.size == 0 or (o[0] >= 0 and o[-1] < L))  # <= 1 a round
        offs.append(o)
        xs.append(x)
    return w, j, np.concatenate(offs), np.concatenate(xs), reps


@pytest.mark.parametrize("key", STATES)
def test_envelope_dominates_the_density_on_the_rare_side(key):
    mu_tilde, obs, eps, t, L, A, tau, j = STATES[key]
    w = _window(mu_tilde, obs, eps, t, L, A, tau)
    H, g, _, _, M = w._envelope(j)
    s = np.unique(np.linspace(t, t + L - 1, 40).astype(np.int64))
    x = np.linspace(tau, 1.0, 400)[1:-1] if j != A else np.linspace(0.0, tau, 400)[1:-1]
    a, b = w.params(s, [j])
    log_f = beta_law.logpdf(x[None, :], a, b)
    log_e = H + g * (x - tau)
    assert np.all(log_f <= log_e[None, :] + 1e-9), key
    # M is the envelope's mass, so it bounds every round's rare-side probability
    rates, _, _ = _rates(w, j, s)
    assert np.all(rates <= M * (1 + 1e-9)), key


@pytest.mark.parametrize("key", STATES)
def test_envelope_events_are_bernoulli_with_the_exact_rates(key):
    w, j, offs, _, reps = _events(key)
    L = w.L
    r, _, _ = _rates(w, j, w.t + np.arange(L))
    quarters = np.minimum(4 * offs // L, 3)
    edges = np.linspace(0, L, 5).astype(np.int64)
    expected = np.array([r[lo:hi].sum() for lo, hi in zip(edges[:-1], edges[1:], strict=True)]) * reps
    observed = np.bincount(quarters, minlength=4)
    assert observed.sum() > 200, (key, observed)  # enough events for the tests to have power
    # the total (normal approximation of a sum of independent Bernoullis) and the split in time
    var = reps * np.sum(r * (1 - r))
    assert abs(observed.sum() - expected.sum()) < 4.5 * np.sqrt(var), (key, observed.sum(), expected.sum())
    p = chisquare(observed, expected * observed.sum() / expected.sum()).pvalue
    assert p > ALPHA, (key, p, observed, expected)


@pytest.mark.parametrize("key", STATES)
def test_envelope_samples_have_the_truncated_beta_law(key):
    w, j, offs, x, _ = _events(key)
    s = w.t + offs
    _, a, b = _rates(w, j, s)
    F, Ftau = betainc(a, b, x), betainc(a, b, w.tau)
    u = F / Ftau if j == w.A else (F - Ftau) / (1.0 - Ftau)  # conditional CDF: uniform if exact
    assert np.all((x >= w.tau) if j != w.A else (x <= w.tau))
    p = kstest(u, "uniform").pvalue
    assert p > ALPHA, (key, p)


def test_a_wrong_envelope_is_detected():
    # the envelope's height lowered by 5 %: near tau it no longer dominates the density, so the
    # accept step clips and events become too rare there.  The tests above must see it.
    key = "other-upper-tail-drifting"
    w, j, offs, x, reps = _events(key, reps=300, shift=-np.log(0.95))
    s = w.t + offs
    r, a, b = _rates(w, j, w.t + np.arange(w.L))
    total_expected = reps * r.sum()
    var = reps * np.sum(r * (1 - r))
    z = (offs.size - total_expected) / np.sqrt(var)
    _, a, b = _rates(w, j, s)
    F, Ftau = betainc(a, b, x), betainc(a, b, w.tau)
    p_ks = kstest((F - Ftau) / (1.0 - Ftau), "uniform").pvalue
    assert abs(z) > 4.5 or p_ks < ALPHA, (z, p_ks)


# ------------------------------------------------------------------------------------------------
# the whole simulator against the per-step reference
# ------------------------------------------------------------------------------------------------
REF_RUNS, FAST_RUNS = 200, 400
CONFIGS = {
    # mu1-like: four challengers 0.05 below the best arm, a small budget: uncertain rounds dominate
    "mu1-eps0.1": ({"eps": 0.1}, "mu1", 1500),
    "mu1-like-close": ({"eps": 0.5}, (0.8, 0.78, 0.78, 0.78), 2500),
    # a tiny budget: the optimism clips every m_j at 1 (Beta(O + 1, 1)) for most of the horizon
    "tiny-eps-clip-at-1": ({"eps": 0.01}, (0.6, 0.5, 0.4), 1500),
    # exact ties between the two best arms
    "ties": ({"eps": 1.0}, (0.7, 0.7, 0.4), 2500),
    # two arms, a large budget: long sparse windows, the leader's lower tail skipped
    "two-arms-large-eps": ({"eps": 8.0}, (0.6, 0.3), 4000),
}


@lru_cache(maxsize=None)
def _pair(key):
    params, env, T = CONFIGS[key]
    # the reference's sample is kept in tests/data/reference/ while its code is unchanged
    ref = reference_sample(f"lazy-{key}", policy="Lazy-DP-TS", env=env, T=T, runs=REF_RUNS,
                           seed=4000, params=params)
    fast = simulate("Lazy-DP-TS", env, T, runs=FAST_RUNS, seed=5000, params=params)
    return ref, fast


def _regret(res, col=-1):
    return np.round(res.regret[:, col], 9)  # restore ties broken by summation order


@pytest.mark.parametrize("key", CONFIGS)
def test_fast_lazy_matches_reference(key):
    ref, fast = _pair(key)
    assert np.all(fast.pulls.sum(axis=1) == fast.T)
    mid = np.searchsorted(fast.checkpoints, fast.T // 2)  # the stored reference's first column
    assert fast.checkpoints[mid] == ref.checkpoints[0]
    for stat, a, b in (
        ("final regret", _regret(ref), _regret(fast)),
        ("mid regret", _regret(ref, 0), _regret(fast, mid)),
        ("best pulls", ref.pulls[:, 0], fast.pulls[:, 0]),
    ):
        p = ks_2samp(a, b).pvalue
        assert p > ALPHA, (key, stat, p)


def test_tied_arms_are_exchangeable():
    # arms 0 and 1 are tied: N_0 - N_1 has mean 0 (5 standard errors, false alarm < 1e-6)
    _, fast = _pair("ties")
    d = fast.pulls[:, 0] - fast.pulls[:, 1]
    assert abs(d.mean()) < 5 * d.std(ddof=1) / np.sqrt(d.size)


def test_envelope_path_is_used_on_mu1():
    # the new sampler does the work on the paper's instance (not only the fallback)
    used = {"envelope": 0, "thinning": 0}
    env_fn, thin_fn = lazy._Window._rare_events_many, lazy._Window._rare_events_thinning

    def env_counted(self, arms, envs):
        used["envelope"] += len(arms)
        return env_fn(self, arms, envs)

    def thin_counted(self, *args):
        used["thinning"] += 1
        return thin_fn(self, *args)

    mp = pytest.MonkeyPatch()
    mp.setattr(lazy._Window, "_rare_events_many", env_counted)
    mp.setattr(lazy._Window, "_rare_events_thinning", thin_counted)
    try:
        simulate("Lazy-DP-TS", "mu1", 50_000, runs=2, seed=1, params={"eps": 0.25})
    finally:
        mp.undo()
    assert used["envelope"] > 10 * max(used["thinning"], 1), used


def test_same_numbers_however_runs_are_split():
    # a mu1-like instance where the envelope sampler and the skipping windows do the work
    env, T, params = (0.8, 0.78, 0.78, 0.5), 30_000, {"eps": 0.5}
    together = simulate("Lazy-DP-TS", env, T, runs=4, seed=99, params=params)
    alone = Result.concat([simulate("Lazy-DP-TS", env, T, seed=99, run_ids=[i], params=params)
                           for i in range(4)])
    assert together.same_as(alone)
    shuffled = simulate("Lazy-DP-TS", env, T, seed=99, run_ids=[2, 0], params=params)
    assert np.array_equal(shuffled.regret, together.regret[[2, 0]])
    assert np.array_equal(shuffled.pulls, together.pulls[[2, 0]])


# ------------------------------------------------------------------------------------------------
# arms clipped at 1 as one virtual arm
# ------------------------------------------------------------------------------------------------
class _Tape:
    """A recorder keeping the pulls of one window, round by round."""

    def __init__(self) -> None:
        self.arms = []

    def record_steps(self, run, t0, arms):
        self.arms.append(np.asarray(arms))

    def record_runs(self, run, t0, arms, lengths):
        self.arms.append(np.repeat(arms, lengths))


def _window_outcomes(grouped: bool, state, reps: int, seed: int):
    mu_tilde, obs, eps, t, L, room = (np.asarray(x, dtype=float) if isinstance(x, tuple) else x
                                      for x in state)
    bonus = (3.0 / eps) / obs
    room = np.asarray(room, dtype=np.int64)
    gen = np.random.default_rng(seed)
    clipped = np.flatnonzero(np.log(float(t)) * bonus + mu_tilde >= 1.0)
    out = []
    for _ in range(reps):
        tape = _Tape()
        if grouped:
            j, used, counts = lazy._ClippedGroup(gen, clipped, mu_tilde, bonus, obs).run(t, L, room, tape, 0)
        else:
            j, used, counts = lazy._Window(gen, mu_tilde, bonus, obs, t, L).run(room, tape, 0)
        arms = np.concatenate(tape.arms)
        assert arms.size == used and np.array_equal(np.bincount(arms, minlength=mu_tilde.size), counts)
        assert j == -1 or counts[j] == room[j]  # a release is the pull that fills the buffer
        half = arms[: used // 2]
        out.append((j, used, counts[0], np.count_nonzero(half == 1)))
    return np.array(out)


GROUP_STATES = {
    # (mu~, O, eps, t, L, buffer room): arms 1..3 clipped at 1 (arm 3 with a larger O), arm 0 not
    "three-clipped-and-a-leader": ((0.7, 0.6, 0.62, 0.5), (4096, 16, 16, 32), 0.5, 1000, 4000,
                                   (5000, 30, 25, 60)),
    # every arm clipped: the rounds are the labels
    "all-clipped": ((0.9, 0.8, 0.85), (64, 16, 32), 0.05, 500, 3000, (100, 20, 40)),
}


@pytest.mark.parametrize("key", GROUP_STATES)
def test_clipped_group_window_has_the_plain_window_law(key):
    # the same window simulated with the group (virtual arm + labels) and without it (every arm
    # its own Beta): released arm, rounds used, pulls of arm 0, pulls of arm 1 in the first half
    a = _window_outcomes(True, GROUP_STATES[key], 1500, seed=1)
    b = _window_outcomes(False, GROUP_STATES[key], 1500, seed=2)
    for col, name in enumerate(("released arm", "rounds used", "pulls of arm 0", "arm 1 early")):
        p = ks_2samp(a[:, col], b[:, col]).pvalue
        assert p > ALPHA, (key, name, p)


def test_a_wrong_group_law_is_detected(monkeypatch):
    # labels drawn uniformly instead of proportionally to a_j = O_j + 1: the test above fails
    state = GROUP_STATES["three-clipped-and-a-leader"]
    orig = lazy._ClippedGroup.__init__

    def uniform_labels(self, *args):
        orig(self, *args)
        self.cum = np.arange(1, self.C.size + 1) / self.C.size

    monkeypatch.setattr(lazy._ClippedGroup, "__init__", uniform_labels)
    a = _window_outcomes(True, state, 1500, seed=1)
    monkeypatch.undo()
    b = _window_outcomes(False, state, 1500, seed=2)
    p = min(ks_2samp(a[:, col], b[:, col]).pvalue for col in range(4))
    assert p < ALPHA, p


def test_several_arms_at_once_have_each_their_exact_rates():
    # _rare_events_many with three skipped arms (the leader's lower tail and two upper tails) in
    # one pass: each arm's events and samples pass the same checks as one arm alone
    mu_tilde, obs, eps, t, L, tau = (0.74, 0.62, 0.55), (256, 512, 128), 2.0, 1000, 20000, 0.7
    w = _window(mu_tilde, obs, eps, t, L, 0, tau, seed=7)
    arms = [0, 1, 2]
    envs = [w._envelope(j) for j in arms]
    got = {j: ([], []) for j in arms}
    reps = 60
    for _ in range(reps):
        for j, (o, x) in w._rare_events_many(arms, envs).items():
            assert np.all(np.diff(o) > 0)
            got[j][0].append(o)
            got[j][1].append(x)
    for j in arms:
        offs, x = np.concatenate(got[j][0]), np.concatenate(got[j][1])
        r, a, b = _rates(w, j, w.t + np.arange(L))
        var = reps * np.sum(r * (1 - r))
        assert offs.size > 200, (j, offs.size)
        assert abs(offs.size - reps * r.sum()) < 4.5 * np.sqrt(var), (j, offs.size, reps * r.sum())
        _, a, b = _rates(w, j, w.t + offs)
        F, Ftau = betainc(a, b, x), betainc(a, b, tau)
        u = F / Ftau if j == 0 else (F - Ftau) / (1.0 - Ftau)
        assert kstest(u, "uniform").pvalue > ALPHA, j
