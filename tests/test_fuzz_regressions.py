"""Regression tests: every hostile call of issue 12 gives a clean error or a correct result.

The calls that used to hang or to allocate gigabytes run in the fuzz harness' worker process
(memory cap 3 GiB, a generous time cap that only guards against a hang: no speed is asserted
here), the others in this process.
"""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_harness  # noqa: E402
from fuzz_harness import Build  # noqa: E402

from dpb import audit, batching, concentration, interaction, privacy, regret  # noqa: E402
from dpb.chapters import algorithms as chapter_algorithms  # noqa: E402
from dpb.chapters import regret as chapter_regret  # noqa: E402
from dpb.policies import DPIMED, DPKLUCB  # noqa: E402

S = importlib.import_module("dpb.simulate")  # the module (``dpb.simulate`` is its function)

HANG_GUARD = 120.0  # seconds; each call below answers in well under a second when it is fixed


def _policy(name="DP-IMED", eps=1.0):
    return Build.of("dpb.policies:make_policy", name, eps=eps)


EXPLODING = [
    # (target, args, kwargs, parameter the error must name)
    ("dpb.batching:batch_sizes", (1, 2, 10**6), {}, "count"),
    ("dpb.simulate:simulate", ("DP-IMED", "mu2", 10**6),
     {"params": {"eps": 0.5, "alpha": 1.00001}, "seed": 1}, "alpha"),
    ("dpb.batching:PolynomialSchedule", (), {"power": 1e-300}, "power"),
    ("dpb.privacy:worst_case_privacy_loss",
     (Build.of("dpb.privacy:exponential_weights_policy", 0.5), 2, 2**31, "view"), {}, "T"),
    ("dpb.audit:audit_lists", (_policy(), (1.0, 0.0, 1.0), (0.0, 0.0, 1.0), 2**31), {}, "runs"),
    ("dpb.concentration:private_sum_sf", (1.0, 10, 2**31, 0.5, 1.0), {}, "m"),
    ("dpb.simulate:simulate", ("DP-SE", "mu2", 10), {"runs": 2**31, "params": {"eps": 0.5}}, "runs"),
    ("dpb.interaction:run_generators_fast", (0, 2**62), {}, "runs"),
    ("dpb.privacy:adaptive_view",
     (Build.of("dpb.privacy:exponential_weights_policy", 0.5),
      Build.of("fuzz_specs:constant_adversary", 1.0, 0.0), 1, "L", 2, 2**62), {}, "T"),
    ("dpb.audit:audit_lists_default", (2**31, 1), {}, "T"),
]


@pytest.fixture(scope="module")
def worker():
    with fuzz_harness.Worker() as w:
        yield w


@pytest.mark.parametrize("target,args,kwargs,param", EXPLODING, ids=[e[0].split(":")[1] for e in EXPLODING])
def test_exploding_calls_are_refused_naming_the_parameter(worker, target, args, kwargs, param):
    reply = worker.call(target, args, kwargs, timeout=HANG_GUARD)
    assert reply[0] == "exc", reply
    _, name, message, clean = reply[:4]
    assert clean and name in ("ValueError", "TypeError"), reply
    assert param in message, message


def test_polynomial_powers_near_zero_are_refused_and_small_ones_computed():
    with pytest.raises(ValueError, match="power must lie in"):
        batching.PolynomialSchedule(power=1e-300)
    sizes = batching.PolynomialSchedule(power=0.001).sizes_until(10**6)
    assert sizes.sum() >= 10**6 and sizes.sum() - sizes[-1] < 10**6
    # B_m = ceil((m + 1)^0.001) = 2 for m >= 1 (and B_0 = 1): the exact ceiling, not the float 1.0
    assert sizes[0] == 1 and set(sizes[1:].tolist()) == {2}


