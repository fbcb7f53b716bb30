"""The compiled weighted sums of :func:`dpb.estimates._boot_means` (imported on first use, never by
``import dpb``): ``out[b, c] = sum_i counts[b, i] x[i, c]`` accumulated in the order of ``i``.

A BLAS matrix product computes the same sums in an order (and with fused multiply-adds) chosen
for the processor, so its last bits, and through them a bootstrap interval's end and the converged
scale's run counts, could differ from one machine to another.  This loop has one order and no
fast-math (numba then neither fuses nor reorders), vectorised across the columns ``c`` only."""

from __future__ import annotations

import numba

__all__ = ["weighted_sums"]  # for dpb.estimates only (a private module)


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
