"""Tests of the policy registry, the one coercer, and a user's own policy from a file.

The policy file written by the fixture below is the 'bring your own policy' claim: a private index
in a file outside the package runs through the simulator, the per-step reference, the privacy
audit and the experiments, and nothing in the package changes.
"""

import hashlib
import textwrap
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import ks_2samp

import dpb
from dpb.audit import audit_policy, make_audit_policy, private_policies
from dpb.experiments import paper_params
from dpb.policies import (
    DPIMED,
    POLICIES,
    BatchedPrivatePolicy,
    Policy,
    as_policy,
    load_policy,
    make_policy,
    policy_class,
    policy_names,
    policy_style,
    registered,
)
from dpb.policies.registry import policy_source_hash, reference_of
from dpb.reference import reference_policies, reference_simulate
from dpb.simulate import simulate

PKG = Path(dpb.__file__).resolve().parent

USER_FILE = '''
"""A user's own private index: UCB with a crude noise bonus, on the paper's batches."""
import math

import numpy as np

from dpb.policies import BatchedPrivatePolicy


def literal(env, rng, params):
    """Per-step reference: n0 = 1, alpha = 2 (batches 1, 2, 4, ...)."""
    eps, K = float(params["eps"]), env.K
    S, n, k = [0.0] * K, [0] * K, [0] * K
    for i in range(K):
        S[i] = env.pull(i) + rng.laplace(0.0, 1.0 / eps)
        n[i], k[i] = 1, 1
    while not env.done():
        lt = math.log(env.t)
        idx = [min(max(S[i] / n[i], 0.0), 1.0) + math.sqrt(lt / (2 * n[i])) + k[i] * lt / (eps * n[i])
               for i in range(K)]
        tied = [i for i in range(K) if idx[i] == max(idx)]
        a = tied[0] if len(tied) == 1 else int(rng.choice(tied))
        s, made = 0.0, 0
        while made < 2 ** k[a] and not env.done():
            s += env.pull(a)
            made += 1
        S[a] += s + rng.laplace(0.0, 1.0 / eps)
        n[a] += made
        k[a] += 1


class TmpUCB(BatchedPrivatePolicy):
    name = "Tmp-UCB"
    index_kind = "max"
    reference = literal

    def private_index(self, x, n, t, releases):
        return x + np.sqrt(np.log(t) / (2 * n)) + releases * np.log(t) / (self.eps * n)


class TmpLeaky(TmpUCB):
    """The same index without any noise: claims eps but is not private."""

    name = "Tmp-Leaky"
    reference = None

    def _noise(self, rows, arms):
        return np.zeros(np.asarray(rows).size)
'''


