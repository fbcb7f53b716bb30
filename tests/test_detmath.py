"""dpb._detmath: accurate (within an ulp or two of the C library), the same bits in plain Python,
in numpy arrays and in compiled kernels, and used for the Laplace noise."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpb import _detmath as d
from dpb import _detmath_arrays as da


def _ulps(a, b) -> np.ndarray:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both_nan = np.isnan(a) & np.isnan(b)
    diff = np.abs(a.view(np.int64) - b.view(np.int64))
    return np.where(both_nan, 0, diff)


RNG = np.random.default_rng(12)
DOMAINS = {
    "log": np.concatenate(
        [
            RNG.random(20_000),
            np.exp(RNG.uniform(-740, 709, 20_000)),
            RNG.uniform(0.5, 2, 20_000),
            [1.0, 2.0, 0.5, 1e-300, 5e-324, 1.7e308, math.sqrt(0.5), math.sqrt(2.0)],
        ]
    ),
    "log1p": np.concatenate(
        [
            RNG.uniform(-1, 1, 20_000),
            RNG.uniform(-1e-9, 1e-9, 20_000),
            np.exp(RNG.uniform(-40, 700, 20_000)),
            [-0.2928932188134524, 0.41421356237309503, 0.0],
        ]
    ),
    "exp": np.concatenate(
        [
            RNG.uniform(-745, 709.7, 20_000),
            RNG.uniform(-1, 1, 20_000),
            RNG.uniform(-1e-9, 1e-9, 1000),
            [0.0, -0.0, 709.78, -745.1, -708.5],
        ]
    ),
    "expm1": np.concatenate(
        [
            RNG.uniform(-40, 40, 20_000),
            RNG.uniform(-1e-6, 1e-6, 20_000),
            RNG.uniform(-1, 1, 20_000),
            [0.34657359027997264, -0.34657359027997264, 0.0],
        ]
    ),
}
#: largest distance from the C library's result (itself within about half an ulp of exact)
MAX_ULPS = {"log": 1, "log1p": 1, "exp": 1, "expm1": 2}


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_accurate_against_the_c_library(name):
    x = DOMAINS[name]
    ours = np.array([getattr(d, name)(float(v)) for v in x])
    ref = np.array([getattr(math, name)(float(v)) for v in x])
    assert _ulps(ours, ref).max() <= MAX_ULPS[name]


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_python_numpy_and_compiled_give_the_same_bits(name):
    import numba

    from dpb import _detmath_kernels as k

    x = DOMAINS[name][::7]
    py = np.array([getattr(d, name)(float(v)) for v in x])
    arr = getattr(da, name + "_array")(x)
    f = getattr(k, name)
    compiled = numba.njit(lambda v: f(v))
    jit = np.array([compiled(float(v)) for v in x[:2000]])
    assert py.view(np.int64).tolist() == arr.view(np.int64).tolist()
    assert py[:2000].view(np.int64).tolist() == jit.view(np.int64).tolist()
    # shapes and scalars
    assert getattr(da, name + "_array")(x[:6].reshape(2, 3)).shape == (2, 3)
    assert getattr(da, name + "_array")(0.25).shape == ()


def test_special_values():
    assert math.isnan(d.log(-1.0)) and math.isnan(d.log(math.nan)) and d.log(0.0) == -math.inf
    assert d.log(math.inf) == math.inf and d.log(1.0) == 0.0
    assert math.isnan(d.log1p(-2.0)) and d.log1p(-1.0) == -math.inf and d.log1p(math.inf) == math.inf
    assert d.exp(-math.inf) == 0.0 and d.exp(math.inf) == math.inf and math.isnan(d.exp(math.nan))
    assert d.exp(0.0) == 1.0 and d.exp(-746.0) == 0.0 and d.exp(710.0) == math.inf
    assert d.expm1(-math.inf) == -1.0 and d.expm1(math.inf) == math.inf and d.expm1(0.0) == 0.0
    assert d.exp(-745.0) > 0.0  # subnormal
    assert d.log(7) == d.log(7.0)  # int arguments


def test_the_series_constants_are_the_exact_coefficients():
    """The typed coefficients are the doubles nearest 2/(2k+1) and 1/n!: a typo would make the
    functions inaccurate in a way the grids above might miss."""
    import inspect
    import re

    def constants(f):  # the numbers of the function's body (after its docstring)
        body = inspect.getsource(f).split('"""')[-1]
        return [float(t) for t in re.findall(r"\d\.\d+(?:e-?\d+)?", body)]

    assert constants(d._atanh_tail) == [2.0 / (2 * k + 1) for k in range(1, 13)]
    assert constants(d._expm1_small) == [1.0 / math.factorial(n) for n in range(1, 19)]


