"""View-DP interaction, the adaptive game, the empirical audit and the broken policies it catches."""

import types

import numpy as np
import pytest
from scipy import stats

import dpb
from dpb.audit import (
    FLAWS,
    PRIVATE_POLICIES,
    audit,
    audit_lists,
    audit_lists_default,
    audit_policy,
    audit_policy_names,
    broken_policy,
    clopper_pearson,
    event_family,
    make_audit_policy,
    prefix_law_test,
)
from dpb.interaction import (
    FunctionAdversary,
    LeaderAdversary,
    ListAdversary,
    TableAdversary,
    neighbouring_list,
    phase_of_step,
    run_game,
    run_generators_fast,
    run_on_list,
)
from dpb.policies import DPIMED, DPKLUCB, DPSE, AdaPKLUCB, LazyDPTS
from dpb.policies.registry import registered
from dpb.simulate import simulate

#: The package's own private policies.  ``PRIVATE_POLICIES`` lists every registered one, and other
#: test modules register policies of their own (e.g. one that fails on purpose) when pytest imports
#: them, so the audit's parameters would depend on which modules were collected first.
BUILTIN_PRIVATE = list(registered(private=True, builtin=True))

# ----------------------------------------------------------------------------------------------
# Clopper-Pearson
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (57, 400), (1, 100_000)])
def test_clopper_pearson_matches_scipy_exact_interval(k, n):
    # a two-sided exact interval at level 1 - 2a has the one-sided bounds at level 1 - a as ends
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.9, method="exact")
    assert clopper_pearson(k, n, 0.95, "lower") == pytest.approx(ci.low, abs=1e-12)
    assert clopper_pearson(k, n, 0.95, "upper") == pytest.approx(ci.high, abs=1e-12)


def test_clopper_pearson_covers():
    rng = np.random.default_rng(0)
    for p in [0.01, 0.3, 0.9]:
        k = rng.binomial(200, p, size=4000)
        lo = clopper_pearson(k, 200, 0.95, "lower")
        hi = clopper_pearson(k, 200, 0.95, "upper")
        assert np.mean(lo <= p) >= 0.95 - 0.01 and np.mean(hi >= p) >= 0.95 - 0.01


def test_clopper_pearson_bad_input():
    with pytest.raises(ValueError, match="successes"):
        clopper_pearson(11, 10, 0.9, "lower")
    with pytest.raises(ValueError, match="level"):
        clopper_pearson(1, 10, 1.0, "lower")
    with pytest.raises(ValueError, match="side"):
        clopper_pearson(1, 10, 0.9, "both")


# ----------------------------------------------------------------------------------------------
# the View-DP driver
# ----------------------------------------------------------------------------------------------
class Spy(DPIMED):
    """DP-IMED that records the phase sums it is fed."""

    def _start(self):
        super()._start()
        self.fed = [[] for _ in range(self.R)]

    def update(self, rows, counts, sums):
        for i, r in enumerate(rows):
            self.fed[r].append((counts[i].copy(), sums[i].copy()))
        super().update(rows, counts, sums)


def test_policy_sees_the_list_phase_sums():
    rng = np.random.default_rng(1)
    r = rng.random(37)
    pol = Spy(eps=0.7)
    tr = run_on_list(pol, r, 25, seed=4)
    assert tr.actions.shape == (25, 37) and tr.actions.min() >= 0
    for i in range(25):
        st = np.flatnonzero(tr.starts[i])
        ends = np.append(st[1:], 37)
        assert len(pol.fed[i]) == st.size
        for (counts, sums), a, b in zip(pol.fed[i], st, ends, strict=True):
            arm = int(np.argmax(counts))
            assert counts[arm] == b - a and np.all(tr.actions[i, a:b] == arm)
            assert sums[arm] == pytest.approx(r[a:b].sum(), abs=1e-12)
        # phase lengths follow the schedule: each arm's phases are 1, 2, 4, ... (last one cut at T)
        for arm in range(2):
            lens = [b - a for a, b in zip(st, ends, strict=True) if tr.actions[i, a] == arm]
            assert lens[:-1] == [2**j for j in range(len(lens) - 1)]


