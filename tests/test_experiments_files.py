"""dpb.experiments.files: experiment files (TOML) read, checked and written back, the paper's
files, output stems, and the cells built from policy keywords.  What a researcher types is read as
meant or refused in one line (issue 33, item 3): relative paths inside an experiment file resolve
against that file, numbers given as text are refused.
The experiments the command line's options describe are built from plain values
(``experiments_from_options`` and its helpers), without a parser or a run."""

from __future__ import annotations

import textwrap

import pytest
from helpers.cli import write_file

import dpb
from dpb import experiments as E
from dpb.__main__ import main
from dpb.experiments import FileExperiment, experiments_from_options, read_experiment
from dpb.experiments import files as F
from dpb.experiments.files import _params_by_policy, _policy_hint


def test_cells_take_policy_keywords_too():
    a = E.cell("DP-KLUCB", [0.9, 0.8], 10**5, 20, eps=0.5, alpha=3)
    assert a == E.Cell.make("DP-KLUCB", [0.9, 0.8], 10**5, 20, {"eps": 0.5, "alpha": 3})
    with pytest.raises(TypeError, match="neither an option of cell nor a parameter of IMED"):
        E.cell("IMED", "mu1", 100, 1, eps=0.5)


@pytest.mark.parametrize(
    "name, builder", [("fig1", E.figure1), ("appendix", E.appendix), ("eps-sweep", E.eps_sweep)]
)
def test_the_papers_files_are_the_papers_cells(name, builder):
    exp, ref = F.read_experiment(name), builder()
    assert F.paper_file(name).is_file() and F.paper_file(name).parent == F.PAPER_DIR
    assert (exp.name, exp.T, exp.runs, exp.settings) == (ref.name, ref.T, ref.runs, ref.settings)
    # the same keys and file names: the paper-scale result files are shared, nothing recomputes
    assert [(c.digest, c.name, c.chunks()) for c in exp.cells] == [
        (c.digest, c.name, c.chunks()) for c in ref.cells
    ]
    assert F.output_stem(exp) == F.output_stem(ref)


def test_the_command_lines_options_on_the_papers_files_are_the_builders_options():
    a = F.read_experiment("fig1", horizon=2000, runs=2, extra_policies=["KL-UCB"])
    assert a.settings == E.experiment("fig1", T=2000, runs=2, extra_policies=["KL-UCB"]).settings
    b = F.read_experiment("eps-sweep", horizon=3000, runs=3, eps_grid=4)
    assert b.settings == E.experiment("eps-sweep", T=3000, runs=3, n_eps=4).settings


TWENTY = [round(0.9 - 0.02 * k, 2) for k in range(20)]


def test_an_experiment_file_of_your_own(tmp_path):
    path = write_file(
        tmp_path / "mine.toml",
        f"""
name = "twenty"
title = "Twenty arms"
horizon = 50_000
runs = 3
instances = ["mu2", {{name = "twenty", means = {TWENTY}}}]
eps = [0.1, 1.0]
policies = ["DP-KLUCB", "IMED"]
[params.DP-KLUCB]
alpha = 3
""",
    )
    exp = F.read_experiment(path)
    assert [(s.env, s.eps) for s in exp.settings] == [
        ("mu2", 0.1),
        ("mu2", 1.0),
        ("twenty", 0.1),
        ("twenty", 1.0),
    ]
    cell = exp.settings[2].cells[0]
    assert cell.params == {"eps": 0.1, "n0": 1, "alpha": 3} and list(cell.means) == TWENTY
    assert len(exp.cells) == 6  # IMED: one cell per instance, shared by the budgets
    assert exp.description.startswith("Twenty arms: 2 policies on 2 instances, 2 budgets, T = 50000, 3 runs")
    assert F.figure_kind(exp) == "panels"
    # the file a run writes beside its outputs reads back as the same experiment
    again = write_file(tmp_path / "again.toml", F.spec_to_toml(exp.spec))
    assert F.read_experiment(again).settings == exp.settings


H = 'name = "x"\nhorizon = 100\nruns = 1\n'


