"""dpb as a research library (issue 25): the top level, policy parameters as keywords, seeds,
plain numbers in messages, experiment files, tidy results and the ``dpb`` command.

The installed-wheel test is ``tests/test_install.py``; the runner's safety in a plain script and
Dask are the runner's own tests.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import dpb
from dpb import __main__ as cli
from dpb import experiments as E
from dpb.experiments import files as F
from dpb.simulate import estimate_cost, simulate_trace

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str, timeout: float = 120) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# ----------------------------------------------------------------------------------------------
# the top level
# ----------------------------------------------------------------------------------------------
def test_import_dpb_stays_light():
    out = _python(
        "import sys, dpb; print(sorted(m for m in ('numpy', 'scipy', 'numba', 'dpb.simulate', "
        "'dpb.experiments', 'matplotlib') if m in sys.modules))"
    )
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    "first",
    [
        "import dpb.simulate",  # the import system binds the submodule to the package: it must not stay
        "from dpb.simulate import Result",
        "from dpb.experiments import run",  # a module of the package that imports dpb.simulate
        "import dpb",
        "from dpb import simulate",
    ],
)
def test_simulate_is_the_function_whatever_was_imported_first(first):
    code = f"""
{first}
import importlib, inspect, sys, types
import dpb
import dpb.simulate as S                     # reads the package's attribute: the function
from dpb.simulate import Result, estimate_cost, simulate as f
from dpb import simulate
module = sys.modules["dpb.simulate"]
r1 = dpb.simulate("DP-KLUCB", [0.9, 0.8], 3000, runs=2, seed=4, eps=0.5)
r2 = simulate("DP-KLUCB", [0.9, 0.8], 3000, runs=2, seed=4, eps=0.5)
r3 = f("DP-KLUCB", [0.9, 0.8], 3000, runs=2, seed=4, params={{"eps": 0.5}})
print(type(dpb.simulate) is types.FunctionType, dpb.simulate is S is simulate is f is module.simulate,
      isinstance(module, types.ModuleType) and importlib.import_module("dpb.simulate") is module,
      module.Result is Result and isinstance(r1, Result), r1.same_as(r2) and r1.same_as(r3),
      "max_seconds" in inspect.signature(dpb.simulate).parameters, estimate_cost is module.estimate_cost,
      callable(dpb.audit_policy), dpb.run is dpb.experiments.run, dpb.load is dpb.experiments.load)
