"""Argument specs of the public API of ``dpb`` for the fuzz harness (``tests/fuzz_harness.py``).

A :class:`Kind` describes one parameter: good values (a hypothesis strategy), edge values (a valid
result or a clean error are both fine) and bad values (must be refused with an error naming the
parameter).  A :class:`Spec` lists the kinds of a callable's parameters.  ``tests/test_fuzz.py``
checks that every public callable (every function and class on the API pages, see
``fuzz_harness.public_api``) has a spec here or a reason in :data:`NOT_FUZZED`.
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
    def allowed_errors(self) -> tuple:
        return ALLOWED_ERRORS.get(self.target, ())

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


def schedule_alpha(*good) -> Kind:
    """The exponent alpha > 1 of a batch schedule (optional), good values ``good``."""
    bad = (NAN, INF, 1.0, 0.5, *NOT_NUMBERS)
    return Kind(st.sampled_from(good), edge=(1.001, 1e300), bad=bad, optional=True)


def schedule_power(*good) -> Kind:
    """The power > 0 of a polynomial batch schedule (optional), good values ``good``."""
    bad = (NAN, INF, 0.0, -1.0, *NOT_NUMBERS)
    return Kind(st.sampled_from(good), edge=(1e-3, 1e300), bad=bad, optional=True)


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
#: a boolean flag: anything but True/False (and numpy bools) is refused, never read by truthiness
FLAG = Kind(st.booleans(), bad=("no", 2, NAN, None), optional=True)
NO_PROGRESS = Kind(st.just(False), bad=FLAG.bad, optional=True)

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
            sim + "warm_kernels",
            # policies with and without kernels (loaded from numba's disk cache); an
            # unregistered name warms nothing (documented); None (all policies) is left to `dpb compile`
            dict(policy=Kind(st.sampled_from(["DP-SE", "Lazy-DP-TS", "DP-UCB", "IMED"]), edge=("DP-NOPE", ""),
                             bad=(3, True, 1.5, b"IMED"))),
            weight=SMALL_EXAMPLES,
            timeout=120,
        ),
        S(
            sim + "estimate_cost",
            dict(
                policy=Kind(
                    st.sampled_from(["DP-IMED", "DP-KLUCB", "DP-SE", "IMED", "Lazy-DP-TS"]),
                    bad=("DP-NOPE", 3, None),
                ),
                env=ENV,
                T=size(1, 10**12, edge_extra=(2**62 + 1,)),
                runs=size(1, 10**6, optional=True),
                params=private_params.but(optional=True),
                fast=FLAG,
                engine=Kind(st.sampled_from([None, "reference"]), bad=("nope", 3), optional=True),
            ),
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
            "dpb.chapters.lower_bound:pulling_rule",
            dict(
                name=Kind(
                    st.sampled_from(["uniform", "random rate", "follow the leader"]), bad=("nope", None, 3)
                )
            ),
        ),
        S(
            "dpb.chapters.lower_bound:coupled_runs",
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
            "dpb.chapters.lower_bound:binned_means",
            dict(
                x=Kind(st.just(np.arange(20.0)), bad=(np.array([NAN] * 20), "x", None)),
                y=Kind(st.just(np.linspace(0, 1, 20)), bad=("x", None, np.zeros(3))),
                n_bins=size(1, 30, optional=True),
            ),
            nan_ok=True,
        ),
        S("dpb.chapters.concentration:m_of_n", dict(n=size(1, 10**6), rule=mrule)),
        S(
            "dpb.chapters.concentration:tail_contributions",
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
            "dpb.chapters.concentration:tail_comparison",
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
            "dpb.chapters.concentration:exponent_curves",
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
        S(
            "dpb.chapters.concentration:rates_against_eps",
            dict(x=UNIT.but(optional=True), mu=UNIT.but(optional=True), n=size(1, 10**6, optional=True)),
        ),
        S(
            "dpb.chapters.algorithms:private_mean_composition",
            dict(n=npulls, n0=n0, alpha=galpha, design=design),
        ),
        S(
            "dpb.chapters.algorithms:noise_std_of_private_mean",
            dict(n=npulls, n0=n0, alpha=galpha, eps=EPS_FINITE.but(optional=True), design=design),
        ),
        S(
            "dpb.chapters.algorithms:noise_monte_carlo",
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
            "dpb.chapters.algorithms:forgetting_comparison",
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
            "dpb.chapters.algorithms:schedule_comparison",
            dict(
                n0=n0,
                alpha=galpha,
                power=power,
                n_max=size(10, 10**7, optional=True),
                points=size(2, 200, optional=True),
            ),
        ),
        S(
            "dpb.chapters.algorithms:formula_sizes",
            dict(n0=size(1, 20), alpha=galpha.but(optional=False), count=size(1, 200)),
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


# ---------------------------------------------------------------------------------------------
# the worker's environment, temporary paths and small ready-made inputs (built inside the worker)
# ---------------------------------------------------------------------------------------------

#: Exceptions a callable documents as its answer to a valid request it cannot serve (besides
#: ValueError/TypeError): ``load`` of results that were never computed.
ALLOWED_ERRORS = {
    "dpb.experiments:load": ("MissingResultsError",),
    "dpb.experiments:load_converged": ("MissingResultsError",),
    # no Dask scheduler listens at the fuzzed address: the documented answer within the timeout
    "dpb.experiments:connect": ("ConnectionError",),
}

#: The book's regret runs (``dpb.regret.DEFAULTS``: T = 1e8, 400 runs, minutes when cold) are
#: shrunk in the worker so that the figures and explorers drawing them answer in about a second;
#: their arguments are what is fuzzed, not the size of the runs.
SMALL_REGRET_DEFAULTS = {"T": 3000, "runs": 6}


def worker_setup() -> None:
    """Run once in each fuzz worker before the first call."""
    import matplotlib

    matplotlib.use("Agg")
    from dpb import regret

    regret.DEFAULTS.update(SMALL_REGRET_DEFAULTS)


def after_call() -> None:
    """Run after each call in the worker: close the figures a plotting function left open."""
    import sys

    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close("all")


def _tmp_root():
    import os
    import tempfile
    from pathlib import Path

    root = os.environ.get("DPB_FUZZ_TMP")
    if not root:  # called outside the harness' worker: a directory of its own
        root = os.environ["DPB_FUZZ_TMP"] = tempfile.mkdtemp(prefix="dpb-fuzz-")
    return Path(root)


def tmp_path(kind: str = "empty"):
    """A fresh path inside the worker's temporary directory.

    ``empty`` (a new directory), ``missing`` (a path whose parent does not exist either), ``file``
    (a regular file), ``under-file`` (a path below a regular file), ``unwritable`` (a directory
    with mode 0o500; writable anyway for root), ``garbage`` (a file of bytes that are no archive),
    ``orphans`` (a directory holding an orphaned temporary file of a killed writer).
    """
    import tempfile

    d = __import__("pathlib").Path(tempfile.mkdtemp(dir=_tmp_root()))
    if kind == "empty":
        return d
    if kind == "missing":
        return d / "missing" / "deeper"
    if kind in ("file", "under-file"):
        f = d / "file.txt"
        f.write_text("not a directory\n")
        return f if kind == "file" else f / "sub"
    if kind == "unwritable":
        d.chmod(0o500)
        return d
    if kind == "garbage":
        f = d / "cell.npz"
        f.write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)
        return f
    if kind == "orphans":
        (d / "x.npz.999999999.abc.tmp").write_bytes(b"partial")
        (d / "y.npz.notapid.abc.tmp").write_bytes(b"partial")
        return d
    raise ValueError(kind)


def tmp_str(kind: str = "empty") -> str:
    return str(tmp_path(kind))


def package_file(name: str = "plain.py") -> str:
    from pathlib import Path

    import dpb

    return str(Path(dpb.__file__).parent / name)


def policy_file(kind: str = "good") -> str:
    """A bring-your-own policy file: ``good`` (a registered subclass), ``broken`` (a syntax
    error), ``empty`` (no policy class)."""
    d = tmp_path("empty")
    f = d / f"my_policy_{kind}.py"
    text = {
        "good": "from dpb.policies import KLUCB\n\nclass MyKLUCB(KLUCB):\n    name = 'My-KLUCB-{n}'\n",
        "broken": "def (:\n",
        "empty": "x = 1\n",
    }[kind]
    f.write_text(text.replace("{n}", d.name))
    return str(f)


def obj(target: str):
    """The object at ``"module:name"`` itself (a class or function passed as an argument)."""
    from fuzz_harness import resolve

    return resolve(target)


_SMALL = {}


def small_experiment(name: str = "fig1"):
    """One of the paper's experiments at T = 300 with 2 runs (seconds to compute)."""
    from dpb import experiments

    if name == "dpse":
        return experiments.dpse_readings(T=300, runs=2)
    return experiments.experiment(name, T=300, runs=2, **({"n_eps": 3} if name == "eps-sweep" else {}))


def results_dir() -> str:
    """A results directory shared by the calls of one worker (computed once per experiment)."""
    return str(_tmp_root() / "small-results")


def small_results(name: str = "fig1"):
    """:func:`dpb.experiments.ensure` of :func:`small_experiment` (computed once per worker)."""
    from dpb import experiments

    if ("paper", name) not in _SMALL:
        _SMALL["paper", name] = experiments.ensure(
            small_experiment(name), results_dir(), jobs=1, progress=False
        )
    return _SMALL["paper", name]


def small_converged(name: str = "fig1"):
    from dpb import experiments

    if ("converged", name) not in _SMALL:
        _SMALL["converged", name] = experiments.ensure_converged(
            small_experiment(name), results_dir(), jobs=1, progress=False, cap=640
        )
    return _SMALL["converged", name]


def small_cell(policy: str = "DP-IMED"):

    return next(c for c in small_experiment("fig1").cells if c.policy == policy)


def small_result(policy: str = "DP-IMED", env: str = "mu2"):
    return small_results("fig1").setting(0 if env == "mu1" else 1)[policy]


def small_result_map(*policies):
    res = small_results("fig1").setting(1)
    return {p: res[p] for p in (policies or res)}


def seed_sequences(n: int = 3):
    import numpy as np

    return np.random.SeedSequence(7).spawn(n)


def small_result_list():
    return list(small_result_map().values())


def small_rows(kind: str = "sweep"):
    from dpb import experiments

    if kind == "sweep":
        return experiments.expected_sweep_table(small_results("eps-sweep"), small_converged("eps-sweep"))
    return experiments.expected_regret_table(small_results("fig1"), small_converged("fig1"))


def mean_estimate(lo: float = 90.0, hi: float = 110.0):
    from dpb.estimates import MeanEstimate

    return MeanEstimate(runs=40, mean=(lo + hi) / 2, lo=lo, hi=hi, level=0.95)


def a_figure():
    from dpb.plotting import new_figure

    return new_figure()[0]


def a_plot(**values):
    """A plotting function for :func:`dpb.widgets.core.explorer`: a figure titled by the values."""
    fig = a_figure()
    fig.suptitle(repr(sorted(values.items())))
    return fig


def a_plot_function():
    return a_plot


