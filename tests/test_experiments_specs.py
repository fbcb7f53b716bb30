"""dpb.experiments.specs: a Cell validates its fields at construction (issue 24, item 4), before
any file is written."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.results import a_cell

import dpb.experiments as E
from dpb.environments import instance


@pytest.mark.parametrize("change, error, message", [
    ({"env": "mu2", "means": (0.5, 1.5)}, ValueError, r"Cell.means: means must lie in \[0, 1\]"),
    ({"env": "mu2"}, ValueError, r"Cell.means \[0.7, 0.3\] disagree with the instance mu2"),
    ({"env": "mu9"}, ValueError, r"Cell.env must be one of mu1"),
    ({"means": (0.7, float("nan"))}, ValueError, r"Cell.means: means must lie in \[0, 1\]"),
    ({"means": "0.7"}, TypeError, r"Cell.means must be a sequence"),
    ({"T": -1}, ValueError, r"Cell.T must be >= 1"),
    ({"T": "10"}, TypeError, r"Cell.T must be an integer, got str"),
    ({"T": float("nan")}, ValueError, r"Cell.T must be an integer"),
    ({"runs": True}, TypeError, r"Cell.runs must be an integer, got a bool"),
    ({"runs": 0}, ValueError, r"Cell.runs must be >= 1"),
    ({"params_json": '{"eps": 0.5'}, ValueError, r"Cell.params_json must be a JSON object"),
    ({"params_json": '{"eps": NaN}'}, ValueError, r"Cell.params_json .*NaN is not a JSON number"),
    ({"params_json": "[1]"}, ValueError, r"Cell.params_json must be a JSON object"),
    ({"params_json": {"eps": 0.5}}, TypeError, r"Cell.params_json must be a JSON string"),
    ({"params_json": '{"eps": -1}'}, ValueError, r"Cell.params_json: eps must be"),
    ({"params_json": '{"epsilon": 1}'}, TypeError, r"DP-IMED needs the parameter eps"),
    ({"policy": "No-Such"}, ValueError, r"unknown policy 'No-Such'"),
    ({"policy": "dp_imed"}, ValueError, r"Cell.policy must be the registered name 'DP-IMED'"),
    ({"policy": 3}, TypeError, r"Cell.policy must be a registered policy name"),
])
def test_cell_refuses_bad_fields(change, error, message):
    with pytest.raises(error, match=message):
        a_cell(**change)


def test_cell_normalises_what_it_accepts():
    c = a_cell(params_json='{ "eps" : 0.5 }', means=[np.float64(0.7), 0.3], T=1e3)
    assert c == a_cell() and c.params_json == '{"eps":0.5}' and c.means == (0.7, 0.3) and c.T == 1000
    named = E.Cell("DP-IMED", '{"eps":0.5}', "mu2", tuple(instance("mu2").means), 1000, 2)
    assert named == E.Cell.make("DP-IMED", "mu2", 1000, 2, {"eps": 0.5})


def test_the_issue_example_is_refused_before_any_file(tmp_path):
    """The issue's repro wrote a file keyed means=(0.5, 1.5) holding mu2's runs."""
    with pytest.raises(ValueError, match="Cell.means"):
        E.run(E.Cell("DP-IMED", '{"eps": 0.5}', "mu2", (0.5, 1.5), 1000, 2), tmp_path, progress=False)
    assert not (tmp_path / "cells").exists() or not list((tmp_path / "cells").glob("*.npz"))