def test_geometric_ratio_within_1e_3_of_one_is_refused_with_the_reason():
    with pytest.raises(ValueError, match=r"alpha must be >= 1\.001.*1/\(alpha - 1\)"):
        batching.GeometricSchedule(1, 1.00001)
    assert batching.GeometricSchedule(1, 1.001).sizes_until(10**6).sum() >= 10**6


def test_laplace_sum_tail_beyond_overflow_is_exact_zero_not_nan():
    # eps z = 1e400 overflows; P[Z >= z] underflows to 0 (log -inf), P[Z >= -z] to 1 (log 0)
    assert concentration.laplace_sum_logsf(1e200, 3, 1e200) == -math.inf
    assert concentration.laplace_sum_logsf(-1e200, 3, 1e200) == 0.0
    assert concentration.laplace_sum_sf(1e200, 3, 1e200) == 0.0


def test_laplace_sum_with_huge_m_is_refused_and_large_m_is_right():
    with pytest.raises(ValueError, match=r"m \* size\(z\)"):
        concentration.laplace_sum_logsf(1.0, 2**63 - 1, 0.5)
    # m = 1e5: Z_m is normal to O(1/m); P[Z >= 1] = 1/2 - phi(0)/sigma + O(sigma^-3), sigma = sqrt(2m)/eps
    m, eps = 10**5, 0.5
    sigma = math.sqrt(2 * m) / eps
    approx = math.log(0.5 - 1 / (math.sqrt(2 * math.pi) * sigma))
    assert concentration.laplace_sum_logsf(1.0, m, eps) == pytest.approx(approx, abs=1e-6)


@pytest.mark.parametrize("call,param", [
    (lambda: privacy.laplace_pdf(np.nan, 0, 1), "x"),
    (lambda: privacy.laplace_log_density_ratio(np.inf, 0, 1, 1), "x"),
    (lambda: privacy.continual_release([1, 0, 1, 1], [0, 2], 5e-324), "eps"),
    (lambda: privacy.laplace_mechanism(1.0, 5e-324), "eps"),
    (lambda: privacy.view_mechanism(privacy.exponential_weights_policy(1.0), [np.nan], 2), "rewards"),
    (lambda: privacy.phase_releases([1.0, np.nan]), "running"),
])
def test_nan_and_inf_where_not_meaningful_are_refused(call, param):
    with pytest.raises(ValueError, match=param):
        call()


def test_a_wrong_rng_is_a_type_error_naming_it():
    with pytest.raises(TypeError, match="rng"):
        privacy.laplace_mechanism(1.0, 1.0, rng="x")


def _transcripts():
    r = (1.0, 0.0, 1.0, 1.0)
    rp = (0.0, 0.0, 1.0, 1.0)
    tr1 = interaction.run_on_list("DP-IMED", r, 40, seed=0, params={"eps": 1.0})
    tr2 = interaction.run_on_list("DP-IMED", rp, 40, seed=1, params={"eps": 1.0})
    return tr1, tr2


@pytest.mark.parametrize("eps,exc", [("x", TypeError), (-1, ValueError), (float("nan"), ValueError),
                                     (True, TypeError)])
def test_audit_refuses_a_bad_claimed_eps(eps, exc):
    tr1, tr2 = _transcripts()
    with pytest.raises(exc, match="eps"):
        audit.audit(tr1, tr2, 1, eps=eps)
    with pytest.raises(exc, match="eps"):
        audit.audit_lists(DPIMED(1.0), (1.0, 0.0, 1.0), (0.0, 0.0, 1.0), 10, claimed_eps=eps)


@pytest.mark.parametrize("make", [lambda a: DPIMED(0.5, alpha=a), lambda a: DPKLUCB(0.5, alpha=a),
                                  lambda a: batching.batch_sizes(1, a, 3)])
def test_alpha_as_a_string_is_refused(make):
    with pytest.raises(TypeError, match="alpha"):
        make("2")


