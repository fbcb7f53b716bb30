"""dpb.result: the summaries of a Result."""

from __future__ import annotations

import numpy as np
import pytest

import dpb


def test_the_summaries_of_a_result_are_all_properties():
    res = dpb.simulate("DP-IMED", "mu2", 5000, runs=3, seed=2, eps=1.0)
    assert np.array_equal(res.final_regret, res.regret[:, -1])
    assert np.allclose(res.mean_regret, res.regret.mean(axis=0))
    assert np.allclose(res.std_regret, res.regret.std(axis=0, ddof=1))
    assert res.mean_regret[-1] == pytest.approx(res.final_regret.mean())
