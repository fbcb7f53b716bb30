"""The switch between the compiled (numba) kernels of the fast simulators and their numpy/Python
versions.

The exact fast paths of IMED, KL-UCB (:mod:`dpb.policies.nonprivate`) and of the batched private
policies (DP-KLUCB, DP-IMED, DP-SE, AdaP-*: :mod:`dpb.policies._private_runs`) run compiled
kernels by default; the environment variable
``DPB_JIT=0`` runs their numpy/Python versions instead (slower; for debugging and for the
benchmarks, which time both side by side).  ``dpb compile`` compiles the kernels ahead of time (a
tiny run of every policy with ``kernel_params``, :class:`~dpb.policies.base.Policy`); otherwise the
first compiled call of a process on a cold on-disk cache says so once on stderr
(:func:`announce_compile`).  The switch is read at every call, never cached.

``DPB_JIT`` only sets the default of ``simulate(..., engine=...)``.  The kernels of IMED and KL-UCB
run uncompiled under ``engine="python"`` with the same draws (the same runs, bitwise); the results
cache still records the engine (:func:`dpb.cache.provenance`).  numba itself is imported by the
kernel modules only, when a compiled run is first asked for, never by ``import dpb``.
"""

from __future__ import annotations

import os

__all__ = ["jit_enabled", "engine_name", "announce_compile", "stamp_kernels"]


def jit_enabled() -> bool:
    """False when the environment variable ``DPB_JIT`` is ``"0"``; True when it is ``"1"``, empty
    or unset (the default).  Any other value is a ``ValueError`` naming it (``DPB_JIT=false`` must
    not silently mean "on")."""
    value = os.environ.get("DPB_JIT", "").strip()
    if value not in ("", "0", "1"):
        raise ValueError(f"the environment variable DPB_JIT must be 0 (numpy/Python versions) or 1 "
                         f"(compiled kernels, the default), got {value!r}")
    return value != "0"


def engine_name() -> str:
    """``"numba"`` when the compiled kernels are on (:func:`jit_enabled`), else ``"python"``."""
    return "numba" if jit_enabled() else "python"


#: How long compiling the kernels takes on a cold on-disk cache (measured: 13-38 CPU-s).
COMPILE_SECONDS = "15-40 CPU-s"

_announced = False
_checked: set = set()


def announce_compile(module_file: str) -> bool:
    """Say once per process, on stderr, that the numba kernels of ``module_file`` are about to be
    compiled, when numba's on-disk cache holds none of them that is current (no index file in
    ``__pycache__`` at least as new as the module's source); returns whether it said so.

    Called where a kernel module is first imported (before its first compiled call): a cold cache
    costs 15-40 CPU-s once per machine, which ``dpb compile`` pays ahead of time.
    """
    global _announced
    if _announced or module_file in _checked:
        return False
    _checked.add(module_file)
    from pathlib import Path

    src = Path(module_file)
    cache_dir = src.parent / "__pycache__"
    try:
        stamp = src.stat().st_mtime
        warm = any(f.stat().st_mtime >= stamp for f in cache_dir.glob(f"{src.stem}.*.nbi"))
    except OSError:
        warm = False
    if warm:
        return False
    import sys

    _announced = True
    print(f"dpb: compiling the numba kernels for this machine, once ({COMPILE_SECONDS}; cached on disk "
          f"for every later process; 'dpb compile' does it ahead of time, DPB_JIT=0 runs without them)",
          file=sys.stderr, flush=True)
    return True


def stamp_kernels(dispatchers, files) -> None:
    """numba reuses a kernel's cached machine code while the kernel's own file is unchanged; a
    kernel that compiles the functions of other modules (``dpb.policies._scalar``, ``dpb._detmath``...)
    calls this with its dispatchers and those modules' ``files``, so that their stamps
    ``(mtime, size)`` join its own (an edit of the scalar maths recompiles the kernels instead of
    loading stale code).  numba has no public hook for this: it sets numba's private
    ``_cache._cache_file._source_stamp``, which numba compares with the stamp saved in a cache's
    index before it loads the index.  A dispatcher that caches but has no such stamp (numba renamed
    it) raises ``RuntimeError`` rather than silently loading stale kernels;
    ``tests/test_detmath.py`` checks that numba still recompiles when that stamp changes."""
    paths = tuple(files)
    stamps = tuple((st.st_mtime, st.st_size) for st in map(os.stat, paths))
    for f in dispatchers:
        cache = getattr(f, "_cache", None)  # a plain function (DPB_JIT=0) has none
        if cache is None or type(cache).__name__ == "NullCache":  # not cached: nothing to stamp
            continue
        cache_file = getattr(cache, "_cache_file", None)
        if cache_file is None or not hasattr(cache_file, "_source_stamp"):
            import numba

            raise RuntimeError(
                f"numba {numba.__version__} keeps no _cache._cache_file._source_stamp on "
                f"{getattr(f, '__name__', f)!r}: dpb._jit.stamp_kernels cannot make an "
                "edit of the scalar maths recompile the cached kernels (pin numba to a version that "
                "has it, or adapt stamp_kernels)")
        cache_file._source_stamp = (cache_file._source_stamp, *stamps)