@pytest.mark.parametrize("call,param", [
    (lambda: S.simulate("DP-IMED", "mu2", 2**62 + 1, params={"eps": 0.5}), "T"),
    (lambda: S.checkpoint_grid(2**62 + 1), "T"),
    (lambda: regret.horizon_grid(1000, n=2**63), "n"),
    (lambda: batching.GeometricSchedule(1, 2).sizes_until(2**62), "total"),
    (lambda: batching.GeometricSchedule(1, 2).sizes(100), "count"),
    (lambda: batching.batch_sizes(10**30, 2, 3), "n0"),
    (lambda: S.child_seeds(0, [-1]), "run_ids"),
    (lambda: interaction.run_on_list("DP-IMED", (1.0, 0.0), 2**31, params={"eps": 1.0}), "runs"),
])
def test_sizes_past_the_limits_are_a_named_value_error(call, param):
    # no raw OverflowError / MemoryError / IndexError: a ValueError naming the parameter
    with pytest.raises(ValueError, match=param) as info:
        call()
    assert type(info.value) is ValueError


def test_bools_are_not_numbers():
    with pytest.raises(TypeError, match="x"):
        concentration.chernoff_bound(True, 10, 0.5)
    with pytest.raises(TypeError, match="p"):
        from dpb.coupling import maximal_coupling

        maximal_coupling(True, 0.5)


# ---------------------------------------------------------------------------------------------
# the rest of the public API (plain, tables, estimates, cache, experiments, plotting, widgets,
# registry, workers): one test per group of bad outcomes the fuzz found
# ---------------------------------------------------------------------------------------------
NAN = float("nan")


@pytest.fixture(scope="module")
def tiny_fig1(tmp_path_factory):
    from dpb import experiments

    out = tmp_path_factory.mktemp("results")
    exp = experiments.experiment("fig1", T=200, runs=2)
    return exp, out, experiments.ensure(exp, out, jobs=1, progress=False)


def test_plain_python_policies_refuse_bad_arguments_before_looping():
    from dpb import plain

    for call, param in [
        (lambda: plain.kl(NAN, 0.5), "p"),
        (lambda: plain.kl(0.5, 1.5), "q"),
        (lambda: plain.d_eps(0.2, 0.7, 1e300), "eps"),  # exp(eps) overflowed: OverflowError
        (lambda: plain.d_eps_ucb(0.2, -1.0, 1.0), "budget"),
        (lambda: plain.dp_imed((0.5, NAN), 1.0, 100), "means"),
        (lambda: plain.dp_klucb((0.9, 0.5), 1.0, 2**62), "T"),  # a Python loop of 2^62 rounds
        (lambda: plain.dp_imed((0.9, 0.5), 1.0, 100, seed=-1), "seed"),
    ]:
        with pytest.raises(ValueError, match=param):
            call()
    assert plain.d_eps(0.2, 0.7, 700.0) > 0  # the largest budget accepted still computes


def test_tables_name_the_argument_at_fault():
    from dpb.tables import Table, format_table

    with pytest.raises(TypeError, match="title"):
        Table(["a"], [["x"]], ["left"], title=3)
    with pytest.raises(TypeError, match="headers"):
        Table(3, [["x"]], ["left"])
    with pytest.raises(TypeError, match=r"rows\[0\]"):
        format_table(["x"], ["a"])


def test_estimates_refuse_a_resampling_past_the_memory_limit_and_a_non_estimate():
    from dpb import estimates

    with fuzz_harness.Worker() as w:  # 2^31 resamples x 2 columns was a 32 GiB MemoryError
        reply = w.call("dpb.estimates:bca_columns", (np.arange(40.0).reshape(20, 2),), {"n_boot": 2**31},
                       timeout=HANG_GUARD)
    assert reply[0] == "exc" and reply[1] == "ValueError" and "n_boot" in reply[2], reply
    with pytest.raises(TypeError, match="est"):
        estimates.is_converged(3)


