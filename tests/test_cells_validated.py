"""Validated experiment data (issue 24, item 4): a Cell validates at construction, and the key of a
stored file always describes the numbers inside it."""

from __future__ import annotations

import json

import numpy as np
import pytest

import dpb.experiments as E
from dpb.cache import file_state
from dpb.environments import instance

GOOD = ("DP-IMED", '{"eps": 0.5}', "custom", (0.7, 0.3), 1000, 2)


def _cell(**change):
    fields = dict(zip(("policy", "params_json", "env", "means", "T", "runs"), GOOD, strict=True))
    fields.update(change)
    return E.Cell(**fields)


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
        _cell(**change)


def test_cell_normalises_what_it_accepts():
    c = _cell(params_json='{ "eps" : 0.5 }', means=[np.float64(0.7), 0.3], T=1e3)
    assert c == _cell() and c.params_json == '{"eps":0.5}' and c.means == (0.7, 0.3) and c.T == 1000
    named = E.Cell("DP-IMED", '{"eps":0.5}', "mu2", tuple(instance("mu2").means), 1000, 2)
    assert named == E.Cell.make("DP-IMED", "mu2", 1000, 2, {"eps": 0.5})


def test_the_issue_example_is_refused_before_any_file(tmp_path):
    """The issue's repro wrote a file keyed means=(0.5, 1.5) holding mu2's runs."""
    with pytest.raises(ValueError, match="Cell.means"):
        E.run(E.Cell("DP-IMED", '{"eps": 0.5}', "mu2", (0.5, 1.5), 1000, 2), tmp_path, progress=False)
    assert not (tmp_path / "cells").exists() or not list((tmp_path / "cells").glob("*.npz"))


def test_stored_key_describes_the_numbers(tmp_path):
    cell = _cell()
    E.run(cell, tmp_path, jobs=1, progress=False)
    (path,) = (tmp_path / "cells").glob("*.npz")
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        means = data["means"].tolist()
    assert meta["extra"]["cell"]["means"] == list(cell.means) == means
    assert meta["extra"]["cell"]["T"] == cell.T == meta["T"]


def test_a_directory_in_place_of_a_result_file_is_damaged_and_repaired(tmp_path):
    cell = _cell()
    path = cell.path(tmp_path, 0, 2)
    path.mkdir(parents=True)
    (path / "junk").write_text("x")
    assert E.chunk_status(cell, 0, 2, tmp_path) == "damaged"
    assert file_state(path, {}) == "damaged"
    report = E.run(cell, tmp_path, jobs=1, progress=False)
    assert report.computed == 1 and path.is_file()
    assert E.chunk_status(cell, 0, 2, tmp_path) == "done"
    assert [p for p in path.parent.iterdir() if ".damaged-" in p.name]  # set aside, not deleted


def test_a_file_whose_arrays_contradict_its_key_is_not_loaded(tmp_path):
    """Even a file whose record was edited by hand is refused when its arrays say otherwise."""
    from dpb._io import save_npz_atomic

    cell = _cell()
    exp = E.Experiment("mine", "one cell", (E.Setting("custom", 0.5, (cell,)),), cell.T, cell.runs)
    E.run(exp, tmp_path, jobs=1, progress=False)
    path = cell.path(tmp_path, 0, 2)
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        arrays = {k: data[k] for k in data.files if k != "meta"}
    arrays["means"] = np.array([0.3, 0.7])
    meta.pop("checksums", None)
    save_npz_atomic(path, meta, arrays)
    with pytest.raises(E.MissingResultsError, match="arm means .* do not match its key"):
        E.load(exp, tmp_path)
