"""The compiled forms of ``dpb._detmath`` (imported on first use, never by ``import dpb``):
each scalar function made jitable where a numba kernel calls it, and compiled once more as a loop
over a float64 array for numpy callers.  No fast-math anywhere: numba then neither fuses nor
reorders a floating-point operation, so a compiled call returns the bits the plain-Python call
returns (``tests/test_detmath.py`` checks this on every path)."""

from __future__ import annotations

import numba
from numba.extending import register_jitable

from . import _detmath as _m
from ._jit import stamp_kernels

__all__ = ["log", "exp", "log1p", "expm1", "KINDS"]

# the helpers first (the public functions call them by their module-level names)
for _name in ("_atanh_tail", "_log_core", "_expm1_small", "_reduce"):
    register_jitable(getattr(_m, _name))

log = register_jitable(_m.log)
exp = register_jitable(_m.exp)
log1p = register_jitable(_m.log1p)
expm1 = register_jitable(_m.expm1)


@numba.njit(cache=True)
def _loop(kind, x, out):
    """out[i] = f(x[i]) for the function numbered ``kind`` (0 log, 1 exp, 2 log1p, 3 expm1)."""
    for i in range(x.size):
        v = x[i]
        if kind == 0:
            out[i] = log(v)
        elif kind == 1:
            out[i] = exp(v)
        elif kind == 2:
            out[i] = log1p(v)
        else:
            out[i] = expm1(v)


KINDS = {"log": 0, "exp": 1, "log1p": 2, "expm1": 3}

stamp_kernels([_loop], [_m.__file__])