def test_cache_paths_are_checked(tmp_path):
    from dpb import cache

    bad_py = tmp_path / "broken.py"
    bad_py.write_text("def (:\n")
    garbage = tmp_path / "garbage.py"
    garbage.write_bytes(bytes(range(256)))
    with pytest.raises(ValueError, match="path"):
        cache.code_digest(tmp_path / "missing.py")  # was FileNotFoundError
    with pytest.raises(ValueError, match="path"):
        cache.code_digest(garbage)  # was UnicodeDecodeError
    with pytest.raises(ValueError, match="roots"):
        cache.source_files(bad_py)  # was SyntaxError
    with pytest.raises(TypeError, match="path"):
        cache.read_meta(None)  # was None, as for an unreadable file
    with pytest.raises(TypeError, match="expected"):
        cache.file_state(tmp_path / "x.npz", "x")
    with pytest.raises(TypeError, match="folder"):
        cache.remove_orphan_temporaries(3)
    assert cache.read_meta(garbage) is None  # an unreadable file is still None


def test_experiments_check_their_arguments(tiny_fig1, tmp_path):
    from dpb import experiments

    exp, out, res = tiny_fig1
    cell = exp.cells[0]
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for call, exc, param in [
        (lambda: experiments.ratio_summary("x"), TypeError, "res"),  # was AttributeError
        (lambda: experiments.dominance(res, ours="DP-IMED"), TypeError, "ours"),  # a string, not names
        (lambda: experiments.final_regret_stats(None), TypeError, "result"),
        (lambda: experiments.reading_results(res, 99), ValueError, "setting"),  # was IndexError
        (lambda: experiments.claim(cell, 5, 9, out), ValueError, "start"),  # runs 5..9 of a 2-run cell
        (lambda: experiments.status(exp, out, seed=-1), ValueError, "seed"),
        (lambda: experiments.status(exp, a_file), ValueError, "out"),  # was NotADirectoryError
        (lambda: experiments.load(exp, 3), TypeError, "out"),
        (lambda: experiments.connect("x"), ValueError, "scheduler"),  # was a Client of "x"
        (lambda: experiments.connect("tcp://127.0.0.1:9", timeout=NAN), ValueError, "timeout"),
        (lambda: experiments.run(exp, out, jobs=1, desc=3, progress=False), TypeError, "desc"),
        (lambda: experiments.min_runs("DP-NOPE"), ValueError, "policy"),
        (lambda: experiments.tail_decomposition(res.setting(0)["DP-IMED"], factor=NAN), ValueError, "factor"),
        (lambda: experiments.cpu_seconds(3), TypeError, "results"),
        (lambda: experiments.format_table([{"a": 1}], digits=2**62), ValueError, "digits"),
    ]:
        with pytest.raises(exc, match=param):
            call()
    assert experiments.status(exp, out)["done"] == len(exp.cells)  # the valid calls still work


def test_worker_helpers_check_pids_and_jobs():
    import multiprocessing

    from dpb.experiments import workers

    with pytest.raises(ValueError, match="pid"):
        workers.process_start_time(-1)
    with pytest.raises(TypeError, match="start_time"):
        workers.process_alive(1, start_time=3)
    from dpb.experiments.execution import chunk_reply

    with pytest.raises(ValueError, match="jobs"):
        workers.Pool(0, multiprocessing.get_context("spawn"), chunk_reply)
    with pytest.raises(TypeError, match="context"):
        workers.Pool(1, "x", chunk_reply)
    with pytest.raises(TypeError, match="work"):
        workers.Pool(1, multiprocessing.get_context("spawn"), "x")