def test_runs_do_not_depend_on_grouping():
    r = np.ones(20)
    many = run_on_list(DPKLUCB(eps=1.0), r, 12, seed=9)
    for i in (0, 5, 11):
        one = run_on_list(DPKLUCB(eps=1.0), r, 1, seed=9, offset=i)
        np.testing.assert_array_equal(one.actions[0], many.actions[i])
    g1 = run_generators_fast(3, 4)[2].random(3)
    g2 = run_generators_fast(3, 1, offset=2)[0].random(3)
    np.testing.assert_array_equal(g1, g2)


def test_round_robin_epochs_of_dpse():
    tr = run_on_list(DPSE(eps=1.0), np.ones(30), 5, seed=0)
    # the first epoch is longer than T: plain round robin 0, 1, 0, 1, ...
    np.testing.assert_array_equal(tr.actions, np.tile(np.arange(30) % 2, (5, 1)))
    assert tr.starts.sum() == 5


def test_decision_after_and_phase_of_step():
    tr = run_on_list(DPIMED(eps=1.0), np.ones(30), 200, seed=2)
    first, last = phase_of_step(tr, 4)
    d1 = tr.decision_after(4)
    for i in range(200):
        assert tr.starts[i, first[i] - 1] and first[i] <= 4 <= last[i]
        assert last[i] == 30 or tr.starts[i, last[i]]
        if last[i] < 30:
            assert d1[i] == tr.actions[i, last[i]]
        else:
            assert d1[i] == -1


def test_table_adversary_reproduces_the_bandit():
    """A table of Bernoulli rewards fed by the Table adversary is the bandit itself: same law."""
    means = np.array([0.7, 0.4])
    T, runs = 60, 3000
    rng = np.random.default_rng(5)

    def fn(actions, t):
        a = actions[np.arange(t.size), t - 1]
        x = (rng.random(t.size) < means[a]).astype(float)
        return x, x

    tr = run_game(DPIMED(eps=1.0), FunctionAdversary(fn, "bernoulli"), 1, "L", runs, T, seed=1)
    res = simulate("DP-IMED", means, T, runs=runs, seed=2, params={"eps": 1.0})
    n1 = tr.counts()[:, 0]
    assert stats.ks_2samp(n1, res.pulls[:, 0]).pvalue > 1e-3
    # the paper's reduction: a table whose columns are equal is a list (same seeds, same actions)
    r = np.r_[np.ones(20), np.zeros(20), np.ones(20)]
    trx = run_game(DPIMED(eps=1.0), TableAdversary(np.c_[r, r]), 1, "L", 50, T, seed=3)
    trv = run_on_list(DPIMED(eps=1.0), r, 50, seed=3)
    np.testing.assert_array_equal(trx.actions, trv.actions)
    # and with different columns the policy is fed x[t, a_t]
    x = np.c_[np.ones(T), np.zeros(T)]
    spy = Spy(eps=1.0)
    trs = run_game(spy, TableAdversary(x), 1, "L", 20, T, seed=4)
    for i in range(20):
        for counts, sums in spy.fed[i]:
            np.testing.assert_allclose(sums, counts * [1.0, 0.0])
    assert trs.info["adversary"] == "table"


def test_game_with_list_adversary_is_view_dp():
    r = np.r_[np.ones(10), np.zeros(10)]
    rp = neighbouring_list(r, 4)
    adv = ListAdversary(r, rp)
    gl = run_game(DPKLUCB(eps=1.0), adv, 4, "L", 40, 20, seed=6)
    gr = run_game(DPKLUCB(eps=1.0), adv, 4, "R", 40, 20, seed=6)
    vl = run_on_list(DPKLUCB(eps=1.0), r, 40, seed=6)
    vr = run_on_list(DPKLUCB(eps=1.0), rp, 40, seed=6)
    np.testing.assert_array_equal(gl.actions, vl.actions)
    np.testing.assert_array_equal(gr.actions, vr.actions)


@pytest.mark.parametrize("policy", [DPIMED(eps=0.5), AdaPKLUCB(eps=1.0), LazyDPTS(eps=1.0),
                                    broken_policy("no-noise", eps=1.0)])
