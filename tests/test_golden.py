"""The same seed gives the same numbers, bit for bit, on every machine and across refactorings.

``tests/golden.py`` computes the digest of every golden case (what each guards is in its
docstring and in its label); ``tests/golden_digests.txt`` holds them.  Three checks:

* every case, computed here, has its recorded digest;
* the cheap cases (``--subset cpu``: the arithmetic, the indexes, the noise, a cell of every
  engine, the paper cell in which a last-bit difference once flipped an elimination) give the
  recorded digests under every instruction set this machine can be made to imitate: the C
  library's code for CPUs without FMA/AVX2 (``GLIBC_TUNABLES``), numpy with every SIMD dispatch
  above its baseline switched off (``NPY_DISABLE_CPU_FEATURES``, which also covers the AVX-512
  paths on a machine that has them), numba compiling for a generic x86-64 (``NUMBA_CPU_NAME``);
* the check can fail: with the C library's ``log``/``exp`` put back in place of
  :mod:`dpb._detmath` (dpb's arithmetic before issue 32), the FMA and non-FMA settings give
  different digests.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden.py"
RECORDED = dict(line.split("\t") for line in (ROOT / "tests/golden_digests.txt").read_text().splitlines() if line)

sys.path.insert(0, str(ROOT / "tests"))
import golden  # noqa: E402

CASES = golden.cases("all")

#: glibc's code for CPUs without FMA and AVX2 (its exp, log, pow... have separate FMA variants)
NO_FMA = {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA"}


def _numpy_dispatch_off() -> dict:
    """NPY_DISABLE_CPU_FEATURES listing every feature numpy dispatches to on this CPU above its
    baseline (empty when there is none)."""
    from numpy._core._multiarray_umath import __cpu_baseline__, __cpu_dispatch__, __cpu_features__

    extra = [f for f in __cpu_dispatch__ if __cpu_features__.get(f) and f not in __cpu_baseline__]
    return {"NPY_DISABLE_CPU_FEATURES": " ".join(extra)} if extra else {}


SETTINGS = {
    "default": {},
    "libc without FMA/AVX2": NO_FMA,
    "numpy without SIMD dispatch": _numpy_dispatch_off(),
    "numba for a generic CPU": {"NUMBA_CPU_NAME": "generic"},
}


def _run_cpu_subset(env_extra: dict, timeout: float = 420) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DPB_GOLDEN_PUT_BACK_LIBM", "GLIBC_TUNABLES", "NPY_DISABLE_CPU_FEATURES", "NUMBA_CPU_NAME")}
    env.update(env_extra, PYTHONPATH=str(ROOT))
    try:
        out = subprocess.run([sys.executable, str(GOLDEN), "--subset", "cpu"], env=env, cwd=ROOT,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"tests/golden.py --subset cpu took over {timeout} s under {env_extra}")
    assert out.returncode == 0, out.stderr[-3000:]
    return dict(line.split("\t") for line in out.stdout.splitlines() if line)


def test_every_case_is_recorded():
    assert sorted(CASES) == sorted(RECORDED)


@pytest.mark.parametrize("label", sorted(RECORDED))
def test_same_digest_as_recorded(label):
    assert CASES[label]() == RECORDED[label], label


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the forced settings are x86-64's")
@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_same_digests_under_every_forced_instruction_set(setting):
    got = _run_cpu_subset(SETTINGS[setting])
    assert len(got) >= 20
    changed = sorted(k for k in got if got[k] != RECORDED.get(k))
    assert not changed, f"under {setting} ({SETTINGS[setting]}): {len(changed)} of {len(got)} changed: {changed}"


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the forced settings are x86-64's")
def test_the_check_fails_when_the_c_library_is_put_back():
    """With ``math``/numpy's log and exp in place of dpb._detmath, the FMA and non-FMA variants of
    the C library give different numbers, and the check above would name the cases."""
    put_back = {"DPB_GOLDEN_PUT_BACK_LIBM": "1"}
    fma, no_fma = _run_cpu_subset(put_back), _run_cpu_subset({**put_back, **NO_FMA})
    differ = sorted(k for k in fma if fma[k] != no_fma[k])
    assert differ, "putting the C library back changed nothing: the forced setting no longer bites"
    assert any(k.startswith(("arithmetic/", "noise/")) for k in differ), differ
