"""Argument specs of the public API of ``dpb`` for the fuzz harness (``tests/fuzz_harness.py``).

A :class:`Kind` describes one parameter: good values (a hypothesis strategy), edge values (a valid
result or a clean error are both fine) and bad values (must be refused with an error naming the
parameter).  A :class:`Spec` lists the kinds of a callable's parameters.  ``tests/test_fuzz.py``
checks that every callable in the ``__all__`` of the fuzzed modules has a spec here or a reason in
:data:`NOT_FUZZED`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from fuzz_harness import Build
from hypothesis import strategies as st

NAN = float("nan")
INF = float("inf")
HUGE_INTS = (2**31, 2**62, 2**63, 10**30)
NOT_NUMBERS = ("x", None, True)
SMALL_EXAMPLES = 0.5  # weight for slow functions (simulations)


@dataclasses.dataclass(frozen=True)
class Kind:
    good: st.SearchStrategy
    edge: tuple = ()
    bad: tuple = ()
    optional: bool = False  # may be left out (its default is used)

    def but(self, *, edge=None, bad=None, optional=None, add_edge=(), add_bad=(), drop_bad=()):
        e = self.edge if edge is None else edge
        b = self.bad if bad is None else bad
        b = tuple(v for v in b if not any(_same(v, d) for d in drop_bad))
        return dataclasses.replace(
            self,
            edge=tuple(e) + tuple(add_edge),
            bad=tuple(b) + tuple(add_bad),
            optional=self.optional if optional is None else optional,
        )


def _same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - arrays
        return False


def fixed(*values) -> Kind:
    """A parameter fuzzed only through its good values."""
    return Kind(st.sampled_from(values))


@dataclasses.dataclass
class Spec:
    target: str  # "module:qualname"
    params: dict
    aliases: dict = dataclasses.field(default_factory=dict)  # param -> other names a message may use
    nan_ok: bool = False
    inf_ok: bool = False
    timeout: float = 20.0
    weight: float = 1.0
    positional: tuple = ()  # params passed positionally (in this order), e.g. "self"
    label: str | None = None

    @property
    def name(self) -> str:
        return self.label or self.target.replace(":", ".")

    def names_for(self, param) -> set:
        return {param, *self.aliases.get(param, ())}

    def all_names(self) -> set:
        out = set(self.params)
        for v in self.aliases.values():
            out |= set(v)
        return out

    def examples(self, n: int) -> int:
        return max(3, int(round(n * self.weight)))

    def calls(self) -> st.SearchStrategy:
        modes = [st.just(("good", None))]
        modes += [st.just(("edge", p)) for p, k in self.params.items() if k.edge]
        modes += [st.just(("bad", p)) for p, k in self.params.items() if k.bad]

        @st.composite
        def call(draw):
            mode, param = draw(st.one_of(*modes))
            values = {}
            for p, k in self.params.items():
                if p == param and mode == "edge":
                    values[p] = draw(st.sampled_from(k.edge))
                elif p == param and mode == "bad":
                    values[p] = draw(st.sampled_from(k.bad))
                elif k.optional and p not in self.positional and draw(st.booleans()):
                    continue
                else:
                    values[p] = draw(k.good)
            twin = None
            if mode == "bad":  # the same call with a good value in place of the bad one
                twin = dict(values)
                twin[param] = draw(self.params[param].good)
                twin = (tuple(twin.pop(p) for p in self.positional if p in twin), twin)
            args = tuple(values.pop(p) for p in self.positional if p in values)
            return mode, param, args, values, twin

        return call()


def arrays(elem: st.SearchStrategy, min_size: int = 1, max_size: int = 4) -> st.SearchStrategy:
    return st.lists(elem, min_size=min_size, max_size=max_size).map(np.array)


def scalar_or_array(elem: st.SearchStrategy) -> st.SearchStrategy:
    return elem | arrays(elem)


EMPTY = np.array([])

# ---------------------------------------------------------------- numbers
PROB = Kind(
    scalar_or_array(st.floats(0, 1)),
    edge=(0.0, 1.0, 5e-324, 1 - 1e-16, EMPTY),
    bad=(NAN, INF, -INF, -0.5, 1.5, *NOT_NUMBERS, np.array([0.5, NAN])),
)
PROB_OPEN = PROB.but(edge=(0.0, 1.0, 1e-300, 1 - 1e-16, EMPTY))
PROB_SCALAR = Kind(
    st.floats(0, 1), edge=(0.0, 1.0, 5e-324, 1 - 1e-16), bad=(NAN, INF, -INF, -0.5, 1.5, *NOT_NUMBERS)
)
EPS = Kind(
    st.floats(1e-3, 50) | st.sampled_from([0.1, 0.25, 0.5, 1.0, 2.0]),
    edge=(5e-324, 1e-300, 1e300, INF),
    bad=(NAN, 0.0, -1.0, -INF, *NOT_NUMBERS),
)
EPS_FINITE = EPS.but(edge=(5e-324, 1e-300, 1e300), add_bad=(INF,))
EPS_INF_OK = Kind(EPS.good | st.just(INF), edge=(5e-324, 1e-300, 1e300), bad=EPS.bad)
REAL = Kind(st.floats(-100, 100), edge=(1e300, -1e300, 5e-324, 0.0), bad=(NAN, INF, -INF, *NOT_NUMBERS))
REALS = Kind(
    scalar_or_array(st.floats(-100, 100)),
    edge=(1e300, -1e300, 5e-324, EMPTY),
    bad=(NAN, INF, -INF, *NOT_NUMBERS, np.array([1.0, NAN])),
)
# a cdf is meaningful at +-inf (0 and 1)
REALS_OR_INF = REALS.but(add_edge=(INF, -INF), bad=(NAN, *NOT_NUMBERS, np.array([1.0, NAN])))
POSITIVE = Kind(st.floats(1e-3, 100), edge=(5e-324, 1e300), bad=(NAN, 0.0, -1.0, INF, -INF, *NOT_NUMBERS))
LEVEL = Kind(
    st.floats(0.5, 0.999), edge=(1e-300, 1 - 1e-16), bad=(NAN, 0.0, 1.0, -0.5, 1.5, INF, *NOT_NUMBERS)
)


def size(lo: int, hi: int, *, optional: bool = False, edge_extra=()) -> Kind:
    """An integer parameter with good values in [lo, hi]."""
    edge = (lo, hi, np.int64(hi), float(hi), *HUGE_INTS, *edge_extra)
    if lo > 0:
        edge = edge + (0,)
    bad = ("3", True, 1.5, NAN, INF, -1, -(2**63)) + (() if optional else (None,))
    return Kind(st.integers(lo, hi), edge=edge, bad=bad, optional=optional)


SEED = Kind(st.integers(0, 2**32), edge=(2**63, 2**64), bad=("x", 1.5, NAN, -1), optional=True)
RNG = Kind(
    st.sampled_from([None, 0, 7]).map(
        lambda s: None if s is None else Build.of("numpy.random:default_rng", s)
    ),
    bad=("x", 1.5, [1, 2, "x"]),
    optional=True,
)
SIDE = Kind(st.sampled_from(["upper", "lower"]), bad=("x", None, 1), optional=True)
FLAG = Kind(st.booleans(), optional=True)

# ---------------------------------------------------------------- bandit objects
MEANS = Kind(
    arrays(st.floats(0.01, 0.99), min_size=2, max_size=5) | st.sampled_from([(0.75, 0.7, 0.7), (0.9, 0.1)]),
    edge=((0.5,), (0.5, 0.5), (0.0, 1.0), (1.0, 1.0), (5e-324, 0.5)),
    bad=((), (0.5, NAN), (0.5, 1.5), (0.5, -0.1), "x", None, True, (0.5, INF), [[]]),
)
PRIVATE = ["DP-KLUCB", "DP-IMED", "DP-SE", "AdaP-KLUCB", "AdaP-UCB", "Lazy-DP-TS"]
POLICY_NAME = Kind(st.sampled_from(PRIVATE + ["IMED", "KL-UCB"]), bad=("DP-NOPE", 3, None, True))
ENV = Kind(
    st.sampled_from(["mu1", "mu2", "sweep", (0.75, 0.5), (0.9, 0.2, 0.1)]),
    edge=((0.5, 0.5), (1.0, 0.0), (0.5,)),
    bad=("mu99", (0.5, NAN), (0.5, 1.5), (), 3, None),
)
INSTANCE = Kind(st.sampled_from(["mu1", "mu2", "mu3", "mu4", "sweep"]), bad=("mu99", 3, None, True))


def policy(name: str, **params) -> Build:
    return Build.of("dpb.policies:make_policy", name, **params)


POLICY_OBJ = Kind(
    st.sampled_from(["DP-IMED", "DP-KLUCB"]).flatmap(
        lambda n: st.sampled_from([0.5, 1.0, 5.0]).map(lambda e: policy(n, eps=e))
    )
)
VIEW_POLICY = Kind(
    st.sampled_from([0.0, 0.3, 1.0]).map(lambda e: Build.of("dpb.privacy:exponential_weights_policy", e)),
    bad=("x", None, 3),
)
TRANSCRIPT_ARGS = dict(
    policy="DP-IMED", rewards=(1.0, 0.0, 1.0, 1.0, 0.0, 1.0), runs=40, seed=0, params={"eps": 1.0}
)


def transcript(rewards=TRANSCRIPT_ARGS["rewards"], seed=0) -> Build:
    return Build.of("dpb.interaction:run_on_list", "DP-IMED", tuple(rewards), 40, seed, params={"eps": 1.0})


TRANSCRIPT = Kind(st.sampled_from([0, 1]).map(lambda s: transcript(seed=s)), bad=("x", None, 3))
TRANSCRIPT_PRIME = Kind(
    st.sampled_from([2, 3]).map(lambda s: transcript((1.0, 0.0, 0.0, 1.0, 0.0, 1.0), s)), bad=("x", None)
)
REWARDS01 = Kind(
    arrays(st.sampled_from([0.0, 1.0]), 1, 8) | arrays(st.floats(0, 1), 1, 8),
    edge=(EMPTY, np.zeros(10**6)),
    bad=(np.array([0.5, NAN]), np.array([1.5]), np.array([-0.5]), "x", None, np.array([INF])),
)

# rewards of the mechanisms that take any finite values (partial sums, View/Table DP laws)
FINITE_REWARDS = REWARDS01.but(
    edge=(EMPTY, np.array([1.5, -0.5])),
    bad=(np.array([0.5, NAN]), np.array([INF]), "x", None),
)


def module_specs() -> list[Spec]:
    S = Spec
    d = "dpb.divergences:"
    specs = [
        S(d + "kl", dict(p=PROB, q=PROB), inf_ok=True),
        S(d + "tv", dict(p=PROB, q=PROB)),
        S(d + "z_star", dict(x=PROB, y=PROB, eps=EPS_INF_OK)),
        S(d + "d_eps", dict(x=PROB, y=PROB, eps=EPS_INF_OK), inf_ok=True),
        S(d + "regime_threshold", dict(x=PROB, y=PROB), inf_ok=True),
        S(d + "kl_ucb", dict(x=PROB, c=REALS.but(bad=(NAN, -1.0, "x", None, True)))),
        S(d + "kl_lcb", dict(x=PROB, c=REALS.but(bad=(NAN, -1.0, "x", None, True)))),
        S(d + "d_eps_ucb", dict(x=PROB, c=REALS.but(bad=(NAN, -1.0, "x", None, True)), eps=EPS_INF_OK)),
        S(d + "d_eps_lcb", dict(x=PROB, c=REALS.but(bad=(NAN, -1.0, "x", None, True)), eps=EPS_INF_OK)),
    ]
    b = "dpb.bounds:"
    alpha = Kind(st.floats(1.01, 5), edge=(1.0, 1 + 1e-12, 1e300), bad=(NAN, INF, 0.5, -1.0, *NOT_NUMBERS))
    specs += [
        S(b + "lower_bound_constant", dict(mu=MEANS, eps=EPS_INF_OK), inf_ok=True),
        S(b + "azize_basu_2022_constant", dict(mu=MEANS, eps=EPS_INF_OK), inf_ok=True),
        S(b + "lai_robbins_constant", dict(mu=MEANS), inf_ok=True),
        S(b + "upper_bound_constant", dict(mu=MEANS, eps=EPS_INF_OK, alpha=alpha, strict=FLAG), inf_ok=True),
        S(
            b + "per_arm_constants",
            dict(
                mu=MEANS,
                eps=EPS_INF_OK.but(optional=True),
                bound=Kind(
                    st.sampled_from(["lower", "upper", "lai_robbins", "azize_basu_2022"]),
                    bad=("nope", None, 3),
                    optional=True,
                ),
                alpha=alpha.but(optional=True),
                weighted=FLAG,
            ),
            inf_ok=True,
        ),
        S(b + "regime_thresholds", dict(mu=MEANS), inf_ok=True),
        S(b + "suboptimal_arms", dict(mu=MEANS)),
        S(b + "gaps", dict(mu=MEANS)),
    ]
    c = "dpb.coupling:"
    counts = Kind(
        arrays(st.integers(0, 50), 1, 4),
        edge=(EMPTY,),
        bad=(np.array([1.0, NAN]), np.array([-1.0]), "x", None),
    )
    specs += [
        S(c + "tv_leg", dict(mu2_prime=PROB, mu2=PROB, eps=EPS_INF_OK), inf_ok=True),
        S(c + "kl_leg", dict(mu2_prime=PROB, mu1=PROB), inf_ok=True),
        S(
            c + "transport_cost",
            dict(mu2_prime=PROB, mu2=PROB, mu1=PROB, eps=EPS_INF_OK, return_legs=FLAG),
            inf_ok=True,
        ),
        S(c + "optimal_intermediate", dict(mu2=PROB, mu1=PROB, eps=EPS_INF_OK), inf_ok=True),
        S(c + "pure_routes", dict(mu2=PROB, mu1=PROB, eps=EPS_INF_OK), inf_ok=True),
        S(
            c + "maximal_coupling",
            dict(p=PROB_SCALAR, q=PROB_SCALAR, size=size(1, 50, optional=True), rng=RNG),
        ),
        S(
            c + "simulate_coupled_environment",
            dict(
                mu=Kind(st.sampled_from([(0.7, 0.5), (0.9, 0.1)]), bad=((0.5, NAN), (0.5, 1.5), "x", None)),
                mu_prime=Kind(st.sampled_from([(0.7, 0.8), (0.9, 0.95)]), bad=((0.5, NAN), "x", None)),
                policy_pulls_arm2=PROB_SCALAR.but(optional=True),
                horizon=size(1, 200),
                n_runs=size(1, 20),
                seed=SEED,
                method=Kind(st.sampled_from(["per_step", "binomial"]), bad=("nope", None, 3), optional=True),
                return_streams=FLAG,
            ),
            weight=SMALL_EXAMPLES,
        ),
        S(c + "hamming_ratio", dict(d_ham=counts, n2=counts), inf_ok=True, nan_ok=True),
        S(c + "event_L", dict(d_ham=counts, n2=counts, tv=PROB, alpha=POSITIVE)),
        S(c + "event_L_frequency", dict(d_ham=counts, n2=counts, tv=PROB, alpha=POSITIVE)),
    ]
    k = "dpb.concentration:"
    m = size(0, 20)
    n = size(1, 200)
    mu = PROB_OPEN.but(bad=PROB.bad + (0.0, 1.0), edge=(1e-300, 1 - 1e-16))
    x = Kind(st.floats(0, 50), edge=(0.0, 1e300), bad=(NAN, INF, -1.0, *NOT_NUMBERS))
    z = REALS
    variant = Kind(st.sampled_from(["proof", "statement"]), bad=("nope", None), optional=True)
    specs += [
        S(k + "laplace_sum_tail_bound", dict(z=z, m=m, eps=EPS_FINITE, log=FLAG), inf_ok=True),
        S(k + "laplace_sum_pdf", dict(z=z, m=size(1, 20), eps=EPS_FINITE)),
        S(k + "laplace_sum_logpdf", dict(z=z, m=size(1, 20), eps=EPS_FINITE), inf_ok=True),
        S(k + "laplace_sum_sf", dict(z=z, m=m, eps=EPS_FINITE)),
        S(k + "laplace_sum_logsf", dict(z=z, m=m, eps=EPS_FINITE), inf_ok=True),
        S(k + "private_sum_sf", dict(s=REALS, n=n, m=m, mu=mu, eps=EPS_FINITE)),
        S(k + "private_sum_logsf", dict(s=REALS, n=n, m=m, mu=mu, eps=EPS_FINITE), inf_ok=True),
        S(k + "private_sum_cdf", dict(s=REALS, n=n, m=m, mu=mu, eps=EPS_FINITE)),
        S(k + "private_sum_logcdf", dict(s=REALS, n=n, m=m, mu=mu, eps=EPS_FINITE), inf_ok=True),
        S(
            k + "A_eps",
            dict(m=m, n=n, x=x, mu=mu, eps=EPS_FINITE, side=SIDE, variant=variant, log=FLAG),
            inf_ok=True,
        ),
        S(
            k + "private_chernoff_bound",
            dict(x=x, n=n, m=m, mu=mu, eps=EPS_FINITE, side=SIDE, variant=variant, log=FLAG),
            inf_ok=True,
        ),
        S(
            k + "separate_bound",
            dict(x=x, n=n, m=m, mu=mu, eps=EPS_FINITE, side=SIDE, log=FLAG, grid=size(3, 300, optional=True)),
            inf_ok=True,
        ),
        S(k + "chernoff_bound", dict(x=x, n=n, mu=mu, side=SIDE, log=FLAG), inf_ok=True),
        S(
            k + "monte_carlo_tail",
            dict(
                s=REAL,
                n=size(1, 50),
                m=size(0, 5),
                mu=mu,
                eps=EPS_FINITE,
                runs=size(1, 2000),
                seed=SEED.but(optional=False),
                side=SIDE,
                confidence=LEVEL.but(optional=True),
            ),
        ),
        S(k + "tail_exponent", dict(x=x, n=n, m=m, mu=mu, eps=EPS_FINITE, side=SIDE), inf_ok=True),
    ]
    p = "dpb.privacy:"
    sens = POSITIVE.but(optional=True)
    starts = Kind(
        st.sampled_from([(0,), (0, 1), (0, 2)]).map(np.array),
        edge=(np.array([0, 2**62]), np.array([], dtype=int)),
        bad=(np.array([1.5]), np.array([NAN]), "x", None, np.array([-1, 0]), np.array([0, 0])),
    )
    o_phases = Kind(arrays(st.floats(-10, 10), 1, 3), bad=(np.array([NAN]), np.array([INF]), "x", None))
    alphabet = Kind(
        st.sampled_from([(0.0, 1.0), (0.0, 0.5, 1.0)]),
        bad=((0.0, NAN), (0.0, INF), "x", None, (1.0,)),
        optional=True,
    )
    specs += [
        S(p + "laplace_mechanism", dict(value=REALS, eps=EPS_FINITE, sensitivity=sens, rng=RNG)),
        S(p + "laplace_pdf", dict(x=REALS, loc=REALS, eps=EPS_FINITE, sensitivity=sens)),
        S(
            p + "laplace_log_density_ratio",
            dict(x=REALS, loc=REALS, loc_prime=REALS, eps=EPS_FINITE, sensitivity=sens),
        ),
        S(p + "laplace_cdf", dict(x=REALS_OR_INF, loc=REALS, eps=EPS_FINITE, sensitivity=sens)),
        S(
            p + "laplace_interval_probability",
            dict(lo=REALS_OR_INF, hi=REALS_OR_INF, loc=REALS, eps=EPS_FINITE, sensitivity=sens),
        ),
        S(
            p + "histogram_log_ratio",
            dict(
                samples=Kind(arrays(st.floats(-5, 5), 1, 300), bad=(np.array([NAN]), "x", None)),
                samples_prime=Kind(arrays(st.floats(-5, 5), 1, 300), bad=(np.array([NAN]), "x", None)),
                bins=Kind(
                    st.integers(1, 30) | st.just(np.linspace(-5, 5, 7)),
                    edge=HUGE_INTS,
                    bad=(0, -1, "x", None, np.array([1.0, NAN])),
                ),
                min_count=size(0, 10, optional=True),
            ),
            nan_ok=True,
        ),
        S(p + "partial_sums", dict(rewards=FINITE_REWARDS, starts=starts)),
        S(
            p + "laplace_vector_log_density_ratio",
            dict(o=REALS, f=REALS, f_prime=REALS, eps=EPS_FINITE, sensitivity=sens),
        ),
        S(p + "exponential_weights_policy", dict(eta=POSITIVE.but(add_edge=(0.0,), drop_bad=(0.0,)))),
        S(
            p + "view_mechanism",
            # any finite rewards (worst_case_privacy_loss enumerates an arbitrary alphabet)
            dict(
                policy=VIEW_POLICY,
                rewards=REWARDS01.but(
                    edge=(EMPTY, np.zeros(40), np.array([1.5, -0.5])),
                    drop_bad=(np.array([1.5]), np.array([-0.5])),
                ),
                K=size(1, 3),
            ),
        ),
        S(
            p + "table_mechanism",
            dict(
                policy=VIEW_POLICY,
                table=Kind(
                    st.sampled_from([np.zeros((3, 2)), np.eye(3), np.ones((2, 4))]),
                    edge=(np.zeros((40, 2)), np.zeros((0, 2))),
                    bad=(np.array([[NAN, 0.0]]), "x", None, np.array([[INF, 0.0]])),
                ),
            ),
        ),
        S(
            p + "adaptive_view",
            dict(
                policy=VIEW_POLICY,
                adversary=Kind(st.just(Build.of("fuzz_specs:constant_adversary", 1.0, 0.0)), bad=("x", None)),
                t_star=size(1, 3),
                b=Kind(st.sampled_from(["L", "R"]), bad=("x", None, 1)),
                K=size(1, 3),
                T=size(3, 5),
            ),
        ),
        S(
            p + "pure_privacy_loss",
            dict(
                p=Kind(st.just(np.array([0.25, 0.75]))),
                q=Kind(
                    st.sampled_from([np.array([0.5, 0.5]), np.array([0.0, 1.0])]),
                    bad=(np.array([NAN, 1.0]), np.array([-0.5, 1.5]), "x", None, np.array([0.5, 0.25, 0.25])),
                ),
            ),
            inf_ok=True,
        ),
        S(
            p + "worst_case_privacy_loss",
            dict(
                policy=VIEW_POLICY,
                K=size(1, 3, edge_extra=(1000,)),
                T=size(1, 4, edge_extra=(1000,)),
                model=Kind(st.sampled_from(["view", "table", "adaptive"]), bad=("nope", None, 3)),
                alphabet=alphabet,
            ),
            timeout=30,
        ),
        S(
            p + "continual_release",
            dict(
                rewards=REWARDS01.but(edge=()),
                starts=starts,
                eps=EPS_FINITE,
                rng=RNG,
                size=size(1, 10, optional=True),
            ),
        ),
        S(p + "phase_releases", dict(running=REALS.but(add_bad=(EMPTY,)))),
        S(
            p + "continual_release_log_density",
            dict(
                o=o_phases,
                rewards=Kind(st.just(np.array([1.0, 0.0, 1.0])), bad=REWARDS01.bad),
                starts=starts,
                eps=EPS_FINITE,
            ),
            inf_ok=True,
        ),
        S(
            p + "continual_release_log_ratio",
            dict(
                o=o_phases,
                rewards=Kind(st.just(np.array([1.0, 0.0, 1.0])), bad=REWARDS01.bad),
                rewards_prime=Kind(st.just(np.array([1.0, 1.0, 1.0])), bad=REWARDS01.bad),
                starts=starts,
                eps=EPS_FINITE,
            ),
        ),
    ]
    bt = "dpb.batching:"
    n0 = size(1, 20, optional=True)
    galpha = Kind(
        st.sampled_from([1.1, 1.5, 2, 3, 1.001]) | st.floats(1.001, 10),
        edge=(1.0 + 1e-9, 1.0001, 1e300, 2**63),
        bad=(NAN, INF, 1.0, 0.5, -2.0, "x", None, True),
        optional=True,
    )
    power = Kind(
        st.sampled_from([0.5, 1, 2, 3]) | st.floats(0.1, 5),
        edge=(1e-300, 5e-324, 1e-3, 1e300),
        bad=(NAN, INF, 0.0, -1.0, "x", None, True),
        optional=True,
    )
    geo = Kind(
        st.sampled_from([1.5, 2, 3]).map(lambda a: Build.of(bt + "GeometricSchedule", 1, a))
        | st.just(Build.of(bt + "DoublingSchedule", 2))
        | st.sampled_from([1e-3, 0.5, 2]).map(lambda q: Build.of(bt + "PolynomialSchedule", 1, q))
        | st.just(Build.of(bt + "GeometricSchedule", 1, 1.001))
    )
    count = size(0, 40)
    specs += [
        S(bt + "GeometricSchedule", dict(n0=n0, alpha=galpha)),
        S(bt + "DoublingSchedule", dict(n0=n0)),
        S(bt + "PolynomialSchedule", dict(n0=n0, power=power)),
        S(bt + "batch_sizes", dict(n0=n0.but(optional=False), alpha=galpha.but(optional=False), count=count)),
        S(
            bt + "cumulative_sizes",
            dict(n0=n0.but(optional=False), alpha=galpha.but(optional=False), count=count),
        ),
        S(
            bt + "make_schedule",
            dict(
                schedule=Kind(
                    st.sampled_from(
                        [None, "geometric", "doubling", "polynomial", {"kind": "polynomial", "power": 2}]
                    ),
                    bad=("nope", 3, {"kind": "nope"}),
                    optional=True,
                ),
                n0=n0,
                alpha=galpha,
            ),
        ),
        S(bt + "BatchSchedule.sizes_until", dict(self=geo, total=size(0, 10**6)), positional=("self",)),
        S(bt + "BatchSchedule.sizes", dict(self=geo, count=count), positional=("self",)),
        S(bt + "BatchSchedule.cumulative", dict(self=geo, count=count), positional=("self",)),
    ]
    e = "dpb.environments:"
    bandit = Kind(
        st.sampled_from([(0.7, 0.5), (0.9, 0.1, 0.3)]).map(lambda m: Build.of(e + "BernoulliBandit", m))
    )
    specs += [
        S(
            e + "BernoulliBandit",
            dict(means=MEANS, name=Kind(st.sampled_from([None, "a"]), bad=(3, True), optional=True)),
        ),
        S(e + "instance", dict(name=INSTANCE)),
        S(e + "instance_names", {}),
        S(e + "as_bandit", dict(env=ENV)),
        S(
            e + "BernoulliBandit.regret",
            dict(
                self=bandit,
                pulls=Kind(
                    st.sampled_from([np.array([3, 4]), np.array([[1, 2], [0, 0]])]),
                    bad=(np.array([1.0, NAN]), np.array([-1, 2]), "x", None),
                ),
            ),
            positional=("self",),
        ),
        S(
            e + "BernoulliBandit.pull",
            dict(
                self=bandit,
                arm=size(0, 1),
                n=size(0, 1000),
                rng=Kind(st.just(Build.of("numpy.random:default_rng", 1)), bad=("x", None, 3)),
            ),
            positional=("self",),
        ),
    ]
    i = "dpb.interaction:"
    iruns = size(1, 30)
    specs += [
        S(
            i + "ListAdversary",
            dict(
                rewards=REWARDS01.but(edge=(EMPTY,)),
                rewards_right=REWARDS01.but(edge=(), optional=True, drop_bad=(None,)),
            ),
        ),
        S(
            i + "TableAdversary",
            dict(
                table=Kind(
                    st.sampled_from([np.zeros((3, 2)), np.eye(2)]),
                    bad=(np.array([[NAN, 0]]), np.array([[1.5, 0]]), "x", None, np.zeros(3)),
                ),
                table_right=Kind(st.just(None), optional=True),
            ),
        ),
        S(
            i + "FunctionAdversary",
            dict(
                fn=Kind(st.just(Build.of("fuzz_specs:constant_adversary", 1.0, 0.0)), bad=("x", None, 3)),
                name=Kind(st.just("f"), optional=True),
            ),
        ),
        S(i + "LeaderAdversary", {}),
        S(
            i + "run_generators_fast",
            dict(seed=SEED.but(optional=False), runs=size(1, 10), offset=size(0, 10, optional=True)),
        ),
        S(
            i + "run_on_list",
            dict(
                policy=Kind(st.sampled_from(["DP-IMED", "DP-KLUCB"]), bad=("DP-NOPE", 3, None)),
                rewards=REWARDS01.but(edge=(EMPTY,)),
                runs=iruns,
                seed=SEED,
                K=size(2, 4, optional=True),
                params=Kind(
                    st.sampled_from([{"eps": 1.0}, {"eps": 0.5, "alpha": 1.5}]),
                    bad=({"eps": NAN}, {"eps": "x"}, {"alpha": "2", "eps": 1.0}),
                    optional=False,
                ),
                offset=size(0, 10, optional=True),
            ),
            weight=SMALL_EXAMPLES,
        ),
        S(
            i + "run_game",
            dict(
                policy=Kind(st.sampled_from(["DP-IMED", "DP-KLUCB"]), bad=("DP-NOPE", 3, None)),
                adversary=Kind(
                    st.sampled_from(
                        [Build.of(i + "LeaderAdversary"), Build.of(i + "ListAdversary", (1.0, 0.0, 1.0, 1.0))]
                    ),
                    bad=("x", None, 3),
                ),
                t_star=size(1, 4),
                b=Kind(st.sampled_from(["L", "R"]), bad=("x", None)),
                runs=iruns,
                T=size(4, 8),
                seed=SEED,
                params=Kind(st.just({"eps": 1.0})),
            ),
            weight=SMALL_EXAMPLES,
        ),
        S(
            i + "neighbouring_list",
            dict(
                rewards=REWARDS01.but(edge=(EMPTY,)),
                t_star=size(1, 3),
                value=Kind(st.sampled_from([0.0, 1.0, None]), bad=(NAN, 1.5, -1.0, "x", INF), optional=True),
            ),
        ),
        S(i + "phase_of_step", dict(transcript=TRANSCRIPT, step=size(1, 6))),
        S(
            i + "Transcript.counts",
            dict(self=TRANSCRIPT.but(bad=()), upto=size(1, 6, optional=True)),
            positional=("self",),
        ),
        S(
            i + "Transcript.decision_after",
            dict(self=TRANSCRIPT.but(bad=()), step=size(0, 5)),
            positional=("self",),
        ),
    ]
    a = "dpb.audit:"
    eps_audit = EPS.but(optional=True, drop_bad=(None,))  # None: the policy's own eps
    specs += [
        S(
            a + "clopper_pearson",
            dict(successes=size(0, 10), n=size(10, 20), level=LEVEL, side=SIDE.but(optional=False)),
        ),
        S(
            a + "event_family",
            dict(
                tr=TRANSCRIPT,
                t_star=size(1, 6),
                horizons=Kind(st.sampled_from([None, (2, 4)]), bad=("x", (NAN,), (-1,)), optional=True),
            ),
        ),
        S(
            a + "audit",
            dict(
                tr1=TRANSCRIPT,
                tr2=TRANSCRIPT_PRIME,
                t_star=size(1, 6),
                eps=eps_audit,
                confidence=LEVEL.but(optional=True),
                method=Kind(st.sampled_from(["split", "bonferroni"]), bad=("nope", None, 3), optional=True),
                max_atoms=size(1, 64, optional=True),
            ),
        ),
        S(
            a + "audit_lists",
            dict(
                policy=POLICY_OBJ.but(bad=("x", None, 3)),
                rewards=Kind(st.just((1.0, 0.0, 1.0, 1.0))),
                rewards_prime=Kind(st.just((0.0, 0.0, 1.0, 1.0)), bad=((0.0, NAN, 1.0, 1.0),)),
                runs=size(20, 60),
                seed=SEED,
                eps=eps_audit,
                confidence=LEVEL.but(optional=True),
            ),
            weight=SMALL_EXAMPLES,
        ),
        S(
            a + "audit_policy",
            dict(
                policy=Kind(
                    st.sampled_from(["DP-IMED", "DP-KLUCB [no-noise]"]).map(
                        lambda nm: Build.of(a + "make_audit_policy", nm, 1.0)
                    ),
                    bad=("x", None, 3),
                ),
                runs=size(20, 60),
                T=size(4, 8),
                t_star=size(1, 4),
                pattern=Kind(
                    st.sampled_from(["ones", "zeros", "alternate"]), bad=("nope", None, 3), optional=True
                ),
                seed=SEED,
            ),
            weight=SMALL_EXAMPLES,
        ),
        S(
            a + "audit_lists_default",
            dict(
                T=size(2, 30),
                t_star=size(1, 2),
                pattern=Kind(
                    st.sampled_from(["ones", "zeros", "alternate"]), bad=("nope", None, 3), optional=True
                ),
            ),
        ),
        S(
            a + "broken_policy",
            dict(
                flaw=Kind(
                    st.sampled_from(["no-noise", "small-noise", "reused-noise", "fresh-mean-noise"]),
                    bad=("nope", None, 3),
                ),
                base=Kind(st.sampled_from(["DP-IMED", "DP-KLUCB"]), bad=("DP-NOPE", None, 3), optional=True),
                eps=EPS_FINITE,
            ),
        ),
        S(a + "audit_policy_names", {}),
        S(
            a + "make_audit_policy",
            dict(
                name=Kind(st.sampled_from(["DP-IMED", "DP-SE", "DP-IMED [no-noise]"]), bad=("nope", None, 3)),
                eps=EPS_FINITE,
            ),
        ),
        S(
            a + "prefix_law_test",
            dict(
                tr1=TRANSCRIPT,
                tr2=TRANSCRIPT_PRIME,
                upto=size(1, 6),
                min_expected=POSITIVE.but(optional=True, add_edge=(0.0,), drop_bad=(0.0,)),
            ),
            nan_ok=True,
        ),
    ]
    # ------------------------------------------------------------ policies and simulation
    pol = "dpb.policies:"
    pol_eps = EPS_INF_OK.but(add_edge=(INF,))
    dpalpha = Kind(
        st.sampled_from([1.1, 1.5, 2, 3]),
        edge=(1.0001, 1e300, 2**63),
        bad=(NAN, INF, 1.0, 0.5, "2", None, True),
        optional=True,
    )
    specs += [
        S(pol + "DPKLUCB", dict(eps=pol_eps, n0=size(1, 10, optional=True), alpha=dpalpha)),
        S(pol + "DPIMED", dict(eps=pol_eps, n0=size(1, 10, optional=True), alpha=dpalpha)),
        S(
            pol + "DPSE",
            dict(
                eps=pol_eps,
                beta=Kind(st.sampled_from([None, 0.1, 0.01]), bad=(NAN, 0.0, 1.5, "x", True), optional=True),
            ),
        ),
        S(
            pol + "AdaPKLUCB",
            dict(
                eps=pol_eps,
                alpha=Kind(st.sampled_from([3.1, 4.0]), bad=(NAN, "x", None, True, -1.0), optional=True),
            ),
        ),
        S(
            pol + "AdaPUCB",
            dict(
                eps=pol_eps,
                alpha=Kind(st.sampled_from([3.1, 4.0]), bad=(NAN, "x", None, True, -1.0), optional=True),
            ),
        ),
        S(
            pol + "LazyDPTS",
            dict(
                eps=pol_eps,
                c=Kind(st.sampled_from([3.0, 1.0, 0.0]), bad=(NAN, INF, "x", None, True), optional=True),
            ),
        ),
        S(pol + "IMED", {}),
        S(
            pol + "KLUCB",
            dict(c=Kind(st.sampled_from([0.0, 3.0]), bad=(NAN, INF, -1.0, "x", None, True), optional=True)),
        ),
        S(
            pol + "make_policy",
            dict(name=POLICY_NAME.but(bad=("DP-NOPE", 3, None, True)), eps=EPS.but(optional=True)),
        ),
        S(pol + "policy_names", {}),
    ]
    sim = "dpb.simulate:"
    private_params = Kind(
        st.sampled_from([{"eps": 0.5}, {"eps": 1.0}, {"eps": 0.25}]),
        edge=({"eps": 5e-324}, {"eps": 1e-300}, {"eps": 1e300}, {"eps": INF}),
        bad=({"eps": NAN}, {"eps": "x"}, {"eps": -1.0}, {"eps": 0.5, "alpha": "2"}, {"eps": True}),
    )
    sim_T = size(1, 3000, edge_extra=(2**62 + 1,))
    sim_T = sim_T.but(edge=tuple(v for v in sim_T.edge if not (isinstance(v, int) and 2**31 <= v < 2**62)))
    specs += [
        S(
            sim + "simulate",
            dict(
                policy=Kind(
                    st.sampled_from(["DP-IMED", "DP-KLUCB", "DP-SE", "AdaP-KLUCB", "Lazy-DP-TS"]),
                    bad=("DP-NOPE", 3, None),
                ),
                env=ENV,
                T=sim_T,
                runs=size(1, 8, optional=True),
                seed=SEED,
                params=private_params,
            ),
            weight=SMALL_EXAMPLES,
            timeout=60,
        ),
        S(
            sim + "simulate_trace",
            dict(
                policy=Kind(st.sampled_from(["DP-IMED", "DP-KLUCB"]), bad=("DP-NOPE", 3, None)),
                env=ENV,
                T=size(1, 500),
                seed=SEED,
                params=private_params,
            ),
            weight=SMALL_EXAMPLES,
        ),
        S(
            sim + "checkpoint_grid",
            dict(T=size(1, 10**6), n_log=size(1, 200, optional=True), n_linear=size(1, 200, optional=True)),
        ),
        S(
            sim + "child_seeds",
            dict(
                seed=SEED.but(optional=False),
                run_ids=Kind(
                    st.sampled_from([(0, 1, 2), np.arange(5)]),
                    edge=(np.arange(0), (2**63,)),
                    bad=((-1,), (1.5,), "x", None),
                ),
            ),
        ),
        S(
            "dpb.reference:reference_simulate",
            dict(
                policy=Kind(st.sampled_from(["DP-IMED", "DP-KLUCB", "IMED"]), bad=("DP-NOPE", 3, None)),
                env=ENV,
                T=size(1, 300, edge_extra=(2**62 + 1,)).but(edge=(0, 2**62 + 1, 10**30)),
                runs=size(1, 3, optional=True),
                seed=SEED,
                params=Kind(st.just({"eps": 1.0}), bad=({"eps": NAN}, {"eps": "x"})),
            ),
            weight=SMALL_EXAMPLES,
            timeout=60,
        ),
    ]
    # ------------------------------------------------------------ computations behind the figures
    mrule = Kind(st.sampled_from(["log n", "1", "sqrt n", "n/20"]), bad=("nope", None, 3), optional=True)
    design = Kind(st.sampled_from(["accumulate", "forget"]), bad=("nope", None, 3), optional=True)
    npulls = Kind(
        st.integers(20, 10**5) | arrays(st.integers(20, 10**5), 1, 4),
        edge=(2**62, 10**30, np.array([1]), EMPTY),
        bad=(NAN, "x", None, True, -5, 1.5),
    )
    specs += [
        S(
            "dpb.coupling:pulling_rule",
            dict(
                name=Kind(
                    st.sampled_from(["uniform", "random rate", "follow the leader"]), bad=("nope", None, 3)
                )
            ),
        ),
        S(
            "dpb.coupling:coupled_runs",
            dict(
                mu1=PROB_SCALAR.but(optional=True),
                mu2=PROB_SCALAR.but(optional=True),
                mu2_prime=PROB_SCALAR.but(optional=True),
                policy=Kind(
                    st.sampled_from(["uniform", "random rate", "follow the leader"]),
                    bad=("nope", None, 3),
                    optional=True,
                ),
                horizon=size(1, 300, optional=True),
                n_runs=size(1, 30, optional=True),
                seed=SEED,
            ),
            weight=SMALL_EXAMPLES,
        ),
        S(
            "dpb.coupling:binned_means",
            dict(
                x=Kind(st.just(np.arange(20.0)), bad=(np.array([NAN] * 20), "x", None)),
                y=Kind(st.just(np.linspace(0, 1, 20)), bad=("x", None, np.zeros(3))),
                n_bins=size(1, 30, optional=True),
            ),
            nan_ok=True,
        ),
        S("dpb.concentration:m_of_n", dict(n=size(1, 10**6), rule=mrule)),
        S(
            "dpb.concentration:tail_contributions",
            dict(
                x=Kind(st.floats(0, 50), bad=(NAN, INF, -1.0, *NOT_NUMBERS)),
                n=size(1, 100),
                m=size(0, 10),
                mu=mu,
                eps=EPS_FINITE,
            ),
            inf_ok=True,
        ),
        S(
            "dpb.concentration:tail_comparison",
            dict(
                x=Kind(st.floats(0, 30), bad=(NAN, INF, -1.0, *NOT_NUMBERS)),
                n=size(1, 40),
                m=size(0, 5),
                mu=mu,
                eps=EPS_FINITE,
                runs=size(1, 2000, optional=True),
                seed=SEED,
                confidence=LEVEL.but(optional=True),
            ),
            inf_ok=True,
            weight=SMALL_EXAMPLES,
        ),
        S(
            "dpb.concentration:exponent_curves",
            dict(
                x=Kind(st.floats(0.5, 1.0), bad=(NAN, INF, -1.0, *NOT_NUMBERS)),
                mu=mu,
                eps=EPS_FINITE,
                m_rule=mrule,
                ns=Kind(
                    st.sampled_from([None, (10, 100), np.array([20, 200])]),
                    edge=((2**62,), (10**9,)),
                    bad=((0,), (-1,), ("x",), (1.5,)),
                    optional=True,
                ),
            ),
            inf_ok=True,
            weight=SMALL_EXAMPLES,
        ),
        S("dpb.batching:private_mean_composition", dict(n=npulls, n0=n0, alpha=galpha, design=design)),
        S(
            "dpb.batching:noise_std_of_private_mean",
            dict(n=npulls, n0=n0, alpha=galpha, eps=EPS_FINITE.but(optional=True), design=design),
        ),
        S(
            "dpb.batching:noise_monte_carlo",
            dict(
                n=npulls,
                n0=n0,
                alpha=galpha,
                eps=EPS_FINITE.but(optional=True),
                design=design,
                runs=size(1, 2000, optional=True),
                seed=SEED,
            ),
            weight=SMALL_EXAMPLES,
        ),
        S(
            "dpb.batching:forgetting_comparison",
            dict(
                n0=n0,
                alpha=galpha,
                eps=EPS_FINITE.but(optional=True),
                mu=PROB_SCALAR.but(optional=True),
                x=PROB_SCALAR.but(optional=True),
                n_max=size(20, 5000, optional=True),
                runs=size(1, 500, optional=True),
                seed=SEED,
            ),
            weight=SMALL_EXAMPLES,
        ),
        S("dpb.batching:phases_to_reach", dict(n=npulls, schedule=geo.but(bad=("x", None, 3)))),
        S(
            "dpb.batching:schedule_comparison",
            dict(
                n0=n0,
                alpha=galpha,
                power=power,
                n_max=size(10, 10**7, optional=True),
                points=size(2, 200, optional=True),
            ),
        ),
        S("dpb.audit:private_policies", {}),
        S("dpb.reference:reference_policies", {}),
        S("dpb.policies:policy_class", dict(policy=POLICY_NAME)),
        S("dpb.policies:policy_style", dict(policy=POLICY_NAME)),
        S(
            "dpb.policies:registered",
            dict(
                private=Kind(st.sampled_from([None, True, False]), optional=True),
                reference=Kind(st.sampled_from([None, True, False]), optional=True),
            ),
        ),
        S("dpb.policies:as_policy", dict(policy=POLICY_NAME, params=private_params.but(optional=True))),
        S("dpb.policies:DPUCB", dict(eps=pol_eps, n0=size(1, 10, optional=True), alpha=dpalpha)),
    ]
    reg = "dpb.regret:"
    specs += [
        S(reg + "asymptotic_constants", dict(mu=MEANS, eps=EPS_INF_OK, alpha=alpha), inf_ok=True),
        S(
            reg + "horizon_grid",
            dict(T=size(100, 10**8), n=size(2, 100, optional=True), t_min=size(1, 100, optional=True)),
        ),
        S(
            reg + "mean_overshoot",
            dict(
                alpha=Kind(
                    scalar_or_array(st.floats(1.01, 10)),
                    edge=(1.0, 1e300),
                    bad=(NAN, 0.5, INF, "x", None, True),
                )
            ),
        ),
        S(
            reg + "schedule_profile",
            dict(
                schedule=geo.but(bad=("x", None, 0.5)),
                n=Kind(
                    arrays(st.integers(1, 10**6), 1, 5),
                    edge=(np.array([2**62]), np.array([0])),
                    bad=(np.array([1.5]), np.array([-1]), "x", None),
                ),
            ),
        ),
    ]
    ex = "dpb.experiments:"
    eT = size(1, 10**7, edge_extra=(2**62 + 1,))
    specs += [
        S(ex + "sweep_eps_values", dict(n_eps=size(1, 200, optional=True))),
        S(ex + "paper_params", dict(policy=POLICY_NAME, eps=EPS.but(optional=True, drop_bad=(None,)))),
        S(
            ex + "figure1",
            dict(T=eT.but(optional=True), runs=size(1, 100, optional=True), eps=EPS.but(optional=True)),
        ),
        S(
            ex + "appendix",
            dict(
                T=eT.but(optional=True),
                runs=size(1, 100, optional=True),
                eps_values=Kind(
                    st.sampled_from([(0.1, 1.0), (0.5,)]), bad=((NAN,), ("x",), (-1.0,)), optional=True
                ),
            ),
        ),
        S(
            ex + "eps_sweep",
            dict(
                T=eT.but(optional=True),
                runs=size(1, 100, optional=True),
                n_eps=size(1, 200, optional=True),
                alpha=Kind(st.sampled_from([1.1, 2.0]), bad=(NAN, 0.5, "x", None, True), optional=True),
            ),
        ),
        S(
            ex + "experiment",
            dict(
                name=Kind(st.sampled_from(["fig1", "appendix", "eps-sweep"]), bad=("nope", None, 3)),
                T=eT.but(optional=True, drop_bad=(None,)),
                runs=size(1, 100, optional=True),
                n_eps=size(1, 200, optional=True),
            ),
        ),
    ]
    # a bad entry of a params dict is named by its key ("eps must lie in ...")
    for spec in specs:
        if "params" in spec.params:
            spec.aliases.setdefault("params", ("parameters", "eps", "alpha"))
        if "eps_values" in spec.params:
            spec.aliases.setdefault("eps_values", ("eps",))
        # the teaching trace marks "no noise drawn / index not defined yet" with NaN
        if spec.target == "dpb.simulate:simulate_trace":
            spec.nan_ok = True
    # the empirical ratio eps_hat of an audit is +inf when the chosen event never happens under
    # one of the inputs (e.g. a policy without noise): a meaningful infinite value
    for spec in specs:
        if spec.target in ("dpb.audit:audit", "dpb.audit:audit_lists", "dpb.audit:audit_policy"):
            spec.inf_ok = True
    return specs


def constant_adversary(left: float, right: float):
    """A reward-feeding adversary for :func:`dpb.privacy.adaptive_view`: always ``(left, right)``."""

    def adversary(actions):
        return left, right

    return adversary


SPECS = module_specs()

#: Public names of the fuzzed modules that have no spec, with the reason.
FUZZED_MODULES_CORE = (
    "dpb.divergences",
    "dpb.bounds",
    "dpb.coupling",
    "dpb.concentration",
    "dpb.privacy",
    "dpb.batching",
    "dpb.environments",
    "dpb.interaction",
    "dpb.audit",
)
FUZZED_MODULES = FUZZED_MODULES_CORE + (
    "dpb.policies",
    "dpb.simulate",
    "dpb.reference",
    "dpb.regret",
    "dpb.experiments",
)
_RUNNER = "process/cache machinery of the sweeps, rewritten this session by the runner (CLI tests)"
_SLOW = "runs simulations of minutes by design (cached book runs); its pieces are fuzzed"
#: Modules whose unspecified public names are process machinery (sweeps, cache, locks, Dask),
#: owned and tested by the CLI/experiment tests; only their pure spec builders are fuzzed here.
MACHINERY_MODULES = {
    "dpb.experiments": "sweep/cache/process machinery, tested by tests/test_cli.py and "
    "tests/test_experiments.py; the pure spec builders are fuzzed"
}
NOT_FUZZED = {
    "dpb.policies.Policy": "abstract base class (its subclasses are fuzzed)",
    "dpb.policies.POLICIES": "a constant",
    "dpb.simulate.Result": "a record of simulate's output",
    "dpb.simulate.Trace": "a record of simulate_trace's output",
    "dpb.simulate.simulate_seeds": "the seed-level engine behind simulate (fuzzed through simulate)",
    "dpb.simulate.run_generators": "takes a SeedSequence from child_seeds (internal plumbing)",
    "dpb.reference.reference_run": "the per-run step of reference_simulate (fuzzed through it)",
    "dpb.reference.ReferenceBandit": "the literal environment inside reference_run (fuzzed through it)",
    "dpb.policies.Recorder": "the protocol a simulation passes to a policy's fast path (internal)",
    "dpb.policies.BatchedPrivatePolicy": "abstract base of the batched private policies (subclasses fuzzed)",
    "dpb.policies.load_policy": "imports user code from a file (bring-your-own policy): not fed random paths",
    "dpb.coupling.follow_the_leader": "a pulling rule of simulate_coupled_environment (fuzzed through it)",
    "dpb.regret.TERMS": "a constant",
    "dpb.regret.DEFAULTS": "a constant",
    "dpb.regret.POLYNOMIAL": "a constant",
    "dpb.regret.DecomposedRuns": "a record of decompose_runs' output",
    "dpb.regret.decompose_runs": _SLOW,
    "dpb.regret.cached_runs": _SLOW,
    "dpb.regret.alpha_tradeoff": _SLOW,
    "dpb.regret.book_runs": _SLOW,
    "dpb.regret.pull_summary": "takes a DecomposedRuns (a record of a slow run)",
    "dpb.regret.regret_quantiles": "takes a DecomposedRuns (a record of a slow run)",
    "dpb.regret.imed_optimal_index": "takes a DecomposedRuns (a record of a slow run)",
    "dpb.regret.cache_dir": _RUNNER,
    "dpb.regret.cache_key": _RUNNER,
    "dpb.coupling.TransportCost": "a NamedTuple of results",
    "dpb.coupling.OptimalIntermediate": "a NamedTuple of results",
    "dpb.coupling.PureRoutes": "a NamedTuple of results",
    "dpb.coupling.CoupledHistory": "a record of simulate_coupled_environment's output",
    "dpb.privacy.MAX_ENUMERATION": "a constant",
    "dpb.batching.BatchSchedule": "abstract; its methods are fuzzed through the concrete schedules",
    "dpb.environments.INSTANCES": "a constant",
    "dpb.interaction.Transcript": "a record produced by run_on_list/run_game; its methods are fuzzed",
    "dpb.interaction.Adversary": "abstract base class",
    "dpb.audit.AuditResult": "a record of audit's output",
    "dpb.audit.FLAWS": "a constant",
    "dpb.audit.BROKEN_CLASSES": "a constant",
}
