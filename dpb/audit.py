"""An empirical privacy audit of bandit policies, and deliberately broken policies to catch.

A policy is eps-DP (View DP, the paper's definition 'Table DP and View DP') when for every pair of
neighbouring reward lists r ~ r' and every event E on the action sequence,
P[E | r] <= e^eps P[E | r'].  A proof covers all events; a simulation can only look at a few, but
it can look at them honestly.  The audit (:func:`audit`) runs the policy many times on ``r`` and on
``r'``, searches a family of events for the one whose probabilities differ most, and returns a
*lower confidence bound* on the privacy loss,

.. math::

   \\hat\\varepsilon_{\\mathrm{lower}} = \\log \\frac{\\underline p_1}{\\overline p_2},

with ``p1_lower`` a Clopper-Pearson lower bound on P[E | r] and ``p2_upper`` an upper bound on
P[E | r'] (Clopper & Pearson, 1934), each at level ``1 - (1 - confidence) / 2``.  If the policy is
really eps-DP, then ``eps_lower > eps`` happens with probability at most ``1 - confidence``
(whatever event was picked, provided it was picked on other data); an ``eps_lower`` above the
claimed budget is statistical evidence that the claim is false.  The audit never proves privacy:
``eps_lower <= eps`` only says that these events, at this number of runs, found nothing.

Keeping the inference honest
----------------------------
Searching many events and reporting the best one overfits: with enough events some ratio is
large by chance.  Two remedies, the ``method`` argument:

* ``"split"`` (default): the runs are split in halves; the event is chosen on the first half
  (including data-driven events: sets of action prefixes ranked by their estimated likelihood
  ratio, the Neyman-Pearson shape of the best test) and its probabilities are estimated on the
  second half only;
* ``"bonferroni"``: a fixed family of ``m`` events is estimated on all runs, each bound at level
  ``1 - (1 - confidence) / (2m)`` (union bound), and the largest lower bound is reported.

The event family (:func:`event_family`) is built around the changed reward at ``t_star``: the arm
chosen at the first (and second) decision after the phase containing ``t_star`` -- the first
actions that can depend on it, since a phase's rewards reach the policy only when the phase ends --
the arm played at each later step, and thresholds on the pull counts.

Which policies are audited
--------------------------
:func:`private_policies` (also readable as ``PRIVATE_POLICIES``) lists every registered policy
whose class says ``private = True`` (:mod:`dpb.policies.registry`): a new private policy is
audited as soon as its class is defined, and :func:`make_audit_policy` also takes a
``"file.py:Class"`` reference.

Broken policies
---------------
:func:`broken_policy` builds DP-IMED or DP-KLUCB with one deliberate mistake, for teaching and as
the audit's positive controls (``"no-noise"``, ``"small-noise"``, ``"reused-noise"``,
``"fresh-mean-noise"``; see :data:`FLAWS`).  They subclass the engine's policies and change only
how the noise enters the running sum.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ._params import merge_params
from ._validate import MAX_RUNS, MAX_SECONDS, as_choice, as_float_array, as_int, as_real, check_real
from .interaction import (
    Transcript,
    _check_transcript,
    _rewards_list,
    neighbouring_list,
    _check_work,
    run_on_list,
)
from .policies import Policy
from .policies.dp_batched import DPIMED, DPKLUCB, BatchedPrivatePolicy
from .policies.registry import as_policy, policy_class, registered

__all__ = [
    "clopper_pearson",
    "event_family",
    "AuditResult",
    "audit",
    "audit_lists",
    "audit_policy",
    "audit_lists_default",
    "FLAWS",
    "broken_policy",
    "BROKEN_CLASSES",
    "private_policies",
    "audit_policy_names",
    "make_audit_policy",
    "prefix_law_test",
]

# A policy as :func:`audit_lists` takes it (see :func:`dpb.policies.registry.as_policy`): an object,
# a registered name or "file.py:Class", a (name, params) pair, a class or a factory.
_PolicySpec = Policy | str | tuple[str, dict] | Callable[..., Policy]


# ----------------------------------------------------------------------------------------------
# Clopper-Pearson bounds
# ----------------------------------------------------------------------------------------------
def clopper_pearson(successes: ArrayLike, n: int, level: float, side: str) -> float | np.ndarray:
    """One-sided Clopper-Pearson bound on a binomial probability (Clopper & Pearson, 1934).

    Parameters
    ----------
    successes : array_like of int
        Number of runs in which the event happened, in ``[0, n]``.
    n : int
        Number of runs (>= 1).
    level : float
        Confidence level of the one-sided bound, in (0, 1).
    side : {"lower", "upper"}
        ``"lower"``: the ``(1 - level)`` quantile of Beta(k, n - k + 1) (0 when k = 0);
        ``"upper"``: the ``level`` quantile of Beta(k + 1, n - k) (1 when k = n).

    Returns
    -------
    ndarray or float
        ``P[p >= lower] >= level`` (resp. ``P[p <= upper] >= level``) for every true p.
    """
    k = as_float_array("successes", successes)
    n = as_int("n", n, minimum=1)
    level = check_real("level", level, low=0.0, high=1.0)
    if level >= 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    if np.any(np.isnan(k)) or np.any(k < 0) or np.any(k > n) or np.any(k != np.round(k)):
        raise ValueError(f"successes must be integers in [0, n = {n}]")
    from scipy import stats  # deferred: scipy.stats costs ~0.5 s to import

    if side not in ("lower", "upper"):
        raise ValueError(f"side must be 'lower' or 'upper', got {side!r}")
    with np.errstate(invalid="ignore"):
        if side == "lower":
            out = np.where(k > 0, stats.beta.ppf(1.0 - level, np.maximum(k, 1), n - k + 1), 0.0)
        else:
            out = np.where(k < n, stats.beta.ppf(level, k + 1, np.maximum(n - k, 1)), 1.0)
    return float(out) if out.ndim == 0 else out


# ----------------------------------------------------------------------------------------------
# events
# ----------------------------------------------------------------------------------------------
def _horizons(horizons, T: int, t_star: int) -> list[int]:
    """The prefix lengths of the count events: ``horizons`` checked, or by default six steps from
    ``t_star + 1`` to ``T``."""
    if horizons is None:
        return sorted({int(h) for h in np.rint(np.linspace(min(t_star + 1, T), T, 6))})
    if isinstance(horizons, (str, bytes)) or not hasattr(horizons, "__iter__"):
        raise TypeError(f"horizons must be a sequence of steps in [1, T = {T}], got {horizons!r}")
    return [as_int("horizons", h, minimum=1, maximum=T) for h in horizons]


def _check_pair(tr1, tr2) -> None:
    """Two samples of one policy's runs: transcripts with the same K and T."""
    _check_transcript("tr1", tr1)
    _check_transcript("tr2", tr2)
    if (tr1.K, tr1.T) != (tr2.K, tr2.T):
        raise ValueError("tr1 and tr2 must have the same K and T")