@pytest.mark.parametrize(
    "text, message",
    [
        (
            H + 'means = [0.9, 0.8]\neps = [1.0]\npolicies = ["IMED"]\nbogus = 1',
            "unknown key 'bogus'",
        ),
        (
            'name = "x"\nruns = 1\nmeans = [0.9, 0.8]\neps = [1.0]\npolicies = ["IMED"]',
            "'horizon' is missing",
        ),
        (
            'name = "x"\nhorizon = 100\nruns = 1\nmeans = [0.9, 1.8]\neps = [1.0]\npolicies = ["IMED"]',
            "means must lie in [0, 1], got 1.8",
        ),
        (
            H + 'means = [0.9, 0.8]\neps = [1.0]\npolicies = ["IMED", "IMED"]',
            "IMED is listed twice",
        ),
        (
            'name = "x"\nhorizon = 100\nruns = 1\nmeans = [0.9, 0.8]\neps = [1.0]\npolicies = ["IMED"]\n'
            "[params.DP-SE]\nbeta = 0.1",
            "[params.DP-SE] is not one of the policies",
        ),
        (
            'name = "x"\nhorizon = 100\nruns = 1\nmeans = [0.9, 0.8]\neps = [1.0]\npolicies = ["DP-SE"]\n'
            "[params.DP-SE]\neps = 0.1",
            "eps is set by the settings",
        ),
        (
            H + 'means = [0.9, 0.8]\neps = [1.0]\neps_grid = 4\npolicies = ["IMED"]',
            "give the budgets once",
        ),
        (
            H + 'instances = [{name = "mu1", means = [0.9, 0.8]}]\neps = [1.0]\npolicies = ["IMED"]',
            "the name of one of the paper's instances",
        ),
        (
            'name = "x"\nhorizon = 100\nruns = 1\nmeans = [0.9, 0.8]\neps = [1.0]\npolicies = ["Nope"]',
            "unknown policy 'Nope'",
        ),
        ('name = "x\nhorizon = 100', "not valid TOML"),
    ],
)
def test_a_bad_experiment_file_is_named_with_its_key(tmp_path, text, message):
    path = write_file(tmp_path / "bad.toml", text)
    with pytest.raises(ValueError) as exc:
        F.read_experiment(path)
    assert message in str(exc.value) and str(path) in str(exc.value)


def test_two_specifications_have_two_output_stems():
    base = F.read_experiment("fig1", horizon=2000, runs=2)
    stems = {
        F.output_stem(base),
        F.output_stem(F.read_experiment("fig1", horizon=3000, runs=2)),
        F.output_stem(F.read_experiment("fig1", horizon=2000, runs=3)),
        F.output_stem(base, seed=1),
    }
    assert len(stems) == 4 and all(s.startswith("fig1-") for s in stems)
    assert F.output_stem(F.read_experiment("fig1", horizon=2000, runs=2)) == F.output_stem(base)


def test_load_accepts_everything_run_accepts(tmp_path):
    cells = [
        E.Cell.make("DP-IMED", [0.9, 0.8, 0.7], 3000, 2, E.paper_params("DP-IMED", 0.5)),
        E.Cell.make("IMED", [0.9, 0.8, 0.7], 3000, 2),
    ]
    E.run(cells, tmp_path, jobs=1, progress=False)
    res = E.load(cells, tmp_path)  # was a TypeError
    assert [c.policy for s in res.settings for c in s.cells] == ["DP-IMED", "IMED"]
    assert E.load(cells[0], tmp_path).results[cells[0]].same_as(res.results[cells[0]])
    path = write_file(
        tmp_path / "e.toml",
        'name = "e"\nhorizon = 3000\nruns = 2\nmeans = [0.9, 0.8, 0.7]\n'
        'eps = [0.5]\npolicies = ["DP-IMED", "IMED"]\n',
    )
    report = dpb.run(path, tmp_path, jobs=1, progress=False)  # the same cells: nothing to compute
    assert report.computed == 0 and report.reused == 2
    for target in (path, str(path), [path]):
        loaded = dpb.load(target, tmp_path)
        assert loaded.experiment.name == "e"
        assert loaded.results[cells[0]].same_as(res.results[cells[0]])
    joined = F.as_experiment([F.read_experiment("fig1", horizon=2000, runs=2), path])
    assert joined.name == "fig1+e" and len(joined.settings) == 3


POLICY = '''
import numpy as np
from dpb.policies import BatchedPrivatePolicy


class MyUCB(BatchedPrivatePolicy):
    name = "Rel-UCB"

    def private_index(self, x, n, t, releases):
        return x + np.sqrt(np.log(t) / (2 * n))
'''


def test_a_policy_path_in_an_experiment_file_is_relative_to_the_file(tmp_path, monkeypatch, capsys):
    folder, elsewhere = tmp_path / "study", tmp_path / "elsewhere"
    (folder / "sub").mkdir(parents=True)
    elsewhere.mkdir()
    (folder / "sub" / "my_policy.py").write_text(textwrap.dedent(POLICY))
    spec = folder / "s.toml"
    spec.write_text('name = "rel"\nhorizon = 300\nruns = 1\nmeans = [0.9, 0.8]\neps = [0.5]\n'
                    'policies = ["IMED", "sub/my_policy.py:MyUCB"]\n')
    monkeypatch.chdir(elsewhere)
    exp = E.read_experiment(str(spec))
    assert [c.policy for c in exp.cells] == ["IMED", "Rel-UCB"]
    assert main(["status", str(spec), "--out", str(tmp_path)]) == 0, capsys.readouterr().err
    assert "2 cells" in capsys.readouterr().out


@pytest.mark.parametrize("line", ['means = ["0.9", "0.8"]\neps = [0.5]', 'means = [0.9, 0.8]\neps = ["0.5"]'])
def test_an_experiment_file_with_numbers_as_text_is_refused(tmp_path, capsys, line):
    spec = tmp_path / "s.toml"
    spec.write_text(f'name = "txt"\nhorizon = 300\nruns = 1\n{line}\npolicies = ["DP-IMED"]\n')
    assert main(["status", str(spec), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "number" in err and str(spec) in err


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
