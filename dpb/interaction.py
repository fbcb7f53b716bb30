"""A policy against a fixed list of rewards (View DP) or a reward-feeding adversary, many runs at once.

Privacy is a statement about what a policy *publishes*, its actions, when the rewards it observes
change in one place.  :mod:`dpb.simulate` draws rewards from an environment; this module instead
feeds the policy rewards chosen in advance, so that two neighbouring inputs can be compared:

* **View DP** (definition 'Table DP and View DP' (b) of Azize et al., 2025): the t-th reward the
  policy observes is ``r_t``, whatever arm it played.  :func:`run_on_list` samples the induced
  mechanism V^pi_r, the law of the action sequence ``(a_1, ..., a_T)``.
* **The adaptive continual release model** (the paper's appendix 'Adaptive Continual Release Model
  for Bandits', after Jain et al., 2023): a reward-feeding adversary maps the actions
  ``a_1, ..., a_t`` to a pair ``(r_t^L, r_t^R)``; the policy observes the left reward except at the
  challenge step ``t_star``, where it observes the channel of the secret bit ``b``.
  :func:`run_game` samples the adversary's view View^{b, t_star}.

Both use the phase interface of :class:`dpb.policies.base.Policy` directly (``start``, ``decide``,
``update``) with their own small driver: the policy plans a phase of ``B`` pulls at step ``t``,
the driver plays it step by step (round-robin in increasing arm order when several arms are
planned), asks the feed for the reward observed at each step (an adversary only ever sees the
actions up to the current step), and hands the policy the phase sums.  All runs advance phase by
phase in lock-step; run ``i`` owns the ``i``-th child of ``SeedSequence(seed)``, so results do not
depend on how many runs are simulated together.

The output is a :class:`Transcript`: the actions of every run, and where its phases started.
For every policy of :mod:`dpb.policies` the phase boundaries are a deterministic function of the
actions (phase lengths depend only on the arms chosen so far), so events defined through phases
are events on the published output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, field, replace

import numpy as np

from ._validate import (MAX_ELEMENTS, MAX_RUNS, MAX_SECONDS, as_choice, as_int, as_probability, as_real,
                        check_elements)
from .cost import _refuse
from .engine import _policy_generators, drive
from .policies import Policy
from .policies.registry import as_policy

__all__ = [
    "Transcript",
    "Adversary",
    "ListAdversary",
    "TableAdversary",
    "FunctionAdversary",
    "LeaderAdversary",
    "run_generators_fast",
    "run_on_list",
    "run_game",
    "neighbouring_list",
    "phase_of_step",
]


# ----------------------------------------------------------------------------------------------
# output
# ----------------------------------------------------------------------------------------------
@dataclass(eq=False)
class Transcript:
    """The published actions of ``R`` runs of a policy, with the phase structure behind them.

    Attributes
    ----------
    actions : ndarray (R, T), int8 (or int16 for K > 127)
        ``actions[i, s]`` is the arm (numbered from 0) played at step ``s + 1`` of run ``i``.
    starts : ndarray (R, T), bool
        ``starts[i, s]`` is True when a phase (a decision of the policy) starts at step ``s + 1``.
    laplace_draws : ndarray (R,)
        Number of Laplace draws each run made (its private releases).
    policy : str
        Name of the policy; ``params`` its parameters.
    K, T : int
        Arms and horizon.
    info : dict
        What produced the transcript (the reward list, or the adversary, ``t_star`` and ``b``).
    """

    actions: np.ndarray
    starts: np.ndarray
    laplace_draws: np.ndarray
    policy: str
    params: dict
    K: int
    T: int
    info: dict = field(default_factory=dict)

    _RUNS = ("actions", "starts", "laplace_draws")  # the arrays with one row per run

    @property
    def runs(self) -> int:
        return int(self.actions.shape[0])

    def counts(self, upto: int | None = None) -> np.ndarray:
        """Pulls of every arm in steps ``1..upto`` (default T), shape (R, K)."""
        h = self.T if upto is None else as_int("upto", upto, minimum=0, maximum=self.T)
        counts = [np.count_nonzero(self.actions[:, :h] == k, axis=1) for k in range(self.K)]
        return np.stack(counts, axis=1).astype(np.int64)

    def decision_after(self, step: int, which: int = 1) -> np.ndarray:
        """The arm chosen at the ``which``-th decision made *after* the phase containing ``step``.

        ``step`` is 1-based.  Returns an int array of shape (R,), with -1 for the runs that make no
        such decision before T.  For ``which = 1`` this is the first action that can depend on the
        reward observed at ``step``: a phase's rewards reach the policy only when the phase ends.
        """
        step = as_int("step", step, minimum=1, maximum=self.T)
        which = as_int("which", which, minimum=1)
        if step >= self.T:  # no decision after the last step
            return np.full(self.runs, -1, dtype=np.int64)
        later = self.starts[:, step:]  # decisions at steps step+1 .. T (0-based columns step..)
        # the phase containing `step` ends at the first start strictly after it: the first later
        # start is the first decision after that phase
        order = np.cumsum(later, axis=1)
        hit = later & (order == which)
        has = hit.any(axis=1)
        col = np.argmax(hit, axis=1) + step
        out = np.where(has, self.actions[np.arange(self.runs), np.minimum(col, self.T - 1)], -1)
        return out.astype(np.int64)

    def concat(self, other: Transcript) -> Transcript:
        """Stack the runs of two transcripts of the same policy and horizon."""
        if (self.K, self.T) != (other.K, other.T):
            raise ValueError("transcripts must have the same K and T to be concatenated")
        stacked: dict[str, Any] = {k: np.concatenate([getattr(self, k), getattr(other, k)])
                                   for k in self._RUNS}
        return replace(self, info=dict(self.info), **stacked)

    def take(self, rows: Any) -> Transcript:
        """The sub-transcript of the runs ``rows`` (an index array or a slice)."""
        return replace(self, info=dict(self.info), **{k: getattr(self, k)[rows] for k in self._RUNS})


# ----------------------------------------------------------------------------------------------
# adversaries (reward feeds)
# ----------------------------------------------------------------------------------------------
class Adversary:
    """A reward-feeding adversary: ``(r_t^L, r_t^R) = A_t(a_1, ..., a_t)`` (the paper's definition).

    Subclasses implement :meth:`rewards`, vectorised over runs.  The driver calls it once per step
    with the actions played so far; columns of ``actions`` after each run's current step hold -1
    (the adversary cannot see the future).  Rewards must lie in [0, 1].
    """

    name = "adversary"

    def rewards(self, actions: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Left and right rewards for runs whose histories are ``actions`` (n, T) at steps ``t`` (n,).

        ``t`` is 1-based; ``actions[i, t[i] - 1]`` is the action just played.
        """
        raise NotImplementedError

    def describe(self) -> dict:
        return {"adversary": self.name}


def _check_transcript(name: str, value) -> Transcript:
    if not isinstance(value, Transcript):
        raise TypeError(f"{name} must be a dpb.interaction.Transcript, got {type(value).__name__}")
    return value


def _rewards_list(name: str, value) -> np.ndarray:
    r = as_probability(name, value)  # rewards in [0, 1]
    if r.ndim != 1 or r.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d array of rewards")
    return r


class ListAdversary(Adversary):
    """Ignores the actions: ``(r_t^L, r_t^R) = (r_t, r'_t)``.

    With ``b = "L"`` the game is View DP on ``r``; with ``b = "R"`` and challenge ``t_star`` it is
    View DP on ``r`` with its ``t_star``-th entry replaced by ``r'_{t_star}``.
    """

    name = "list"

    def __init__(self, rewards: Any, rewards_right: Any = None) -> None:
        self.left = _rewards_list("rewards", rewards)
        right = self.left if rewards_right is None else _rewards_list("rewards_right", rewards_right)
        if right.shape != self.left.shape:
            raise ValueError("rewards and rewards_right must have the same length")
        self.right = right

    def rewards(self, actions: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.left[t - 1], self.right[t - 1]

    def describe(self) -> dict:
        return {"adversary": self.name, "left": self.left.tolist(), "right": self.right.tolist()}


class TableAdversary(Adversary):
    """The paper's Reduction 'From table of rewards to reward-feeding adversaries'.

    ``A_t(a_1, ..., a_t) = (x[t, a_t], x'[t, a_t])``: the left channel reads the table ``x``, the
    right one the table ``x'``, both at the row of the current step and the column of the arm just
    played.  With neighbouring tables differing in row ``t_star``, the two views are the Table-DP
    mechanisms of ``x`` and ``x'``.

    Parameters
    ----------
    table, table_right : array_like, shape (T, K)
        Potential rewards in [0, 1] (``table_right`` defaults to ``table``).
    """

    name = "table"

    def __init__(self, table: Any, table_right: Any = None) -> None:
        x = as_probability("table", table)  # rewards in [0, 1]
        if x.ndim != 2 or x.size == 0:
            raise ValueError("table must be a non-empty (T, K) array of rewards in [0, 1]")
        y = x if table_right is None else as_probability("table_right", table_right)
        if y.shape != x.shape:
            raise ValueError("table_right must have the shape of table")
        self.x, self.y = x, y

    def rewards(self, actions: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a = actions[np.arange(t.size), t - 1]
        return self.x[t - 1, a], self.y[t - 1, a]

    def describe(self) -> dict:
        return {"adversary": self.name, "shape": list(self.x.shape)}


class FunctionAdversary(Adversary):
    """An adversary given by a vectorised function ``fn(actions, t) -> (left, right)``."""

    def __init__(self, fn: Callable, name: str = "function") -> None:
        if not callable(fn):
            raise TypeError("fn must be callable as fn(actions, t) -> (left, right)")
        self.fn, self.name = fn, name

    def rewards(self, actions: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        left, right = self.fn(actions, t)
        return np.asarray(left, dtype=float), np.asarray(right, dtype=float)


class LeaderAdversary(Adversary):
    """An adaptive adversary: it rewards the policy for following the crowd.

    ``r_t^L = 1`` when the arm just played, ``a_t``, is (one of) the arms played most often among
    ``a_1, ..., a_t``, else 0; the right channel flips it, ``r_t^R = 1 - r_t^L``.  The rewards depend
    on the whole history, not only on the last action, so this feed is neither a list nor a table:
    it is a genuine tree of rewards (the paper's remark 'Reward-feeding Adversary as a Tree Reward
    Input').
    """

    name = "leader"

    def rewards(self, actions: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n, T = actions.shape
        K = int(actions.max()) + 1
        a = actions[np.arange(n), t - 1]
        counts = np.stack([np.count_nonzero(actions == k, axis=1) for k in range(max(K, 1))], axis=1)
        lead = counts[np.arange(n), a] == counts.max(axis=1)
        left = lead.astype(float)
        return left, 1.0 - left


# ----------------------------------------------------------------------------------------------
# the driver
# ----------------------------------------------------------------------------------------------
def run_generators_fast(seed: Any, runs: int, offset: int = 0) -> list[np.random.Generator]:
    """One policy generator per run: run ``i`` uses child ``offset + i`` of ``SeedSequence(seed)``
    (``dpb.engine._policy_generators``).

    Children are built from their spawn keys, so the generator of a run does not depend on how
    many runs are drawn together (``run_generators_fast(s, 10)[3]`` equals
    ``run_generators_fast(s, 1, offset=3)[0]``).
    """
    runs = as_int("runs", runs, minimum=1, maximum=MAX_RUNS)
    offset = as_int("offset", offset, minimum=0, maximum=2**63 - 1 - runs)
    if not isinstance(seed, np.random.SeedSequence):
        seed = as_int("seed", seed, minimum=0)
    return _policy_generators(seed, range(offset, offset + runs))


def _round_robin(counts: np.ndarray) -> np.ndarray:
    """Arm of each pull of a phase with pull counts ``counts`` (K,), round-robin in arm order.

    Round ``k`` (k = 0, 1, ...) pulls, in increasing order, every arm with more than ``k`` pulls
    planned; for equal counts this is ``arms[j mod m]`` at pull ``j``.
    """
    c = np.asarray(counts, dtype=np.int64)
    mask = np.arange(int(c.max()))[:, None] < c[None, :]
    return np.nonzero(mask)[1]


def _drive(policy: Policy, K: int, T: int, gens, feed) -> Transcript:
    """Run ``policy`` for ``len(gens)`` runs through :func:`dpb.engine.drive`, the rewards of each
    step coming from ``feed``.

    ``feed(rows, t, actions) -> rewards`` returns the reward observed at step ``t[i]`` (1-based)
    by run ``rows[i]``; ``actions[rows]`` are those runs' actions so far (-1 beyond ``t``).
    """
    R = len(gens)
    actions = np.full((R, T), -1, dtype=np.int8 if K <= 127 else np.int16)
    starts = np.zeros((R, T), dtype=bool)

    def play(active, tt, counts):
        length = counts.sum(axis=1)
        L = int(length.max())
        # the arm of every pull of the phase, offsets 0 .. length-1
        arm_at = np.repeat(np.argmax(counts, axis=1)[:, None], L, axis=1)
        multi = np.flatnonzero(np.count_nonzero(counts, axis=1) > 1)
        if multi.size:  # round-robin phases (DP-SE epochs): one sequence per distinct phase
            kinds, which = np.unique(counts[multi], axis=0, return_inverse=True)
            for u, kind in enumerate(kinds):
                seq = _round_robin(kind)
                arm_at[multi[which.ravel() == u], : seq.size] = seq
        starts[active, tt - 1] = True
        sums = np.zeros((active.size, K))
        for j in range(L):
            live = np.flatnonzero(j < length)
            rows, step, arm = active[live], tt[live] + j, arm_at[live, j]
            actions[rows, step - 1] = arm
            sums[live, arm] += feed(rows, step, actions)
        return sums

    drive(policy, K, T, gens, play)
    return Transcript(actions, starts, np.asarray(policy.laplace_draws).copy(), policy.name,
                      dict(policy.params), K, T)


def _check_work(what: str, T: int, runs: int, max_seconds: float | None) -> None:
    """Refuse a call estimated above ``max_seconds`` CPU-seconds (:data:`dpb.cost.TRANSCRIPT_COST`)."""
    _refuse(what, T, runs, max_seconds,
            advice="use a shorter horizon or fewer runs, or pass max_seconds=None (or a larger limit) "
                   "to run it anyway")


def run_on_list(policy: Any, rewards: Any, runs: int, seed: int = 0, K: int = 2, params: dict | None = None,
                offset: int = 0, *, max_seconds: float | None = MAX_SECONDS) -> Transcript:
    r"""Sample the View-DP mechanism of a policy on a fixed list of rewards.

    The policy observes ``rewards[t - 1]`` at step ``t`` whatever arm it plays, so a phase of ``B``
    pulls starting at step ``t`` has reward sum ``r_t + ... + r_{t+B-1}``.  The law of the
    returned actions is

    .. math::

       \mathcal{V}^\pi_{\mathbf r}(\mathbf a) = \prod_{t=1}^T \pi_t(a_t \mid a_1, r_1, \dots,
       a_{t-1}, r_{t-1}),

    the mechanism of definition 'Table DP and View DP' (b) of Azize et al. (2025).

    Parameters
    ----------
    policy : Policy, str or callable
        A :class:`~dpb.policies.base.Policy` instance, a name for :func:`dpb.policies.make_policy`
        (with ``params``), or a factory returning a Policy.
    rewards : array_like, shape (T,)
        The list of rewards, in [0, 1]; its length is the horizon.
    runs : int
        Number of independent runs (>= 1).
    seed : int
        Root seed; run ``i`` uses child ``offset + i``.
    K : int
        Number of arms (>= 1).
    params : dict, optional
        Parameters of the policy when it is given by name.
    offset : int
        Index of the first run's child seed.
    max_seconds : float or None
        Refuse, before any work, a call estimated above this many CPU-seconds (default 120;
        the engine steps through every round); None lifts the limit.

    Returns
    -------
    Transcript
    """
    r = _rewards_list("rewards", rewards)
    K = as_int("K", K, minimum=1, maximum=2**15 - 1)
    runs = as_int("runs", runs, minimum=1, maximum=MAX_RUNS)
    check_elements("runs * len(rewards)", runs * r.size, MAX_ELEMENTS // 2)
    _check_work("run_on_list", r.size, runs, max_seconds)
    pol = as_policy(policy, params)
    gens = run_generators_fast(seed, runs, offset)

    def feed(rows, t, acts):
        return r[t - 1]

    out = _drive(pol, K, r.size, gens, feed)
    out.info = {"model": "view", "rewards": r.tolist(), "seed": seed}
    return out


def run_game(policy: Any, adversary: Adversary, t_star: int, b: str, runs: int, T: int, seed: int = 0,
             K: int = 2, params: dict | None = None, offset: int = 0, *,
             max_seconds: float | None = MAX_SECONDS) -> Transcript:
    r"""Sample the adversary's view in the adaptive continual release game.

    At every step ``t`` the policy plays ``a_t``, the adversary answers
    ``(r_t^L, r_t^R) = A_t(a_1, \dots, a_t)``, and the policy observes ``r_t^L`` if ``t != t_star``
    and ``r_t^b`` if ``t = t_star`` (the protocol of the paper's appendix 'Adaptive Continual
    Release Model for Bandits').  The view is ``(a_1, ..., a_T)``; a policy is eps-DP in this model
    when the views for ``b = "L"`` and ``b = "R"`` are eps-indistinguishable for every adversary
    and challenge step (definition 'DP in the Adaptive Continual Release Model').

    Parameters
    ----------
    policy : Policy, str or callable
        As in :func:`run_on_list`.
    adversary : Adversary
        The reward feed, e.g. :class:`LeaderAdversary` or :class:`TableAdversary`.
    t_star : int
        Challenge step, in ``{1, ..., T}``.
    b : {"L", "R"}
        The secret channel.
    runs, T, seed, K, params, offset, max_seconds
        As in :func:`run_on_list` (``T`` is the horizon).

    Returns
    -------
    Transcript
    """
    if not isinstance(adversary, Adversary):
        raise TypeError("adversary must be a dpb.interaction.Adversary")
    T = as_int("T", T, minimum=1)
    t_star = as_int("t_star", t_star, minimum=1, maximum=T)
    as_choice("b", b, ("L", "R"))
    K = as_int("K", K, minimum=1, maximum=2**15 - 1)
    runs = as_int("runs", runs, minimum=1, maximum=MAX_RUNS)
    check_elements("runs * T", runs * T, MAX_ELEMENTS // 2)
    _check_work("run_game", T, runs, max_seconds)
    fed = (adversary.left.size if isinstance(adversary, ListAdversary)
           else adversary.x.shape[0] if isinstance(adversary, TableAdversary) else None)
    if fed is not None and fed < T:
        raise ValueError(f"T = {T} is longer than the adversary's {fed} steps of rewards")
    pol = as_policy(policy, params)
    gens = run_generators_fast(seed, runs, offset)

    def feed(rows, t, actions):
        left, right = adversary.rewards(actions[rows], t)
        left = np.broadcast_to(as_probability("the adversary's left rewards", left), t.shape)
        right = np.broadcast_to(as_probability("the adversary's right rewards", right), t.shape)
        return np.where((t == t_star) & (b == "R"), right, left)

    out = _drive(pol, K, T, gens, feed)
    out.info = {"model": "adaptive", "t_star": t_star, "b": b, "seed": seed, **adversary.describe()}
    return out


# ----------------------------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------------------------
def neighbouring_list(rewards: Any, t_star: int, value: float | None = None) -> np.ndarray:
    """The list ``rewards`` with its ``t_star``-th entry (1-based) replaced: a neighbour of it.

    ``value`` defaults to ``1 - rewards[t_star - 1]`` (the largest change for rewards in [0, 1]).
    """
    r = _rewards_list("rewards", rewards).copy()
    t_star = as_int("t_star", t_star, minimum=1, maximum=r.size)
    v = 1.0 - r[t_star - 1] if value is None else as_real("value", value, low=0.0, high=1.0)
    r[t_star - 1] = v
    return r


def phase_of_step(transcript: Transcript, step: int) -> tuple[np.ndarray, np.ndarray]:
    """First and last step (1-based) of the phase containing ``step``, for every run.

    Returns two int arrays of shape (R,).
    """
    _check_transcript("transcript", transcript)
    step = as_int("step", step, minimum=1, maximum=transcript.T)
    st = transcript.starts
    T = transcript.T
    cols = np.arange(T)
    before = np.where(st & (cols[None, :] <= step - 1), cols[None, :], -1).max(axis=1)
    after = np.where(st & (cols[None, :] > step - 1), cols[None, :], T).min(axis=1)
    return before + 1, after