def _confidence(confidence) -> float:
    # below 1 - 1e-9: the one-sided levels 1 - (1 - confidence) / (2 m) must stay below 1 in floats
    return as_real("confidence", confidence, low=0.0, high=1.0 - 1e-9, low_open=True)


def event_family(tr: Transcript, t_star: int, horizons: Iterable[int] | None = None
                 ) -> tuple[np.ndarray, list[str]]:
    """A fixed family of events on the actions, built around the challenge step ``t_star``.

    Columns (each also enters the audit through its complement):

    * ``d1 = k`` and ``d2 = k``: the arm chosen at the first and second decision after the phase
      containing ``t_star`` (:meth:`dpb.interaction.Transcript.decision_after`), ``k = -1`` for
      "no such decision";
    * ``a_s = k`` for every later step ``s > t_star`` and arm ``k``;
    * ``N_k(h) >= c``: arm ``k`` pulled at least ``c`` times in steps ``1..h``, for ``h`` in
      ``horizons`` (default: six steps from ``t_star + 1`` to ``T``) and ``c = 1..h``.

    All of them are functions of the published actions (the phase boundaries are, for every
    policy of :mod:`dpb.policies`).

    Parameters
    ----------
    tr : Transcript
        The runs.
    t_star : int
        Step (1-based) of the changed reward.
    horizons : sequence of int, optional
        Prefix lengths of the count events.

    Returns
    -------
    X : ndarray (R, E), bool
        ``X[i, e]`` is True when event ``e`` happened in run ``i``.
    names : list of str
        A readable description of each event.
    """
    _check_transcript("tr", tr)
    T, K = tr.T, tr.K
    t_star = as_int("t_star", t_star, minimum=1, maximum=T)
    hs = _horizons(horizons, T, t_star)
    cols, names = [], []
    for which in (1, 2):
        d = tr.decision_after(t_star, which)
        for k in range(-1, K):
            cols.append(d == k)
            arm = "none" if k < 0 else f"arm {k + 1}"
            names.append(f"decision #{which} after the phase of t*={t_star} is {arm}")
    for s in range(t_star + 1, T + 1):
        for k in range(K):
            cols.append(tr.actions[:, s - 1] == k)
            names.append(f"a_{s} = arm {k + 1}")
    for h in hs:
        counts = tr.counts(h)
        for k in range(K if K > 2 else 1):
            for c in range(1, h + 1):
                cols.append(counts[:, k] >= c)
                names.append(f"N_{k + 1}({h}) >= {c}")
    return np.stack(cols, axis=1), names


