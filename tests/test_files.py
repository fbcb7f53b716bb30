"""``dpb.experiments.files``: the experiments the command line's options describe, built from plain
values (``experiments_from_options`` and its helpers), without a parser or a run."""

import pytest

from dpb.experiments import FileExperiment, experiments_from_options, read_experiment
from dpb.experiments.files import _params_by_policy, _policy_hint

OWN = dict(means=[[0.9, 0.8, 0.8]], eps=[0.1, 1.0], policies=["DP-KLUCB", "IMED"], horizon=1000)


def test_the_paper_files_with_the_options_on_top_are_read_experiment_with_them():
    [exp] = experiments_from_options("fig1", horizon=1000, runs=2)
    assert isinstance(exp, FileExperiment)
    assert exp.cells == read_experiment("fig1", horizon=1000, runs=2).cells
    three = experiments_from_options("all", horizon=1000, runs=2, n_eps=4)
    assert [e.name for e in three] == ["fig1", "appendix", "eps-sweep"]
    assert [s.eps for s in three[2].settings] == [0.25, 0.5, 0.75, 1.0]  # --n-eps: the sweep's grid
    assert {s.eps for s in three[0].settings} == {0.25}  # ... not fig1's budget


def test_an_experiment_of_ones_own_from_the_options_alone():
    [exp] = experiments_from_options(None, **OWN, params=[(None, {"alpha": 3})], name="mine")
    assert exp.name == "mine" and exp.T == 1000 and exp.runs == 20  # the paper's runs by default
    klucb = {c.params["alpha"] for c in exp.cells if c.policy == "DP-KLUCB"}
    assert klucb == {3}  # alpha=3 went to the policy that takes alpha, not to IMED
    assert len(exp.settings) == 2


def test_an_extra_policy_joins_every_experiment_but_the_eps_sweep():
    fig1, _, sweep = experiments_from_options("all", horizon=1000, runs=2, n_eps=2,
                                              extra_policies=["KL-UCB"])
    assert "KL-UCB" in {c.policy for c in fig1.cells}
    assert "KL-UCB" not in {c.policy for c in sweep.cells}


@pytest.mark.parametrize("target, options, message", [
    (None, {}, "give an experiment file"),
    ("all", dict(name="x"), "describe one experiment, not 'all'"),
    (None, {**OWN, "horizon": None}, "argument --horizon: without an experiment file"),
    (None, {k: v for k, v in OWN.items() if k != "means"}, "argument --means: without an experiment file"),
    (None, {**OWN, "params": [(None, {"beta": 2})]}, "argument --params: no policy .* takes beta"),
    (None, {**OWN, "params": [("DP-KLUCB", {"eps": 2})]}, "--params: eps of DP-KLUCB is set by --eps"),
    (None, {**OWN, "policies": ["my_policy.py"]}, "names a file but not the policy class"),
])
def test_missing_or_conflicting_options_are_refused_naming_the_option(target, options, message):
    with pytest.raises(ValueError, match=message):
        experiments_from_options(target, **options)


def test_params_without_a_policy_go_to_every_policy_taking_all_their_keys():
    out = _params_by_policy({None: {"alpha": 3}, "IMED": {"x": 1}}, None, ["DP-KLUCB", "DP-IMED", "IMED"])
    assert out == {"DP-KLUCB": {"alpha": 3}, "DP-IMED": {"alpha": 3}, "IMED": {"x": 1}}
    spec = {"policies": ["DP-KLUCB", "IMED"]}
    assert _params_by_policy({None: {"alpha": 2}}, spec, None) == {"DP-KLUCB": {"alpha": 2}}  # the file's


def test_a_policy_file_without_its_class_names_the_classes_it_defines(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text("class MyUCB:\n    pass\n\nclass Other:\n    pass\n")
    with pytest.raises(ValueError, match=r"it defines MyUCB, Other\): write FILE.py:CLASS, e.g. --policy "
                                         r".*mine.py:MyUCB"):
        _policy_hint(["IMED", str(path)])
    _policy_hint(["IMED", f"{path}:MyUCB"])  # named with its class: nothing to say
    with pytest.raises(ValueError, match="e.g. --policy missing.py:MyPolicy"):
        _policy_hint(["missing.py"])  # unreadable: a generic example