def controls(kind: str = "sliders"):
    import ipywidgets as W

    if kind == "sliders":
        return {"x": W.FloatSlider(value=0.5, min=0, max=1), "n": W.IntSlider(value=3, min=1, max=9)}
    if kind == "empty":
        return {}
    if kind == "not-widgets":
        return {"x": 0.5}
    raise ValueError(kind)


def nothing() -> None:
    """An action for :class:`dpb.widgets.core.Coalescer`."""


def a_widget_list():
    import ipywidgets as W

    return [W.Label("a"), W.IntSlider()]


#: Hostile option values of the command line (``dpb status fig1 ...``); each must be refused with
#: one line naming the option and exit code 2.
CLI_BAD = (
    "runs-huge",
    "runs-nan",
    "horizon-1e400",
    "seed-neg",
    "out-file",
    "n-eps-huge",
    "jobs-zero",
    "scale-nope",
)


def cli_args(command: str, kind: str = "good") -> list:
    out = tmp_str("empty")
    if kind == "good":
        return [command, "fig1", "--out", out] if command == "status" else [command]
    opt = {
        "runs-huge": ["--runs", "1e9"],
        "runs-nan": ["--runs", "nan"],
        "horizon-1e400": ["--horizon", "1e400"],
        "seed-neg": ["--seed", "-1"],
        "out-file": ["--out", tmp_str("file")],
        "n-eps-huge": ["--n-eps", "1e8"],
        "jobs-zero": ["--jobs", "0"],
        "scale-nope": ["--scale", "nope"],
    }[kind]
    return [command, "fig1", "--out", out, *opt]


def an_action():
    return nothing


_RECORD = "a frozen record of results, built only by the function that returns it (no checks by design)"
_FAST = (
    "a policy's fast path: it needs the Recorder object simulate builds for one call and "
    "trusts simulate's checked arguments; fuzzed through simulate with this policy"
)
_STEP = (
    "a per-step primitive of the policies' fast paths: its arrays and generators come from the "
    "policy itself, checking them would slow every step; fuzzed through simulate"
)
#: Public callables of the API pages without a spec, each with the reason it cannot be called in
#: isolation (``tests/test_fuzz.py`` fails on a public callable that has neither).
NOT_FUZZED = {
    "dpb.engine.SeedChildren": "the seed children simulate builds from a checked seed and checked run ids "
                               "(internal value object; simulate and _run_seeds are fuzzed through it)",
    "dpb.engine.run_streams": "the counter-stream driver behind simulate: checked policy, bandit and seeds "
                              "from simulate (fuzzed through simulate); tested in tests/test_streams.py",
    "dpb.engine.uses_streams": "a predicate on a policy object already built by simulate (no input to "
                               "check); tested in tests/test_fast_batched.py",
    "dpb.engine.FastPath": "the protocol of a policy's fast path (a typing.Protocol: nothing to call); "
                           "the paths are fuzzed through simulate",
    "dpb.cache.object_digest": "takes any object by design (the digest of what the interpreter holds); "
                               "tested in tests/test_provenance_numbers.py",
    "dpb.policies.Policy": "abstract base class (its subclasses are fuzzed)",
    "dpb.simulate.Result": "a record of simulate's output",
    "dpb.simulate.Trace": "a record of simulate_trace's output",
    "dpb.policies.Recorder": "the protocol a simulation passes to a policy's fast path (internal)",
    "dpb.engine.Recorder": "the recorder simulate builds for one call and a policy's fast path writes "
    "into (its arrays come from simulate's checked arguments); fuzzed through simulate",
    "dpb.engine.drive": "the driver of the policy protocol: it takes a policy object, its generators and "
    "the callback of its caller (simulate, regret, interaction), which check them; fuzzed through them",
    "dpb.engine.run_phases": "the generic engine: a policy object, generators and a Recorder built by "
    "simulate, decompose_runs and simulate_trace from checked arguments; fuzzed through them",
    "dpb.policies.BatchedPrivatePolicy": "abstract base of the batched private policies (subclasses fuzzed)",
    "dpb.policies.PerStepPolicy": "abstract base of the per-step policies (IMED, KL-UCB: subclasses fuzzed)",
    "dpb.chapters.lower_bound.follow_the_leader": "a per-step pulling rule: its arrays come from "
    "simulate_coupled_environment at every step (fuzzed through it with this rule)",
    "dpb.regret.DecomposedRuns": "a record of decompose_runs' output",
    "dpb.coupling.TransportCost": "a NamedTuple of results",
    "dpb.coupling.OptimalIntermediate": "a NamedTuple of results",
    "dpb.coupling.PureRoutes": "a NamedTuple of results",
    "dpb.coupling.CoupledHistory": "a record of simulate_coupled_environment's output",
    "dpb.batching.BatchSchedule": "abstract; its methods are fuzzed through the concrete schedules",
    "dpb.chapters.experiments.verdict_facts": "takes the four experiments of chapter 7 at both scales; each "
    "summary it reads (dominance, ratio_summary, ordering_table, expected_dominance, sweep_table, "
    "expected_sweep_table) is fuzzed, and tests/test_verdict.py checks it end to end",
    "dpb.chapters.experiments.verdict_table": "formats the dict of verdict_facts (tests/test_verdict.py)",
    "dpb.chapters.experiments.verdict": "takes the four experiments of chapter 7 at both scales and "
    "calls verdict_facts and verdict_table (not fuzzed, see them); tests/test_verdict.py checks it",
    "dpb.chapters.experiments.ratios_by_algorithm": "takes experiments at the converged scale (built "
    "by ensure_converged, fuzzed); tests/test_verdict.py checks its numbers and bad arguments",
    "dpb.chapters.experiments.cost_table": "sums the CPU time recorded in loaded result files "
    "(tests/test_verdict.py checks it and its bad arguments)",
    "dpb.interaction.Transcript": "a record produced by run_on_list/run_game; its methods are fuzzed",
    "dpb.interaction.Adversary": "abstract base class (its subclasses are fuzzed)",
    "dpb.audit.AuditResult": "a record of audit's output",
    "dpb.estimates.MeanEstimate": _RECORD + " (mean_interval)",
    "dpb.experiments.FileExperiment": "a frozen record built by read_experiment and build (read_experiment "
    "is fuzzed)",
    "dpb.experiments.build": "takes the checked spec of read_spec/override, checks it again with the "
    "same code (fuzzed through read_spec and read_experiment)",
    "dpb.experiments.override": "the command line's options on a checked spec; the result goes through "
    "the same check as read_spec (tests/test_cli.py covers the options)",
    "dpb.experiments.experiments_from_options": "the command line's options as plain values; every "
    "experiment goes through override and build, whose check is read_spec's (fuzzed through read_spec "
    "and read_experiment); tests/test_experiments_files.py checks the options and their messages",
    "dpb.experiments.as_experiment": "the target coercion of load (fuzzed through load) and run",
    "dpb.experiments.spec_to_toml": "writes a checked spec; round trip checked in "
    "tests/test_experiments_files.py",
    "dpb.experiments.chunk_reason": "reads result files on disk that a run wrote (tests/test_cli.py "
    "makes a stale one); its arguments are those of chunk_status",
    "dpb.experiments.reasons": "chunk_reason over a target's cells (target checked like status's)",
    "dpb.frames.experiment_rows": "needs computed ExperimentResults (tests/test_frames.py); its rows "
    "are result_rows, fuzzed",
    "dpb.frames.to_frame": "a pandas DataFrame of result_rows' columns (optional dependency)",
    "dpb.frames.write_csv": "writes result_rows' columns to a file (tests/test_frames.py reads it back)",
    "dpb.frames.export": "write_csv or Parquet of result_rows' columns, atomically (tests/test_frames.py)",
    "dpb.experiments.Setting": _RECORD + " (the experiment builders)",
    "dpb.experiments.Experiment": _RECORD + " (figure1, appendix, eps_sweep, experiment)",
    "dpb.experiments.ExperimentResults": _RECORD + " (load, ensure)",
    "dpb.experiments.ConvergedEstimate": _RECORD + " (load_converged)",
    "dpb.experiments.ConvergedResults": _RECORD + " (load_converged, ensure_converged)",
    "dpb.experiments.RunReport": _RECORD + " (run, run_converged)",
    "dpb.experiments.ChunkError": "an exception class raised by run (tests/test_cli.py makes chunks fail)",
    "dpb.experiments.SchedulerLostError": "an exception class raised by run when the Dask scheduler goes "
    "away (tests/test_experiments_dask.py kills one)",
    "dpb.experiments.Backend": "a typing.Protocol (no instances): the methods every backend of run "
    "has; tests/test_experiments_execution.py checks the three backends against it",
    "dpb.plans.PlanError": "the exception class of a bad plan (the user_plan specs below raise it)",
    "dpb.policies.registry.PolicyFileError": "an exception class raised by load_policy (the policy_file "
    "specs load failing files)",
    "dpb.experiments.MissingResultsError": "an exception class raised by load (load of a fresh directory)",
    "dpb.policies.lazy_dpts.simulate_lazy_dpts_fast": _FAST,
    "dpb.policies.base.check_horizon": "the horizon check that Policy.start, simulate and "
    "reference_run share, given their already validated integers K and T; fuzzed through them",
    "dpb.policies.base.pick_max": _STEP,
    "dpb.policies.base.pick_min": _STEP,
    "dpb.policies.base.RunRandom": _STEP,
    "dpb.simulate.Cost": _RECORD + " (estimate_cost)",
    "dpb.policies.nonprivate.simulate_imed_fast": _FAST,
    "dpb.policies.nonprivate.simulate_klucb_fast": _FAST,
}


# ---------------------------------------------------------------------------------------------
# the rest of the public API: plain, tables, estimates, cache, experiments, plotting, widgets,
# the policy registry and helpers, the command line
# ---------------------------------------------------------------------------------------------
def chunk_work():
    """The work of the experiments' worker pool (a function: built, not called, by the harness)."""
    from dpb.experiments.execution import chunk_reply

    return chunk_reply


def B(target: str, *args, **kwargs) -> Build:
    return Build.of(target if ":" in target else "fuzz_specs:" + target, *args, **kwargs)