def test_figures_name_the_argument_at_fault(tiny_fig1, tmp_path):
    from dpb.plotting import background, experiments, regret, style

    _, _, res = tiny_fig1
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for call, exc, param in [
        (lambda: experiments.plot_regret(res.setting(0), yscale="nope"), ValueError, "yscale"),
        (lambda: experiments.plot_figure1("x"), TypeError, "res"),  # was AttributeError
        (lambda: experiments.plot_expected_vs_paper([{"a": 1}]), ValueError, "rows"),
        (lambda: experiments.plot_live(algorithms="x", T=100, runs=1), ValueError, "algorithms"),
        (lambda: style.new_figure(height=NAN), ValueError, "height"),
        (lambda: background.plot_laplace_mechanism(s_prime=NAN), ValueError, "s_prime"),
        (lambda: regret.alpha_label(NAN), ValueError, "alpha"),
        (lambda: regret.plot_convergence(directory=a_file), ValueError, "directory"),  # FileExistsError
        (lambda: regret.plot_decomposition(alphas=(0.5,)), ValueError, "alphas"),
        (lambda: regret.plot_convergence(instance=3), TypeError, "instance"),
    ]:
        with pytest.raises(exc, match=param):
            call()


def test_explorers_refuse_values_their_controls_would_clamp_or_reject():
    import ipywidgets as W

    from dpb.widgets import background, concentration, core, lower_bound

    for call, exc, param in [
        (lambda: background.kl_explorer(eps=100.0), ValueError, "eps"),  # was clamped to 10
        (lambda: background.kl_explorer(eps=NAN), ValueError, "eps"),
        (lambda: concentration.exponent_explorer(m_rule="nope"), ValueError, "m_rule"),  # TraitError
        (lambda: lower_bound.coupled_simulation_explorer(seed=-1), ValueError, "seed"),
        (lambda: lower_bound.lower_bound_explorer(custom_means=3), TypeError, "custom_means"),
        (lambda: lower_bound.message_on_error("x"), TypeError, "plot"),
        (lambda: lower_bound.parse_means("2, 0.5"), ValueError, "means"),
        (lambda: core.Explorer(children=3), TypeError, "children"),  # TraitError
        (lambda: core.Coalescer(lambda: None, quiet=NAN), ValueError, "quiet"),  # was accepted
        (lambda: core.figure_output(3), TypeError, "fig"),
        (lambda: core.control("n", W.IntSlider, value=1.5, min=0, max=3), ValueError, "n"),
        (lambda: core.control("p", W.Dropdown, value=True, options=[1, 2]), ValueError, "p"),
    ]:
        with pytest.raises(exc, match=param):
            call()
    assert core.control("eps", W.FloatLogSlider, value=0.5, base=10, min=-2, max=1).value == 0.5


def test_registry_names_the_argument_at_fault():
    from dpb.policies import registry

    with pytest.raises(TypeError, match="name"):
        registry.policy_key(None)  # was AttributeError
    with pytest.raises(TypeError, match="cls"):
        registry.is_builtin("x")
    with pytest.raises(TypeError, match="cls"):
        registry.register("x")


def test_regret_runs_name_the_argument_at_fault(tmp_path):
    from dpb import regret
    from dpb.simulate import run_generators

    runs = regret.decompose_runs("DP-IMED", "mu2", 300, 3, 0, params={"eps": 1.0})
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for call, exc, param in [
        (lambda: regret.pull_summary("x"), TypeError, "res"),  # was AttributeError
        (lambda: regret.pull_summary(runs, band=0.0), ValueError, "band"),  # was named "level"
        (lambda: regret.regret_quantiles(None), TypeError, "res"),
        (lambda: regret.imed_optimal_index(3), TypeError, "res"),
        (lambda: regret.cache_key("runs", "x"), TypeError, "params"),  # was accepted
        (lambda: regret.cache_key("runs", {"a": object()}), TypeError, "params"),
        (lambda: regret.cache_dir(a_file), ValueError, "path"),
        (lambda: regret.cached_runs("DP-IMED", "mu2", eps=1.0, T=100, runs=2, directory=1.5), TypeError,
         "directory"),
        (lambda: chapter_regret.book_runs(3), TypeError, "instance"),  # was named "env"
        (lambda: run_generators("x"), TypeError, "child"),  # was AttributeError
        (lambda: regret.regret_quantiles(runs, qs=(NAN,)), ValueError, "qs"),  # was numpy's message
        (lambda: chapter_regret.alpha_tradeoff("DP-IMED", "mu2", eps=0.5, alphas=(NAN,), horizons=(300,)),
         ValueError, "alphas"),  # was named "alpha"
        (lambda: regret.cached_runs("IMED", "mu2", eps=0.5, directory=tmp_path), ValueError, "policy"),
    ]:
        with pytest.raises(exc, match=param):
            call()
    # a level within 1e-16 of 1 gives a finite interval (the normal quantile of (1 + level) / 2
    # rounded to 1 was infinite: inf * 0 = NaN for an arm every run pulls alike)
    summary = regret.pull_summary(runs, level=1 - 1e-16)
    assert np.isfinite(summary["ci_low"]).all() and np.isfinite(summary["ci_high"]).all()


