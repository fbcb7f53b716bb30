"""The shared validators of ``dpb._validate`` (one module for every argument check)."""

from fractions import Fraction

import numpy as np
import pytest

from dpb import _validate as V
from dpb.batching import GeometricSchedule
from dpb.coupling import simulate_coupled_environment
from dpb.policies import DPIMED, KLUCB, base


def test_check_real_and_check_eps_are_the_policies_checks():
    assert base.check_real is V.check_real and base.check_eps is V.check_eps  # re-exported, not copied
    assert V.check_real("c", 0.0, low=0.0, strict=False) == 0.0
    for bad, exc in ((-1e-9, ValueError), (np.inf, ValueError), (np.nan, ValueError), ("1", TypeError),
                     (True, TypeError), (None, TypeError), ([1.0, 2.0], TypeError)):
        with pytest.raises(exc, match="c must"):
            V.check_real("c", bad, low=0.0, strict=False)
    with pytest.raises(ValueError, match=r"beta must be a finite real number in \(0, 1\]"):
        V.check_real("beta", 0.0, low=0.0, high=1.0)
    assert V.check_eps(np.float32(0.5)) == 0.5 and V.check_eps(1e-300) == 1e-300
    with pytest.raises(ValueError, match="eps must be >= 1e-150"):
        V.check_eps(1e-200, floor=1e-150)
    with pytest.raises(ValueError, match=r"eps must be a finite real number in \(0, inf\)"):
        V.check_eps(np.inf)
    with pytest.raises(ValueError, match="c must be a finite real number in"):  # a policy's parameter
        KLUCB(c=-1.0)
    with pytest.raises(ValueError, match="eps must be a finite real number in"):
        DPIMED(eps=-1.0)


def test_seeds_and_generators_one_rule_everywhere():
    a, b = V.as_rng("rng", 7), np.random.default_rng(np.random.SeedSequence(7))
    assert a.random() == b.random()
    g = np.random.default_rng(1)
    assert V.as_rng("rng", g) is g
    ss = np.random.SeedSequence(3)
    assert V.as_seed_sequence("seed", ss) is ss and V.as_seed_sequence("seed", np.int64(3)).entropy == 3
    for bad, exc in ((-1, ValueError), (1.5, TypeError), ("x", TypeError), (True, TypeError)):
        with pytest.raises(exc, match="rng must"):
            V.as_rng("rng", bad)
        with pytest.raises(exc, match="seed must"):
            simulate_coupled_environment([0.7, 0.3], [0.7, 0.5], horizon=10, n_runs=1, seed=bad)


def test_exact_values_of_schedule_parameters():
    assert V.as_exact("alpha", 1.1) == Fraction(11, 10) and V.as_exact("alpha", np.int64(2)) == 2
    assert V.as_exact("alpha", Fraction(3, 2)) == Fraction(3, 2)
    for bad, exc in (("2", TypeError), (None, TypeError), (True, TypeError), (float("inf"), ValueError)):
        with pytest.raises(exc, match="alpha must"):
            V.as_exact("alpha", bad)
        with pytest.raises(exc, match="alpha must"):
            GeometricSchedule(alpha=bad)