TEXT = Kind(st.sampled_from(["a", "title"]), bad=(3, True, b"x"), optional=True)
DIR = Kind(
    st.just(B("tmp_str", "empty")) | st.just(B("tmp_path", "empty")),
    edge=(
        B("tmp_str", "missing"),
        B("tmp_str", "unwritable"),
        B("tmp_str", "file"),
        B("tmp_str", "under-file"),
    ),
    bad=(3, 1.5, True, b"x", ["a"]),
)
FILE = Kind(
    st.just(B("package_file", "plain.py")) | st.just(B("package_file", "cache.py")),
    edge=(
        B("tmp_str", "missing"),
        B("tmp_str", "empty"),
        B("tmp_str", "garbage"),
        B("tmp_str", "under-file"),
    ),
    bad=(None, 3, 1.5, True, ["a"]),
)
SAMPLE = Kind(
    arrays(st.floats(0, 1000), 2, 60),
    edge=(np.zeros(2), np.full(5, 1e300), np.arange(10**6, dtype=float)),
    bad=(np.array([1.0, NAN]), np.array([1.0, INF]), EMPTY, np.array([3.0]), "x", None, True),
)
VLEVEL = LEVEL.but(optional=True)
REL = Kind(
    st.floats(0.01, 0.5),
    edge=(1e-300, 1 - 1e-16),
    bad=(NAN, 0.0, 1.0, -0.1, INF, "x", None, True),
    optional=True,
)
BOOT = size(100, 400, optional=True).but(edge=(100, 2**31, 2**62, 10**30))
# results of the paper's experiments at a small scale (computed once per worker)
FIG1 = Kind(st.just(B("small_results", "fig1")), bad=("x", None, 3, {}))
APPX = Kind(st.just(B("small_results", "appendix")), bad=("x", None, 3, {}))
SWEEP = Kind(st.just(B("small_results", "eps-sweep")), bad=("x", None, 3, {}))
CONV = Kind(st.just(B("small_converged", "fig1")), bad=("x", None, 3, {}))
RESULT = Kind(
    st.sampled_from(["DP-IMED", "DP-SE", "Lazy-DP-TS", "IMED"]).map(lambda p: B("small_result", p)),
    bad=("x", None, 3, {}),
)
RESULT_MAP = Kind(
    st.just(B("small_result_map")) | st.just(B("small_result_map", "DP-IMED", "DP-KLUCB")),
    edge=({},),
    bad=("x", None, 3, {"DP-IMED": 3}),
)
NAMES = Kind(
    st.sampled_from([("DP-SE", "AdaP-KLUCB"), ("Lazy-DP-TS",), ("DP-KLUCB", "DP-IMED")]),
    edge=((),),
    bad=("x", None, 3, (3,), ("DP-NOPE",), ("DP-IMED", "dp-imed-typo")),
    optional=True,
)
FACTOR = Kind(
    st.floats(1.5, 100), edge=(1.0, 1e300), bad=(NAN, INF, 0.0, -1.0, "x", None, True), optional=True
)
TARGET = Kind(
    st.sampled_from(["fig1", "dpse"]).map(lambda n: B("small_experiment", n)),
    edge=("fig1", "eps-sweep"),
    bad=("nope", None, 3, 1.5, ["nope"]),
)
OUT = DIR.but(optional=True)
JOBS = Kind(st.just(1), edge=(2**31, 2**62, 10**30), bad=(0, -1, 1.5, "x", True, NAN), optional=False)
SCHEDULER = Kind(st.just(None), bad=("x", 3, True, "tcp://"), optional=True)
CAP = Kind(
    st.sampled_from([640]),
    edge=(20, 20480, 2**31, 2**62),
    bad=(0, -1, 1.5, "x", None, True, 641),
    optional=True,
)
PLAIN_MEANS = Kind(
    st.sampled_from([(0.9, 0.5), (0.75, 0.7, 0.7), [0.6, 0.5, 0.4]]),
    edge=((0.5,), (0.5, 0.5), (1.0, 0.0)),
    bad=((), (0.5, NAN), (0.5, 1.5), (0.5, -0.1), "x", None, True, (0.5, INF)),
)
UNIT = Kind(
    st.floats(0.05, 0.95), edge=(0.0, 1.0, 5e-324, 1 - 1e-16), bad=(NAN, INF, -0.5, 1.5, *NOT_NUMBERS)
)
PLOT_EPS = Kind(
    st.sampled_from([0.1, 0.25, 0.5, 1.0]) | st.floats(0.05, 5),
    edge=(1e-300, 1e300),
    bad=(NAN, INF, 0.0, -1.0, *NOT_NUMBERS),
)
WEIGHT_PLOT = 0.34  # figures and widgets: about 0.1-1 s a call