def test_numba_still_has_the_cache_stamp_the_kernels_extend():
    """dpb._jit.stamp_kernels sets numba's private cache stamp so that an edit of the
    scalar maths recompiles the kernels: this fails if numba renames what it relies on."""
    from dpb.policies import _private_kernel, _tape_kernel

    stamp = _tape_kernel.hypergeometric._cache._cache_file._source_stamp
    assert isinstance(stamp, tuple) and len(stamp) == 3  # numba's own, then _scalar's and _detmath's
    assert isinstance(_private_kernel._binomials._cache._cache_file._source_stamp, tuple)


_KERNEL = """
from numba import njit


@njit(cache=True)
def twice(x):
    return 2 * x
"""

_RUN = """
import importlib, sys
sys.path.insert(0, sys.argv[1])
from dpb._jit import stamp_kernels
plain, stamped = (importlib.import_module(m).twice for m in ("kernel_plain", "kernel_stamped"))
if sys.argv[2] == "stamp":
    stamp_kernels([stamped], [sys.argv[1] + '/kernel_stamped.py'])
plain(1), stamped(1)
print(len(plain.stats.cache_hits), len(stamped.stats.cache_hits))
"""


def test_numba_recompiles_a_cached_kernel_whose_stamp_changed(tmp_path):
    """stamp_kernels relies on numba's private cache stamp: numba must still compare it with the
    stamp its cache index was saved with (a changed stamp recompiles, an unchanged one loads).
    numba is not pinned (>= 0.60): a release that renames or stops reading the stamp fails here."""
    import os
    import subprocess
    import sys

    for name in ("kernel_plain", "kernel_stamped"):
        (tmp_path / f"{name}.py").write_text(_KERNEL)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "DPB_JIT": "1"}

    def run(mode):
        proc = subprocess.run([sys.executable, "-c", _RUN, str(tmp_path), mode], capture_output=True,
                              text=True, timeout=300, env=env)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.split()

    assert run("none") == ["0", "0"]  # compiled and saved
    assert run("none") == ["1", "1"]  # loaded: the cache works here
    assert run("stamp") == ["1", "0"]  # the stamped kernel's index no longer matches: recompiled


def test_stamp_kernels_refuses_a_numba_cache_without_its_stamp():
    class FunctionCache:  # a cache as numba would have it with the stamp renamed
        _cache_file = object()

    class Dispatcher:
        __name__ = "kernel"
        _cache = FunctionCache()

    from dpb._jit import stamp_kernels

    with pytest.raises(RuntimeError, match="_source_stamp"):
        stamp_kernels([Dispatcher()], [__file__])
    stamp_kernels([len], [__file__])  # a plain function (DPB_JIT=0): nothing to stamp


def test_laplace_noise_has_the_laplace_law_and_numpys_draws():
    from dpb.policies.base import _standard_laplace

    x = _standard_laplace(np.random.default_rng(3), 200_000)
    assert stats.kstest(x, "laplace").pvalue > 1e-3
    # numpy's algorithm from the same uniforms: equal, or an ulp or two apart where our log and
    # the C library's round differently (measured: 7 % of draws)
    y = np.random.default_rng(3).laplace(0.0, 1.0, 200_000)
    assert np.max(np.abs(x - y) / np.maximum(np.abs(y), 1e-300)) < 4e-16
    assert np.mean(x == y) > 0.85