def test_game_views_coincide_up_to_the_challenge(policy):
    """Paper's remark 'Expanding the View': b = L and b = R give the same law of a_1..a_{t*}.

    Independent runs, chi-square two-sample test of the prefix law at false-alarm rate 1e-3; the
    same test detects the difference a few steps later for a policy that leaks (no noise).  With
    common seeds the two views coincide path by path until the first decision after the phase
    containing t*.
    """
    T, t_star, runs = 24, 6, 3000
    adv = LeaderAdversary()
    L = run_game(policy, adv, t_star, "L", runs, T, seed=10)
    R = run_game(policy, adv, t_star, "R", runs, T, seed=10, offset=runs)
    assert prefix_law_test(L, R, t_star)["pvalue"] > 1e-3
    if getattr(policy, "flaw", "") == "no-noise":
        assert prefix_law_test(L, R, T)["pvalue"] < 1e-6
    Rc = run_game(policy, adv, t_star, "R", runs, T, seed=10)  # common seeds: coupled with L
    _, last = phase_of_step(L, t_star)
    differ = L.actions != Rc.actions
    first_diff = np.where(differ.any(axis=1), np.argmax(differ, axis=1) + 1, T + 1)
    assert np.all(first_diff > last)


def test_prefix_law_test_false_alarm_rate():
    """Same list, independent runs: the test rejects at level 0.05 about 5% of the time (or less)."""
    r = np.ones(16)
    rejections = 0
    for k in range(40):
        a = run_on_list(DPIMED(eps=1.0), r, 400, seed=100 + k)
        b = run_on_list(DPIMED(eps=1.0), r, 400, seed=200 + k)
        rejections += prefix_law_test(a, b, 16)["pvalue"] <= 0.05
    assert rejections <= 7  # Binomial(40, 0.05) exceeds 7 with probability < 0.3%


# ----------------------------------------------------------------------------------------------
# the audit
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", BUILTIN_PRIVATE)
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_private_policies_pass_the_audit(name, eps):
    T = 20 if name == "Lazy-DP-TS" else 30
    runs = 1500 if name == "Lazy-DP-TS" else 3000
    res = audit_policy(make_audit_policy(name, eps), runs=runs, T=T, t_star=1, pattern="ones", seed=11)
    assert res.eps == eps and not res.caught
    assert res.eps_lower <= eps


