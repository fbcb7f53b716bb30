"""The compiled (numba) runs of DP-KLUCB and DP-IMED: ``dpb.policies._private_runs.run_chunk``
and the samplers of ``dpb._streams``, compiled as they stand (no ``fastmath``: IEEE arithmetic,
the same bits as the Python version).

Imported lazily by the fast path of :class:`~dpb.policies.dp_batched.BatchedPrivatePolicy` (never
by ``import dpb``).  The one compiled-only piece is :func:`dpb._streams.u64`, a cast to ``uint64``
here (numba would mix signed and unsigned words into floats or signed shifts).
"""

from __future__ import annotations


import numba
import numpy as np
from numba.extending import overload, register_jitable

from .. import _detmath_kernels  # noqa: F401  (makes dpb._detmath's functions jitable)
from .. import _streams
from .._jit import stamp_kernels
from . import _private_runs, _scalar


@overload(_streams.u64, jit_options={"cache": True})  # type: ignore[typeddict-unknown-key]  # numba's stub
def _u64(x):
    return lambda x: np.uint64(x)


for _f in (_streams.fmix, _streams.word, _streams.run_key, _streams.stream_key, _streams.uniform,
           _streams.laplace, _streams._fc, _streams._binomial_inversion, _streams._binomial_btrs,
           _streams.binomial, _scalar.kl, _scalar.kl_ucb, _scalar.d_eps_terms, _scalar.d_eps_below,
           _scalar.count_tied, _scalar.nth_tied, _private_runs.d_eps_ucb, _private_runs.d_eps_ucb_edge,
           _private_runs.d_eps_ucb_given, _private_runs.klucb_indexes,
           _private_runs.imed_indexes, _private_runs.record_phase, _private_runs.se_epoch_terms,
           _private_runs.adap_index):
    register_jitable(_f)

run_chunk = numba.njit(cache=True)(_private_runs.run_chunk)
klucb_rows = numba.njit(cache=True)(_private_runs.klucb_rows)
imed_rows = numba.njit(cache=True)(_private_runs.imed_rows)
dpse_chunk = numba.njit(cache=True)(_private_runs.dpse_chunk)
adap_chunk = numba.njit(cache=True)(_private_runs.adap_chunk)
adap_rows = numba.njit(cache=True)(_private_runs.adap_rows)


@numba.njit(cache=True)
def _binomials(key, n, p, out):
    """``out.size`` successive Binomial(n, p) draws of stream ``key`` (for the tests and benchmarks)."""
    c = 0
    for i in range(out.size):
        out[i], c = _streams.binomial(key, c, n, p)
    return c


def binomials(key: int, n: int, p: float, size: int) -> np.ndarray:
    """``size`` successive Binomial(n, p) draws of the stream of key ``key``, compiled."""
    out = np.empty(size, dtype=np.int64)
    _binomials(np.uint64(key), int(n), float(p), out)
    return out


def _stamp(dispatchers) -> None:
    """numba reuses cached machine code while the kernel's own file is unchanged: add the stamps
    of the files it compiles from (the samplers, the scalar maths) to its cache's."""
    from .. import _detmath

    stamp_kernels(dispatchers,
                  [_streams.__file__, _scalar.__file__, _private_runs.__file__, _detmath.__file__])


_stamp([run_chunk, klucb_rows, imed_rows, dpse_chunk, adap_chunk, adap_rows, _binomials])