def _prefix_ids(transcripts: list[Transcript], h: int) -> list[np.ndarray]:
    """Integer ids of the action prefixes (a_1..a_h), consistent across the given transcripts."""
    blocks = [np.ascontiguousarray(tr.actions[:, :h]) for tr in transcripts]
    allp = np.concatenate(blocks)
    view = allp.view(np.dtype((np.void, allp.dtype.itemsize * h))).ravel()
    _, inv = np.unique(view, return_inverse=True)
    inv = inv.ravel()
    out, start = [], 0
    for b in blocks:
        out.append(inv[start:start + b.shape[0]])
        start += b.shape[0]
    return out


# ----------------------------------------------------------------------------------------------
# the audit
# ----------------------------------------------------------------------------------------------
@dataclass(eq=False)
class AuditResult:
    """Outcome of :func:`audit`.

    Attributes
    ----------
    eps_lower : float
        Lower confidence bound on the privacy loss, ``log(p1_lower / p2_upper)`` (``-inf`` when
        ``p1_lower = 0``; ``+inf`` never happens, since ``p2_upper > 0``).
    eps_hat : float
        Point estimate ``log(p1_hat / p2_hat)`` of the chosen event's log ratio (may be infinite).
    event : str
        The chosen event, and which input is the numerator (``P[E | r] / P[E | r']`` or the
        reverse).
    p1_hat, p2_hat : float
        Estimated probabilities of the event in the numerator and denominator samples.
    p1_lower, p2_upper : float
        Their Clopper-Pearson bounds.
    n1, n2 : int
        Runs used for the estimate in each sample.
    confidence : float
        Joint confidence of ``eps_lower`` (union bound over the two one-sided intervals, and over
        the family with ``method="bonferroni"``).
    method : str
        ``"split"`` or ``"bonferroni"``; ``n_events`` the number of candidate events.
    eps : float or None
        The budget the policy claims (if known); ``caught`` is ``eps_lower > eps``.
    """

    eps_lower: float
    eps_hat: float
    event: str
    p1_hat: float
    p2_hat: float
    p1_lower: float
    p2_upper: float
    n1: int
    n2: int
    confidence: float
    method: str
    n_events: int
    eps: float | None = None
    info: dict = field(default_factory=dict)
    transcripts: tuple | None = field(default=None, repr=False)

    @property
    def interval(self) -> tuple[float, float]:
        """Two-sided interval on the chosen event's log ratio: (eps_lower, log(p1_upper / p2_lower)).

        Both ends at the audit's confidence levels (each end uses the one-sided bounds of
        ``eps_lower``); the upper end is ``+inf`` when ``p2_lower = 0``.
        """
        lvl = self.info.get("level", 1.0 - (1.0 - self.confidence) / 2)
        # log(p1_upper / p2_lower) = -(log p2_lower - log p1_upper): +inf when p2_lower = 0
        return self.eps_lower, -float(_scores(self.info["k2"], self.n2, self.info["k1"], self.n1, lvl))

    @property
    def caught(self) -> bool:
        """True when the audit refutes the claimed budget: ``eps_lower > eps``."""
        return self.eps is not None and self.eps_lower > self.eps

    def summary(self) -> str:
        """One readable line (rounded) for printing in the book."""
        claim = "" if self.eps is None else f" vs eps = {self.eps:g}"
        verdict = "" if self.eps is None else ("  CAUGHT" if self.caught else "  consistent")
        return (f"eps_lower = {self.eps_lower:.3f} (eps_hat = {self.eps_hat:.3f}, "
                f"{100 * self.confidence:g}% confidence){claim}{verdict}; event: {self.event}")


