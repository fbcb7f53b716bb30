"""The functions of ``dpb._detmath`` on numpy arrays: the same scalar function compiled by numba
(``dpb._detmath_kernels``), one loop over the elements, so the same bits as the scalar ones on every
machine (SIMD changes nothing).  Apart from ``dpb._detmath`` so that the plain-Python module never
imports its compiled forms (which import it): numba is loaded by the first call here, never by
``import dpb``.
"""

from __future__ import annotations

__all__ = ["log_array", "exp_array", "log1p_array", "expm1_array"]


def _apply(name: str, x):
    import numpy as np

    from . import _detmath_kernels as k

    a = np.asarray(x, dtype=np.float64)
    flat = np.ascontiguousarray(a).reshape(-1)
    out = np.empty(flat.size)
    k._loop(k.KINDS[name], flat, out)
    return out.reshape(a.shape)


def log_array(x):
    """``dpb._detmath.log`` elementwise on an array (or scalar): a float64 array of the same shape."""
    return _apply("log", x)


def exp_array(x):
    """``dpb._detmath.exp`` elementwise on an array (or scalar): a float64 array of the same shape."""
    return _apply("exp", x)


def log1p_array(x):
    """``dpb._detmath.log1p`` elementwise on an array (or scalar): a float64 array of the same shape."""
    return _apply("log1p", x)


def expm1_array(x):
    """``dpb._detmath.expm1`` elementwise on an array (or scalar): a float64 array of the same shape."""
    return _apply("expm1", x)