def tail_specs() -> list[Spec]:
    S = Spec
    specs: list[Spec] = []
    # ------------------------------------------------------------------ dpb.plain
    pl = "dpb.plain:"
    plain_T = size(1, 300, edge_extra=(2**62 + 1,))
    plain_alpha = Kind(
        st.sampled_from([1.5, 2.0, 3.0]),
        edge=(1.001, 1e300),
        bad=(NAN, INF, 1.0, 0.5, "2", None, True),
        optional=True,
    )
    specs += [
        S(pl + "kl", dict(p=UNIT, q=UNIT), inf_ok=True),
        S(pl + "d_eps", dict(x=UNIT, y=UNIT, eps=EPS_FINITE), inf_ok=True),
        S(
            pl + "d_eps_ucb",
            dict(
                x=UNIT,
                budget=Kind(st.floats(0, 20), edge=(0.0, 1e300), bad=(NAN, INF, -1.0, *NOT_NUMBERS)),
                eps=EPS_FINITE,
            ),
        ),
        *(
            S(
                pl + fn,
                dict(
                    means=PLAIN_MEANS,
                    eps=EPS_FINITE,
                    T=plain_T,
                    n0=size(1, 5, optional=True),
                    alpha=plain_alpha,
                    seed=SEED,
                ),
                weight=0.5,
            )
            for fn in ("dp_klucb", "dp_imed")
        ),
    ]
    # ------------------------------------------------------------------ dpb.tables
    rows = Kind(
        st.sampled_from([[{"a": 1, "b": "x"}, {"a": 2.5, "b": "y"}], [(1, "x"), (2, "y")], []]),
        edge=([{"a": NAN, "b": None}], [{"a": 1e300, "b": INF}]),
        bad=("x", None, 3, [3], [{"a": 1}], [(1, 2, 3)]),
    )
    specs += [
        S(
            "dpb.tables:Table",
            dict(
                headers=Kind(st.just(("a", "b")), bad=(None, 3)),
                cells=Kind(st.sampled_from([[("1", "x")], []]), bad=([(1, 2)], [("1",)], None, 3)),
                align=Kind(st.just(("right", "left")), bad=(("middle", "left"), ("left",), None, 3)),
                title=TEXT,
            ),
        ),
        S(
            "dpb.tables:format_table",
            dict(
                rows=rows,
                columns=Kind(st.just(("a", "b")), bad=((), ("a", "a"), None, 3, "ab")),
                formats=Kind(
                    st.sampled_from([None, {"a": ".2f"}, {"a": "{:.1f}"}]),
                    bad=({"a": 3}, {"zz": ".2f"}, "x", 3),
                    optional=True,
                ),
                headers=Kind(st.sampled_from([None, {"a": "A"}]), bad=({"zz": "Z"}, "x", 3), optional=True),
                title=TEXT,
                align=Kind(
                    st.sampled_from([None, {"a": "left"}]),
                    bad=({"a": "middle"}, {"zz": "left"}, 3),
                    optional=True,
                ),
                floats=Kind(st.sampled_from([".4g", ".2f"]), bad=("q", 3, None, "{}"), optional=True),
            ),
        ),
    ]
    # ------------------------------------------------------------------ dpb.estimates
    es = "dpb.estimates:"
    runs2d = Kind(
        st.just(np.arange(40.0).reshape(20, 2)) | arrays(st.floats(0, 100), 2, 30).map(lambda a: a[:, None]),
        edge=(np.zeros((2, 1)), np.full((3, 1), 1e300)),
        bad=(np.zeros(5), np.zeros((1, 2)), np.array([[1.0], [NAN]]), "x", None, EMPTY),
    )
    specs += [
        S(es + "mean_interval", dict(x=SAMPLE, level=VLEVEL, n_boot=BOOT, seed=SEED)),
        S(es + "bca_columns", dict(values=runs2d, level=VLEVEL, n_boot=BOOT, seed=SEED)),
        S(es + "block_edges", dict(cap=CAP)),
        S(
            es + "is_converged",
            dict(
                est=Kind(
                    st.sampled_from([(90.0, 110.0), (99.0, 101.0), (0.0, 0.0)]).map(
                        lambda t: B("mean_estimate", *t)
                    ),
                    bad=("x", None, 3),
                ),
                rel=REL,
            ),
        ),
        S(
            es + "converged_runs",
            dict(
                x=Kind(
                    st.just(np.linspace(1, 2, 40)) | st.just(np.arange(1.0, 321.0)),
                    edge=(np.ones(20), np.arange(1.0, 31.0)),
                    bad=SAMPLE.bad,
                ),
                cap=CAP,
                rel=REL,
                level=VLEVEL,
                min_runs=size(2, 40, optional=True),
            ),
        ),
        S(es + "seed_sensitivity", dict(x=SAMPLE, group=size(1, 10, optional=True))),
    ]
    # ------------------------------------------------------------------ dpb.cache
    ca = "dpb.cache:"
    roots = Kind(
        st.sampled_from(
            [B("package_file", "plain.py"), B("obj", "dpb.divergences:kl"), B("obj", "dpb.policies:DPIMED")]
        ),
        edge=(
            B("tmp_str", "missing"),
            B("tmp_str", "empty"),
            B("policy_file", "good"),
            B("policy_file", "broken"),
        ),
        bad=(None, 3, 1.5, True),
    )
    expected = Kind(st.sampled_from([{}, {"a": 1}]), bad=("x", None, 3, ["a"]))
    specs += [
        S(ca + "default_results_dir", {}),
        S(ca + "arithmetic", {}),
        S(ca + "code_digest", dict(path=FILE)),
        S(ca + "source_files", dict(root=roots), positional=("root",), aliases={"root": ("roots",)}),
        S(ca + "source_hash", dict(root=roots), positional=("root",), aliases={"root": ("roots",)}),
        S(ca + "provenance", dict(root=roots), positional=("root",), aliases={"root": ("roots",)}),
        S(ca + "read_meta", dict(path=FILE.but(bad=(None, 3, 1.5, True)))),
        S(ca + "file_state", dict(path=FILE.but(add_edge=(B("tmp_str", "file"),)), expected=expected)),
        S(
            ca + "remove_orphan_temporaries",
            dict(
                folder=Kind(
                    st.just(B("tmp_str", "orphans")) | st.just(B("tmp_path", "orphans")),
                    edge=DIR.edge,
                    bad=(None, 3, 1.5, True),
                )
            ),
        ),
    ]
    # ------------------------------------------------------------------ dpb.experiments
    ex = "dpb.experiments:"
    seed = SEED.but(bad=("x", 1.5, NAN, -1, None, True))
    # run_converged and ensure_converged take the same arguments
    converging = dict(
        target=TARGET.but(edge=()),
        out=OUT,
        seed=seed,
        jobs=JOBS,
        scheduler=SCHEDULER,
        progress=NO_PROGRESS,
        cap=CAP,
        rel=REL,
        level=VLEVEL,
    )
    specs += [
        S(
            ex + "dpse_readings",
            dict(
                T=size(1, 10**7, optional=True, edge_extra=(2**62 + 1,)),
                runs=size(1, 100, optional=True),
                eps=EPS.but(optional=True),
                instances=Kind(
                    st.sampled_from([("mu1",), ("mu1", "mu2")]),
                    edge=((),),
                    bad=(("mu99",), "x", None, 3),
                    optional=True,
                ),
            ),
        ),
        S(
            ex + "reading_results",
            dict(
                res=Kind(st.just(B("small_results", "dpse")), bad=("x", None, 3)),
                setting=Kind(st.sampled_from([0, 1]), edge=(2**62,), bad=(99, -5, "x", None, 1.5)),
            ),
        ),
        S(ex + "policy_sources", dict(policy=POLICY_NAME)),
        S(ex + "chunk_provenance", dict(policy=POLICY_NAME)),
        S(
            ex + "chunk_status",
            dict(
                cell=Kind(
                    st.sampled_from(["DP-IMED", "IMED"]).map(lambda p: B("small_cell", p)), bad=("x", None, 3)
                ),
                start=size(0, 1),
                stop=size(1, 2),
                out=OUT,
                seed=seed,
            ),
        ),
        S(
            ex + "claim",
            dict(
                cell=Kind(
                    st.sampled_from(["DP-IMED", "IMED"]).map(lambda p: B("small_cell", p)), bad=("x", None, 3)
                ),
                start=size(0, 1),
                stop=size(1, 2),
                out=OUT,
            ),
        ),
        S(ex + "status", dict(target=TARGET, out=OUT, seed=seed)),
        S(
            ex + "run",
            dict(
                target=TARGET.but(edge=()),
                out=OUT,
                seed=seed,
                jobs=JOBS,
                scheduler=SCHEDULER,
                progress=NO_PROGRESS,
                force=FLAG,
                desc=TEXT,
            ),
            weight=0.5,
            timeout=60,
        ),
        S(
            ex + "connect",
            dict(
                scheduler=Kind(st.just("tcp://127.0.0.1:9"), bad=("x", 3, None, True, "tcp://")),
                timeout=Kind(
                    st.sampled_from([0.2, 0.5]),
                    edge=(1e-9,),
                    bad=(NAN, INF, 0.0, -1.0, "x", None, True),
                    optional=False,
                ),
            ),
            aliases={"scheduler": ("Dask",)},
        ),
        S(ex + "quiet_dask_logs", {}),
        S(
            ex + "load",
            dict(
                target=TARGET.but(edge=()),
                out=Kind(st.just(B("results_dir")), edge=DIR.edge, bad=DIR.bad, optional=True),
                seed=seed,
            ),
        ),
        S(
            ex + "ensure",
            dict(
                target=TARGET.but(edge=()),
                out=OUT,
                seed=seed,
                jobs=JOBS,
                scheduler=SCHEDULER,
                progress=NO_PROGRESS,
            ),
            weight=0.5,
            timeout=60,
        ),
        S(ex + "final_regret_stats", dict(result=RESULT)),
        S(ex + "final_regret_table", dict(results=RESULT_MAP, ours=NAMES)),
        S(ex + "ratio_summary", dict(res=FIG1, baselines=NAMES, ours=NAMES)),
        S(ex + "mean_regret_summary", dict(res=FIG1, baselines=NAMES, ours=NAMES)),
        S(ex + "unranked_settings", dict(res=FIG1)),
        S(ex + "sweep_table", dict(res=SWEEP)),
        S(ex + "outlier_runs", dict(result=RESULT, factor=FACTOR)),
        S(
            ex + "dominance",
            dict(
                res=FIG1,
                stat=Kind(st.sampled_from(["mean", "median"]), bad=("nope", None, 3), optional=True),
                baselines=NAMES,
                ours=NAMES,
            ),
        ),
        S(
            ex + "format_table",
            dict(
                rows=Kind(
                    st.sampled_from([[{"a": 1.5, "b": "x"}], [{"a": 1, "b": 2}, {"a": 3, "b": 4}]]),
                    edge=([], [{"a": NAN, "b": INF}]),
                    bad=("x", None, 3, [3]),
                ),
                columns=Kind(st.sampled_from([None, ("a",), ("a", "b")]), bad=(3, ("zz",)), optional=True),
                digits=size(0, 6, optional=True).but(edge=(0, 2**31, 2**62)),
                title=TEXT,
                headers=Kind(st.sampled_from([None, {"a": "A"}]), bad=("x", 3), optional=True),
            ),
        ),
        S(
            ex + "cpu_seconds",
            dict(results=Kind(st.just(B("small_result_list")) | st.just(()), bad=(3, None, ["x"]))),
        ),
        S(ex + "min_runs", dict(policy=POLICY_NAME)),
        S(
            ex + "run_converged",
            converging,
            weight=0.5,
            timeout=90,
        ),
        S(
            ex + "load_converged",
            dict(
                target=TARGET.but(edge=()),
                out=Kind(st.just(B("results_dir")), edge=DIR.edge, bad=DIR.bad, optional=True),
                seed=seed,
                cap=CAP,
                rel=REL,
                level=VLEVEL,
            ),
        ),
        S(
            ex + "ensure_converged",
            converging,
            weight=0.5,
            timeout=90,
        ),
        S(ex + "converged_status", dict(target=TARGET, out=OUT, seed=seed, cap=CAP, rel=REL, level=VLEVEL)),
        S(ex + "expected_regret_table", dict(paper=FIG1, converged=CONV)),
        S(
            ex + "ordering_table",
            dict(converged=CONV, first=POLICY_NAME.but(optional=True), second=POLICY_NAME.but(optional=True)),
        ),
        S(ex + "expected_dominance", dict(converged=CONV, baselines=NAMES, ours=NAMES)),
        S(
            ex + "expected_sweep_table",
            dict(
                paper=Kind(st.just(B("small_results", "eps-sweep")), bad=("x", None, 3)),
                converged=Kind(st.just(B("small_converged", "eps-sweep")), bad=("x", None, 3)),
            ),
        ),
        S(
            ex + "sensitivity",
            dict(
                results=Kind(st.just(B("small_result_map")), bad=("x", None, 3)),
                algorithms=NAMES,
                group=size(1, 2, optional=True),
            ),
        ),
        S(ex + "tail_decomposition", dict(result=RESULT, factor=FACTOR)),
        S(ex + "tail_interval", dict(x=SAMPLE, level=VLEVEL, factor=FACTOR)),
        S(
            "dpb.experiments.workers:Pool",
            dict(
                jobs=size(1, 4),
                context=Kind(st.just(B("multiprocessing:get_context", "forkserver")), bad=("x", None, 3)),
                work=Kind(st.just(B("chunk_work")), bad=("x", None, 3)),
            ),
        ),
        S(
            "dpb.experiments.workers:process_start_time",
            dict(
                pid=Kind(
                    st.sampled_from([1, B("os:getpid")]),
                    edge=(2**22, 2**31, 2**62, 10**30, 0),
                    bad=(-1, "x", None, 1.5, True),
                )
            ),
        ),
        S(
            "dpb.experiments.workers:process_alive",
            dict(
                pid=Kind(
                    st.sampled_from([1, B("os:getpid")]),
                    edge=(2**22, 2**31, 2**62, 10**30, 0),
                    bad=(-1, "x", None, 1.5, True),
                ),
                start_time=Kind(st.sampled_from([None, "123"]), bad=(3, 1.5), optional=True),
            ),
        ),
    ]
    # ------------------------------------------------------------------ dpb.plotting
    W = dict(weight=WEIGHT_PLOT, timeout=60)
    pa = "dpb.plotting.algorithms:"
    pol2 = Kind(st.sampled_from(["DP-IMED", "DP-KLUCB"]), bad=("DP-NOPE", None, 3, True), optional=True)
    env = Kind(st.sampled_from(["mu1", "mu2"]), bad=("mu99", None, 3, (0.5, 0.4)), optional=True)
    small_T = size(100, 2000, optional=True, edge_extra=(2**62 + 1,))
    opt = dict(optional=True)
    specs += [
        S(
            "dpb.chapters.algorithms:trace_for",
            dict(policy=pol2, env=env, eps=PLOT_EPS.but(**opt), seed=SEED, T=small_T),
        ),
        S(
            "dpb.chapters.algorithms:trace_rows",
            dict(
                trace=Kind(st.just(B("dpb.chapters.algorithms:trace_for", T=300)), bad=("x", None, 3)),
                phase=Kind(
                    st.sampled_from([None, 0, 3, 10**6]),
                    edge=(2**62,),
                    bad=(-1, "x", 1.5, True),
                    optional=True,
                ),
                window=size(1, 20, optional=True),
            ),
        ),
        S(
            pa + "plot_forgetting",
            dict(
                n0=size(1, 10, optional=True),
                alpha=schedule_alpha(1.5, 2.0, 3.0),
                eps=PLOT_EPS.but(**opt),
                mu=UNIT.but(**opt),
                x=UNIT.but(**opt),
                n_max=size(20, 2000, optional=True),
                runs=size(1, 200, optional=True),
                seed=SEED,
            ),
            **W,
        ),
        S(
            pa + "plot_schedules",
            dict(
                n0=size(1, 10, optional=True),
                alpha=schedule_alpha(1.1, 2.0),
                power=schedule_power(1, 2, 3.5),
                n_max=size(10, 10**6, optional=True),
            ),
            **W,
        ),
        S(
            pa + "plot_trace_phase",
            dict(
                policy=pol2,
                env=env,
                eps=PLOT_EPS.but(**opt),
                seed=SEED,
                phase=size(0, 30, optional=True),
                T=small_T,
            ),
            **W,
        ),
        S(
            "dpb.plotting.background:plot_laplace_mechanism",
            dict(
                eps=PLOT_EPS.but(**opt),
                s=REAL.but(**opt),
                s_prime=REAL.but(**opt),
                sensitivity=POSITIVE.but(**opt),
            ),
            **W,
        ),
        S(
            "dpb.plotting.background:plot_kl",
            dict(p=UNIT.but(**opt), c=POSITIVE.but(**opt), eps=PLOT_EPS.but(**opt)),
            **W,
        ),
        S(
            "dpb.plotting.concentration:plot_exponents_vs_eps",
            dict(x=UNIT.but(**opt), mu=UNIT.but(**opt), n=size(1, 10**6, optional=True)),
            **W,
        ),
        S(
            "dpb.plotting.concentration:plot_tail_bounds",
            dict(
                n=size(10, 1000, optional=True),
                m=size(0, 10, optional=True),
                eps=PLOT_EPS.but(**opt),
                mu=UNIT.but(**opt),
                x=UNIT.but(**opt),
                runs=size(10, 2000, optional=True),
                seed=SEED,
            ),
            **W,
        ),
        S(
            "dpb.plotting.concentration:plot_tail_exponent",
            dict(
                x=UNIT.but(**opt),
                mu=UNIT.but(**opt),
                eps=PLOT_EPS.but(**opt),
                m_rule=Kind(st.sampled_from(["log n", "1", "sqrt n"]), bad=("nope", None, 3), optional=True),
            ),
            **W,
        ),
    ]
    pe = "dpb.plotting.experiments:"
    band = Kind(st.sampled_from([None, "quantile", "minmax"]), bad=("nope", 3, True), optional=True)
    scale = Kind(st.sampled_from(["linear", "log"]), bad=("nope", None, 3), optional=True)
    specs += [
        S(
            pe + "plot_regret",
            dict(results=RESULT_MAP, title=TEXT, band=band, xscale=scale, yscale=scale, legend=FLAG),
            **W,
        ),
        S(pe + "plot_figure1", dict(res=FIG1, band=band, yscale=scale), **W),
        S(
            pe + "plot_appendix",
            dict(
                res=APPX,
                env=Kind(st.sampled_from(["mu1", "mu3"]), bad=("mu99", None, 3), optional=True),
                band=band,
                yscale=scale,
            ),
            **W,
        ),
        S(pe + "plot_ratio_grid", dict(res=APPX), **W),
        S(pe + "plot_eps_sweep", dict(res=SWEEP), **W),
        S(pe + "plot_final_distribution", dict(results=RESULT_MAP, title=TEXT), **W),
        S(
            pe + "plot_seed_sensitivity",
            dict(
                means=Kind(
                    st.just({"DP-IMED": np.array([1.0, 2.0, 3.0])}),
                    edge=({"DP-IMED": np.array([1.0, 1e300])},),
                    bad=({"DP-IMED": np.array([1.0, NAN])}, {"DP-IMED": np.array([1.0])}, {}, "x", None),
                ),
                expected=Kind(
                    st.just({"DP-IMED": B("mean_estimate", 1.0, 3.0)}), bad=({"DP-IMED": 3}, {}, "x", None)
                ),
                reported=Kind(
                    st.sampled_from([None, {"DP-IMED": 2.0}]),
                    bad=({"DP-IMED": NAN}, {"DP-IMED": "x"}, 3),
                    optional=True,
                ),
                title=TEXT,
            ),
            **W,
        ),
        S(
            pe + "plot_dpse_readings",
            dict(res=Kind(st.just(B("small_results", "dpse")), bad=("x", None, 3)), yscale=scale),
            **W,
        ),
        S(
            pe + "plot_expected_sweep",
            dict(
                rows=Kind(st.just(B("small_rows", "sweep")), bad=([], "x", None, 3, [{"a": 1}])),
                alpha=Kind(
                    st.sampled_from([1.1, 2.0]), edge=(1.0, 1e300), bad=(NAN, INF, 0.0, -1.0, *NOT_NUMBERS)
                ),
                policy=Kind(st.just("DP-IMED"), bad=("DP-NOPE", None, 3), optional=True),
            ),
            **W,
        ),
        S(
            pe + "plot_expected_vs_paper",
            dict(
                rows=Kind(st.just(B("small_rows", "fig1")), bad=([], "x", None, 3, [{"a": 1}])),
                algorithms=NAMES,
            ),
            **W,
        ),
        S(
            pe + "plot_live",
            dict(
                env=Kind(st.sampled_from(["mu2", "custom"]), bad=("mu99", None, 3), optional=True),
                means=Kind(
                    st.sampled_from(["0.9, 0.8, 0.8", "0.5 0.4"]),
                    edge=("0.5", "1, 0", "0.5, nan"),
                    bad=(3, None, (0.5, 0.4)),
                    optional=True,
                ),
                eps=PLOT_EPS.but(**opt),
                T=size(100, 2000, optional=True, edge_extra=(2**62 + 1,)),
                runs=size(1, 4, optional=True),
                algorithms=Kind(
                    st.sampled_from([("DP-IMED",), ("DP-KLUCB", "IMED")]),
                    edge=((), ("DP-NOPE",)),
                    bad=("x", None, 3, (3,)),
                    optional=True,
                ),
                seed=SEED,
            ),
            **W,
        ),
        S(
            pe + "parse_means",
            dict(
                text=Kind(
                    st.sampled_from(["0.9, 0.8", "0.5 0.4 0.3", "[0.7; 0.2]"]),
                    edge=("", "0.5", "nan, 0.5", "2, 0.5", "1e400, 0", "x, y"),
                    bad=(3, None, True, (0.5, 0.4)),
                )
            ),
            aliases={"text": ("means",)},
        ),
        S(
            "dpb.plotting.style:color",
            dict(
                meaning=Kind(
                    st.sampled_from(["DP-KLUCB", "DP-IMED", "IMED", "accumulate", "forget", "eps*TV", "kl"]),
                    edge=("tv", "lower bound", "band"),
                    bad=("no such meaning", "", 3, None, True),
                )
            ),
        ),
        S("dpb.plotting.style:series_color", dict(level=size(0, 100).but(edge=(0, 10**6)))),
        S(
            "dpb.plotting.style:new_figure",
            dict(
                ncols=size(1, 3, optional=True),
                width=POSITIVE.but(optional=True, edge=(1e-3, 1e4)),
                height=POSITIVE.but(optional=True, edge=(1e-3, 1e4)),
            ),
            **W,
        ),
    ]
    pb = "dpb.plotting.lower_bound:"
    specs += [
        S(
            pb + "plot_d_eps",
            dict(mu_a=UNIT.but(**opt), mu_star=UNIT.but(**opt), eps=PLOT_EPS.but(**opt)),
            **W,
        ),
        S(
            pb + "plot_lower_bound_constants",
            dict(
                env=ENV.but(optional=True),
                eps_min=PLOT_EPS.but(optional=True),
                eps_max=PLOT_EPS.but(optional=True),
                n_eps=size(2, 300, optional=True).but(edge=(2**31, 2**62, 10**30)),
            ),
            **W,
        ),
        S(
            pb + "plot_double_change",
            dict(
                mu2=UNIT.but(**opt), mu1=UNIT.but(**opt), eps=PLOT_EPS.but(**opt), mu2_prime=UNIT.but(**opt)
            ),
            **W,
        ),
        S(
            pb + "plot_coupled_hamming",
            dict(
                mu2=UNIT.but(**opt),
                mu2_prime=UNIT.but(**opt),
                mu1=UNIT.but(**opt),
                policy=Kind(
                    st.sampled_from(["uniform", "random rate", "follow the leader"]),
                    bad=("nope", None, 3),
                    optional=True,
                ),
                horizon=size(1, 500, optional=True),
                n_runs=size(1, 50, optional=True),
                xi=POSITIVE.but(**opt),
                seed=SEED,
            ),
            **W,
        ),
    ]
    # chapter 5's numbers (dpb.chapters.privacy) and the figures drawn from them
    # (dpb.plotting.privacy) take the same arguments: one spec of each, for both
    schedule_kind = Kind(st.sampled_from(["doubling", "constant", "steps"]), bad=("nope", None, 3),
                         optional=True)
    release_args = dict(T=size(2, 40, optional=True), t_star=size(1, 2, optional=True),
                        eps=PLOT_EPS.but(**opt), schedule=schedule_kind, seed=SEED)
    game_args = dict(policy=pol2, eps=PLOT_EPS.but(**opt), T=size(3, 12, optional=True),
                     t_star=size(1, 3, optional=True), runs=size(10, 200, optional=True), seed=SEED)
    audit_args = dict(
        policy=Kind(st.sampled_from(["DP-IMED", "DP-KLUCB [no-noise]"]), bad=("DP-NOPE", None, 3),
                    optional=True),
        eps=PLOT_EPS.but(**opt), runs=size(20, 200, optional=True), T=size(4, 12, optional=True),
        t_star=size(1, 4, optional=True),
        pattern=Kind(st.sampled_from(["ones", "zeros", "alternate"]), bad=("nope", None, 3), optional=True),
        seed=SEED)
    noise_args = dict(eps=PLOT_EPS.but(**opt), mu=UNIT.but(**opt), alpha=schedule_alpha(1.5, 2.0),
                      n_max=size(10, 10**5, optional=True))
    cp = "dpb.chapters.privacy:"
    specs += [
        S(
            cp + "release_starts",
            dict(T=size(1, 100, edge_extra=(2**62 + 1,)), schedule=schedule_kind),
        ),
        S(cp + "continual_release_example", release_args),
        S(cp + "game_curves", game_args, **W),
        S(cp + "audit_curves", audit_args, **W),
        S(cp + "noise_cost", noise_args),
    ]
    pp = "dpb.plotting.privacy:"
    specs += [
        S(pp + "plot_continual_release", release_args, **W),
        S(pp + "plot_game", game_args, **W),
        S(pp + "plot_audit", audit_args, **W),
        S(pp + "plot_noise_cost", noise_args, **W),
    ]
    pr = "dpb.plotting.regret:"
    r_alpha = Kind(
        st.sampled_from([2, 1.5, "polynomial"]),
        edge=(1.001, 1e300),
        bad=(NAN, INF, 1.0, 0.5, "nope", None, True),
        optional=True,
    )
    r_common = dict(
        instance=Kind(st.sampled_from(["mu2", "mu1"]), bad=("mu99", None, 3), optional=True),
        eps=Kind(
            st.sampled_from([0.25, 0.5]),
            edge=(1e-300, 1e300),
            bad=(NAN, INF, 0.0, -1.0, *NOT_NUMBERS),
            optional=True,
        ),
        policy=pol2,
        directory=DIR.but(optional=True),
    )
    specs += [
        S(
            pr + "alpha_label",
            dict(
                alpha=Kind(
                    st.sampled_from([2, 1.5, "polynomial"]), edge=(1e300,), bad=(NAN, INF, None, 0.5, True)
                )
            ),
        ),
        S(
            pr + "plot_convergence",
            dict(
                **r_common,
                alpha=r_alpha,
                arm=Kind(
                    st.sampled_from([None, 1, 4]),
                    edge=(0, 2**62),
                    bad=(-1, 99, "x", 1.5, True),
                    optional=True,
                ),
            ),
            **W,
        ),
        S(
            pr + "plot_decomposition",
            dict(
                **r_common,
                alpha=r_alpha,
                alphas=Kind(
                    st.sampled_from([(1.5, 2), (2,)]),
                    edge=((),),
                    bad=((NAN,), ("x",), (0.5,), 3),
                    optional=True,
                ),
            ),
            **W,
        ),
        S(
            pr + "plot_alpha_tradeoff",
            dict(
                **r_common,
                alphas=Kind(
                    st.sampled_from([(1.5, 2), (2, 3)]),
                    edge=((),),
                    bad=((NAN,), ("x",), (0.5,), 3),
                    optional=True,
                ),
                horizons=Kind(
                    st.sampled_from([(1000,), (300, 3000)]),
                    edge=((10**8,), ()),
                    bad=((NAN,), ("x",), (0,), 3, (-5,)),
                    optional=True,
                ),
            ),
            **W,
        ),
        S(
            pr + "plot_regret_distribution",
            dict(**r_common, alpha=r_alpha, T=size(100, 3000, optional=True, edge_extra=(2**62 + 1,))),
            **W,
        ),
    ]
    # ------------------------------------------------------------------ dpb.widgets (no kernel)
    w = "dpb.widgets."
    wunit = Kind(
        st.floats(0.1, 0.9).map(lambda v: round(v, 2)),
        edge=(0.0, 1.0, 5e-324),
        bad=(NAN, INF, -0.5, 1.5, *NOT_NUMBERS),
        optional=True,
    )
    weps = Kind(
        st.sampled_from([0.1, 0.25, 0.5, 1.0]),
        edge=(1e-300, 1e300),
        bad=(NAN, INF, 0.0, -1.0, *NOT_NUMBERS),
        optional=True,
    )
    specs += [
        S(
            w + "algorithms:trace_explorer",
            dict(
                policy=pol2,
                env=env,
                eps=weps,
                seed=SEED,
                phase=size(0, 30, optional=True),
                T=Kind(
                    st.sampled_from([2000]),
                    edge=(300, 2**62),
                    bad=(NAN, "x", None, 0, -1, True),
                    optional=True,
                ),
            ),
            **W,
        ),
        S(
            w + "algorithms:forgetting_explorer",
            dict(
                n0=size(1, 10, optional=True),
                alpha=schedule_alpha(1.5, 2.0),
                eps=weps,
                mu=wunit,
                x=wunit,
            ),
            **W,
        ),
        S(
            w + "algorithms:schedule_explorer",
            dict(
                n0=size(1, 10, optional=True),
                alpha=schedule_alpha(1.1, 2.0),
                power=schedule_power(1.0, 2.0),
            ),
            **W,
        ),
        S(
            w + "concentration:tail_explorer",
            dict(
                n=Kind(
                    st.sampled_from([1000]), edge=(7, 2**62), bad=(NAN, "x", None, 0, -1, True), optional=True
                ),
                m=size(0, 10, optional=True),
                eps=weps,
                mu=wunit,
                x=wunit,
            ),
            **W,
        ),
        S(
            w + "concentration:exponent_explorer",
            dict(
                x=wunit,
                mu=wunit,
                eps=weps,
                m_rule=Kind(st.sampled_from(["log n", "1"]), bad=("nope", None, 3), optional=True),
            ),
            **W,
        ),
        S(
            w + "background:laplace_explorer",
            dict(
                eps=weps,
                s=Kind(st.floats(0, 10), edge=(1e300, -1e300), bad=(NAN, INF, *NOT_NUMBERS), optional=True),
                s_prime=Kind(st.floats(0, 10), edge=(-5.0,), bad=(NAN, INF, *NOT_NUMBERS), optional=True),
            ),
            **W,
        ),
        S(
            w + "background:kl_explorer",
            dict(
                p=wunit,
                c=Kind(
                    st.sampled_from([0.1, 0.5]),
                    edge=(1e-300, 1e300),
                    bad=(NAN, INF, 0.0, -1.0, *NOT_NUMBERS),
                    optional=True,
                ),
                eps=weps,
            ),
            **W,
        ),
        S(
            w + "experiments:experiment_explorer",
            dict(
                env=Kind(st.sampled_from(["mu2", "custom"]), bad=("mu99", None, 3), optional=True),
                means=Kind(st.just("0.9, 0.8"), edge=("x",), bad=(3, None, (0.5, 0.4)), optional=True),
                eps=weps,
                T=Kind(
                    st.sampled_from([100_000]),
                    edge=(1000, 2**62),
                    bad=(NAN, "x", None, 0, -1, True),
                    optional=True,
                ),
                runs=size(1, 10, optional=True),
                algorithms=Kind(
                    st.sampled_from([("DP-IMED",), ("DP-KLUCB", "IMED")]),
                    edge=((), ("DP-NOPE",)),
                    bad=("x", None, 3),
                    optional=True,
                ),
            ),
            **W,
        ),
        S(
            w + "experiments:live_figure",
            dict(
                env=Kind(st.sampled_from(["mu2", "custom"]), bad=(None, 3)),
                means=Kind(st.just("0.9, 0.8"), edge=("x", "0.5"), bad=(None, 3)),
                eps=Kind(st.sampled_from([0.25, 1.0]), edge=(NAN, "x", None)),
                T=Kind(st.sampled_from([100, 500]), edge=(2**62, NAN, "x", None)),
                runs=size(1, 3),
                # a bad value is drawn as a figure with the message: live_figure never raises for it
                algorithms=Kind(st.sampled_from([("DP-IMED",)]), edge=("x", None, 3)),
            ),
            **W,
        ),
        S(
            w + "lower_bound:parse_means",
            dict(
                text=Kind(
                    st.sampled_from(["0.9, 0.8", "0.5 0.4 0.3", "[0.7; 0.2]"]),
                    edge=("", "0.5", "nan, 0.5", "2, 0.5", "1e400, 0", "x, y"),
                    bad=(3, None, True, (0.5, 0.4)),
                )
            ),
            aliases={"text": ("means",)},
        ),
        S(
            w + "lower_bound:message_on_error",
            dict(plot=Kind(st.just(B("a_plot_function")), bad=("x", None, 3))),
        ),
        S(
            w + "lower_bound:plot_environment_constants",
            dict(
                instance=Kind(st.sampled_from(["mu2", "custom"]), bad=("mu99", None, 3), optional=True),
                custom_means=Kind(
                    st.sampled_from(["0.9, 0.8", "0.5 0.4 0.3"]),
                    edge=("x", "", "0.5"),
                    bad=(3, None),
                    optional=True,
                ),
            ),
            **W,
        ),
        S(w + "lower_bound:d_eps_explorer", dict(mu_a=wunit, mu_star=wunit, eps=weps), **W),
        S(
            w + "lower_bound:lower_bound_explorer",
            dict(
                instance=Kind(st.sampled_from(["mu2", "custom"]), bad=("mu99", None, 3), optional=True),
                custom_means=Kind(st.sampled_from(["0.9, 0.8"]), edge=("x",), bad=(3, None), optional=True),
            ),
            **W,
        ),
        S(
            w + "lower_bound:double_change_explorer",
            dict(mu2=wunit, mu1=wunit, eps=weps, mu2_prime=wunit),
            **W,
        ),
        S(
            w + "lower_bound:coupled_simulation_explorer",
            dict(
                mu2=wunit,
                mu2_prime=wunit,
                mu1=wunit,
                policy=Kind(
                    st.sampled_from(["uniform", "random rate"]), bad=("nope", None, 3), optional=True
                ),
                horizon=Kind(
                    st.sampled_from([100, 1000]),
                    edge=(2**62,),
                    bad=(NAN, "x", None, 0, -1, True),
                    optional=True,
                ),
                seed=SEED,
            ),
            **W,
        ),
        S(
            w + "privacy:audit_explorer",
            dict(
                policy=Kind(st.sampled_from(["DP-IMED"]), bad=("DP-NOPE", None, 3), optional=True),
                eps=weps,
                runs=Kind(
                    st.sampled_from([200, 400]),
                    edge=(2**62, 1),
                    bad=(NAN, "x", None, 0, -1, True),
                    optional=True,
                ),
                t_star=size(1, 5, optional=True),
                pattern=Kind(st.sampled_from(["ones", "zeros"]), bad=("nope", None, 3), optional=True),
            ),
            **W,
        ),
        S(
            w + "privacy:continual_release_explorer",
            dict(
                T=size(4, 40, optional=True),
                t_star=size(1, 4, optional=True),
                eps=weps,
                schedule=Kind(st.sampled_from(["doubling", "steps"]), bad=("nope", None, 3), optional=True),
                seed=SEED.but(edge=()),
            ),
            **W,
        ),
        S(
            w + "regret:convergence_explorer",
            dict(
                instance=r_common["instance"],
                eps=r_common["eps"],
                alpha=r_alpha,
                policy=pol2,
                arm=size(1, 4, optional=True),
            ),
            **W,
        ),
        S(
            w + "regret:alpha_tradeoff_explorer",
            dict(instance=r_common["instance"], eps=r_common["eps"], policy=pol2),
            **W,
        ),
        S(
            w + "regret:distribution_explorer",
            dict(
                instance=r_common["instance"],
                eps=r_common["eps"],
                alpha=r_alpha,
                policy=pol2,
                T=Kind(
                    st.sampled_from([10**8]),
                    edge=(1000, 2**62),
                    bad=(NAN, "x", None, 0, -1, True),
                    optional=True,
                ),
            ),
            **W,
        ),
        S(
            w + "core:explorer",
            dict(
                plot=Kind(st.just(B("a_plot_function")), bad=("x", None, 3)),
                controls=Kind(
                    st.just(B("controls", "sliders")),
                    edge=(B("controls", "empty"),),
                    bad=(B("controls", "not-widgets"), "x", None, 3),
                ),
                title=TEXT,
                run_button=FLAG,
                quiet=Kind(
                    st.sampled_from([0.0, 0.15]),
                    edge=(1e300,),
                    bad=(NAN, INF, -1.0, *NOT_NUMBERS),
                    optional=True,
                ),
            ),
            **W,
        ),
        S(
            w + "core:Explorer",
            dict(children=Kind(st.sampled_from([(), B("a_widget_list")]), bad=(3, "x", [3]), optional=True)),
            **W,
        ),
        S(
            w + "core:Coalescer",
            dict(
                action=Kind(st.just(B("an_action")), bad=("x", None, 3)),
                quiet=Kind(
                    st.sampled_from([0.0, 0.15]),
                    edge=(1e300,),
                    bad=(NAN, INF, -1.0, *NOT_NUMBERS),
                    optional=True,
                ),
            ),
        ),
        S(
            w + "core:control",
            dict(
                name=Kind(st.just("eps"), bad=()),
                factory=Kind(
                    st.sampled_from(["FloatSlider", "FloatLogSlider", "IntSlider"]).map(
                        lambda c: B("obj", "ipywidgets:" + c)
                    )
                ),
                value=Kind(
                    st.sampled_from([1, 2]), edge=(0.5, 1e300, -1.0, 0.0), bad=(NAN, INF, "x", None, True)
                ),
                min=Kind(st.just(0)),
                max=Kind(st.just(3)),
            ),
            label="dpb.widgets.core.control (sliders)",
            aliases={"value": ("eps",)},
        ),
        S(
            w + "core:control",
            dict(
                name=Kind(st.just("policy"), bad=()),
                factory=Kind(
                    st.sampled_from(["Dropdown", "ToggleButtons"]).map(lambda c: B("obj", "ipywidgets:" + c))
                ),
                value=Kind(st.sampled_from(["DP-IMED", "IMED"]), bad=("x", None, 3, True)),
                options=Kind(st.just(("DP-IMED", "IMED"))),
            ),
            label="dpb.widgets.core.control (options)",
            aliases={"value": ("policy",)},
        ),
        S(w + "core:figure_output", dict(fig=Kind(st.just(B("a_figure")), bad=("x", None, 3))), **W),
        S(
            w + "core:eps_control",
            dict(
                value=Kind(st.sampled_from([0.1, 1.0]), edge=(0.01, 10, 1e300), bad=(NAN, INF, *NOT_NUMBERS)),
                low=Kind(st.just(-2), optional=True),
                high=Kind(st.just(1), optional=True),
            ),
            aliases={"value": ("eps",)},
        ),
        S(
            w + "core:float_control",
            dict(
                name=Kind(st.just("mu"), bad=()),
                value=Kind(
                    st.sampled_from([0.1, 0.5]), edge=(0.0, 1.0, 1e300, -1.0), bad=(NAN, INF, "x", None, True)
                ),
                low=Kind(st.just(0.0)),
                high=Kind(st.just(1.0)),
                step=Kind(st.just(0.01)),
                description=Kind(st.just("mean μ")),
            ),
            aliases={"value": ("mu",)},
        ),
        S(
            w + "core:int_control",
            dict(
                name=Kind(st.just("n0"), bad=()),
                value=Kind(st.sampled_from([1, 5]), edge=(0, 21, 2**62), bad=(NAN, INF, 1.5, *NOT_NUMBERS)),
                low=Kind(st.just(1)),
                high=Kind(st.just(20)),
                description=Kind(st.just("first batch n0")),
                step=Kind(st.just(1), optional=True),
            ),
            aliases={"value": ("n0",)},
        ),
    ]
    # ------------------------------------------------------------------ policy registry and helpers
    rg = "dpb.policies.registry:"
    POLICY_CLASS = Kind(
        st.sampled_from(["DPIMED", "KLUCB", "LazyDPTS"]).map(lambda n: B("obj", "dpb.policies:" + n)),
        bad=("x", None, 3, B("obj", "builtins:int")),
    )
    specs += [
        S(rg + "register", dict(cls=POLICY_CLASS)),
        S(
            rg + "policy_key",
            dict(
                name=Kind(
                    st.sampled_from(["DP-IMED", "dp_imed", "Lazy DP TS"]),
                    edge=("", "x" * 10**4),
                    bad=(None, 3, True),
                )
            ),
        ),
        S(
            rg + "reference_of",
            dict(
                policy=Kind(
                    st.sampled_from(["DP-IMED", "IMED", "Lazy-DP-TS"]) | POLICY_CLASS.good,
                    bad=("DP-NOPE", None, 3),
                )
            ),
        ),
        S(
            rg + "load_policy",
            dict(
                spec=Kind(
                    st.just(B("policy_file", "good")).map(lambda b: b),
                    edge=(
                        B("policy_file", "broken"),
                        B("policy_file", "empty"),
                        B("tmp_str", "missing"),
                        B("tmp_str", "empty"),
                        "nonexistent_module_dpb:Cls",
                    ),
                    bad=(None, 3, True, 1.5),
                )
            ),
        ),
        S(
            rg + "policy_source",
            dict(
                policy=Kind(
                    st.sampled_from(["DP-IMED", "IMED"]) | POLICY_CLASS.good, bad=("DP-NOPE", None, 3)
                )
            ),
        ),
        S(
            rg + "policy_source_hash",
            dict(
                policy=Kind(
                    st.sampled_from(["DP-IMED", "IMED"]) | POLICY_CLASS.good, bad=("DP-NOPE", None, 3)
                )
            ),
        ),
        S(rg + "is_builtin", dict(cls=POLICY_CLASS)),
    ]
    bs = "dpb.policies.base:"
    specs += [
        S(bs + "check_eps", dict(eps=EPS)),
        S(
            bs + "check_real",
            # name, low and high are the calling code's constants: only the checked value is fuzzed
            dict(
                name=fixed("alpha"),
                value=Kind(st.floats(1, 10), edge=(1e300, 1.0), bad=(NAN, 0.5, "x", None, True, INF)),
                low=fixed(1.0),
                strict=FLAG,
                high=fixed(INF, 100.0),
            ),
            aliases={"value": ("alpha",)},
        ),
    ]
    # ------------------------------------------------------------------ the command line
    specs += [
        S("dpb.__main__:build_parser", {}),
        S("dpb.__main__:cli_reference", dict(width=size(40, 400, optional=True))),
        S(
            "dpb.__main__:main",
            dict(
                argv=Kind(
                    st.sampled_from(["status", "list"]).map(lambda c: B("cli_args", c, "good")),
                    bad=tuple(B("cli_args", "status", k) for k in CLI_BAD),
                )
            ),
            aliases={
                "argv": (
                    "--runs",
                    "--horizon",
                    "--seed",
                    "--out",
                    "--jobs",
                    "--n-eps",
                    "--scale",
                    "argument",
                    "invalid choice",
                )
            },
            timeout=60,
            weight=0.5,
        ),
    ]
    # ------------------------------------------------------------------ regret runs (small DEFAULTS)
    rg = "dpb.regret:"
    dec_policy = Kind(st.sampled_from(["DP-IMED", "DP-KLUCB"]), bad=("DP-NOPE", "IMED", None, 3))
    dec_params = Kind(
        st.sampled_from([{"eps": 0.5}, {"eps": 1.0, "alpha": 1.5}]),
        bad=({"eps": NAN}, {"eps": "x"}, {"eps": 0.5, "alpha": "2"}),
        optional=False,
    )
    small_runs = B("dpb.chapters.regret:book_runs", "mu2", 0.25, 2, "DP-IMED", runs=4, T=1000)
    decomposed = Kind(st.just(small_runs), bad=("x", None, 3))
    grid = Kind(
        st.sampled_from([None, (10, 100), np.array([50, 500])]),
        edge=((2**62,), (0,)),
        bad=(("x",), (NAN,), (-5,), "x"),
        optional=True,
    )
    r_dir = DIR.but(optional=True)
    specs += [
        S(
            rg + "decompose_runs",
            dict(
                policy=dec_policy,
                env=ENV,
                T=size(10, 2000, edge_extra=(2**62 + 1,)),
                runs=size(1, 6),
                seed=SEED.but(optional=False),
                params=dec_params,
                delta=Kind(
                    st.sampled_from([None, 0.05, 0.2]),
                    edge=(1e-300,),
                    bad=(NAN, -1.0, INF, "x", True),
                    optional=True,
                ),
                grid=grid,
                max_seconds=Kind(
                    st.sampled_from([None, 60.0]), edge=(1e-9,), bad=(NAN, -1.0, "x", True), optional=True
                ),
            ),
            weight=0.5,
            timeout=60,
        ),
        S(
            rg + "cached_runs",
            dict(
                policy=dec_policy,
                env=Kind(st.sampled_from(["mu2", (0.7, 0.5)]), bad=("mu99", 3, None)),
                eps=PLOT_EPS,
                alpha=Kind(
                    st.sampled_from([None, 2, 1.5]), edge=(1.001,), bad=(NAN, 0.5, "x", True), optional=True
                ),
                T=size(10, 2000, optional=True, edge_extra=(2**62 + 1,)),
                runs=size(1, 6, optional=True),
                seed=SEED,
                delta=Kind(st.sampled_from([None, 0.05]), bad=(NAN, -1.0, "x"), optional=True),
                directory=r_dir,
                refresh=FLAG,
            ),
            weight=0.5,
            timeout=60,
        ),
        S(
            "dpb.chapters.regret:alpha_tradeoff",
            dict(
                policy=dec_policy,
                env=Kind(st.sampled_from(["mu2", (0.7, 0.5)]), bad=("mu99", 3, None)),
                eps=PLOT_EPS,
                alphas=Kind(
                    st.sampled_from([(1.5, 2), (2,)]),
                    edge=((),),
                    bad=((NAN,), ("x",), (0.5,), 3),
                    optional=True,
                ),
                horizons=Kind(
                    st.sampled_from([(1000,), (300, 3000)]),
                    edge=((), (10**8,)),
                    bad=((NAN,), ("x",), (0,), 3),
                    optional=True,
                ),
                runs=size(1, 6, optional=True),
                seed=SEED,
                directory=r_dir,
            ),
            weight=0.5,
            timeout=60,
        ),
        S(
            "dpb.chapters.regret:scaled_pulls",
            dict(
                runs=decomposed,
                stat=Kind(st.sampled_from(["mean", "median"]), bad=("max", None, 3), optional=True),
                horizons=Kind(
                    st.sampled_from([(1000,), (100, 1000)]),
                    edge=((),),
                    bad=((7,), (NAN,), ("x",), 3),
                    optional=True,
                ),
            ),
            weight=0.5,
            timeout=60,
        ),
        S(
            "dpb.chapters.regret:book_runs",
            dict(
                instance=Kind(
                    st.sampled_from(["mu2", "mu1", (0.7, 0.5)]), bad=("mu99", None, 3), optional=True
                ),
                eps=PLOT_EPS.but(optional=True),
                alpha=Kind(
                    st.sampled_from([2, 1.5, "polynomial"]),
                    edge=(1.001,),
                    bad=(NAN, 0.5, "nope", True, None),
                    optional=True,
                ),
                policy=dec_policy.but(optional=True),
                directory=r_dir,
                runs=size(1, 6, optional=True),
                T=size(10, 3000, optional=True, edge_extra=(2**62 + 1,)),
            ),
            weight=0.5,
            timeout=60,
        ),
        S(
            rg + "pull_summary",
            dict(
                res=decomposed,
                level=VLEVEL,
                band=Kind(
                    st.sampled_from([0.5, 0.8]),
                    edge=(1e-9,),
                    bad=(NAN, 0.0, 1.0, 1.5, "x", True),
                    optional=True,
                ),
            ),
        ),
        S(
            rg + "regret_quantiles",
            dict(
                res=decomposed,
                qs=Kind(
                    st.sampled_from([(0.1, 0.5, 0.9), (0.5,)]),
                    edge=((), (0.0, 1.0)),
                    bad=((NAN,), (1.5,), ("x",), "x", None),
                    optional=True,
                ),
                term=Kind(
                    st.sampled_from([None, "init", "pre", "post"]), bad=("nope", 3, True), optional=True
                ),
            ),
        ),
        S(rg + "imed_optimal_index", dict(res=decomposed)),
        S(
            rg + "cache_dir",
            dict(
                path=Kind(
                    st.sampled_from([None, B("tmp_str", "empty")]),
                    edge=(B("tmp_str", "file"),),
                    bad=(3, True, 1.5),
                    optional=True,
                )
            ),
        ),
        S(
            rg + "cache_key",
            dict(
                kind=Kind(st.sampled_from(["runs", "tradeoff"]), bad=("a b", "", 3, None, "../x")),
                params=Kind(
                    st.sampled_from([{}, {"T": 10, "eps": 0.5}, {"a": np.arange(3)}]),
                    edge=({"a": NAN},),
                    bad=("x", None, 3, {"a": object()}),
                ),
            ),
        ),
        S(
            "dpb.simulate:simulate_seeds",
            dict(
                policy=Kind(st.sampled_from(["DP-IMED", "DP-KLUCB", "IMED"]), bad=("DP-NOPE", 3, None)),
                env=ENV,
                T=size(1, 500, edge_extra=(2**62 + 1,)),
                seeds=Kind(
                    st.sampled_from([1, 3]).map(lambda n: B("seed_sequences", n)),
                    edge=((),),
                    bad=("x", None, 3, [1, 2]),
                ),
                params=Kind(
                    st.sampled_from([{"eps": 0.5}, {"eps": 1.0}]),
                    bad=({"eps": NAN}, {"eps": "x"}),
                    optional=True,
                ),
                fast=FLAG,
                max_seconds=Kind(st.sampled_from([None, 60.0]), bad=(NAN, -1.0, "x", True), optional=True),
            ),
            weight=0.5,
            timeout=60,
        ),
        S(
            "dpb.simulate:run_generators",
            dict(
                child=Kind(
                    st.sampled_from([0, 5]).map(lambda k: B("numpy.random:SeedSequence", k)),
                    bad=("x", None, 3, 1.5),
                )
            ),
        ),
    ]
    # ------------------------------------------------------------------ experiment files, tidy results
    fx = "dpb.experiments:"
    small = {"name": "s", "horizon": 100, "runs": 1, "means": [0.9, 0.8], "eps": [1.0], "policies": ["IMED"]}
    source = Kind(
        st.sampled_from(["fig1", "appendix", "eps-sweep", small]),
        edge=({**small, "instances": ["mu1", {"name": "m", "means": [0.5, 0.4]}]}, {**small, "eps_grid": 3}),
        bad=(3, None, b"x", "nope.toml", {**small, "means": [0.5]}, {**small, "bogus": 1},
             {**small, "horizon": NAN}, {**small, "policies": []}, {**small, "eps": [-1.0]}),
    )
    exp = Kind(st.just(B(fx + "figure1", T=1000, runs=2)), bad=("x", None, 3))
    specs += [
        S(
            fx + "cell",
            dict(
                policy=Kind(st.sampled_from(["DP-KLUCB", "IMED"]), bad=("Nope", None, 3)),
                env=Kind(st.sampled_from(["mu1", [0.9, 0.8]]), bad=([0.5], [1.5, 0.2], None, "nope")),
                T=size(10, 10**6),
                runs=size(1, 50),
            ),
        ),
        S(fx + "paper_file", dict(name=Kind(st.sampled_from(["fig1", "appendix", "eps-sweep"]),
                                            bad=("fig2", None, 3, "")))),
        S(fx + "read_spec", dict(source=source)),
        S(
            fx + "read_experiment",
            dict(source=source, horizon=size(100, 10**6, optional=True), runs=size(1, 50, optional=True)),
            timeout=60,
        ),
        S(fx + "spec_digest", dict(exp=exp, seed=SEED.but(optional=True, drop_bad=(None,)))),
        S(fx + "output_stem", dict(exp=exp, seed=SEED.but(optional=True, drop_bad=(None,)))),
        S(fx + "figure_kind", dict(exp=exp)),
        S(
            "dpb.frames:result_rows",
            dict(
                result=Kind(
                    st.just(B("dpb.simulate:simulate", "IMED", "mu1", 100, runs=2)), bad=("x", None, 3)
                ),
                grid=Kind(st.sampled_from(["all", "log", "linear"]), bad=("lin", None, 3), optional=True),
                experiment=TEXT,
            ),
        ),
    ]
    specs[-1].nan_ok = True  # eps is NaN for a policy without a budget (documented)
    specs[-8].aliases["env"] = ("means", "instance")  # Cell.make names what it reads
    for spec in specs[-8:]:
        spec.aliases.setdefault("source", ("experiment file", "experiment spec", "instance", "means", "eps",
                                           "horizon", "policies", "key"))
    for spec in specs:
        # NaN marks "no algorithm of ours present" (documented) and "not drawn yet" in a trace
        if spec.target in (
            "dpb.experiments:final_regret_table",
            "dpb.experiments:mean_regret_summary",
            "dpb.chapters.algorithms:trace_for",
        ):
            spec.nan_ok = True
        if spec.target == "dpb.chapters.algorithms:trace_for":
            spec.inf_ok = True  # an index is +inf when a clipped private mean reaches 1 (kl(x, 1) = inf)
        if spec.target == "dpb.widgets.lower_bound:plot_environment_constants":
            spec.aliases.setdefault("custom_means", ("means",))  # parse_means names what it reads
        if "target" in spec.params:
            spec.aliases.setdefault("target", ("experiment",))
        if "instances" in spec.params:
            spec.aliases.setdefault("instances", ("instance",))
        if "params" in spec.params:  # a bad entry of a params dict is named by its key
            spec.aliases.setdefault("params", ("parameters", "eps", "alpha"))
        if spec.target == "dpb.widgets.experiments:live_figure":
            # the explorer's callback draws the message of a refused value instead of raising it
            spec.params = {p: k.but(edge=k.edge + k.bad, bad=()) for p, k in spec.params.items()}
    return specs