def _log(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


def _scores(c1, n1, c2, n2, level):
    """Lower bounds log(p1_lo/p2_hi) for events with counts c1/n1 (numerator), c2/n2."""
    lo = clopper_pearson(c1, n1, level, "lower")
    hi = clopper_pearson(c2, n2, level, "upper")
    return _log(lo) - _log(hi)


def _oriented(c1, n1, c2, n2, level):
    """Scores of the 4 orientations (E or not-E, r or r' on top); shape (4, E)."""
    c1 = np.asarray(c1)
    c2 = np.asarray(c2)
    return np.stack([
        _scores(c1, n1, c2, n2, level),
        _scores(c2, n2, c1, n1, level),
        _scores(n1 - c1, n1, n2 - c2, n2, level),
        _scores(n2 - c2, n2, n1 - c1, n1, level),
    ])


_ORIENT = [
    ("{e}", False),
    ("{e}", True),
    ("not ({e})", False),
    ("not ({e})", True),
]


def audit(tr1: Transcript, tr2: Transcript, t_star: int, *, claimed_eps: float | None = None,
          confidence: float = 0.95, method: str = "split", horizons: Iterable[int] | None = None,
          max_atoms: int = 64, eps: float | None = None) -> AuditResult:
    r"""Lower confidence bound on the privacy loss between two samples of action sequences.

    ``tr1`` and ``tr2`` are runs of the same policy on two neighbouring inputs (reward lists that
    differ at ``t_star``, or the two channels of the adaptive game).  The audit looks for an event
    E with P[E | 1] much larger than P[E | 2] (or the reverse) and returns

    .. math::

       \hat\varepsilon_{\mathrm{lower}} = \log \underline{p}_1 - \log \overline{p}_2 ,

    where the bounds are one-sided Clopper-Pearson bounds at level ``1 - (1 - confidence)/2``
    each (``/ (2 m)`` with ``method="bonferroni"`` over ``m`` events).  If the policy is eps-DP,
    P[eps_lower > eps] <= 1 - confidence.

    Parameters
    ----------
    tr1, tr2 : Transcript
        The two samples (same policy, K and T).
    t_star : int
        Step (1-based) where the inputs differ.
    claimed_eps : float, optional
        The budget the policy claims (only recorded, for :attr:`AuditResult.caught`); ``eps`` is
        an older name of it (here only: the transcripts carry no policy parameters).
    confidence : float
        In (0, 1); default 0.95.
    method : {"split", "bonferroni"}
        How the event is chosen honestly (see the module docstring).  ``"split"`` also searches
        sets of action prefixes of lengths ``horizons`` ranked by estimated likelihood ratio
        (at most ``max_atoms`` prefixes per set).
    horizons : sequence of int, optional
        Prefix lengths used by the events (default: six steps from ``t_star + 1`` to ``T``).
    max_atoms : int
        Largest number of prefixes in a data-driven set (>= 1).

    Returns
    -------
    AuditResult
    """
    _check_pair(tr1, tr2)
    if eps is not None and claimed_eps is not None:
        raise TypeError("audit(): give the claimed budget once, as claimed_eps (eps is its older name)")
    if eps is not None or claimed_eps is not None:
        name = "eps" if eps is not None else "claimed_eps"
        eps = as_real(name, eps if eps is not None else claimed_eps, low=0.0, low_open=True)
    conf = _confidence(confidence)
    as_choice("method", method, ("split", "bonferroni"))
    max_atoms = as_int("max_atoms", max_atoms, minimum=1)
    t_star = as_int("t_star", t_star, minimum=1, maximum=tr1.T)
    hs = _horizons(horizons, tr1.T, t_star)
    alpha = 1.0 - conf
    prefixes = None
    if method == "bonferroni":
        X1, names = event_family(tr1, t_star, hs)
        X2, _ = event_family(tr2, t_star, hs)
        m = 4 * X1.shape[1]
        level = 1.0 - alpha / (2 * m)
        n1, n2 = tr1.runs, tr2.runs
        sc = _oriented(X1.sum(0), n1, X2.sum(0), n2, level)
        o, e = (int(i) for i in np.unravel_index(np.argmax(sc), sc.shape))
        x1, x2 = X1[:, e], X2[:, e]
        desc = names[e]
        n_events = m
    else:
        if tr1.runs < 2 or tr2.runs < 2:
            raise ValueError("method='split' needs at least 2 runs in each sample")
        h1, h2 = tr1.runs // 2, tr2.runs // 2
        A1, B1 = tr1.take(slice(0, h1)), tr1.take(slice(h1, None))
        A2, B2 = tr2.take(slice(0, h2)), tr2.take(slice(h2, None))
        level = 1.0 - alpha / 2
        XA1, names = event_family(A1, t_star, hs)
        XA2, _ = event_family(A2, t_star, hs)
        sc = _oriented(XA1.sum(0), h1, XA2.sum(0), h2, level)
        o, e = (int(i) for i in np.unravel_index(np.argmax(sc), sc.shape))
        best = float(sc[o, e])
        choice: tuple = ("fixed", e)
        n_events = 4 * XA1.shape[1]
        # data-driven events: sets of prefixes ranked by their estimated likelihood ratio
        for h in hs:
            ida1, ida2, idb1, idb2 = _prefix_ids([A1, A2, B1, B2], h)
            n_ids = int(max(ida1.max(), ida2.max(), idb1.max(), idb2.max())) + 1
            c1 = np.bincount(ida1, minlength=n_ids)
            c2 = np.bincount(ida2, minlength=n_ids)
            seen = np.flatnonzero(c1 + c2 > 0)
            lr = np.log((c1[seen] + 0.5) / h1) - np.log((c2[seen] + 0.5) / h2)
            for flip in (False, True):
                order = seen[np.argsort(lr if flip else -lr, kind="stable")][:max_atoms]
                top1, top2 = np.cumsum(c1[order]), np.cumsum(c2[order])
                s = _scores(top2, h2, top1, h1, level) if flip else _scores(top1, h1, top2, h2, level)
                n_events += s.size
                j = int(np.argmax(s))
                if s[j] > best:
                    best = float(s[j])
                    choice = ("prefix", h, order[: j + 1], flip, (idb1, idb2), (ida1, ida2))
        n1, n2 = B1.runs, B2.runs
        if choice[0] == "fixed":
            XB1, _ = event_family(B1, t_star, hs)
            XB2, _ = event_family(B2, t_star, hs)
            x1, x2 = XB1[:, e], XB2[:, e]
            desc = names[e]
        else:
            _, h, atoms, flip, (idb1, idb2), (ida1, ida2) = choice
            x1, x2 = np.isin(idb1, atoms), np.isin(idb2, atoms)
            o = 1 if flip else 0
            desc = f"(a_1..a_{h}) is one of {atoms.size} prefixes chosen on the first half"
            # the chosen prefixes themselves (arms numbered from 1), read off the selection half
            acts = np.concatenate([A1.actions[:, :h], A2.actions[:, :h]])
            ids = np.concatenate([ida1, ida2])
            prefixes = [tuple(int(a) + 1 for a in acts[np.argmax(ids == k)]) for k in atoms[:5]]
    # final estimate on the chosen event and orientation
    if o >= 2:
        x1, x2 = ~x1, ~x2
    if o % 2 == 1:
        x1, x2, n1, n2 = x2, x1, n2, n1
        top = "P[E | input 2] / P[E | input 1]"
    else:
        top = "P[E | input 1] / P[E | input 2]"
    event = _ORIENT[o][0].format(e=desc) + f"; ratio {top}"
    k1, k2 = int(x1.sum()), int(x2.sum())
    p1_lo = float(clopper_pearson(k1, n1, level, "lower"))  # a float: k1 is a number
    p2_hi = float(clopper_pearson(k2, n2, level, "upper"))
    p1, p2 = k1 / n1, k2 / n2
    eps_lower = float(_log(p1_lo) - _log(p2_hi))  # -inf when p1_lo = 0 (p2_hi > 0 always)
    eps_hat = float(_log(p1) - _log(p2)) if p1 > 0 else float("-inf")
    return AuditResult(eps_lower, eps_hat, event, p1, p2, p1_lo, p2_hi, n1, n2, conf, method,
                       int(n_events), eps, {"t_star": t_star, "policy": tr1.policy, "level": level,
                                          "k1": k1, "k2": k2, "prefixes": prefixes},
                       (tr1, tr2))


def audit_lists(policy: _PolicySpec, rewards: ArrayLike, rewards_prime: ArrayLike, runs: int, seed: int = 0,
                *, K: int = 2, claimed_eps: float | None = None, confidence: float = 0.95,
                method: str = "split", params: dict | None = None, max_seconds: float | None = MAX_SECONDS,
                horizons: Iterable[int] | None = None, max_atoms: int = 64,
                **policy_params: object) -> AuditResult:
    """Audit a policy on two neighbouring reward lists (View DP).

    Runs ``policy`` ``runs`` times on each list (independent seeds: children ``0..runs-1`` and
    ``runs..2 runs - 1`` of ``SeedSequence(seed)``) and calls :func:`audit`.

    Parameters
    ----------
    policy : Policy, str or callable
        As in :func:`dpb.interaction.run_on_list`.
    rewards, rewards_prime : array_like, shape (T,)
        Neighbouring lists of rewards in [0, 1] (they must differ in exactly one step).
    runs : int
        Runs per list (>= 2).
    seed : int
        Root seed.
    K : int
        Number of arms.
    claimed_eps : float, optional
        The budget the audit checks (default: the policy's ``eps`` when it has one).  Not to be
        confused with the policy's own ``eps``, a policy parameter.
    confidence, method, horizons, max_atoms
        Passed to :func:`audit`.
    params : dict, optional
        Policy parameters when ``policy`` is a name.
    **policy_params
        The same as keywords: ``audit_lists("DP-KLUCB", r, rp, 1000, eps=0.5, alpha=2)``.
    max_seconds : float or None
        Refuse, before any work, runs estimated above this many CPU-seconds (as
        :func:`dpb.interaction.run_on_list`; None lifts the limit).

    Returns
    -------
    AuditResult
    """
    r = _rewards_list("rewards", rewards)
    rp = _rewards_list("rewards_prime", rewards_prime)
    if r.shape != rp.shape or r.ndim != 1:
        raise ValueError("rewards and rewards_prime must be 1-d lists of the same length")
    diff = np.flatnonzero(r != rp)
    if diff.size != 1:
        raise ValueError(f"rewards and rewards_prime must differ in exactly one step, got {diff.size}")
    t_star = int(diff[0]) + 1
    runs = as_int("runs", runs, minimum=2, maximum=MAX_RUNS // 2)
    if isinstance(policy, Policy) and "eps" in policy_params:
        raise TypeError(f"audit_lists(): eps is a parameter of the policy, and {policy.name} is already "
                        f"built (eps = {getattr(policy, 'eps', None)}); the budget the audit checks is "
                        f"claimed_eps=")
    if claimed_eps is not None:
        claimed_eps = as_real("claimed_eps", claimed_eps, low=0.0, low_open=True)
    _confidence(confidence)
    pol = as_policy(policy, merge_params("audit_lists", policy, params, policy_params))
    _check_work("audit_lists (both lists)", r.size, 2 * runs, max_seconds)
    tr1 = run_on_list(pol, r, runs, seed=seed, K=K, max_seconds=None)
    tr2 = run_on_list(pol, rp, runs, seed=seed, K=K, offset=runs, max_seconds=None)
    claimed = claimed_eps if claimed_eps is not None else getattr(pol, "eps", None)
    res = audit(tr1, tr2, t_star, claimed_eps=claimed, confidence=confidence, method=method,
                horizons=horizons, max_atoms=max_atoms)
    res.info.update({"rewards": r.tolist(), "rewards_prime": rp.tolist(), "runs": runs, "seed": seed})
    return res


#: The reward cycles of :func:`audit_lists_default`.
_PATTERNS = {"ones": (1,), "zeros": (0,), "alternate": (1, 0)}


def audit_lists_default(T: int, t_star: int, pattern: str = "ones") -> tuple[np.ndarray, np.ndarray]:
    """A standard pair of neighbouring lists: a base list and its flip at ``t_star``.

    ``pattern`` is ``"ones"`` (all rewards 1), ``"zeros"``, or ``"alternate"`` (1, 0, 1, 0, ...).
    """
    T = as_int("T", T, minimum=1, maximum=MAX_RUNS)
    if not isinstance(pattern, str) or pattern not in _PATTERNS:
        raise ValueError(f"pattern must be 'ones', 'zeros' or 'alternate', got {pattern!r}")
    base = np.resize(np.array(_PATTERNS[pattern], dtype=float), T)  # the cycle repeated over T steps
    return base, neighbouring_list(base, t_star)


def audit_policy(policy: _PolicySpec, runs: int = 4000, T: int = 30, t_star: int = 1,
                 pattern: str = "ones", seed: int = 0, **kwargs: Any) -> AuditResult:
    """Audit a policy on :func:`audit_lists_default` (two arms): the one-call version for the book.

    Parameters are those of :func:`audit_lists`; ``T``, ``t_star`` and ``pattern`` choose the
    neighbouring lists.  Policy parameters go as keywords, the claimed budget as ``claimed_eps``
    (default: the policy's ``eps``)::

        audit_policy("DP-KLUCB", eps=0.5, alpha=2)            # is DP-KLUCB at eps = 0.5 0.5-DP?
        audit_policy("DP-KLUCB", eps=0.5, claimed_eps=0.25)   # ... is it 0.25-DP? (it need not be)

    ``dpb.audit_policy(...)`` is this function.
    """
    r, rp = audit_lists_default(T, t_star, pattern)
    return audit_lists(policy, r, rp, runs, seed, **kwargs)


# ----------------------------------------------------------------------------------------------
# broken policies
# ----------------------------------------------------------------------------------------------
#: The deliberate mistakes, by key: what each variant does and why it is not eps-DP.
FLAWS = {
    "no-noise": "no Laplace noise at all: the running sums are exact, so one changed reward can "
                "flip a decision with certainty (infinite privacy loss)",
    "small-noise": "Lap(1/(10 eps)) instead of Lap(1/eps): the phase releases are 10 eps-DP, "
                   "not eps-DP",
    "reused-noise": "one Laplace draw per arm, reused for every phase: the differences of "
                    "consecutive releases are the exact phase sums, so the noise cancels",
    "fresh-mean-noise": "the running mean plus fresh Lap(1/(eps n)) at each release: each release "
                        "alone is eps-DP (the mean of n rewards has sensitivity 1/n), but a reward "
                        "enters every later release of its arm, so the losses add up "
                        "(sequential, not parallel, composition)",
}


if TYPE_CHECKING:  # the mixins below are only ever mixed into these classes
    _Base = BatchedPrivatePolicy
else:
    _Base = object


class _Broken(_Base):
    """Mixin: a DP-IMED/DP-KLUCB whose noise enters the running sum the wrong way."""

    flaw: str = ""

    @property
    def params(self) -> dict:
        p = dict(super().params)
        p["flaw"] = self.flaw
        return p


class _NoNoise(_Broken):
    flaw = "no-noise"

    def _noise(self, rows, arms):
        return np.zeros(np.asarray(rows).size)


class _SmallNoise(_Broken):
    flaw = "small-noise"

    def _noise(self, rows, arms):
        return super()._noise(rows, arms) / 10.0


class _ReusedNoise(_Broken):
    flaw = "reused-noise"

    def _start(self) -> None:
        super()._start()
        self._kept = np.full((self.R, self.K), np.nan)

    def _noise(self, rows, arms):
        rows, arms = np.asarray(rows), np.asarray(arms)
        fresh = np.isnan(self._kept[rows, arms])
        if fresh.any():
            self._kept[rows[fresh], arms[fresh]] = super()._noise(rows[fresh], arms[fresh])
        return self._kept[rows, arms].copy()


class _FreshMeanNoise(_Broken):
    """S~ = (true running sum) + Y_new, i.e. S~/n = mean + Lap(1/(eps n)), fresh at each release.

    Implemented by adding ``Y_new - Y_old`` to the engine's running sum, which the engine adds the
    phase sum to: the result is the exact running sum plus the newest noise only.
    """

    flaw = "fresh-mean-noise"

    def _start(self) -> None:
        super()._start()
        self._prev = np.zeros((self.R, self.K))

    def _noise(self, rows, arms):
        y = super()._noise(rows, arms)
        out = y - self._prev[rows, arms]
        self._prev[rows, arms] = y
        return out


#: The broken classes, by (flaw, base name).
BROKEN_CLASSES: dict[tuple[str, str], type[Policy]] = {}
for _mix in (_NoNoise, _SmallNoise, _ReusedNoise, _FreshMeanNoise):
    _flaw = _mix.flaw
    for _base in (DPIMED, DPKLUCB):
        _cls = type(
            f"{_mix.__name__.strip('_')}{_base.__name__}",
            (_mix, _base),
            {"name": f"{_base.name} [{_flaw}]", "__doc__": f"{_base.name} with a flaw: {FLAWS[_flaw]}.",
             "__module__": __name__},
            register=False,  # broken on purpose: not a policy of the registry
        )
        BROKEN_CLASSES[(_flaw, _base.name)] = _cls


def broken_policy(flaw: str, base: str = "DP-IMED", **params: object) -> Policy:
    """DP-IMED or DP-KLUCB with a deliberate privacy bug (it still *claims* ``eps``).

    Parameters
    ----------
    flaw : str
        One of :data:`FLAWS`: ``"no-noise"``, ``"small-noise"``, ``"reused-noise"``,
        ``"fresh-mean-noise"``.
    base : {"DP-IMED", "DP-KLUCB"}
        The algorithm to break.
    **params
        Its parameters (``eps``, ``n0``, ``alpha``, ``schedule``).

    Returns
    -------
    Policy
        An instance of a subclass of the base class; ``policy.flaw`` names the bug.
    """
    if flaw not in FLAWS:
        raise ValueError(f"flaw must be one of {', '.join(FLAWS)}, got {flaw!r}")
    if base not in ("DP-IMED", "DP-KLUCB"):
        raise ValueError(f"base must be 'DP-IMED' or 'DP-KLUCB', got {base!r}")
    return BROKEN_CLASSES[(flaw, base)](**params)


def private_policies() -> tuple:
    """The names of the eps-DP policies the audit checks: every registered policy whose class
    says ``private = True`` (the package's own ones and any registered later)."""
    return tuple(registered(private=True))


def __getattr__(name: str):
    if name == "PRIVATE_POLICIES":  # derived from the registry at each access
        return private_policies()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def audit_policy_names() -> list[str]:
    """Names accepted by :func:`make_audit_policy`: the private policies, then the broken ones."""
    return list(private_policies()) + [f"{b} [{f}]" for b in ("DP-IMED", "DP-KLUCB") for f in FLAWS]


def make_audit_policy(name: str, eps: float, **params: object) -> Policy:
    """Build a private policy (``"DP-IMED"``) or a broken one (``"DP-IMED [no-noise]"``) at ``eps``.

    Raises
    ------
    ValueError
        For a name not in :func:`audit_policy_names` (the message lists them).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    if name.endswith("]") and " [" in name:
        base, flaw = name[:-1].split(" [", 1)
        if base in ("DP-IMED", "DP-KLUCB") and flaw in FLAWS:
            return broken_policy(flaw, base, eps=eps, **params)
    elif name in private_policies() or ".py:" in name:
        cls = policy_class(name)
        if cls.private:
            return as_policy(cls, {"eps": eps, **params})
    raise ValueError(f"unknown policy {name!r}; valid names are {', '.join(audit_policy_names())}")


def prefix_law_test(tr1: Transcript, tr2: Transcript, upto: int, min_expected: float = 5.0) -> dict:
    """Two-sample chi-square test that the prefixes ``(a_1, ..., a_upto)`` have the same law.

    The distinct prefixes seen in either sample are the categories; those whose expected count
    (under the pooled law) is below ``min_expected`` in either sample are merged into one
    category, so that the chi-square approximation holds.  Under the null hypothesis (same law),
    ``P[pvalue <= a] <= a`` approximately: rejecting when ``pvalue <= a`` is a test with false-alarm
    rate ``a``.

    Parameters
    ----------
    tr1, tr2 : Transcript
        Independent samples (same K and T).
    upto : int
        Prefix length, in ``1..T``.
    min_expected : float
        Pooling threshold (> 0).

    Returns
    -------
    dict
        ``statistic``, ``dof`` (number of categories - 1) and ``pvalue`` (1 when a single
        category remains).
    """
    _check_pair(tr1, tr2)
    upto = as_int("upto", upto, minimum=1, maximum=tr1.T)
    min_expected = check_real("min_expected", min_expected, low=0.0)
    id1, id2 = _prefix_ids([tr1, tr2], upto)
    n_ids = int(max(id1.max(), id2.max())) + 1
    c = np.stack([np.bincount(id1, minlength=n_ids), np.bincount(id2, minlength=n_ids)]).astype(float)
    n = c.sum(axis=1, keepdims=True)
    expected = n * c.sum(axis=0, keepdims=True) / n.sum()
    small = (expected < min_expected).any(axis=0)
    if small.any():
        c = np.concatenate([c[:, ~small], c[:, small].sum(axis=1, keepdims=True)], axis=1)
        c = c[:, c.sum(axis=0) > 0]
        expected = n * c.sum(axis=0, keepdims=True) / n.sum()
    dof = c.shape[1] - 1
    if dof < 1:
        return {"statistic": 0.0, "dof": 0, "pvalue": 1.0}
    stat = float(np.sum((c - expected) ** 2 / expected))
    from scipy import stats  # deferred: scipy.stats costs ~0.5 s to import

    return {"statistic": stat, "dof": int(dof), "pvalue": float(stats.chi2.sf(stat, dof))}