def _package_state() -> dict:
    return {str(p.relative_to(PKG)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(PKG.rglob("*.py"))}


@pytest.fixture(scope="module")
def user_file(tmp_path_factory):
    before = _package_state()
    path = tmp_path_factory.mktemp("byo") / "my_policy.py"
    path.write_text(textwrap.dedent(USER_FILE))
    yield path
    assert _package_state() == before  # the package was not touched


def test_user_policy_is_registered_by_loading_its_file(user_file):
    cls = load_policy(f"{user_file}:TmpUCB")
    assert cls.name == "Tmp-UCB" and cls.private and issubclass(cls, BatchedPrivatePolicy)
    assert policy_class("tmp-ucb") is cls and policy_class(f"{user_file}:TmpUCB") is cls
    assert "Tmp-UCB" in policy_names() and "Tmp-UCB" in private_policies()
    assert "Tmp-UCB" in reference_policies() and "Tmp-Leaky" not in reference_policies()
    assert "Tmp-UCB" not in registered(builtin=True) and "Tmp-UCB" in registered(builtin=False)
    assert paper_params("Tmp-UCB", 0.25) == {"eps": 0.25, "n0": 1, "alpha": 2}  # the base's
    style = policy_style("Tmp-UCB")
    builtin_colors = {policy_style(n)["color"] for n in registered(builtin=True)}
    assert style["color"] not in builtin_colors and style["ls"] == "-"
    assert load_policy(f"{user_file}:TmpUCB") is cls  # loading again: the same class


def test_user_policy_simulates_and_agrees_with_its_reference(user_file):
    name = f"{user_file}:TmpUCB"
    fast = simulate(name, "mu2", 2000, runs=400, seed=2000, params={"eps": 0.5})
    assert fast.policy == "Tmp-UCB" and np.all(fast.pulls.sum(axis=1) == 2000)
    ref = reference_simulate("Tmp-UCB", "mu2", 2000, runs=200, seed=1000, params={"eps": 0.5})
    # two-sample KS at level 1e-3 on the final regret and the optimal arm's pulls (as in
    # tests/test_reference_agreement.py; fixed seeds)
    assert ks_2samp(np.round(ref.final_regret, 9), np.round(fast.final_regret, 9)).pvalue > 1e-3
    assert ks_2samp(ref.pulls[:, 0], fast.pulls[:, 0]).pvalue > 1e-3
    # and a wrong budget is detected by the same test (power)
    other = simulate(name, "mu2", 2000, runs=400, seed=3000, params={"eps": 5.0})
    assert ks_2samp(np.round(ref.final_regret, 9), np.round(other.final_regret, 9)).pvalue < 1e-3


def test_user_policy_passes_the_audit_and_its_leaky_twin_is_caught(user_file):
    ok = audit_policy(make_audit_policy(f"{user_file}:TmpUCB", 1.0), runs=3000, T=30, seed=11)
    assert ok.eps == 1.0 and not ok.caught and ok.eps_lower <= 1.0
    leaky = audit_policy(make_audit_policy(f"{user_file}:TmpLeaky", 1.0), runs=3000, T=30, seed=11)
    assert leaky.caught and leaky.eps_lower > 1.0


def test_source_hash_follows_the_file(tmp_path):
    path = tmp_path / "h.py"
    path.write_text("from dpb.policies import IMED\n\nclass HashIMED(IMED):\n    name = 'Hash-IMED'\n")
    h1 = policy_source_hash(load_policy(f"{path}:HashIMED"))
    path.write_text(path.read_text() + "\n# edited\n")
    cls2 = load_policy(f"{path}:HashIMED")  # the changed file is loaded again, replacing the class
    assert policy_class("Hash-IMED") is cls2 and policy_source_hash(cls2) != h1
    assert not cls2.private and policy_style(cls2)["ls"] == "--"


# ----------------------------------------------------------------------------------------------
# the registry
# ----------------------------------------------------------------------------------------------
def test_registry_derives_every_list():
    builtin = registered(builtin=True)
    assert set(builtin) <= set(POLICIES) and "DP-UCB" in builtin
    assert set(registered(private=True, builtin=True)) == set(builtin) - {"IMED", "KL-UCB"}
    assert set(private_policies()) >= set(registered(private=True, builtin=True))
    assert set(reference_policies()) >= set(builtin)  # every package policy has a per-step reference
    for name, cls in builtin.items():
        assert callable(reference_of(cls))
        assert policy_style(name)["color"] == cls.style["color"]
    assert paper_params("DP-IMED", 0.25) == {"eps": 0.25, "n0": 1, "alpha": 2}
    assert paper_params("AdaP-UCB", 0.25) == {"eps": 0.25, "alpha": 3.1}
    assert paper_params("Lazy-DP-TS", 0.25) == {"eps": 0.25, "c": 3.0}
    assert paper_params("DP-SE", 0.25) == {"eps": 0.25}
    assert paper_params("IMED") == {} and paper_params("KL-UCB", 0.3) == {"c": 0.0}
    with pytest.raises(ValueError, match="eps must be given"):
        paper_params("DP-UCB")
    with pytest.raises(ValueError, match="eps"):
        paper_params("DP-UCB", -1.0)


def test_name_clash_opt_out_and_redefinition():
    with pytest.raises(ValueError, match="clashes"):
        type("OtherIMED", (DPIMED,), {"name": "DP-IMED"})
    assert POLICIES["DP-IMED"] is DPIMED  # the failed registration changed nothing
    quiet = type("QuietIMED", (DPIMED,), {"name": "Quiet-IMED"}, register=False)
    assert "Quiet-IMED" not in POLICIES and isinstance(quiet(eps=1.0), DPIMED)

    def define():
        class Again(DPIMED):
            name = "Again-IMED"
        return Again

    first, second = define(), define()  # a re-executed notebook cell
    assert first is not second and POLICIES["Again-IMED"] is second
    with pytest.raises(ValueError, match="index_kind"):
        type("BadKind", (DPIMED,), {"name": "Bad-Kind", "index_kind": "median"})
    with pytest.raises(ValueError, match="name"):
        type("NoName", (DPIMED,), {"name": "--"})
    helper = type("Helper", (BatchedPrivatePolicy,), {})  # no name of its own: not registered
    assert helper not in POLICIES.values()


def test_one_coercer_for_every_form():
    for spec, params in [("DP-IMED", {"eps": 0.5}), ("dp_imed", {"eps": 0.5}), (DPIMED, {"eps": 0.5}),
                         (lambda eps: DPIMED(eps=eps), {"eps": 0.5})]:
        pol = as_policy(spec, params)
        assert isinstance(pol, DPIMED) and pol.eps == 0.5
    assert isinstance(as_policy(("DPIMED", {"eps": 0.5})), DPIMED)
    obj = DPIMED(eps=1.0)
    assert as_policy(obj) is obj and make_policy(obj) is obj
    for bad, params, exc, match in [
        (obj, {"eps": 1.0}, TypeError, "params"),
        (("DP-IMED", {"eps": 1.0}), {"eps": 1.0}, TypeError, "params"),
        (("DP-IMED",), None, TypeError, "name, params"),
        ("UCB1", None, ValueError, "DP-IMED"),
        ("DP-IMED", {"epsilon": 1.0}, TypeError, "DP-IMED"),
        ("DP-IMED", {"eps": 0.0}, ValueError, "eps"),
        (lambda: 3, None, TypeError, "factory"),
        (3, None, TypeError, "policy"),
        ("DP-IMED", [1], TypeError, "params"),
        ("nowhere.py:Cls", None, ValueError, "does not exist"),
    ]:
        with pytest.raises(exc, match=match):
            as_policy(bad, params)


def test_load_policy_errors(tmp_path):
    path = tmp_path / "p.py"
    path.write_text("from dpb.policies import IMED\nX = 3\nclass Unnamed(IMED):\n    pass\n")
    with pytest.raises(ValueError, match="file.py:ClassName"):
        load_policy("my_policy")
    with pytest.raises(ValueError, match="no Policy subclass"):
        load_policy(f"{path}:X")
    with pytest.raises(ValueError, match="no Policy subclass"):
        load_policy(f"{path}:Missing")
    with pytest.raises(ValueError, match="'name'"):
        load_policy(f"{path}:Unnamed")
    with pytest.raises(ValueError, match="identifier"):
        load_policy(f"{path}:1x")


def test_declared_fast_path_protocol():
    # a policy's own fast path receives a Recorder and is used by simulate unless fast=False
    from dpb.policies import IMED, Recorder

    seen = []

    class Spy(IMED, register=False):
        def fast_simulate(self, means, T, env_generators, policy_generators, recorder):
            seen.append(isinstance(recorder, Recorder))
            super().fast_simulate(means, T, env_generators, policy_generators, recorder)

    res = simulate(Spy(), "mu1", 500, runs=2, seed=0)
    assert seen == [True] and res.engine == "fast"
    assert simulate(Spy(), "mu1", 500, runs=2, seed=0, fast=False).engine == "phases" and len(seen) == 1
    pol = DPIMED(0.5)  # the batched policies' lock-step fast path (tests/test_fast_batched.py)
    assert Policy.fast_simulate is None and pol.fast_simulate == pol.simulate_phases


def test_user_policy_in_reproduce_fig1(user_file, tmp_path, capsys):
    from dpb.__main__ import main
    from dpb.experiments import experiment, output_stem, status

    out = tmp_path / "results"
    spec = f"{user_file}:TmpUCB"
    common = ["fig1", "--runs", "2", "--horizon", "300", "--out", str(out), "--no-progress"]
    # two worker processes: they load the policy from its file (Cell.source)
    assert main(["reproduce", *common, "--policy", spec, "--jobs", "2"]) == 0
    printed = capsys.readouterr().out
    assert "Tmp-UCB" in printed and "14 result files computed" in printed
    exp = experiment("fig1", T=300, runs=2, extra_policies=[spec])
    stem = output_stem(exp)  # fig1-<digest of the spec>
    table = (out / "tables" / f"{stem}.txt").read_text()
    assert table.count("Tmp-UCB") == 2  # one row in each setting's table
    assert (out / "figures" / f"{stem}.png").is_file()
    cells = [c for c in exp.cells if c.policy == "Tmp-UCB"]
    assert len(cells) == 2 and all(c.source == spec for c in cells)
    assert status(exp, out)["done"] == 14 and sum(status(exp, out).values()) == 14
    # the package's cells are the same files with or without the extra policy: nothing to recompute
    assert main(["reproduce", *common, "--no-figures", "--jobs", "1"]) == 0
    assert "0 result files computed, 12 reused" in capsys.readouterr().out
    # the sweep takes no extra policy
    with pytest.raises(SystemExit):
        main(["reproduce", "eps-sweep", "--policy", spec, "--out", str(out)])


def test_policy_defined_in_a_function_runs_through_the_experiments(tmp_path):
    # like a notebook cell: the class exists in this process only, so its cells are computed here
    # while the package's cells go to the worker pool
    from dpb.experiments import ensure, figure1

    class LocalUCB(BatchedPrivatePolicy):
        name = "Local-UCB"

        def private_index(self, x, n, t, releases):
            return x + np.sqrt(np.log(t) / (2 * n)) + releases * np.log(t) / (self.eps * n)

    exp = figure1(T=300, runs=2, algorithms=("DP-IMED", "Local-UCB"))
    local = [c for c in exp.cells if c.policy == "Local-UCB"]
    assert all(c.process_local and c.source == "" for c in local)
    assert not any(c.process_local for c in exp.cells if c.policy == "DP-IMED")
    res = ensure(exp, tmp_path, jobs=2, progress=False)
    for cell in local:
        direct = simulate(LocalUCB, cell.bandit(), cell.T, seed=cell.seed_sequence(res.seed),
                          params=cell.params, run_ids=[0, 1])
        got = res.results[cell]
        assert np.array_equal(direct.regret, got.regret) and np.array_equal(direct.pulls, got.pulls)


def test_dp_ucb_lives_in_one_file():
    # the one-file claim: no other module of the package names DP-UCB (lists derive from the registry)
    mentions = [p.relative_to(PKG).as_posix() for p in PKG.rglob("*.py")
                if any(s in p.read_text(encoding="utf-8") for s in ("DP-UCB", "DPUCB", "dp_ucb"))]
    assert mentions == ["policies/dp_ucb.py"]
    assert "DP-UCB" in policy_names() and "DP-UCB" in private_policies() and "DP-UCB" in reference_policies()
    assert "DPUCB" in dpb.policies.__all__ and "``DP-UCB``" in dpb.policies.__doc__