# ---------------------------------------------------------------------------------------------
# issue 24: user-defined policies' plans, Cell, the reference, the runner's helpers
# ---------------------------------------------------------------------------------------------
def _plan_policy(pulls, index=None):
    """A user's BatchedPrivatePolicy whose phases plan ``pulls`` pulls (its decide(); None keeps the
    policy's own) and whose private index is ``index`` (a constant or an array; None: x)."""
    import numpy as np

    from dpb.policies import BatchedPrivatePolicy

    class UserPlan(BatchedPrivatePolicy):
        name = "Fuzz-User-Plan"

        def private_index(self, x, n, t, releases):
            if index is None:
                return x
            return np.full(x.shape, index) if np.ndim(index) == 0 else np.asarray(index)

        if pulls is not None:
            def decide(self, rows, t):
                numeric = isinstance(pulls, (int, float)) and not isinstance(pulls, bool)
                plan = super().decide(rows, t).astype(float if numeric else object)
                plan[plan > 0] = pulls
                return plan

    return UserPlan


def user_plan(pulls, fast: bool = True, T: int = 200):
    """simulate() of a user's policy whose phases plan ``pulls`` pulls (the generic engine, since
    the policy redefines decide())."""
    from dpb.simulate import simulate

    return simulate(_plan_policy(pulls), [0.7, 0.3], T, runs=2, seed=1, params={"eps": 0.5}, fast=fast)


