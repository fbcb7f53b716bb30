"""dpb.experiments.store: the key of a stored result file always describes the numbers inside it;
a directory or a file whose arrays contradict its key is damaged, set aside and recomputed."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers.results import a_cell

import dpb.experiments as E
from dpb.cache import file_state


def test_stored_key_describes_the_numbers(tmp_path):
    cell = a_cell()
    E.run(cell, tmp_path, jobs=1, progress=False)
    (path,) = (tmp_path / "cells").glob("*.npz")
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        means = data["means"].tolist()
    assert meta["extra"]["cell"]["means"] == list(cell.means) == means
    assert meta["extra"]["cell"]["T"] == cell.T == meta["T"]


def test_a_directory_in_place_of_a_result_file_is_damaged_and_repaired(tmp_path):
    cell = a_cell()
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

    cell = a_cell()
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
