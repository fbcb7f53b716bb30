"""The exact fast path of Lazy-DP-TS (:mod:`dpb.policies.lazy_dpts` holds the rule):
:func:`simulate_lazy_dpts_fast`, exact in distribution.  It uses that

* the policy never looks at individual rewards: a buffer's sum is drawn as one
  Binomial(buffer size, mu_J) when it fills;
* the private statistics only change when a buffer fills, so between fills the rounds can be
  simulated by windows, vectorised, and the Beta parameters depend on t only through ln t,
  monotonically;
* most rounds are won by one *leader* for sure: with a threshold tau, "theta_A > tau and
  theta_j < tau for every other j" decides the round without the values.  A window skips the
  arms whose *rare side* (the leader below tau, another arm above it) has a small probability:
  the rounds where such an arm is on its rare side are drawn as a Bernoulli process, and only
  there is its sample drawn (truncated to the rare side).  Rounds where no arm is on its rare
  side are never touched: the cost follows the uncertain rounds, not T;
* the rare-side events need no incomplete-beta value: the Beta density is log-concave, so on the
  rare side it lies below the exponential through its value at tau with its slope there, and
  both bounds hold for every round of the window (the slope moves monotonically with t, the
  height is a concave function of the Beta parameter).  Candidates at the envelope's mass M
  (geometric gaps), each proposing an exponential value kept with probability density /
  envelope, are exactly the rare-side events with their samples (rejection sampling); thinning
  with the exact rate and inverse-CDF samples remain for the envelopes that are too loose;
* arms whose m_j is clipped at 1 sample Beta(O_j + 1, 1), whose CDF is x^(O_j + 1); the maximum
  of such a group is Beta(S, 1), S = sum (O_j + 1), and which arm attains it is independent of
  the value, arm j with probability (O_j + 1) / S.  The group enters a window as one arm, and its
  wins are labelled with i.i.d. draws (``_ClippedGroup``).

The private ``_Window`` and ``_ClippedGroup`` classes hold the arguments, ``benchmarks/README.md``
the speed, ``tests/test_fast_lazy.py`` the checks (the envelope dominates; events have the exact
rates and truncated laws; the group has the ungrouped window's law; the whole simulator agrees
with the per-step reference).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._detmath_arrays import exp_array, expm1_array, log1p_array, log_array
from scipy.special import betainc, betaincinv, betaln, psi

from ._numerics import xlogy
from .base import Recorder, _standard_laplace

__all__ = ["simulate_lazy_dpts_fast"]


def simulate_lazy_dpts_fast(
    means: ArrayLike,
    T: int,
    env_generators: Sequence[np.random.Generator],
    policy_generators: Sequence[np.random.Generator],
    recorder: Recorder,
    *,
    eps: float,
    c: float = 3.0,
) -> None:
    """Exact fast Lazy-DP-TS simulation, one run at a time, windows of rounds vectorised.

    For run ``r``: rewards come from ``env_generators[r]`` (one Bernoulli per initial pull, one
    Binomial per filled buffer); Beta samples, Laplace noise, tie-breaks and the skipping draws
    from ``policy_generators[r]``.  Each window of rounds is simulated by ``_Window`` (plain
    or with skipping, see the module docstring) and cut just after the first round whose pull
    fills a buffer; the draws of the rounds after the cut are discarded (they are independent of
    everything that happened, so discarding them is exact).
    """
    means = np.asarray(means, dtype=float)
    K = means.size
    T = int(T)
    if T < K:
        raise ValueError(f"T must be >= K={K} (every arm is pulled once first), got T={T}")
    eye = np.eye(K, dtype=np.int64)
    for run, (genv, gpol) in enumerate(zip(env_generators, policy_generators, strict=True)):
        row = np.array([run])
        laplace = _laplace_draws(gpol)
        mu_tilde = np.empty(K)
        for j in range(K):  # initialisation, in arm order: mu~_j = reward + Lap(1/eps)
            recorder.record(row, np.array([j + 1]), eye[j][None, :])
            mu_tilde[j] = genv.binomial(1, means[j]) + next(laplace) / eps
        recorder.laplace[run] += K
        obs = np.ones(K)
        bonus = np.full(K, c / eps)  # c / (eps O_j)
        cap = np.full(K, 2, dtype=np.int64)  # buffer size that triggers a release: 2^{r_j + 1}
        fill = np.zeros(K, dtype=np.int64)  # current buffer lengths
        t = K + 1
        horizon = 256  # expected rounds to the next release (the window's size)
        while t <= T:
            L = min(horizon, _SPARSE_MAX, T - t + 1)
            clipped = np.flatnonzero(log_array(float(t)) * bonus + mu_tilde >= 1.0)
            if clipped.size >= 2:  # arms clipped at 1: one virtual arm (see _ClippedGroup)
                j, used, counts = _ClippedGroup(gpol, clipped, mu_tilde, bonus, obs).run(
                    t, L, cap - fill, recorder, run)
            else:
                w = _Window(gpol, mu_tilde, bonus, obs, t, L)
                if w.L > _DENSE_MAX and (w.plan is None or w.plain.any()):  # (L, K) arrays: shorter
                    w = _Window(gpol, mu_tilde, bonus, obs, t, _DENSE_MAX)
                j, used, counts = w.run(cap - fill, recorder, run)
            fill += counts
            if j >= 0:  # release: the buffer's sum is one Binomial draw, plus one Laplace draw
                nb = int(cap[j])
                mu_tilde[j] = (genv.binomial(nb, means[j]) + next(laplace) / eps) / nb
                recorder.laplace[run] += 1
                obs[j] = nb
                bonus[j] = (c / eps) / nb
                cap[j] *= 2
                fill[j] = 0
            t += used
            # next window: about 1.5 x the expected time to the next release at the current rates
            rate = counts / used
            with np.errstate(divide="ignore", invalid="ignore"):
                eta = np.min(np.where(rate > 0, (cap - fill) / rate, np.inf))
            eta = _HORIZON_FACTOR * eta if np.isfinite(eta) else 4 * horizon
            horizon = int(np.clip(eta, 64, _SPARSE_MAX))


# window sizes: plain (dense) windows hold (L, K) arrays; skipping windows only their events
_DENSE_MAX, _SPARSE_MAX = 1 << 14, 1 << 22
_HORIZON_FACTOR = 1.0  # (1.5 drew ~40% more rounds than used at t ~ 1e4; 1.0 measured ~10% faster)
# relative costs for choosing a window's plan: one Beta draw = 1; one skipped-arm event (an
# envelope candidate and the decision of its round) ~ 5; a plain window costs about K + 1 per
# round, and a plan is used when it costs at most _PLAN_GAIN times that (measured: 5 and 0.7
# beat 30 -- the cost of an event with thinning and inverse CDF -- by 10-20% on mu1)
_EVENT_COST = 5.0
_PLAN_GAIN = 0.7
# windows shorter than this are plain (measured: 15-20% less CPU at T = 1e4, same at 1e6)
_PLAN_MIN_L = 1024
# quantile levels of the leader's Beta tried as the threshold tau
_TAU_LEVELS = np.array([1e-9, 1e-6, 1e-4, 1e-3, 1e-2, 3e-2, 0.1, 0.25])
# largest rare-side rate of a skipped arm (the likely side is then sampled by rejection, >= 80 %)
_RATE_MAX = 0.2
# a rare side at least this likely is sampled by rejection (<= 20 Beta draws) rather than by
# inverting the incomplete beta function (about 1-5 us a value)
_REJECT_RATE = 0.05
# the envelope sampler of the rare side is used when its mass M (the candidates' rate) is at most
# _ENVELOPE_MAX and at most _ENVELOPE_SLACK times the rate bound (else thinning + inverse CDF)
_ENVELOPE_MAX, _ENVELOPE_SLACK = 0.5, 3.0


class _Window:
    """One window of rounds t .. t + L - 1 of one Lazy-DP-TS run (statistics fixed in it).

    At round s arm j samples theta_j ~ Beta(a_j(s), b_j(s)), a_j = m_j O_j + 1, b_j = O_j + 2 - a_j,
    m_j(s) = clip(mu~_j + c ln(s) / (eps O_j)), and J = argmax_j theta_j.  m_j(s) is
    nondecreasing in s, and Beta(mO + 1, (1 - m) O + 1) increases stochastically with m (its
    likelihood ratio in x is monotone), so for a fixed threshold tau

    * the *leader* A's rate P(theta_A <= tau) is at most its value at s = t, and
    * every other arm's rate P(theta_j >= tau) is at most its value at s = t + L - 1.

    *Skipping.*  An arm is *skipped* when that rate (its "rare side") is small: the rounds where
    it falls on its rare side are drawn as a Bernoulli process by thinning -- candidates at the
    bounding rate r_max (geometric gaps), each kept with probability r(s) / r_max using the exact
    rate r(s) (an incomplete-beta value) -- and only there is its sample drawn, from its Beta
    truncated to the rare side (inverse CDF, :func:`scipy.special.betaincinv`).  Elsewhere its
    sample is on the likely side, which is all the decision needs unless the other samples leave
    it open; then it is drawn from the Beta truncated to that side (rejection, acceptance >= 80%).
    The other arms are *plain*: sampled at every round, as in the plain window.  A round with no
    plain arm and no skipped arm on its rare side is surely won by the leader (its sample is above
    tau, every other one below): such rounds are not touched at all.

    Every round's samples are independent with exactly the policy's law, so the decisions are
    exactly the policy's; the plan (leader, tau, which arms are skipped) depends only on the
    statistics before the window.
    """

    def __init__(self, gen, mu_tilde, bonus, obs, t: int, L: int) -> None:
        self.gen, self.mu, self.bonus, self.obs = gen, mu_tilde, bonus, obs
        self.t, self.L = int(t), int(L)
        self.K = mu_tilde.size
        # a short window is cheaper plain than planned (the plan costs ~10 incomplete-beta calls)
        self.plan = self._plan() if self.L >= _PLAN_MIN_L else None

    def params(self, s: np.ndarray, arms=slice(None)) -> tuple[np.ndarray, np.ndarray]:
        """Beta parameters (a, b) at rounds ``s`` (n,) for ``arms``: arrays of shape (n, k)."""
        m = log_array(np.asarray(s, dtype=float))[:, None] * self.bonus[arms] + self.mu[arms]
        np.minimum(np.maximum(m, 0.0, out=m), 1.0, out=m)  # clip (np.clip is slower on small arrays)
        a = m * self.obs[arms] + 1.0
        return a, self.obs[arms] + 2.0 - a

    def _plan(self):
        K = self.K
        (a0, a1), (b0, b1) = self.params([self.t, self.t + self.L - 1])
        self.ends = a0, b0, a1, b1  # the Beta parameters at the window's first and last rounds
        A = int(np.argmax(a0 / (a0 + b0)))
        taus = np.unique(betaincinv(a0[A], b0[A], _TAU_LEVELS))
        taus = taus[(taus > 0.0) & (taus < 1.0)]
        if taus.size == 0:
            return None
        rates = betainc(b1[:, None], a1[:, None], 1.0 - taus[None, :])  # P(theta_j >= tau) at the end
        rates[A] = betainc(a0[A], b0[A], taus)  # P(theta_A <= tau) at the start
        skip = rates <= _RATE_MAX
        n_plain = K - skip.sum(axis=0)
        cost = n_plain + (n_plain > 0) + _EVENT_COST * np.where(skip, rates, 0.0).sum(axis=0)
        best = int(np.argmin(cost))
        if cost[best] > _PLAN_GAIN * (K + 1) or not skip[:, best].any():
            return None
        self.A, self.tau = A, float(taus[best])
        self.rmax = rates[:, best]
        self.plain = ~skip[:, best]
        return True

    # -- the decisions -----------------------------------------------------------------------
    def run(self, need: np.ndarray, recorder, run: int):
        """Simulate the window until the first release; record it.  Returns (arm released or -1,
        rounds used, pulls per arm)."""
        if self.plan is None:
            offs, J = np.arange(self.L), self._plain_rounds()
        else:
            offs, J = self._skipping_rounds()
        return self._cut(offs, J, need, recorder, run)

    def _ties(self, theta: np.ndarray, J: np.ndarray) -> np.ndarray:
        top = theta[np.arange(J.size), J]
        n_top = np.count_nonzero(theta == top[:, None], axis=1)
        for i in np.flatnonzero(n_top > 1):  # a tie: probability ~0, handled exactly
            cand = np.flatnonzero(theta[i] == top[i])
            J[i] = cand[min(int(self.gen.random() * cand.size), cand.size - 1)]
        return J

    def _plain_rounds(self) -> np.ndarray:
        a, b = self.params(np.arange(self.t, self.t + self.L))
        theta = self.gen.beta(a, b)
        return self._ties(theta, np.argmax(theta, axis=1))

    def _bernoulli_process(self, r: float, end: float = -1.0) -> np.ndarray:
        """Offsets in end + 1 .. L - 1 of a Bernoulli(``r``) process (Geometric(r) gaps, inverse
        CDF)."""
        gen, L = self.gen, self.L
        parts, log_q = [np.empty(0)], log1p_array(-r)
        while end < L - 1:
            n = int(min((L - 1 - end) * r + 4.0 * np.sqrt((L - 1 - end) * r) + 8, 1 << 20))
            with np.errstate(divide="ignore", over="ignore"):  # (gaps beyond L may be inf)
                gaps = np.maximum(np.ceil(log_array(gen.random(n)) / log_q), 1.0)
            with np.errstate(over="ignore", invalid="ignore"):
                pos = end + np.cumsum(gaps)
            parts.append(pos)
            end = float(pos[-1])
        offs = np.concatenate(parts)
        return offs[offs < L].astype(np.int64)

    def _envelope(self, j: int):
        """Exponential envelope of arm ``j``'s density on its rare side, valid at every round of
        the window: (log height at tau, slope g, mass M), or None when M is not a useful rate.

        The Beta density is log-concave (a, b >= 1), so log f_s(x) <= log f_s(tau) + g_s (x - tau)
        with g_s = (a_s - 1) / tau - (b_s - 1) / (1 - tau).  g_s increases with a_s (that is, with
        s): above tau (another arm) the end's slope bounds every g_s, below tau (the leader) the
        start's.  The height h(a) = log f(tau) at a + b = O + 2 fixed is concave in a
        (-log B(a, n - a) has second derivative -psi'(a) - psi'(n - a) < 0), so over [a_0, a_1] it
        is at most its value at an end where it is monotone, and otherwise at most the smaller of
        its two end tangents.  The envelope E(x) = exp(H + g (x - tau)) dominates every f_s on the
        rare side, and M is its mass there.
        """
        tau = self.tau
        a0, b0, a1, b1 = (float(x[j]) for x in self.ends)
        n = float(self.obs[j]) + 2.0
        lt, l1t = log_array(tau), log1p_array(-tau)

        def h(a):
            return (a - 1.0) * lt + (n - a - 1.0) * l1t - betaln(a, n - a)

        def dh(a):
            return lt - l1t - psi(a) + psi(n - a)

        h0, h1 = h(a0), h(a1)
        if a1 <= a0:
            H = h0
        else:
            d0, d1 = dh(a0), dh(a1)
            if d1 >= 0.0:
                H = h1
            elif d0 <= 0.0:
                H = h0
            else:
                H = min(h0 + d0 * (a1 - a0), h1 - d1 * (a1 - a0))
        # rounding of the terms above (each up to n |log tau| in size)
        H += 1e-12 * (n * (abs(lt) + abs(l1t)) + abs(betaln(a0, b0)) + 1.0)
        if j == self.A:  # below tau: the smallest slope (start); x - tau <= 0
            g, w = (a0 - 1.0) / tau - (b0 - 1.0) / (1.0 - tau), tau
            gw = -g * w  # mass: int_0^tau exp(g (x - tau)) dx = int_0^w exp(-g v) dv
        else:  # above tau: the largest slope (end); x - tau >= 0
            g, w = (a1 - 1.0) / tau - (b1 - 1.0) / (1.0 - tau), 1.0 - tau
            gw = g * w
        if gw > 50.0:  # a growing envelope: the side is not rare, no use
            return H, g, gw, w, np.inf
        if abs(gw) < 1e-12:
            log_i = log_array(w)
        elif gw > 0:
            log_i = log_array(expm1_array(gw) / gw * w)
        else:
            log_i = log_array(-expm1_array(gw) / -gw * w)
        M = float(exp_array(H + log_i)) if H + log_i < 0.0 else np.inf
        return H, g, gw, w, M

    def _rare_events_all(self, skipped) -> dict:
        """Offsets of the rounds where each skipped arm is on its rare side, and its samples there
        (arm -> (offsets, samples)).

        With a useful envelope (:meth:`_envelope`, mass M at most a few times the rate bound): the
        candidates are a Bernoulli(M) process, each proposes x from the envelope's exponential
        density on the rare side and is kept with probability f_s(x) / E(x).  A round is then an
        event with probability exactly P(rare side at s) and its x has the Beta law conditioned
        on the rare side (rejection sampling): thinning and sampling in one step, with no
        incomplete-beta value; the arms with a useful envelope in one pass.  Otherwise: thinning
        with the exact rate and inverse-CDF samples.
        """
        events, env_arms, envs = {}, [], []
        for j in skipped:
            r = float(self.rmax[j])
            if r <= 0.0:
                events[int(j)] = (np.empty(0, dtype=np.int64), np.empty(0))
                continue
            env = self._envelope(j)
            if env[-1] <= min(_ENVELOPE_MAX, _ENVELOPE_SLACK * r):
                env_arms.append(j)
                envs.append(env)
            else:
                events[int(j)] = self._rare_events_thinning(j)
        if env_arms:
            events.update(self._rare_events_many(env_arms, envs))
        return events

    def _rare_events_many(self, arms, envs) -> dict:
        """Rare-side events and samples of several skipped ``arms`` at once, each with its envelope
        from :meth:`_envelope` (the same law as one arm at a time, one vectorised pass).

        Arm j's candidates are a Bernoulli(M_j) process: Geometric(M_j) gaps (inverse CDF), enough
        of them to pass the window's end with overwhelming probability (else the process goes on
        from its last candidate); gaps are capped at L + 1, which changes no candidate inside the
        window and keeps the sums exact integers.  Each candidate proposes u from the density
        prop. to exp(g_j u) on the rare side (inverse CDF) and is kept with probability
        f_s(x) / E_j(x).
        """
        gen, tau, L = self.gen, self.tau, self.L
        arms = np.asarray(arms, dtype=np.int64)
        H, g, gw, w, M = (np.array(x, dtype=float) for x in zip(*envs, strict=True))
        mean = L * M
        n = np.ceil(mean + 6.0 * np.sqrt(mean) + 16.0).astype(np.int64)
        seg = np.repeat(np.arange(arms.size), n)
        with np.errstate(divide="ignore", over="ignore"):
            gaps = np.ceil(log_array(gen.random(int(n.sum()))) / log1p_array(-M)[seg])
        np.clip(gaps, 1.0, L + 1.0, out=gaps)
        pos = np.cumsum(gaps)
        stop = np.cumsum(n)
        pos -= np.repeat(pos[stop - n] - gaps[stop - n], n)  # cumulative sums within each arm
        pos -= 1.0  # offsets: the first candidate at gap - 1
        offs_parts, seg_parts = [pos], [seg]
        for i in np.flatnonzero(pos[stop - 1] < L - 1):  # (rare) the process has not passed L - 1
            more = self._bernoulli_process(float(M[i]), float(pos[stop[i] - 1]))
            offs_parts.append(more.astype(float))
            seg_parts.append(np.full(more.size, i))
        pos, seg = np.concatenate(offs_parts), np.concatenate(seg_parts)
        inside = pos < L
        offs, seg = pos[inside].astype(np.int64), seg[inside]
        # proposals from the envelopes' exponential laws on the rare side
        v = gen.random(offs.size)
        gws, ws = gw[seg], w[seg]
        flat = np.abs(gws) < 1e-12
        with np.errstate(divide="ignore", invalid="ignore"):
            u = np.where(flat, v * ws, log1p_array(v * expm1_array(gws)) / np.where(flat, 1.0, gws) * ws)
        u = np.minimum(u, ws)
        lower = arms[seg] == self.A  # the leader's rare side is below tau
        x = np.where(lower, tau - u, tau + u)
        j = arms[seg]
        m = log_array((self.t + offs).astype(float)) * self.bonus[j] + self.mu[j]
        np.minimum(np.maximum(m, 0.0, out=m), 1.0, out=m)
        a = m * self.obs[j] + 1.0
        b = self.obs[j] + 2.0 - a
        with np.errstate(divide="ignore", invalid="ignore"):
            log_f = xlogy(a - 1.0, x) + np.where(b == 1.0, 0.0, (b - 1.0) * log1p_array(-x)) - betaln(a, b)
        keep = log_array(gen.random(offs.size)) < log_f - (H[seg] + g[seg] * (x - tau))
        keep &= np.where(lower, x <= tau, x >= tau)
        out = {}
        for idx, arm in enumerate(arms):
            sel = keep & (seg == idx)
            o = offs[sel]
            order = np.argsort(o, kind="stable")  # (already sorted unless the process went on)
            out[int(arm)] = (o[order], x[sel][order])
        return out

    def _rare_events_thinning(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        gen, r = self.gen, float(self.rmax[j])
        offs = self._bernoulli_process(r)  # candidates at the bounding rate r
        a, b = self.params(self.t + offs, [j])
        a, b = a[:, 0], b[:, 0]
        if j == self.A:  # rare side: theta_A <= tau
            rate = betainc(a, b, self.tau)
        else:  # rare side: theta_j >= tau
            rate = betainc(b, a, 1.0 - self.tau)
        keep = gen.random(offs.size) * r < rate  # thinning: kept with probability rate / r
        offs, a, b, rate = offs[keep], a[keep], b[keep], rate[keep]
        return offs, self._rare_side(a, b, rate, upper=j != self.A)

    def _rare_side(self, a, b, rate, upper: bool) -> np.ndarray:
        """Samples of Beta(a, b) conditioned on the rare side of tau (above it if ``upper``),
        whose probability is ``rate``: in closed form when m is clipped (b = 1: CDF x^a; a = 1:
        CDF 1 - (1 - x)^b), by rejection when the side is not too rare, else by inverse CDF."""
        gen, tau = self.gen, self.tau
        u = gen.random(a.size)
        out = np.empty(a.size)
        b1, a1 = b == 1.0, (a == 1.0) & (b != 1.0)
        rest = ~(b1 | a1)
        if upper:  # theta >= tau
            out[b1] = exp_array(log1p_array(-u[b1] * rate[b1]) / a[b1])
            out[a1] = 1.0 - (1.0 - tau) * exp_array(log_array(u[a1]) / b[a1])
        else:  # theta <= tau
            out[b1] = tau * exp_array(log_array(u[b1]) / a[b1])
            out[a1] = -expm1_array(log1p_array(-u[a1] * rate[a1]) / b[a1])
        rej = np.flatnonzero(rest & (rate >= _REJECT_RATE))
        side = (lambda x: x >= tau) if upper else (lambda x: x <= tau)
        out[rej] = _beta_rejection(gen, a[rej], b[rej], side)
        inv = np.flatnonzero(rest & (rate < _REJECT_RATE))
        if inv.size:
            if upper:
                out[inv] = 1.0 - betaincinv(b[inv], a[inv], u[inv] * rate[inv])
            else:
                out[inv] = betaincinv(a[inv], b[inv], u[inv] * rate[inv])
        return out

    def _likely(self, rounds: np.ndarray, j: int | np.integer, above: bool) -> np.ndarray:
        """Samples of arm ``j`` at rounds ``rounds`` conditioned on its likely side (rejection)."""
        a, b = self.params(rounds, [j])
        tau = self.tau
        side = (lambda x: x > tau) if above else (lambda x: x < tau)
        return _beta_rejection(self.gen, a[:, 0], b[:, 0], side)

    def _skipping_rounds(self) -> tuple[np.ndarray, np.ndarray]:
        skipped = np.flatnonzero(~self.plain)
        events = self._rare_events_all(skipped)
        ev = np.unique(np.concatenate([e[0] for e in events.values()]))
        if not self.plain.any():  # sparse: only the rounds with a rare-side sample
            return ev, self._decide(ev, None, events)
        # dense: plain samples at every round; rounds without a rare-side sample take the short way
        L, P = self.L, np.flatnonzero(self.plain)
        a, b = self.params(self.t + np.arange(L), P)
        thP = self.gen.beta(a, b)
        J = np.empty(L, dtype=np.int64)
        if ev.size:
            J[ev] = self._decide(ev, thP[ev], events)
        quiet = np.ones(L, dtype=bool)
        quiet[ev] = False
        q = np.flatnonzero(quiet)
        J[q] = self._decide_quiet(q, thP[q], P, skipped)
        return np.arange(L), J

    def _decide(self, offs, thP, events) -> np.ndarray:
        """Decisions at rounds ``offs`` where some skipped arms have a rare-side sample."""
        A, K, tau = self.A, self.K, self.tau
        n = offs.size
        if n == 0:
            return np.empty(0, dtype=np.int64)
        rounds = self.t + offs
        theta = np.full((n, K), np.nan)
        if thP is not None:
            theta[:, self.plain] = thP
        for j, (o, th) in events.items():
            theta[np.searchsorted(offs, o), j] = th
        unknown = np.isnan(theta)  # skipped arms on their likely side
        known_max = np.where(unknown, -np.inf, theta).max(axis=1)
        # the leader on its likely side (above tau) wins unless a known sample is above tau
        lead_up = unknown[:, A] if not self.plain[A] else np.zeros(n, dtype=bool)
        need = np.flatnonzero(lead_up & (known_max >= tau))
        if need.size:
            theta[need, A] = self._likely(rounds[need], A, above=True)
        # otherwise, with every known sample below tau, the likely samples (below tau) compete
        low = np.flatnonzero(~lead_up & (known_max < tau))
        for j in np.flatnonzero(~self.plain):
            if j == A:
                continue
            rows = low[unknown[low, j]]
            if rows.size:
                theta[rows, j] = self._likely(rounds[rows], j, above=False)
        J = np.full(n, A, dtype=np.int64)
        decide = np.flatnonzero(~lead_up | (known_max >= tau))
        if decide.size:
            th = np.where(np.isnan(theta[decide]), -np.inf, theta[decide])
            J[decide] = self._ties(th, np.argmax(th, axis=1))
        return J

    def _decide_quiet(self, q, thP, P, skipped) -> np.ndarray:
        """Decisions at rounds ``q`` where every skipped arm is on its likely side: the same rule
        as :meth:`_decide` with the plain samples ``thP`` (columns ``P``) as the known ones."""
        A, tau = self.A, self.tau
        J = np.full(q.size, A, dtype=np.int64)
        if q.size == 0:
            return J
        kmax = thP.max(axis=1)
        hi = np.flatnonzero(kmax >= tau)
        if not self.plain[A]:  # the leader is above tau: it wins unless a plain sample is too
            if hi.size:
                v = self._likely(self.t + q[hi], A, above=True)
                th = np.column_stack([thP[hi], v])
                J[hi] = np.append(P, A)[self._ties(th, np.argmax(th, axis=1))]
            return J
        if hi.size:  # a plain sample above tau beats every skipped arm (below tau)
            J[hi] = P[self._ties(thP[hi], np.argmax(thP[hi], axis=1))]
        lo = np.flatnonzero(kmax < tau)
        if lo.size:  # every sample below tau: the skipped arms' samples compete
            cols = [thP[lo]] + [self._likely(self.t + q[lo], j, above=False)[:, None] for j in skipped]
            th = np.hstack(cols)
            J[lo] = np.concatenate([P, skipped])[self._ties(th, np.argmax(th, axis=1))]
        return J

    # -- the cut at the first release -----------------------------------------------------------
    def _cut(self, offs, J, need, recorder, run):
        """Rounds of the window not in ``offs`` are the leader's.  Stops just after the first pull
        that fills a buffer; records the pulls; returns (arm released or -1, used, counts)."""
        K, L = self.K, self.L
        A = self.A if self.plan is not None else -1
        first = np.full(K, L, dtype=np.int64)  # offset of the filling pull of each arm
        for j in range(K):
            if j == A and offs.size < L:  # the leader also plays every round not in offs
                p = offs[J != A]  # rounds where another arm plays
                k = np.arange(p.size + 1)
                o = need[A] - 1 + k
                lo_ok = np.concatenate(([True], p < o[1:]))
                hi_ok = np.concatenate((o[:-1] < p, [True]))
                valid = np.flatnonzero(lo_ok & hi_ok)  # exactly k other rounds before o_k
                first[A] = min(int(o[valid[0]]), L) if valid.size else L
            else:
                hit = offs[J == j]
                if hit.size >= need[j]:
                    first[j] = hit[need[j] - 1]
        j = int(np.argmin(first))
        if first[j] >= L:
            j, used = -1, L
        else:
            used = int(first[j]) + 1
        keep = offs < used
        o, arms = offs[keep], J[keep]
        if offs.size == L:  # every round explicit
            recorder.record_steps(run, self.t, arms)
            counts = np.bincount(arms, minlength=K)
        else:
            other = arms != A
            p, q = o[other], arms[other]
            gaps = np.diff(np.concatenate(([-1], p, [used]))) - 1  # leader stretches around them
            seg_arms = np.empty(2 * p.size + 1, dtype=np.int64)
            seg_len = np.empty(2 * p.size + 1, dtype=np.int64)
            seg_arms[0::2], seg_len[0::2] = A, gaps
            seg_arms[1::2], seg_len[1::2] = q, 1
            nz = seg_len > 0
            recorder.record_runs(run, self.t, seg_arms[nz], seg_len[nz])
            counts = np.bincount(q, minlength=K)
            counts[A] += used - p.size
        return j, used, counts


def _beta_rejection(gen, a: np.ndarray, b: np.ndarray, accept) -> np.ndarray:
    """Beta(a, b) samples conditioned on ``accept(x)``, by rejection: the draws still rejected
    are drawn again, together, until every one is accepted."""
    out = np.empty(a.size)
    todo = np.arange(a.size)
    while todo.size:
        x = gen.beta(a[todo], b[todo])
        ok = accept(x)
        out[todo[ok]] = x[ok]
        todo = todo[~ok]
    return out


class _ClippedGroup:
    """The arms C whose optimistic mean is clipped at 1 in a window, as one virtual arm.

    Clipped at 1, arm j samples theta_j ~ Beta(O_j + 1, 1), whose CDF is x^{a_j}, a_j = O_j + 1,
    and stays clipped for the rest of the window (m_j(s) is nondecreasing).  For independent such
    samples, P(argmax_C = j, max_C <= x) = int_0^x a_j y^{a_j - 1} prod_{i != j} y^{a_i} dy
    = (a_j / S) x^S with S = sum_C a_i: the group's maximum is Beta(S, 1) and *which* arm attains
    it is independent of the maximum and of everything else, arm j with probability a_j / S.

    So the window is simulated with the group replaced by one virtual arm whose Beta is (S, 1)
    (private mean 2, no offset: clipped at 1 with O = S - 1), and the virtual arm's successive wins
    are given i.i.d. labels drawn in advance.  The labels alone decide at which virtual win the
    first member's buffer fills; that win count is the virtual arm's buffer room, so the window is
    cut exactly where the first buffer fills.  When every arm is clipped, the rounds are just the
    labels.
    """

    def __init__(self, gen, clipped, mu_tilde, bonus, obs) -> None:
        self.gen, self.C, self.K = gen, clipped, mu_tilde.size
        self.rest = np.setdiff1d(np.arange(self.K), clipped)
        a = obs[clipped] + 1.0
        self.S = float(a.sum())
        self.cum = np.cumsum(a / self.S)
        self.cum[-1] = 1.0
        self.v = self.rest.size  # index of the virtual arm in the reduced problem (the last)
        self.mu = np.append(mu_tilde[self.rest], 2.0)
        self.bonus = np.append(bonus[self.rest], 0.0)
        self.obs = np.append(obs[self.rest], self.S - 1.0)
        self.to_real = np.append(self.rest, -1)

    def _labels(self, room: np.ndarray) -> tuple[np.ndarray, int]:
        """Labels (indices into C) of the virtual wins, and the win at which a buffer fills."""
        p = np.diff(np.concatenate(([0.0], self.cum)))
        n = int(np.min(room / np.maximum(p, 1e-300)) * 1.2) + 32
        labels = np.empty(0, dtype=np.int64)
        while True:
            new = np.searchsorted(self.cum, self.gen.random(n), side="right")
            labels = np.concatenate((labels, np.minimum(new, self.C.size - 1)))
            counts = np.cumsum(labels[:, None] == np.arange(self.C.size)[None, :], axis=0)
            full = counts >= room[None, :]
            hit = full.any(axis=1)
            if hit.any():
                k = int(np.argmax(hit)) + 1
                return labels, k
            n = max(n, 64)

    def run(self, t: int, L: int, need: np.ndarray, recorder, run: int):
        """Simulate the window from round ``t`` (at most ``L`` rounds) until the first release;
        returns (arm released or -1, rounds used, pulls per arm), like :meth:`_Window.run`."""
        labels, k = self._labels(need[self.C])
        counts = np.zeros(self.K, dtype=np.int64)
        if self.rest.size == 0:  # every arm clipped: each round is one label
            used = min(k, L)
            arms = self.C[labels[:used]]
            recorder.record_steps(run, t, arms)
            counts += np.bincount(arms, minlength=self.K)
            return (int(arms[-1]) if used == k else -1), used, counts
        w = _Window(self.gen, self.mu, self.bonus, self.obs, t, L)
        if w.L > _DENSE_MAX and (w.plan is None or w.plain.any()):
            w = _Window(self.gen, self.mu, self.bonus, self.obs, t, _DENSE_MAX)
        rec = _GroupRecorder(recorder, self, labels)
        j, used, counts_r = w.run(np.append(need[self.rest], k), rec, run)
        counts[self.rest] = counts_r[:-1]
        nv = int(counts_r[-1])
        assert rec.used == nv
        counts[self.C] += np.bincount(labels[:nv], minlength=self.C.size)
        if j == self.v:
            return int(self.C[labels[k - 1]]), used, counts
        return (int(self.rest[j]) if j >= 0 else -1), used, counts


class _GroupRecorder:
    """Records a reduced window's pulls under the real arms: the virtual arm's wins, in order,
    take the group's labels."""

    def __init__(self, recorder, group: _ClippedGroup, labels: np.ndarray) -> None:
        self.rec, self.g, self.labels, self.used = recorder, group, labels, 0

    def _real(self, arms: np.ndarray) -> np.ndarray:
        real = self.g.to_real[arms]
        virt = np.flatnonzero(arms == self.g.v)
        real[virt] = self.g.C[self.labels[self.used: self.used + virt.size]]
        self.used += virt.size
        return real

    def record_steps(self, run: int, t0: int, arms: np.ndarray) -> None:
        self.rec.record_steps(run, t0, self._real(np.asarray(arms)))

    def record_runs(self, run: int, t0: int, arms: np.ndarray, lengths: np.ndarray) -> None:
        arms, lengths = np.asarray(arms), np.asarray(lengths)
        virt = arms == self.g.v
        reps = np.where(virt, lengths, 1)  # a virtual stretch becomes single rounds
        self.rec.record_runs(run, t0, self._real(np.repeat(arms, reps)),
                             np.repeat(np.where(virt, 1, lengths), reps))


def _laplace_draws(gen: np.random.Generator, block: int = 64):
    """Standard Laplace draws from one generator, pre-drawn in blocks (an endless iterator)."""
    while True:
        yield from _standard_laplace(gen, block).tolist()