def test_dpse_passes_an_audit_where_its_release_matters():
    """At T = 30 DP-SE never ends an epoch (trivially private); at T = 2900 it eliminates at step
    2753 after one noisy comparison, and the list is tuned to put that comparison on the edge."""
    T = 2900
    for eps in (0.5, 2.0):
        p = DPSE(eps=eps)
        p.start(2, T, [np.random.default_rng(0)])
        R, h, c = p._epoch_terms(np.array([2]), np.array([1]))
        R, thr = int(R[0]), float(2 * (h[0] + c[0]))
        r = np.zeros(T)
        r[0:2 * R:2][: int(np.floor(R // 2 + thr * R))] = 1  # arm 1 (odd steps): mean 1/2 + thr
        r[1:2 * R:2][: R // 2] = 1  # arm 2: mean 1/2
        res = audit_lists(DPSE(eps=eps), r, neighbouring_list(r, 1), 1500, seed=1, horizons=[T])
        assert -np.inf < res.eps_lower <= eps
        assert res.eps_hat > 0.2 * eps  # the audit sees the release: not a vacuous pass


BROKEN_SETUP = {  # base: (eps, T, t_star, pattern) where the audit has power
    "DP-IMED": (1.0, 40, 2, "ones"),
    "DP-KLUCB": (2.0, 60, 3, "zeros"),
}


@pytest.mark.parametrize("base", list(BROKEN_SETUP))
@pytest.mark.parametrize("flaw", list(FLAWS))
def test_broken_policies_are_caught(base, flaw):
    eps, T, t_star, pattern = BROKEN_SETUP[base]
    pol = broken_policy(flaw, base, eps=eps)
    assert pol.flaw == flaw and pol.eps == eps and isinstance(pol, DPIMED if base == "DP-IMED" else DPKLUCB)
    res = audit_policy(pol, runs=4000, T=T, t_star=t_star, pattern=pattern, seed=1)
    assert res.caught and res.eps_lower > eps


def test_bonferroni_method_and_result_fields():
    res = audit_policy(broken_policy("no-noise", eps=1.0), runs=2000, T=20, t_star=1, method="bonferroni",
                       seed=0)
    assert res.method == "bonferroni" and res.caught
    assert res.confidence == 0.95 and res.n1 == 2000 and res.n_events > 10
    lo, hi = res.interval
    assert lo == res.eps_lower and hi >= lo
    assert "CAUGHT" in res.summary()
    ok = audit_policy(DPIMED(eps=1.0), runs=2000, T=20, t_star=1, method="bonferroni", seed=0)
    assert ok.eps_lower <= 1.0 and "consistent" in ok.summary()


def test_audit_of_identical_inputs_finds_nothing():
    r = np.ones(20)
    a = run_on_list(DPIMED(eps=1.0), r, 3000, seed=1)
    b = run_on_list(DPIMED(eps=1.0), r, 3000, seed=2)
    res = audit(a, b, 1)
    assert res.eps_lower < 0.1
    assert res.eps is None and not res.caught


def test_broken_variants_noise_bookkeeping():
    """The running sums of the variants carry the noise their names say."""
    T = 40
    r = np.ones(T)
    for flaw in FLAWS:
        pol = broken_policy(flaw, "DP-IMED", eps=1.0)
        tr = run_on_list(pol, r, 50, seed=3)
        exact = tr.counts().astype(float)  # all rewards are 1: exact sums = pull counts
        noise = pol.S - exact
        if flaw == "no-noise":
            assert np.all(noise == 0)
        elif flaw == "small-noise":
            assert 0 < np.abs(noise).mean() < 0.5
        elif flaw == "reused-noise":
            # noise = (number of phases) x (the arm's single draw)
            single = noise / pol.phases
            np.testing.assert_allclose(single, pol.last_noise, rtol=1e-9, atol=1e-12)
        else:  # fresh-mean-noise: only the last draw remains in the sum
            np.testing.assert_allclose(noise, pol.last_noise, rtol=1e-9, atol=1e-12)


def test_event_family_shapes_and_names():
    tr = run_on_list(DPIMED(eps=1.0), np.ones(12), 30, seed=0)
    X, names = event_family(tr, 3)
    assert X.shape == (30, len(names)) and X.dtype == bool
    assert any(n.startswith("decision #1") for n in names) and "a_4 = arm 1" in names
    with pytest.raises(ValueError, match="t_star"):
        event_family(tr, 0)


def test_names_and_errors():
    names = audit_policy_names()
    assert set(BUILTIN_PRIVATE) <= set(PRIVATE_POLICIES) <= set(names) and "DP-KLUCB [reused-noise]" in names
    for n in BUILTIN_PRIVATE + [n for n in names if n.endswith("]")]:  # the broken ones
        assert make_audit_policy(n, 0.5).eps == 0.5
    with pytest.raises(ValueError, match="unknown policy"):
        make_audit_policy("DP-IMED [typo]", 1.0)
    with pytest.raises(ValueError, match="flaw"):
        broken_policy("typo")
    with pytest.raises(ValueError, match="exactly one"):
        audit_lists(DPIMED(eps=1.0), np.ones(5), np.zeros(5), 10)
    with pytest.raises(ValueError, match="pattern"):
        audit_lists_default(5, 1, "stripes")
    with pytest.raises(ValueError, match="rewards"):
        run_on_list(DPIMED(eps=1.0), [0.5, 2.0], 3)
    with pytest.raises(ValueError, match="b must"):
        run_game(DPIMED(eps=1.0), LeaderAdversary(), 1, "X", 3, 5)
    with pytest.raises(TypeError, match="Adversary"):
        run_game(DPIMED(eps=1.0), lambda a, t: (0, 0), 1, "L", 3, 5)
    with pytest.raises(ValueError, match="method"):
        audit(run_on_list(DPIMED(eps=1.0), np.ones(5), 4), run_on_list(DPIMED(eps=1.0), np.ones(5), 4), 1,
              method="magic")


def test_the_audit_module_is_a_module_and_audit_policy_its_one_call_audit():
    assert isinstance(dpb.audit, types.ModuleType) and not callable(dpb.audit)
    assert dpb.audit_policy is dpb.audit.audit_policy


def test_the_audit_takes_policy_keywords_and_names_its_claim_claimed_eps():
    own = dpb.audit_policy("DP-KLUCB", eps=0.5, alpha=3, runs=400, T=20, seed=3)
    assert own.eps == 0.5 and own.info["policy"] == "DP-KLUCB"
    claim = dpb.audit_policy("DP-KLUCB", eps=0.5, alpha=3, runs=400, T=20, seed=3, claimed_eps=0.1)
    assert claim.eps == 0.1 and claim.eps_lower == own.eps_lower  # the same runs, another claim
    with pytest.raises(TypeError, match="claimed_eps"):
        dpb.audit.audit_lists(dpb.policies.DPIMED(1.0), [1.0, 0.0], [0.0, 0.0], 10, eps=0.5)
