"""dpb.chapters.privacy: the numbers of chapter 5, the figures of dpb.plotting.privacy draw them."""

import math

import numpy as np
import pytest

from dpb.chapters import privacy as cp
from dpb.privacy import continual_release_log_ratio, partial_sums


def test_release_starts_moved_and_its_old_home_still_works():
    from dpb.plotting import privacy as pp

    assert pp.release_starts is cp.release_starts
    np.testing.assert_array_equal(cp.release_starts(20), [0, 1, 3, 7, 15])
    with pytest.raises(ValueError, match="T"):
        cp.release_starts(cp.MAX_STREAM + 1)


@pytest.mark.parametrize("schedule", ["doubling", "constant", "steps"])
def test_continual_release_only_the_phase_of_t_star_contributes(schedule):
    eps, t_star = 0.5, 6
    d = cp.continual_release_example(T=20, t_star=t_star, eps=eps, schedule=schedule, seed=1)
    st = cp.release_starts(20, schedule)
    np.testing.assert_array_equal(d["starts"], st)
    np.testing.assert_array_equal(d["ends"], np.append(st[1:], 20))
    assert np.flatnonzero(d["r"] != d["r_prime"]).tolist() == [t_star - 1]
    # the same noise on both streams: the releases differ by the changed reward from its phase on
    diff = d["released_prime"] - d["released"]
    change = d["r_prime"][t_star - 1] - d["r"][t_star - 1]
    k = d["k_star"]
    assert st[k] <= t_star - 1 < (st[k + 1] if k + 1 < st.size else 20)
    np.testing.assert_allclose(diff[:k], 0.0, atol=1e-12)
    np.testing.assert_allclose(diff[k:], change, atol=1e-12)
    np.testing.assert_allclose(d["released"], np.cumsum(partial_sums(d["r"], st) + d["noise"]))
    others = np.delete(d["terms"], k)
    assert np.all(others == 0) and abs(d["terms"][k]) <= eps + 1e-12
    assert d["log_ratio"] == pytest.approx(d["terms"].sum())
    assert d["log_ratio"] == pytest.approx(
        continual_release_log_ratio(d["released"], d["r"], d["r_prime"], st, eps))


def test_the_figure_draws_the_chapter_numbers():
    import matplotlib.pyplot as plt

    from dpb.plotting import privacy as pp

    d = cp.continual_release_example()
    fig = pp.plot_continual_release()
    released = [ln for ln in fig.axes[1].get_lines() if ln.get_label() == "released on r"][0]
    np.testing.assert_array_equal(released.get_ydata(), d["released"])
    plt.close(fig)
    n = cp.noise_cost(eps=0.5, mu=0.5, alpha=2.0, n_max=10**5)
    fig = pp.plot_noise_cost(eps=0.5, mu=0.5, alpha=2.0, n_max=10**5)
    np.testing.assert_array_equal(fig.axes[1].get_lines()[0].get_ydata(), n["forgetting"] / n["accumulating"])
    plt.close(fig)


def test_game_curves_coincide_up_to_the_challenge_and_split_after_it_when_broken():
    d = cp.game_curves("DP-IMED", eps=1.0, T=12, t_star=4, runs=300, seed=0)
    assert d["policy"].name == "DP-IMED" and d["pvalues"].shape == d["same_L"].shape == (12,)
    assert d["same_L"][3] == d["same_R"][3] == 1.0  # a_4 = a_4 in every run
    assert np.all((d["pvalues"] > 0) & (d["pvalues"] <= 1))
    broken = cp.game_curves("DP-IMED [no-noise]", eps=1.0, T=12, t_star=4, runs=300, seed=0)
    assert broken["pvalues"][:4].min() > 1e-3 and broken["pvalues"][-1] < 1e-6
    with pytest.raises(ValueError, match="t_star"):
        cp.game_curves(T=5, t_star=6)
    with pytest.raises(TypeError, match="policy"):
        cp.game_curves(policy=3)


def test_audit_curves_catch_a_broken_policy_and_not_a_private_one():
    ok = cp.audit_curves("DP-IMED", eps=1.0, runs=300, T=16)
    bad = cp.audit_curves("DP-IMED [no-noise]", eps=1.0, runs=300, T=16)
    assert not ok["result"].caught and bad["result"].caught
    assert ok["share"].shape == ok["share_prime"].shape == (16,)
    assert np.all((ok["share"] >= 0) & (ok["share"] <= 1))
    with pytest.raises(ValueError, match="runs"):
        cp.audit_curves(runs=5)


def test_noise_cost_formulas_and_limit():
    eps, mu, alpha = 0.5, 0.3, 2.0
    d = cp.noise_cost(eps=eps, mu=mu, alpha=alpha, n_max=10**6)
    n, B = d["n"], d["batch"]
    np.testing.assert_array_equal(n, np.cumsum(B))
    m = 3
    accumulating = math.sqrt(mu * (1 - mu) / n[m] + 2 * (m + 1) / (eps * n[m]) ** 2)
    assert d["accumulating"][m] == pytest.approx(accumulating)
    assert d["forgetting"][m] == pytest.approx(math.sqrt(mu * (1 - mu) / B[m] + 2 / (eps * B[m]) ** 2))
    assert d["no_privacy"][m] == pytest.approx(math.sqrt(mu * (1 - mu) / n[m]))
    ratio = d["forgetting"] / d["accumulating"]
    assert ratio.min() < 1 and abs(ratio[-1] - math.sqrt(alpha / (alpha - 1))) < 0.01
    with pytest.raises(ValueError, match="mu"):
        cp.noise_cost(mu=1.5)
    with pytest.raises(ValueError, match="eps"):
        cp.noise_cost(eps=0)
