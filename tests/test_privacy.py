"""dpb.privacy: privacy losses (the Laplace mechanism: ``test_privacy_laplace.py``)."""

from __future__ import annotations

import math

import pytest

from dpb import privacy


def test_pure_privacy_loss_refuses_probabilities_above_one():
    with pytest.raises(ValueError, match=r"p must be probabilities in \[0, 1\]"):
        privacy.pure_privacy_loss([0.5, 1.5], [0.5, 0.5])
    assert privacy.pure_privacy_loss([0.5, 0.5], [0.25, 0.75]) == pytest.approx(math.log(2))
