"""The exact lock-step fast path of the batched private policies (:mod:`dpb.policies.dp_batched`
holds their rule): :func:`simulate_phases`, behind
:meth:`~dpb.policies.dp_batched.BatchedPrivatePolicy.simulate_phases`.

All runs advance one phase per step in numpy, with the policy's own index: the fast path of a
subclass that defines its own index (DP-KLUCB's and DP-IMED's runs are compiled,
:mod:`dpb.policies._private_runs`).
"""

from __future__ import annotations

import numpy as np

from ..plans import check_arms, check_index, check_pulls
from .base import pick_max, pick_min

__all__ = ["simulate_phases"]


def simulate_phases(policy, means, T: int, env_generators, policy_generators, recorder) -> None:
    """Simulate ``len(env_generators)`` runs of ``policy`` (a
    :class:`~dpb.policies.dp_batched.BatchedPrivatePolicy`) to horizon ``T`` into ``recorder``, in
    lock-step; the law and the numbers of the generic engine (see the method)."""
    policy.start(means.size, T, policy_generators)
    R, K = policy.R, policy.K
    sizes = policy.sizes
    last = sizes.size - 1
    eps = policy.eps
    pick = pick_max if policy.index_kind == "max" else pick_min
    binomials = [g.binomial for g in env_generators]
    mean_list = means.tolist()
    ids = np.arange(R)  # run of each active row
    t = np.ones(R, dtype=np.int64)
    S = np.zeros((R, K))
    n = np.zeros((R, K), dtype=np.int64)
    ph = np.zeros((R, K), dtype=np.int64)  # phases made by each arm (= Laplace draws in S~)
    hist_rows, hist_arms, hist_counts = [], [], []
    step = 0
    while ids.size:
        A = ids.size
        rr = np.arange(A)
        if step < K:  # the initial round-robin: B_0 pulls of arm `step` (T >= K B_0)
            arms = np.full(A, step, dtype=np.int64)
            counts = np.minimum(sizes[0], T - t + 1)
        else:
            x = np.minimum(np.maximum(S / n, 0.0), 1.0)
            index = check_index(policy, policy.private_index(x, n, t[:, None], ph), A, K)
            arms = check_arms(policy, pick(index, ids, policy.rand), K)
            counts = np.minimum(check_pulls(policy, sizes[np.minimum(ph[rr, arms], last)]), T - t + 1)
        step += 1
        draws = zip(binomials, counts.tolist(), arms.tolist(), strict=True)
        sums = np.array([b(c, mean_list[a]) for b, c, a in draws], dtype=float)
        # one fresh Laplace(1/eps) per phase, added to the running sum: no forgetting
        S[rr, arms] += sums + policy.rand.laplace(ids) / eps
        n[rr, arms] += counts
        ph[rr, arms] += 1
        t += counts
        hist_rows.append(ids)
        hist_arms.append(arms)
        hist_counts.append(counts)
        going = t <= T
        if not going.all():
            ids, t, S, n, ph = ids[going], t[going], S[going], n[going], ph[going]
            binomials = [b for b, g in zip(binomials, going.tolist(), strict=True) if g]
    rows = np.concatenate(hist_rows)
    recorder.record_phases(rows, np.concatenate(hist_arms), np.concatenate(hist_counts))
    recorder.laplace[:] += np.bincount(rows, minlength=R)