def test_long_profile_findings(tiny_fig1):
    from dpb import estimates, experiments
    from dpb.plotting import concentration, experiments as pe

    # a level within 1e-16 of 1: the upper normal quantile ndtri((1 + level) / 2) was inf, the BCa
    # probabilities NaN and their index an IndexError
    est = estimates.mean_interval(np.array([453.8, 674.7]), level=1 - 1e-16, n_boot=206)
    assert est.lo <= est.mean <= est.hi and np.isfinite([est.lo, est.hi]).all()
    # a claim dropped without release() no longer blocks this process' later runs for ever
    exp, out, _ = tiny_fig1
    cell = exp.cells[0]
    assert experiments.claim(cell, 0, 2, out) is not None  # dropped at once
    again = experiments.claim(cell, 0, 2, out)
    assert again is not None
    again.release()
    for call, exc, param in [
        (lambda: concentration.plot_tail_bounds(x=float("inf")), ValueError, "x"),  # was clipped to 1
        (lambda: concentration.plot_tail_exponent(x=None), TypeError, "x"),
        (lambda: experiments.dpse_readings(instances=None), TypeError, "instances"),
        (lambda: pe.plot_seed_sensitivity({"DP-IMED": np.array([1.0, 2.0])},
                                          {"DP-IMED": estimates.MeanEstimate(40, 2.0, 1.0, 3.0, 0.95)},
                                          {"DP-IMED": NAN}), ValueError, "reported"),  # was drawn
    ]:
        with pytest.raises(exc, match=param):
            call()


@pytest.mark.parametrize("target,kwargs,param", [
    ("dpb.chapters.privacy:release_starts", {"T": 2**31, "schedule": "steps"}, "T"),  # 16 GiB
    ("dpb.plotting.lower_bound:plot_lower_bound_constants", {"n_eps": 2**31}, "n_eps"),  # 16 GiB
])
def test_figure_sizes_are_bounded_before_allocating(worker, target, kwargs, param):
    reply = worker.call(target, (), kwargs, timeout=HANG_GUARD)
    assert reply[0] == "exc" and reply[1] == "ValueError" and param in reply[2], reply


def test_schedule_comparison_names_n_max_past_the_exact_float_grid():
    # n_max = 2**62 passed its own check and then failed inside phases_to_reach naming "n"
    with pytest.raises(ValueError, match="n_max"):
        chapter_algorithms.schedule_comparison(n_max=2**62)
    assert chapter_algorithms.schedule_comparison(n_max=2**53)["n"][-1] == 2**53


def test_schedule_comparison_names_n_max_at_the_pull_limit():
    # n_max = 2**62 passed the check of n_max and failed later as "n must be below 2**62 pulls"
    from dpb.batching import MAX_PULLS
    from dpb.chapters.algorithms import schedule_comparison

    for kwargs in ({"n_max": MAX_PULLS}, {"n0": MAX_PULLS, "n_max": MAX_PULLS}):
        with pytest.raises(ValueError, match="n0|n_max"):
            schedule_comparison(**kwargs)
