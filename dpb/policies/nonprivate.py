"""The non-private references IMED (Honda & Takemura 2015) and KL-UCB (Garivier & Cappe 2011).

Both pull every arm once, then decide at every step from the empirical means mu^_a = S_a / N_a:

* IMED: pull argmin_a  N_a kl(mu^_a, mu^*) + log N_a,  mu^* = max_b mu^_b (the paper's non-private
  benchmark; the DP-IMED index of :prf:ref:`alg-dp-klucb-imed` is its private analogue);
* KL-UCB: pull argmax_a  max{q in [mu^_a, 1] : N_a kl(mu^_a, q) <= log t + c log log t}, c = 0 by
  default (the budget is floored at 0 for the first rounds when c != 0).

Ties are broken uniformly at random.

Two simulators are provided.  The classes follow the generic phase protocol of
:class:`~dpb.policies.base.Policy` with phases of one pull (exact and simple, but a numpy call per
step).  :func:`simulate_imed_fast` and :func:`simulate_klucb_fast` are exact fast paths built on
one observation: most of the time these policies keep pulling the same *leader* arm, and while
they do only the leader's statistics move.

**IMED: reward tapes and certified segments** (:func:`simulate_imed_fast`, one run at a time).
The k-th pull of arm a pays the k-th entry of an i.i.d. Bernoulli(mu_a) sequence, whatever the
round, so each arm's future rewards can be drawn ahead as a *tape* of segments (L, s): L entries
summing to s, one Binomial(L, mu_a) draw for the T - t + 1 entries that can still be read.  Given
s, the entries are a uniformly random arrangement of s ones, so the first L_1 of them sum to a
Hypergeometric(s, L - s, L_1) variate and both parts are again uniform given their sums: a
segment is split exactly, at any point, and the unread part stays on the tape.

While A is the unique empirical best, its index is log N_A and arm j's index
N_j kl(mu_j, m) + log N_j increases with A's mean m > mu_j, so A is the rule's unique choice at
(N_A = n, mean m) iff m > theta(n) = max_j max(mu_j, kl_ucb(mu_j, (log n - log N_j) / N_j)), which
increases with n.  Along a segment (L, s) read from state (N_A, S_A), the lowest mean any
arrangement can reach is S_A / (N_A + min(L - s, L - 1)) (zeros first), so the segment is accepted
at once when that value exceeds theta(N_A + L - 1): every step in it is then a leader pull,
whatever the arrangement.  theta_j is concave in log n, so its tangent at an anchor n_0 bounds it
above for n >= n_0 (one inversion per arm and anchor).  A segment that fails is split (at a
fraction of the length that is safe whatever the rewards, from the linearised margin) and the
first part is examined; when even the next step is not certain, the exact rule decides it (ties
uniformly at random, as in the reference) and the chosen arm's reward is the first entry of its
tape.  The cost follows the segments examined and the decisions, not T (on the paper's
instances it grew like T^0.3 in the benchmark).  A margin of 1e-9 (plus 1e-13 N_j) on the
indexes covers rounding.

**KL-UCB** (:func:`simulate_klucb_fast`) uses the same tapes.  The index
U_a = kl_ucb(mu_a, f(t) / N_a), f(t) = log t + c log log t, is concave and increasing in the
budget f, so its tangent at an anchor bounds it above for later rounds while the arm is not
pulled (a zero reward keeps the bound valid: the index can only drop).  In a leader block of the
most pulled arm A the other indexes are below U0 + k (t - t0) (the tangents, and
f(t) - f(t0) <= (t - t0)(1 + c / log t0) / t0), and A's index is at least
kl_ucb(w, f(t0) / n_end) along a segment whose lowest possible mean is w and last count n_end: the
segment is accepted when that exceeds the others' bound (a kl comparison).  An exact step
computes the indexes in decreasing order of their upper bounds until the best value found
exceeds every remaining bound (an arm below it cannot tie), usually one or two inversions
instead of K.

**Two engines.**  Each fast path exists twice, with the same method and the same exactness: the
Python code of this module and a compiled kernel (numba, ``dpb/policies/_tape_kernel.py``,
imported only when it is first used), which is the default.  ``DPB_JIT=0`` in the environment
(or ``engine="python"``) selects the Python engine.  The two draw their random numbers in
different orders, so one seed gives different runs (of the same law); each engine gives the same
numbers for the same seed on every machine.  The kernel is called for a bounded number of
decisions at a time, so Ctrl-C stops a run within a fraction of a second.

See ``benchmarks/README.md`` for the speed.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import announce_compile, engine_name
from ._numerics import kl_fast, kl_ucb_fast
from .base import InitialRoundRobin, Policy, check_real

__all__ = ["IMED", "KLUCB", "simulate_imed_fast", "simulate_klucb_fast"]


def _kl(p: float, q: float) -> float:
    """Bernoulli kl(p, q) for two floats, as :func:`~dpb.policies._numerics.kl_fast` computes it
    (0 log 0 = 0; +inf where q is 0 or 1 and p differs)."""
    if p == q:
        return 0.0
    out = 0.0
    if p > 0.0:
        if q <= 0.0:
            return math.inf
        out += p * math.log(p / q)
    if p < 1.0:
        if q >= 1.0:
            return math.inf
        out += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return max(out, 0.0)


def _budget(t: np.ndarray, c: float) -> np.ndarray:
    """KL-UCB exploration budget log t + c log log t (floored at 0)."""
    lt = np.log(np.asarray(t, dtype=float))
    if c == 0.0:
        return lt
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.maximum(lt + c * np.log(lt), 0.0)


class _PerStep(InitialRoundRobin, Policy):
    """Shared state of the per-step empirical-mean policies (phases of one pull)."""

    private = False

    def _start(self) -> None:
        self.N = np.zeros((self.R, self.K), dtype=np.int64)
        self.S = np.zeros((self.R, self.K))
        self._init_state(1)

    def statistic(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.N > 0, self.S / np.maximum(self.N, 1), np.nan)

    def decide(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        arms = self._choose_arms(rows, t)
        return self._one_hot(arms, np.ones(rows.size, dtype=np.int64))

    def update(self, rows: np.ndarray, counts: np.ndarray, sums: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        self.N[rows] += counts
        self.S[rows] += sums

    def _index(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


class IMED(_PerStep):
    """IMED (Honda & Takemura 2015), Bernoulli form: argmin_a N_a kl(mu^_a, mu^*) + log N_a."""

    name = "IMED"
    style = {"color": "#000000", "ls": "--"}
    reference = "dpb.reference:_imed"
    index_kind = "min"

    def __init__(self) -> None:
        pass

    @property
    def params(self) -> dict:
        return {}

    def _index(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        n = self.N[rows]
        mu = self.S[rows] / n
        return n * kl_fast(mu, mu.max(axis=1, keepdims=True)) + np.log(n)

    def fast_simulate(self, means, T, env_generators, policy_generators, recorder) -> None:
        """Exact fast path (see the module docstring); used by :func:`dpb.simulate.simulate`."""
        simulate_imed_fast(means, T, env_generators, policy_generators, recorder)


class KLUCB(_PerStep):
    """KL-UCB (Garivier & Cappe 2011): argmax_a max{q : N_a kl(mu^_a, q) <= log t + c log log t}.

    Parameters
    ----------
    c : float
        Coefficient of the log log t term, >= 0 (default 0).
    """

    name = "KL-UCB"
    index_kind = "max"
    paper_defaults = {"c": 0.0}
    style = {"color": "#8c564b", "ls": "--"}
    reference = "dpb.reference:_klucb"

    def __init__(self, c: float = 0.0) -> None:
        self.c = check_real("c", c, low=0.0, strict=False)

    @property
    def params(self) -> dict:
        return {"c": self.c}

    def _index(self, rows: np.ndarray, t: np.ndarray) -> np.ndarray:
        n = self.N[rows]
        mu = self.S[rows] / n
        return kl_ucb_fast(mu, _budget(t, self.c)[:, None] / n)

    def fast_simulate(self, means, T, env_generators, policy_generators, recorder) -> None:
        """Exact fast path (see the module docstring); used by :func:`dpb.simulate.simulate`."""
        simulate_klucb_fast(means, T, env_generators, policy_generators, recorder, c=self.c)


# ----------------------------------------------------------------------------------------------
# fast exact paths: reward tapes refined by hypergeometric bisection
# ----------------------------------------------------------------------------------------------
_BLOCK_CAP = 1 << 28  # longest segment drawn at once (numpy's hypergeometric needs counts < 1e9)
_STREAM_CAP = 256  # uniforms pre-drawn per refill of a run's single-pull reads
_REANCHOR = 0.01  # re-anchor a threshold tangent when log N_A has grown by this much
# wrong variants, for the tests' power checks only: check a segment at its first step only
# (_CHECK_AT_END = False), or at its end point's mean instead of its worst path (_WORST_PATH = False)
_CHECK_AT_END = True
_WORST_PATH = True
_SPLIT_SAFETY = 0.8  # split length = this fraction of the linearised all-zeros safe length
_ONE_MINUS = float(np.nextafter(1.0, 0.0))


def _kl_ucb(x: float, c: float) -> float:
    """max{q in [x, 1] : kl(x, q) <= c} for two floats, as :func:`~dpb.policies._numerics.kl_ucb_fast`
    computes it (Newton's iteration from above; 1 when x >= 1 or c is infinite, x when c <= 0)."""
    if x >= 1.0 or c == math.inf:
        return 1.0
    if not c > 0.0:
        return x
    one_m_x = 1.0 - x
    neg_ent = (x * math.log(x) if x > 0.0 else 0.0) + one_m_x * math.log(one_m_x)
    upper = min(x + math.sqrt(0.5 * c), -math.expm1(-(c - neg_ent) / one_m_x), _ONE_MINUS)
    guess = x + math.sqrt(2.0 * c * x * one_m_x)
    q = min(guess, upper) if guess > x else upper
    x_safe = x if x > 0.0 else 1.0
    log1p = math.log1p
    for _ in range(60):  # (the same arithmetic as kl_ucb_fast, with scalar comparisons)
        d = q - x
        r = d / x_safe
        g = -(x * log1p(r if r < 1e300 else 1e300) + one_m_x * log1p(-d / one_m_x)) - c
        q_new = q - g * q * (1.0 - q) / (d if d > 1e-300 else 1e-300)
        if q_new < x:
            q_new = x
        if q_new > upper:
            q_new = upper
        delta = q_new - q
        q = q_new
        if -1e-9 <= delta <= 1e-9:
            break
    return q


class _Tapes:
    """The future rewards of every arm of one run, as stacks of segments (length, sum).

    Arm ``a``'s k-th pull pays the k-th entry of an i.i.d. Bernoulli(mu_a) sequence, whichever
    rounds it is pulled in.  A segment of ``L`` entries with sum ``s`` is drawn as one
    Binomial(L, mu_a); given ``s``, its entries are a uniformly random arrangement of ``s`` ones,
    so its first ``L1`` entries sum to a Hypergeometric(s, L - s, L1) variate and the two parts
    are again uniformly arranged given their sums.  Splitting the top segment therefore refines
    the sequence exactly, as far as the policy needs to look, and unread segments stay on the
    tape for the arm's later pulls.
    """

    def __init__(self, means, T: int, gen: np.random.Generator) -> None:
        self.means = [float(m) for m in means]
        self.T = T
        self.gen = gen
        self.lens = [[] for _ in self.means]
        self.sums = [[] for _ in self.means]
        self._u: list[float] = []

    def top(self, a: int, t: int) -> tuple[int, int]:
        """The next segment of arm ``a`` at round ``t`` (a new Binomial segment of at most the
        T - t + 1 remaining rounds when the tape is empty)."""
        la, sa = self.lens[a], self.sums[a]
        if not la:
            L = min(self.T - t + 1, _BLOCK_CAP)
            la.append(L)
            sa.append(int(self.gen.binomial(L, self.means[a])))
        return la[-1], sa[-1]

    def split(self, a: int, L1: int) -> tuple[int, int]:
        """Split arm ``a``'s top segment after its first ``L1`` entries; return the first part."""
        la, sa = self.lens[a], self.sums[a]
        L, s = la[-1], sa[-1]
        if s == 0 or s == L:
            s1 = s and L1
        else:
            s1 = int(self.gen.hypergeometric(s, L - s, L1))
        la[-1], sa[-1] = L - L1, s - s1
        la.append(L1)
        sa.append(s1)
        return L1, s1

    def pop(self, a: int) -> None:
        self.lens[a].pop()
        self.sums[a].pop()

    def pull(self, a: int, t: int) -> int:
        """The reward of one pull of arm ``a`` at round ``t``: the first entry of its tape."""
        L, s = self.top(a, t)
        if L == 1:
            self.pop(a)
            return s
        if not self._u:
            self._u = self.gen.random(_STREAM_CAP).tolist()
        x = 1 if self._u.pop() * L < s else 0  # P(first entry = 1 | L, s) = s / L
        self.lens[a][-1], self.sums[a][-1] = L - 1, s - x
        return x


def _pick(idx: list[float], best: float, rand: list, gen: np.random.Generator) -> int:
    """The arm whose index equals ``best``, ties broken uniformly at random (one uniform)."""
    tied = [a for a, v in enumerate(idx) if v == best]
    if len(tied) == 1:
        return tied[0]
    if not rand:
        rand.extend(gen.random(64).tolist())
    return tied[min(int(rand.pop() * len(tied)), len(tied) - 1)]


class _Stretches:
    """Consecutive pulls of one run, merged into stretches (arm, length) for the recorder."""

    def __init__(self) -> None:
        self.arms: list[int] = []
        self.lengths: list[int] = []

    def add(self, a: int, n: int) -> None:
        if self.arms and self.arms[-1] == a:
            self.lengths[-1] += n
        else:
            self.arms.append(a)
            self.lengths.append(n)


def _imed_run(means, T: int, env_gen, pol_gen, rec, run: int) -> None:
    """One exact IMED run (see the module docstring), written into row ``run`` of ``rec``."""
    K = len(means)
    log, kl = math.log, _kl
    tape, out, rand = _Tapes(means, T, env_gen), _Stretches(), []
    N = [1] * K
    S = [tape.pull(a, a + 1) for a in range(K)]  # initialisation: each arm once, in arm order
    for a in range(K):
        out.add(a, 1)
    # tangent of each arm's threshold, valid while the arm is not pulled: (N_j, log n_0, A_j, b_j)
    anchor: list = [None] * K
    mu = [S[a] / N[a] for a in range(K)]
    top = -1.0
    dirty = -1  # arm whose index is stale (-1: all of them)
    t = K + 1
    while t <= T:
        # the exact rule's indexes N_a kl(mu_a, mu*) + log N_a; an index changes only when its
        # arm moved or mu* changed, so after an exact step only the pulled arm's is recomputed
        new_top = max(mu)
        if new_top != top or dirty < 0:
            top = new_top
            idx = [N[a] * kl(mu[a], top) + log(N[a]) for a in range(K)]
        else:
            idx[dirty] = N[dirty] * kl(mu[dirty], top) + log(N[dirty])
        A = mu.index(top)
        lead = mu.count(top) == 1
        if lead:  # is the next step surely the leader's (margins as below)?
            ln0 = log(N[A])
            for j in range(K):
                if j != A and idx[j] - 1e-9 - 1e-13 * N[j] <= ln0:
                    lead = False
                    break
        if lead:
            # Leader block.  While A is the unique empirical best, its index is log N_A, and arm
            # j's index N_j kl(mu_j, m) + log N_j grows with A's mean m > mu_j: A is the exact
            # rule's unique choice at (N_A = n, mean m) iff m > theta_j(n) for every j, where
            # theta_j(n) = max(mu_j, kl_ucb(mu_j, (log n - log N_j) / N_j)).  theta_j is concave
            # in log n where it exceeds mu_j, so its tangent at log n_0 bounds it above for
            # n >= n_0: one inversion per arm and re-anchoring, then one line per check.
            nA, sA, acc = N[A], S[A], 0
            mmax, t0, slope = -1.0, -1.0, 0.0
            for j in range(K):
                if j == A:
                    continue
                if mu[j] > mmax:
                    mmax = mu[j]
                an = anchor[j]
                if an is None or an[0] != N[j] or not 0.0 <= ln0 - an[1] <= _REANCHOR:
                    an = None
                    c = (ln0 + 1e-9 + 1e-13 * N[j] - log(N[j])) / N[j]
                    if c > 0.0:
                        q = _kl_ucb(mu[j], c)  # (Newton from above: q >= the root)
                        if q - mu[j] > 1e-8 and q < 1.0:
                            # d theta_j / d log n = q (1 - q) / ((q - mu_j) N_j) at the root; the
                            # denominator is shrunk by 1e-9 so that the slope is not underestimated
                            b = q * (1.0 - q) / ((q - mu[j] - 1e-9) * N[j])
                            an = (N[j], ln0, q + 1e-9 - b * ln0, b)
                    anchor[j] = an
                    if an is None:
                        break
                # the upper envelope of the tangents for log n >= ln0: one line, through the
                # highest tangent at ln0, with the largest slope
                v = an[2] + an[3] * ln0
                if v > t0:
                    t0 = v
                if an[3] > slope:
                    slope = an[3]
            else:
                mmax += 1e-12
                # log n - log n_0 <= (n - n_0) / n_0: the envelope at n is below t0 + k (n - n_0)
                n0, k = nA, slope / nA
                la, sa = tape.lens[A], tape.sums[A]
                while t <= T:
                    if not la:
                        tape.top(A, t)
                    L, s = la[-1], sa[-1]
                    if L > T - t + 1:
                        L, s = tape.split(A, T - t + 1)
                    # along a segment of L pulls with sum s the lowest mean comes after its zeros
                    # come first: S_A / (N_A + min(L - s, L - 1)); theta grows with n, so one
                    # check at the segment's end covers every step in it
                    w = sA / (nA + (L - s if s else L - 1))
                    thr = t0 + k * ((nA + L - 1 if _CHECK_AT_END else nA) - n0)
                    if w > thr and w > mmax:
                        la.pop()
                        sa.pop()
                        nA, sA, t, acc = nA + L, sA + s, t + L, acc + L
                        continue
                    if L == 1:
                        break
                    # not certified: split the segment.  The split point only changes the cost:
                    # aim at a fraction of the length that is safe whatever the rewards.
                    w0 = sA / nA
                    thr = t0 + k * (nA - n0)
                    if thr < mmax:
                        thr = mmax
                    if w0 <= thr:
                        break  # the next step is uncertain: the exact rule decides it
                    if w0 >= 1.0:  # (only ones so far: no linearisation, halve)
                        L1 = L >> 1
                    else:
                        # after j zeros the mean is ~ w0 (1 - j / N_A), theta ~ thr + slope j / N_A
                        guess = _SPLIT_SAFETY * (w0 - thr) * nA / ((w0 + slope) * (1.0 - w0))
                        L1 = max(int(guess), 1) if guess < L else L >> 1
                    tape.split(A, L1)
                N[A], S[A] = nA, sA
                if acc:  # the leader moved: mu* and every index change
                    out.add(A, acc)
                    mu[A] = sA / nA
                    dirty = -1
                    continue
        # one exact step of the rule (random ties), as in the per-step reference
        best = min(idx)
        if idx.count(best) == 1:
            b = idx.index(best)
        else:
            b = _pick(idx, best, rand, pol_gen)
        S[b] += tape.pull(b, t)
        N[b] += 1
        mu[b] = S[b] / N[b]
        out.add(b, 1)
        t += 1
        dirty = b
    rec.record_runs(run, 1, np.array(out.arms, dtype=np.int64), np.array(out.lengths, dtype=np.int64))


def simulate_imed_fast(means, T, env_generators, policy_generators, recorder,
                       engine: str | None = None) -> None:
    """Exact fast IMED simulation of ``len(env_generators)`` runs into ``recorder`` (``engine``
    as in :func:`simulate_klucb_fast`)."""
    env_generators, policy_generators = _check_generators(env_generators, policy_generators)
    means = [float(m) for m in np.asarray(means, dtype=float)]
    T = _check_horizon(T, len(means))
    compiled = _use_kernel(engine)
    for r, (ge, gp) in enumerate(zip(env_generators, policy_generators, strict=True)):
        if compiled:
            _kernel_run("IMED", means, T, 0.0, ge, gp, recorder, r)
        else:
            _imed_run(means, T, ge, gp, recorder, r)


def _check_generators(env_generators, policy_generators):
    env_generators, policy_generators = list(env_generators), list(policy_generators)
    if len(env_generators) != len(policy_generators):
        raise ValueError("env_generators and policy_generators must have the same length")
    return env_generators, policy_generators


def _check_horizon(T, K: int) -> int:
    T = int(T)
    if T < K:
        raise ValueError(f"T must be >= K={K} (every arm is pulled once first), got T={T}")
    return T


def _budget_scalar(t: int, c: float) -> float:
    """KL-UCB exploration budget log t + c log log t (floored at 0), for one round."""
    lt = math.log(t)
    if c == 0.0:
        return lt
    return max(lt + c * math.log(lt), 0.0) if lt > 0.0 else 0.0


def _klucb_run(means, T: int, c: float, env_gen, pol_gen, rec, run: int) -> None:
    """One exact KL-UCB run (see the module docstring), written into row ``run`` of ``rec``."""
    K = len(means)
    kl = _kl
    tape, out, rand = _Tapes(means, T, env_gen), _Stretches(), []
    N = [1] * K
    S = [tape.pull(a, a + 1) for a in range(K)]  # initialisation: each arm once, in arm order
    for a in range(K):
        out.add(a, 1)
    mu = [S[a] / N[a] for a in range(K)]
    # U_a(f) = kl_ucb(mu_a, f / N_a) is concave and increasing in the budget f, so its tangent at
    # an anchor f_a bounds it above for f >= f_a, and its value there bounds it below:
    # (N_a, f_a, value + 1e-9, slope, value - 1e-9), valid while the arm is not pulled (after a
    # zero reward the index can only go down: the upper bound stays, the lower one goes)
    anchor: list = [None] * K

    def exact(a: int, f: float) -> float:
        v = _kl_ucb(mu[a], f / N[a])
        if mu[a] >= 1.0:
            anchor[a] = (N[a], f, 1.0 + 1e-9, 0.0, v - 1e-9)
        elif v - mu[a] > 1e-8 and v < 1.0:
            slope = v * (1.0 - v) / ((v - mu[a] - 1e-9) * N[a]) * (1.0 + 1e-6)
            anchor[a] = (N[a], f, v + 1e-9, slope, v - 1e-9)
        else:
            anchor[a] = None
        return v

    def bound(a: int, f: float) -> float:
        an = anchor[a]
        if an is None or an[0] != N[a] or f < an[1]:
            return 2.0
        return an[2] + an[3] * (f - an[1])

    t = K + 1
    while t <= T:
        # Leader block: the most pulled arm A.  The others do not move while A is pulled, and
        # their indexes grow with t only: below U0 + ku (t - t0) by their tangents and
        # f(t) - f(t0) <= (t - t0) (1 + c / log t0) / t0.  A's index kl_ucb(m, f / n) grows with
        # its mean m and the budget and falls with n: along a segment it is at least
        # kl_ucb(w, f(t0) / n_end) with w the segment's lowest possible mean.
        A = N.index(max(N))
        t0 = t
        f0 = _budget_scalar(t0, c)
        U0, smax = -1.0, 0.0
        for k in range(K):
            if k == A:
                continue
            v = bound(k, f0)
            if v > 1.0:
                exact(k, f0)
                v = bound(k, f0)
            if v > U0:
                U0 = v
            an = anchor[k]
            if an is None or an[3] > smax:
                smax = math.inf if an is None else an[3]
        lt0 = math.log(t0)
        ku = smax * (1.0 + c / lt0) / t0 if U0 <= 1.0 and smax < math.inf else math.inf
        fmarg = f0 - 1e-9 * (1.0 + f0)
        nA, sA, acc = N[A], S[A], 0
        la, sa = tape.lens[A], tape.sums[A]
        t_stop = min(T, t0 + (t0 >> 6))  # then a new block: fresh budget and bounds
        while t <= t_stop and ku < math.inf:
            if not la:
                tape.top(A, t)
            L, s = la[-1], sa[-1]
            if L > T - t + 1:
                L, s = tape.split(A, T - t + 1)
            w = sA / (nA + (L - s if s else L - 1)) if _WORST_PATH else (sA + s) / (nA + L)
            u = U0 + ku * ((t + L - 1 if _CHECK_AT_END else t) - t0)
            if u < 1.0 and (w > u or (nA + L - 1) * kl(w, u) < fmarg - 1e-13 * (nA + L)):
                la.pop()
                sa.pop()
                nA, sA, t, acc = nA + L, sA + s, t + L, acc + L
                continue
            if L == 1:
                break
            w0 = sA / nA
            u0 = U0 + ku * (t - t0)
            if u0 >= 1.0:
                break
            if w0 > u0 or w0 <= 0.0:
                L1 = L >> 1
            else:
                g0 = fmarg - 1e-13 * nA - nA * kl(w0, u0)
                if g0 <= 0.0:
                    break  # the next step is uncertain: the exact rule decides it
                # per zero, n kl(S / n, u) grows by ~ log((1 - w0) / (1 - u0)); per step, u by ku
                dz = math.log((1.0 - w0) / (1.0 - u0))
                du = nA * (u0 - w0) / (u0 * (1.0 - u0)) * ku
                guess = _SPLIT_SAFETY * g0 / ((1.0 - w0) * dz + du)
                L1 = max(int(guess), 1) if guess < L else L >> 1
            tape.split(A, L1)
        if acc:
            N[A], S[A] = nA, sA
            mu[A] = sA / nA
            out.add(A, acc)
            continue
        if t > T:
            break
        # one exact step: argmax of the indexes (random ties), as in the per-step reference.
        # Indexes are computed in decreasing order of their upper bounds until the best value
        # found exceeds every remaining bound; an arm below the best cannot tie with it.
        f = _budget_scalar(t, c)
        ubs = [bound(a, f) for a in range(K)]
        lbs = [-1.0 if ubs[a] > 1.0 else anchor[a][4] for a in range(K)]
        b = lbs.index(max(lbs))
        if any(ubs[a] >= lbs[b] for a in range(K) if a != b):
            best, vals = -1.0, {}
            for a in sorted(range(K), key=ubs.__getitem__, reverse=True):
                if ubs[a] < best:
                    break
                v = vals[a] = exact(a, f)
                if v > best:
                    best = v
            tied = sorted(a for a, v in vals.items() if v == best)
            b = tied[0] if len(tied) == 1 else tied[_pick([best] * len(tied), best, rand, pol_gen)]
        # (else arm b's index is above every other arm's bound: b is the argmax, with no inversion)
        x = tape.pull(b, t)
        an = anchor[b]
        S[b] += x
        N[b] += 1
        mu[b] = S[b] / N[b]
        if an is not None and x == 0 and an[0] == N[b] - 1:
            anchor[b] = (N[b], an[1], an[2], an[3], -1.0)  # a zero lowers the index
        out.add(b, 1)
        t += 1
    rec.record_runs(run, 1, np.array(out.arms, dtype=np.int64), np.array(out.lengths, dtype=np.int64))


def simulate_klucb_fast(means, T, env_generators, policy_generators, recorder, c: float = 0.0,
                        engine: str | None = None) -> None:
    """Exact fast KL-UCB simulation of ``len(env_generators)`` runs into ``recorder``.

    ``engine``: ``"numba"`` (the compiled kernel) or ``"python"``; None reads the environment
    variable ``DPB_JIT`` (``"0"``: python, otherwise numba).  Both are exact in distribution;
    their random numbers are drawn in different orders, so one seed gives different runs.
    """
    env_generators, policy_generators = _check_generators(env_generators, policy_generators)
    means = [float(m) for m in np.asarray(means, dtype=float)]
    T = _check_horizon(T, len(means))
    compiled = _use_kernel(engine)
    for r, (ge, gp) in enumerate(zip(env_generators, policy_generators, strict=True)):
        if compiled:
            _kernel_run("KL-UCB", means, T, float(c), ge, gp, recorder, r)
        else:
            _klucb_run(means, T, float(c), ge, gp, recorder, r)


_KERNEL_BUDGET = 1 << 15  # decisions per call of a compiled kernel (Ctrl-C is seen between calls)
_KERNEL_SIZES = (64, 1024)  # initial places per arm's tape and for the stretches (doubled on demand)


def _use_kernel(engine: str | None) -> bool:
    """True for the compiled engine (``engine`` "numba", or None with ``DPB_JIT`` not "0")."""
    if engine is None:
        engine = engine_name()
    if engine not in ("numba", "python"):
        raise ValueError(f"engine must be 'numba' or 'python', got {engine!r}")
    return engine == "numba"


def _kernel_run(name: str, means, T: int, c: float, env_gen, pol_gen, rec, run: int) -> None:
    """One exact run of IMED or KL-UCB by the compiled kernel of ``_tape_kernel`` (the same
    method as :func:`_imed_run` / :func:`_klucb_run`), written into row ``run`` of ``rec``.  The
    kernel is called for at most ``_KERNEL_BUDGET`` decisions at a time, so that an interrupt is
    handled between calls."""
    from . import _tape_kernel as kernel  # (imports numba: only when a compiled run is asked for)

    announce_compile(kernel.__file__)  # once, when numba's disk cache is cold
    K = len(means)
    steps = kernel.klucb_steps if name == "KL-UCB" else kernel.imed_steps
    mu = np.asarray(means, dtype=float)
    N, S = np.zeros(K, dtype=np.int64), np.zeros(K, dtype=np.int64)
    st, tn = np.zeros(2, dtype=np.int64), np.zeros(K, dtype=np.int64)
    places, out = _KERNEL_SIZES[0], max(_KERNEL_SIZES[1], K + 2)
    tl, ts = np.zeros((K, places), dtype=np.int64), np.zeros((K, places), dtype=np.int64)
    anc, ancn = np.zeros((K, 4)), np.full(K, -1, dtype=np.int64)
    oarm, olen = np.zeros(out, dtype=np.int64), np.zeros(out, dtype=np.int64)
    status = 1
    while status:
        status = steps(
            mu, int(T), float(c), env_gen, pol_gen, N, S, st, tl, ts, tn, anc, ancn, oarm, olen,
            bool(_CHECK_AT_END), bool(_WORST_PATH), float(_SPLIT_SAFETY), _KERNEL_BUDGET,
            float(_REANCHOR),
        )
        if status == 2:  # the kernel asks for room: double the tapes, or the stretches
            if tn.max() + kernel.ROOM > tl.shape[1]:
                tl = np.concatenate([tl, np.zeros_like(tl)], axis=1)
                ts = np.concatenate([ts, np.zeros_like(ts)], axis=1)
            else:
                oarm = np.concatenate([oarm, np.zeros_like(oarm)])
                olen = np.concatenate([olen, np.zeros_like(olen)])
    n = int(st[1])
    rec.record_runs(run, 1, oarm[:n].copy(), olen[:n].copy())
