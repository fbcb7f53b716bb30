"""Caches that cannot mix (issue 32, item 3): a result file records what its bits depend on (numpy
and numba versions, the machine, the engine's arithmetic tag), and a cell resumed under other
arithmetic recomputes the chunks made under the old one instead of joining them to new ones; a
loader refuses them with one line naming the difference."""

from __future__ import annotations

import platform

import numpy as np
import pytest

import dpb.engine
import dpb.experiments as E
from dpb import cache


def test_provenance_records_the_arithmetic(monkeypatch):
    rec = cache.provenance(cache.PACKAGE_DIR / "engine.py")
    assert rec["numpy_version"] == np.__version__
    assert rec["numba_version"] and rec["machine"] == platform.machine()
    monkeypatch.setattr(dpb.engine, "ARITHMETIC", "scalar-libm-v1", raising=False)
    assert cache.provenance(cache.PACKAGE_DIR / "engine.py")["arithmetic"] == "scalar-libm-v1"


@pytest.mark.parametrize("key, other", [("numpy_version", "1.0.0"), ("numba_version", "0.1"),
                                        ("machine", "sparc64"), ("arithmetic", "avx512-v0")])
def test_a_resumed_cell_never_mixes_arithmetic(monkeypatch, tmp_path, key, other):
    first = E.Cell.make("IMED", "mu1", 300, 20, {})  # its file is the first block of the larger cell
    whole = E.Cell.make("IMED", "mu1", 300, 40, {})
    assert first.chunks()[0] in whole.chunks() and len(whole.chunks()) == 2
    real = cache.arithmetic
    with monkeypatch.context() as m:  # the first block computed under other arithmetic
        m.setattr(cache, "arithmetic", lambda: {**real(), key: other})
        assert E.run(first, tmp_path, jobs=1, progress=False).computed == 1
    assert E.status(whole, tmp_path) == {"done": 0, "missing": 1, "stale": 1, "damaged": 0}
    why = E.reasons(whole, tmp_path)[0][1]
    assert why.startswith("stale: ") and other in why and ";" not in why, why
    with pytest.raises(E.MissingResultsError) as info:
        E.load(whole, tmp_path)
    assert "\n" not in str(info.value) and other in str(info.value)
    report = E.run(whole, tmp_path, jobs=1, progress=False)
    assert (report.computed, report.reused) == (2, 0)  # the old block recomputed, not joined
    assert E.status(whole, tmp_path)["done"] == 2
    assert E.load(whole, tmp_path).results[whole].final_regret.shape == (40,)