"""
    assert _python(code).split() == ["True"] * 10


def test_the_audit_module_is_a_module_and_audit_policy_its_one_call_audit():
    assert isinstance(dpb.audit, types.ModuleType) and not callable(dpb.audit)
    assert dpb.audit_policy is dpb.audit.audit_policy


def test_cells_take_policy_keywords_too():
    a = E.cell("DP-KLUCB", [0.9, 0.8], 10**5, 20, eps=0.5, alpha=3)
    assert a == E.Cell.make("DP-KLUCB", [0.9, 0.8], 10**5, 20, {"eps": 0.5, "alpha": 3})
    with pytest.raises(TypeError, match="neither an option of cell nor a parameter of IMED"):
        E.cell("IMED", "mu1", 100, 1, eps=0.5)


def test_policy_parameters_as_keywords_are_the_params_dict():
    a = dpb.simulate("DP-KLUCB", "mu2", 20_000, runs=3, seed=7, eps=0.5, alpha=3, n0=2)
    b = dpb.simulate("DP-KLUCB", "mu2", 20_000, runs=3, seed=7, params={"eps": 0.5, "alpha": 3, "n0": 2})
    assert a.same_as(b)
    assert (
        estimate_cost("DP-IMED", "mu1", 10**6, eps=0.5).seconds
        == estimate_cost("DP-IMED", "mu1", 10**6, params={"eps": 0.5}).seconds
    )
    trace = simulate_trace("DP-IMED", "mu2", 500, seed=1, eps=1.0)
    assert trace.params["eps"] == 1.0


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: dpb.simulate("DP-KLUCB", "mu1", 100, eps=0.5, max_second=3),
            "'max_second': it is neither an option of simulate nor a parameter of DP-KLUCB "
            "(its parameters: eps, n0",
        ),
        (lambda: dpb.simulate("DP-KLUCB", "mu1", 100, eps=0.5, params={"eps": 1.0}), "eps given twice"),
        (lambda: dpb.simulate(dpb.policies.DPIMED(0.5), "mu1", 100, alpha=3), "whose parameters are fixed"),
        (lambda: dpb.simulate("IMED", "mu1", 100, eps=0.5), "its parameters: none"),
    ],
)
def test_a_keyword_that_is_no_parameter_is_named(call, message):
    with pytest.raises(TypeError) as exc:
        call()
    assert message in str(exc.value)


def test_the_audit_takes_policy_keywords_and_names_its_claim_claimed_eps():
    own = dpb.audit_policy("DP-KLUCB", eps=0.5, alpha=3, runs=400, T=20, seed=3)
    assert own.eps == 0.5 and own.info["policy"] == "DP-KLUCB"
    claim = dpb.audit_policy("DP-KLUCB", eps=0.5, alpha=3, runs=400, T=20, seed=3, claimed_eps=0.1)
    assert claim.eps == 0.1 and claim.eps_lower == own.eps_lower  # the same runs, another claim
    with pytest.raises(TypeError, match="claimed_eps"):
        dpb.audit.audit_lists(dpb.policies.DPIMED(1.0), [1.0, 0.0], [0.0, 0.0], 10, eps=0.5)


def test_seed_accepts_a_generator_reproducibly():
    a = dpb.simulate("DP-IMED", "mu2", 5000, runs=2, seed=np.random.default_rng(11), eps=1.0)
    b = dpb.simulate("DP-IMED", "mu2", 5000, runs=2, seed=np.random.default_rng(11), eps=1.0)
    assert a.same_as(b)
    assert a.seed == int(np.random.default_rng(11).integers(0, 2**63, dtype=np.int64))  # one draw
    assert dpb.simulate("DP-IMED", "mu2", 5000, runs=2, seed=a.seed, eps=1.0).same_as(a)  # replayable
    gen = np.random.default_rng(11)
    first = dpb.simulate("DP-IMED", "mu2", 5000, seed=gen, eps=1.0)
    assert dpb.simulate("DP-IMED", "mu2", 5000, seed=gen, eps=1.0).seed != first.seed  # it advanced
    ss = np.random.SeedSequence(5)
    assert dpb.simulate("IMED", "mu1", 500, seed=ss).same_as(dpb.simulate("IMED", "mu1", 500, seed=5))
    with pytest.raises(TypeError, match="numpy Generator"):
        dpb.simulate("IMED", "mu1", 500, seed="5")


@pytest.mark.parametrize(
    "call",
    [
        lambda: dpb.BernoulliBandit([0.5, np.float64(1.2)]),
        lambda: dpb.simulate("DP-KLUCB", "mu1", 1000, eps=0.5, alpha=np.float64(0.5)),
        lambda: dpb.simulate("DP-IMED", "mu1", np.float64(100.5), eps=1.0),
        lambda: dpb.divergences.d_eps(np.float64(1.2), 0.5, eps=1.0),
        lambda: dpb.simulate("DP-IMED", "mu1", 1000, eps=np.float64(-1.5)),
    ],
)
def test_messages_print_plain_numbers(call):
    with pytest.raises(ValueError) as exc:
        call()
    assert "np." not in str(exc.value) and "float64" not in str(exc.value), exc.value


def test_a_bandit_has_at_least_two_arms():
    with pytest.raises(ValueError, match="K >= 2"):
        dpb.BernoulliBandit([0.5])
    with pytest.raises(ValueError, match="K >= 2"):
        dpb.simulate("IMED", [0.7], 100)
    with pytest.raises(ValueError, match="K >= 2"):
        F.read_spec(
            {"name": "x", "horizon": 100, "runs": 1, "means": [0.5], "eps": [1.0], "policies": ["IMED"]}
        )


def test_the_summaries_of_a_result_are_all_properties():
    res = dpb.simulate("DP-IMED", "mu2", 5000, runs=3, seed=2, eps=1.0)
    assert np.array_equal(res.final_regret, res.regret[:, -1])
    assert np.allclose(res.mean_regret, res.regret.mean(axis=0))
    assert np.allclose(res.std_regret, res.regret.std(axis=0, ddof=1))
    assert res.mean_regret[-1] == pytest.approx(res.final_regret.mean())


# ----------------------------------------------------------------------------------------------
# experiment files
# ----------------------------------------------------------------------------------------------
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


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_an_experiment_file_of_your_own(tmp_path):
    path = _write(
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
    again = _write(tmp_path / "again.toml", F.spec_to_toml(exp.spec))
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
    path = _write(tmp_path / "bad.toml", text)
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
    path = _write(
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


# ----------------------------------------------------------------------------------------------
# tidy results
# ----------------------------------------------------------------------------------------------
def test_result_to_rows_is_the_long_format():
    res = dpb.simulate("DP-IMED", "mu2", 5000, runs=3, seed=2, eps=0.5)
    rows = res.to_rows()
    C = res.checkpoints.size
    assert tuple(rows) == dpb.frames.COLUMNS
    assert all(len(v) == 3 * C for v in rows.values())
    assert (
        set(rows["instance"]) == {"mu2"} and set(rows["eps"]) == {0.5} and set(rows["policy"]) == {"DP-IMED"}
    )
    assert rows["run"].tolist() == [0] * C + [1] * C + [2] * C
    assert np.array_equal(rows["t"][:C], res.checkpoints)
    assert np.array_equal(rows["regret"].reshape(3, C), res.regret)
    assert json.loads(rows["params"][0])["eps"] == 0.5
    log = res.to_rows(grid="log")
    assert len(log["t"]) == 3 * int(res.log_grid.sum())
    nonprivate = dpb.simulate("IMED", "mu2", 500).to_rows()
    assert np.isnan(nonprivate["eps"]).all()


def test_to_frame_and_csv_give_the_same_numbers(tmp_path):
    pd = pytest.importorskip("pandas")
    res = dpb.simulate("DP-KLUCB", "mu1", 5000, runs=2, seed=9, eps=1.0)
    frame = res.to_frame(experiment="mine")
    assert list(frame.columns) == list(dpb.frames.COLUMNS) and len(frame) == 2 * res.checkpoints.size
    assert (frame.experiment == "mine").all()
    path = dpb.frames.export(res.to_rows(), tmp_path / "r.csv")
    back = pd.read_csv(path)
    assert np.array_equal(back.regret.to_numpy(), frame.regret.to_numpy())  # every digit kept
    assert back.t.tolist() == frame.t.tolist()
    with open(path, newline="") as fh:
        header = next(csv.reader(fh))
    assert header == list(dpb.frames.COLUMNS)


def test_to_frame_without_pandas_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    res = dpb.simulate("IMED", "mu1", 300, seed=1)
    with pytest.raises(ImportError, match=r"'pandas' extra of dpb: pip install 'dpb\[pandas\]'"):
        res.to_frame()
    assert dpb.frames.export(res.to_rows(), tmp_path / "x.csv").is_file()  # CSV needs no pandas
    with pytest.raises(ImportError, match="'pandas' extra"):
        dpb.frames.export(res.to_rows(), tmp_path / "x.parquet")
    assert not (tmp_path / "x.parquet").exists()


def test_experiment_results_to_frame_repeats_a_budgetless_policy_in_each_setting(tmp_path):
    pd = pytest.importorskip("pandas")
    exp = F.read_experiment("fig1", horizon=2000, runs=2)
    exp = F.build(F.override(exp.spec, policies=["DP-IMED", "IMED"], eps=[0.25, 1.0], means=["mu2"]))
    E.run(exp, tmp_path, jobs=1, progress=False)
    frame = E.load(exp, tmp_path).to_frame()
    assert isinstance(frame, pd.DataFrame)
    counts = frame.groupby(["eps", "policy"]).size()
    C = frame.t.nunique()
    assert counts.tolist() == [2 * C] * 4  # 2 budgets x 2 policies, 2 runs each
    imed = frame[frame.policy == "IMED"]
    assert np.array_equal(imed[imed.eps == 0.25].regret.to_numpy(), imed[imed.eps == 1.0].regret.to_numpy())


# ----------------------------------------------------------------------------------------------
# the dpb command
# ----------------------------------------------------------------------------------------------
def _main(argv, capsys):
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_run_help_lists_the_options_that_describe_an_experiment(capsys):
    code, out, _ = _main(["run", "--help"], capsys)
    assert code == 0
    for option in (
        "--means",
        "--eps",
        "--policies",
        "--params",
        "--horizon",
        "--runs",
        "--scale",
        "--name",
        "FILE.toml",
        "an experiment file (TOML)",
    ):
        assert option in out
    code, out, _ = _main(["--help"], capsys)
    for command in ("reproduce", "run", "status", "export", "compile"):
        assert command in out
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dpb = "dpb.__main__:console"' in text


def test_two_horizons_into_one_out_keep_both_outputs(tmp_path, capsys):
    path = _write(
        tmp_path / "two.toml",
        'name = "two"\nhorizon = 2000\nruns = 2\nmeans = [0.9, 0.8]\n'
        'eps = [0.5, 1.0]\npolicies = ["DP-KLUCB", "IMED"]\n',
    )
    out = tmp_path / "res"
    common = ["--out", str(out), "--jobs", "1", "--no-progress"]
    assert _main(["run", str(path), *common], capsys)[0] == 0
    first = sorted(p.name for p in (out / "tables").iterdir())
    before = {p: p.read_bytes() for p in (out / "tables").iterdir()}
    code, printed, _ = _main(["run", str(path), "--horizon", "3000", *common], capsys)
    assert code == 0
    stem = F.output_stem(F.read_experiment(path, horizon=3000))
    assert f"figures/{stem}.png" in printed
    assert all(p.read_bytes() == b for p, b in before.items())  # the first spec's outputs untouched
    assert len(list((out / "tables").iterdir())) == 2 * len(first)
    assert len(list((out / "figures").glob("two-*.png"))) == 2


def test_run_from_the_options_alone_and_what_is_missing(tmp_path, capsys):
    out = tmp_path / "res"
    argv = [
        "run",
        "--means",
        "0.9,0.8,0.8",
        "--means",
        "mu2",
        "--eps",
        "0.5",
        "--policies",
        "DP-KLUCB,IMED",
        "--params",
        "DP-KLUCB:alpha=3",
        "--horizon",
        "2e3",
        "--runs",
        "2",
        "--name",
        "cli",
        "--out",
        str(out),
        "--jobs",
        "1",
        "--no-progress",
        "--no-figures",
    ]
    code, printed, err = _main(argv, capsys)
    assert code == 0, err
    assert "== cli: 2 policies on 2 instances, eps = 0.5, T = 2000, 2 runs ==" in printed
    spec = (out / "tables").glob("cli-*.toml")
    exp = F.read_experiment(next(spec))
    assert [s.env for s in exp.settings] == ["custom", "mu2"]
    assert exp.settings[0].cells[0].params["alpha"] == 3
    code, _, err = _main(
        ["run", "--means", "0.9,0.8", "--eps", "0.5", "--policies", "IMED", "--out", str(out)], capsys
    )
    assert (
        code == 2 and "argument --horizon: without an experiment file" in err and len(err.splitlines()) == 1
    )
    code, _, err = _main(
        [
            "run",
            "--means",
            "0.9,0.8",
            "--eps",
            "0.5",
            "--policies",
            "IMED",
            "--horizon",
            "1e3",
            "--params",
            "alpha=3",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 2 and "argument --params: no policy of the experiment takes alpha" in err
    code, _, err = _main(
        [
            "run",
            "--means",
            "0.9",
            "--eps",
            "0.5",
            "--policies",
            "IMED",
            "--horizon",
            "1e3",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 2 and "K >= 2" in err


def test_status_says_why_a_file_is_stale(tmp_path, capsys, monkeypatch):
    out = tmp_path / "res"
    argv = [
        "--means",
        "0.9,0.8",
        "--eps",
        "1",
        "--policies",
        "DP-KLUCB",
        "--horizon",
        "1000",
        "--runs",
        "2",
        "--out",
        str(out),
    ]
    monkeypatch.setenv("DPB_JIT", "0")
    assert _main(["run", *argv, "--jobs", "1", "--no-progress", "--no-figures"], capsys)[0] == 0
    monkeypatch.setenv("DPB_JIT", "1")
    code, printed, _ = _main(["status", *argv], capsys)
    assert code == 0 and "0 done, 0 missing, 1 stale" in printed
    assert "stale: made with the python engine, this run uses numba (DPB_JIT)" in printed
    (cell,) = F.build(
        F.override(None, means=[[0.9, 0.8]], eps=[1.0], policies=["DP-KLUCB"], horizon=1000, runs=2)
    ).cells
    assert E.chunk_reason(cell, 0, 2, out).startswith("stale: made with the python engine")


def test_export_writes_csv_and_parquet_and_refuses_what_is_not_computed(tmp_path, capsys):
    out = tmp_path / "res"
    path = _write(
        tmp_path / "x.toml",
        'name = "x"\nhorizon = 1000\nruns = 2\nmeans = [0.9, 0.8]\neps = [1.0]\n'
        'policies = ["DP-IMED", "IMED"]\n',
    )
    code, _, err = _main(["export", str(path), "--out", str(tmp_path)], capsys)
    assert code == 2 and "x is not computed" in err and "run it first" in err
    assert (
        _main(["run", str(path), "--out", str(out), "--jobs", "1", "--no-progress", "--no-figures"], capsys)[
            0
        ]
        == 0
    )
    code, printed, _ = _main(["export", str(path), "--out", str(out)], capsys)
    assert code == 0
    csv_path = out / "exports" / f"{F.output_stem(F.read_experiment(path))}.csv"
    assert str(csv_path) in printed
    rows = list(csv.DictReader(open(csv_path, newline="")))
    res = E.load(path, out)
    assert len(rows) == sum(r.regret.size for r in res.results.values())
    assert {r["policy"] for r in rows} == {"DP-IMED", "IMED"} and {r["instance"] for r in rows} == {"custom"}
    pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    assert (
        _main(["export", str(path), "--out", str(out), "--output", str(tmp_path / "x.parquet")], capsys)[0]
        == 0
    )
    frame = pd.read_parquet(tmp_path / "x.parquet")
    assert frame.equals(res.to_frame())


def test_a_policy_file_without_its_class_gets_a_hint(tmp_path, capsys):
    path = _write(
        tmp_path / "mine.py", "from dpb.policies import DPIMED\nclass Mine(DPIMED):\n    name = 'Mine'\n"
    )
    code, _, err = _main(["reproduce", "fig1", "--policy", str(path), "--out", str(tmp_path)], capsys)
    assert (
        code == 2 and f"write FILE.py:CLASS, e.g. --policy {path}:Mine" in err and "(it defines Mine)" in err
    )


def test_compile_is_a_command_and_jit_imports_no_simulator(capsys, monkeypatch):
    out = _python("import sys, dpb._jit; print('dpb.simulate' in sys.modules, 'numba' in sys.modules)")
    assert out.split() == ["False", "False"]
    monkeypatch.setenv("DPB_JIT", "0")
    code, printed, _ = _main(["compile"], capsys)
    assert code == 0 and "nothing to compile" in printed
    makefile = (ROOT / "Makefile").read_text()
    assert "dpb compile" in makefile and "dpb._jit" not in makefile


def test_a_cold_kernel_cache_is_announced_once(tmp_path, monkeypatch, capsys):
    from dpb import _jit

    monkeypatch.setattr(_jit, "_announced", False)
    monkeypatch.setattr(_jit, "_checked", set())
    warm = tmp_path / "warm_kernel.py"
    warm.write_text("x = 1\n")
    (tmp_path / "__pycache__").mkdir()
    index = tmp_path / "__pycache__" / "warm_kernel.f-1.py311.nbi"
    index.write_bytes(b"")
    os.utime(index, (warm.stat().st_mtime + 1, warm.stat().st_mtime + 1))
    assert _jit.announce_compile(str(warm)) is False
    cold = tmp_path / "cold_kernel.py"
    cold.write_text("x = 1\n")
    assert _jit.announce_compile(str(cold)) is True
    err = capsys.readouterr().err
    assert "compiling the numba kernels" in err and "dpb compile" in err and "CPU-s" in err
    other = tmp_path / "other_kernel.py"
    other.write_text("x = 1\n")
    assert _jit.announce_compile(str(other)) is False  # once per process
    assert capsys.readouterr().err == ""


def test_plotting_without_matplotlib_names_the_extra():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "try:\n    import dpb.plotting.experiments\nexcept ImportError as e:\n    print(e)"
    )
    out = _python(code)
    assert "'plot' extra of dpb: pip install 'dpb[plot]'" in out


def test_results_for_an_installed_package_go_to_the_user_cache(monkeypatch, tmp_path):
    from dpb import cache

    monkeypatch.delenv("DPB_RESULTS", raising=False)
    monkeypatch.setattr(cache, "PACKAGE_DIR", tmp_path / "site-packages" / "dpb")  # no pyproject beside it
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.default_results_dir() == tmp_path / "home" / ".cache" / "dpb"
    monkeypatch.setenv("DPB_RESULTS", str(tmp_path / "mine"))
    assert cache.default_results_dir() == tmp_path / "mine"


def test_the_research_page_is_in_the_book_and_checked_like_the_chapters():
    """The page is in the book (the build executes it once) and among the Makefile's NOTEBOOKS, which
    ``make test`` checks under nbval's rules on that very execution (--nbval-replay)."""
    assert "file: book/research" in (ROOT / "_toc.yml").read_text()
    notebooks = next(line for line in (ROOT / "Makefile").read_text().splitlines()
                     if line.startswith("NOTEBOOKS :="))
    assert "book/research.ipynb" in notebooks, notebooks
