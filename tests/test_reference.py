"""dpb.reference: the literal reference simulator refuses bad input."""

from __future__ import annotations

import numpy as np
import pytest

from dpb import reference


def test_the_reference_refuses_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="rng must be a numpy Generator"):
        reference.reference_run("DP-IMED", {"eps": 0.5}, [0.7, 0.3], 300, None)  # was AttributeError
    for means in ([np.nan, 0.5], [0.5, 1.5]):  # NaN regret, accepted
        with pytest.raises(ValueError, match=r"means must lie in \[0, 1\]"):
            reference.reference_run("DP-IMED", {"eps": 0.5}, means, 300, rng)
