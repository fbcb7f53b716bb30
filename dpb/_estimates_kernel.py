"""The compiled weighted sums of :func:`dpb.estimates._boot_means` (imported on first use, never by
``import dpb``): ``out[b, c] = sum_i counts[b, i] x[i, c]`` accumulated in the order of ``i``.

A BLAS matrix product computes the same sums in an order (and with fused multiply-adds) chosen
for the processor, so its last bits, and through them a bootstrap interval's end and the converged
scale's run counts, could differ from one machine to another.  This loop has one order and no
fast-math (numba then neither fuses nor reorders), vectorised across the columns ``c`` only."""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["weighted_sums", "resampled_sums"]  # for dpb.estimates only (a private module)


@numba.njit(cache=True)
def weighted_sums(counts, x, out):
    """out[b, :] = sum over i (in order) of counts[b, i] * x[i, :]."""
    B, n = counts.shape
    C = x.shape[1]
    for b in range(B):
        for c in range(C):
            out[b, c] = 0.0
        for i in range(n):
            w = counts[b, i]
            if w != 0:
                fw = float(w)
                for c in range(C):
                    out[b, c] += fw * x[i, c]


_GROUP = 8  # replicates summed together by resampled_sums when x has several columns


@numba.njit(cache=True, parallel=True)
def resampled_sums(idx, x, out, threads):
    """out[b, :] = sum over i (in order) of counts[b, i] * x[i, :], where counts[b, i] is the number
    of times row i of ``x`` appears in ``idx[b]`` (the resample counts of replicate b).

    The same sums as :func:`weighted_sums` of ``numpy.bincount``'s counts, term for term and in
    the same order, so the same bits; the counting is fused with the sums (no offset index and no
    count matrix of the whole block) and the replicates are shared out among numba's threads,
    each replicate computed whole by one thread (the threads never share a sum).  ``threads``:
    how many parts the replicates are split into (``numba.get_num_threads()``, passed in so that
    the compiled function can be cached on disk).

    With one column (a sample's mean, the converged rule's checks) two replicates are summed side
    by side, every row's term added whether its count is zero or not: adding ``0 * x[i]`` (a zero)
    leaves a sum that started at ``+0.0`` unchanged, bit for bit, so these are the same sums,
    without the unpredictable branch and with two independent chains of additions.  With several
    columns (a regret curve's band) ``_GROUP`` replicates are summed together, row after row: each
    row of ``x`` is read from memory once for the group instead of once a replicate (a 10,240-run
    curve of 190 checkpoints is 15 MB), each sum still taken in the order of the rows."""
    B, n = idx.shape
    C = x.shape[1]
    nt = max(1, min(threads, B))
    for t in numba.prange(nt):
        counts = np.zeros(n, dtype=np.int64)
        other = np.zeros(n, dtype=np.int64)
        b, stop = t * B // nt, (t + 1) * B // nt
        while C == 1 and b + 1 < stop:
            counts[:] = 0
            other[:] = 0
            for i in range(n):
                counts[idx[b, i]] += 1
            for i in range(n):
                other[idx[b + 1, i]] += 1
            s0 = 0.0
            s1 = 0.0
            for i in range(n):
                xi = x[i, 0]
                s0 += float(counts[i]) * xi
                s1 += float(other[i]) * xi
            out[b, 0] = s0
            out[b + 1, 0] = s1
            b += 2
        group = np.zeros((_GROUP, n), dtype=np.int64)
        while b < stop:  # several columns: _GROUP replicates at a time, each row of x read once for all
            g = min(_GROUP, stop - b)
            for r in range(g):
                group[r, :] = 0
                for i in range(n):
                    group[r, idx[b + r, i]] += 1
                for c in range(C):
                    out[b + r, c] = 0.0
            for i in range(n):
                for r in range(g):
                    w = group[r, i]
                    if w != 0:
                        fw = float(w)
                        for c in range(C):
                            out[b + r, c] += fw * x[i, c]
            b += g