def user_index(index, fast: bool = True, T: int = 200):
    """simulate() of a user's policy whose private index is ``index`` (a constant or an array): the
    batched fast path (fast=True) or the generic engine."""
    from dpb.simulate import simulate

    return simulate(_plan_policy(None, index=index), [0.7, 0.3], T, runs=2, seed=1, params={"eps": 0.5},
                    fast=fast)


def user_reference(arm, pulls=1, T: int = 50):
    """reference_run() of a user's policy whose literal reference pulls ``arm`` ``pulls`` times a
    phase until the horizon."""
    import numpy as np

    from dpb.policies import BatchedPrivatePolicy
    from dpb.reference import reference_run

    def body(env, rng, params):
        while not env.done():
            env.pull_many(arm, pulls)

    class UserReference(BatchedPrivatePolicy):
        name = "Fuzz-User-Reference"
        reference = staticmethod(body)

        def private_index(self, x, n, t, releases):
            return x

    return reference_run(UserReference, {"eps": 0.5}, [0.7, 0.3], T, np.random.default_rng(0))


def robust_specs() -> list[Spec]:
    S = Spec
    pulls = Kind(st.integers(1, 50), edge=(10**6, 2**62, 200.0),
                 bad=(0, -5, NAN, INF, 1.5, 2.0**63, "x", True, None))
    index = Kind(st.floats(-1e6, 1e6) | st.just(INF), edge=(-INF, 1e308, 0.0),
                 bad=(NAN, "x", (1.0,), ((1.0, 2.0, 3.0),)))
    arm = Kind(st.integers(0, 1), edge=(np.int64(1),), bad=(2, -1, 1.5, NAN, "0", None, True))
    small_t = size(2, 300, optional=True).but(edge=(2, 300), bad=("3", True, 1.5, NAN, -1))
    rng = Kind(st.sampled_from([0, 7]).map(lambda s: Build.of("numpy.random:default_rng", s)),
               bad=(None, 3, "x", Build.of("numpy.random:SeedSequence", 1)))
    ref_policy = Kind(st.sampled_from(["DP-IMED", "DP-KLUCB"]), bad=("DP-NOPE", 3, None))
    ref_params = Kind(st.sampled_from([{"eps": 0.5}, {"eps": 1.0, "alpha": 2}]),
                      bad=({"eps": -1.0}, {"eps": NAN}, "eps", None, {"epsilon": 1.0}))
    cell_policy = Kind(st.sampled_from(["DP-IMED", "DP-KLUCB", "DP-SE"]),
                       bad=("DP-NOPE", "dp_imed", 3, None))
    params_json = Kind(st.sampled_from(['{"eps": 0.5}', '{"alpha": 2, "eps": 1.0}']),
                       bad=('{"eps": 0.5', '{"eps": NaN}', "[1]", "null", '{"eps": -1}', '{"epsilon": 1}',
                            3, None, {"eps": 0.5}))
    env = Kind(st.just("custom"), edge=("mu1", "mu2"), bad=("mu99", 3, None, ""))
    return [
        S("fuzz_specs:user_plan", dict(pulls=pulls, fast=FLAG, T=small_t), weight=SMALL_EXAMPLES),
        # T >= 10: the index is computed once the initial round-robin is over
        S("fuzz_specs:user_index", dict(index=index, fast=FLAG, T=size(10, 300, optional=True).but(
            edge=(10, 300), bad=("3", True, 1.5, NAN, -1))), weight=SMALL_EXAMPLES),
        S("fuzz_specs:user_reference", dict(arm=arm, pulls=pulls.but(edge=(10**6, 2**62)), T=small_t),
          aliases={"arm": ("pulled arm",)}, weight=SMALL_EXAMPLES),
        S("dpb.plans:check_plan",
          dict(policy=fixed("P"), plan=Kind(st.sampled_from([((0, 3),), ((1.0, 0.0),)]),
                                            bad=(((0, 0),), ((-1, 2),), ((NAN, 1),), ((1.5, 1),), "x", None,
                                                 ((1, 2, 3),))),
               n=fixed(1), K=fixed(2), T=fixed(10)),
          positional=("policy", "plan", "n", "K", "T"), aliases={"plan": ("pulls", "phase", "shape")}),
        S("dpb.plans:check_arms",
          dict(policy=fixed("P"), arms=Kind(st.sampled_from([(0, 1), (1,)]), bad=((2,), (-1,), (NAN,), "x")),
               K=fixed(2)),
          positional=("policy", "arms", "K"), aliases={"arms": ("arm",)}),
        S("dpb.plans:check_pulls",
          dict(policy=fixed("P"),
               pulls=Kind(st.sampled_from([(1, 10), (5,)]), bad=((0,), (11,), (NAN,), "x")),
               T=fixed(10)),
          positional=("policy", "pulls", "T")),
        S("dpb.plans:check_index",
          dict(policy=fixed("P"), index=Kind(st.sampled_from([((0.5, INF),), ((1, 2),)]),
                                             bad=(((NAN, 1.0),), ((1.0,),), "x", None)),
               n=fixed(1), K=fixed(2)),
          positional=("policy", "index", "n", "K"), inf_ok=True),
        S("dpb.reference:reference_run",
          dict(policy=ref_policy, params=ref_params, means=MEANS, T=small_t.but(optional=False), rng=rng),
          positional=("policy", "params", "means", "T", "rng"),
          aliases={"means": ("env",), "params": ("eps",)}, weight=SMALL_EXAMPLES),
        S("dpb.reference:ReferenceBandit",
          dict(means=MEANS, T=size(1, 300).but(edge=(1, 300, 2**31, 2**62)), rng=rng),
          positional=("means", "T", "rng"), aliases={"means": ("env",)}),
        S("dpb.experiments:Cell",
          dict(policy=cell_policy, params_json=params_json, env=env, means=MEANS,
               T=size(1, 10**6).but(edge=(1, 10**9, 10**9 + 1, 1e3)),
               runs=size(1, 100).but(edge=(1, 10**4, 10**4 + 1))),
          positional=("policy", "params_json", "env", "means", "T", "runs")),
        S("dpb.experiments:chunk_time_limit",
          dict(cell=Kind(st.just(B("small_cell", "DP-IMED")), bad=("x", None, 3)),
               start=fixed(0), stop=fixed(2),
               chunk_seconds=Kind(st.sampled_from(["auto", None, 2.5]), bad=(0.0, -1.0, NAN, "soon", True))),
          positional=("cell", "start", "stop")),
        S("dpb.policies.registry:describe_failure",
          dict(exc=Kind(st.sampled_from([B("dpb.plans:PlanError", "x"), Build.of("builtins:SystemExit", 3),
                                          Build.of("builtins:KeyboardInterrupt")]))),
          positional=("exc",)),
        S("dpb.experiments.workers:main_script_hidden", {}),
    ]


SPECS = module_specs() + tail_specs() + robust_specs()
