"""The golden numbers: SHA-256 digests of results that must stay bit for bit the same, on every
machine and across refactorings.  One generator (this file), one file of digests
(``tests/golden_digests.txt``), one test module (``tests/test_golden.py``).

Each case is named after what it guards:

* ``arithmetic/...``: :mod:`dpb._detmath` on fixed grids, and the indexes that decide which arm
  is pulled (DP-KLUCB, DP-IMED, KL-UCB, IMED) evaluated on grids of statistics, in every form the
  engines use (numpy arrays, plain Python scalars, compiled kernels);
* ``noise/...``: the Laplace and uniform streams the policies draw;
* ``cell/POLICY/ENGINE/...``: simulated cells (regret, pulls, phases, Laplace draws), on every
  engine (``numba``: the compiled kernels; ``python``: ``DPB_JIT=0``; ``numpy``: the lock-step
  fast path; ``phases``: the generic engine), private and non-private policies, instances with
  ties, several seeds;
* ``split/...``: cells of the paper's scale simulated in several run splits (runs [0, 1, 2], [3],
  [17, 19]): what a resumed or distributed run relies on;
* ``trace/``, ``decompose/``, ``run_on_list/``, ``run_game/``: the teaching trace, the decomposed
  runs of chapter 6 and the transcripts of :mod:`dpb.interaction`.

``python tests/golden.py`` prints every case (``label<TAB>digest``), ``--subset cpu`` the cheap
ones that ``tests/test_golden.py`` also runs under forced instruction sets, ``--subset paper``
the cells of the paper's scale.  A deliberate change of the numbers is printed anew into
``tests/golden_digests.txt`` in its own commit that says why:
``python tests/golden.py > tests/golden_digests.txt``.

``DPB_GOLDEN_PUT_BACK_LIBM=1`` puts the C library's and numpy's own ``log``/``exp`` back in
place of :mod:`dpb._detmath` (for the Python and numpy paths) -- the CPU-dependent arithmetic of
dpb before issue 32 -- so that ``tests/test_golden.py`` can show the check failing with it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from collections.abc import Callable, Iterator

import numpy as np

#: instances of the simulated cells: the paper's mu1, and two with ties
ENVS = {"mu1": "mu1", "ties2": [0.5, 0.5, 0.3], "ties3": [0.9, 0.9, 0.9, 0.1]}

#: (policy, params, engine, T, runs) of the simulated cells, each on every instance, seeds 0 and 7
CELLS = [
    ("IMED", {}, "numba", 200_000, 3),
    ("IMED", {}, "python", 3_000, 2),
    ("KL-UCB", {}, "numba", 200_000, 3),
    ("KL-UCB", {"c": 3.0}, "numba", 50_000, 2),
    ("KL-UCB", {}, "python", 3_000, 2),
    ("DP-IMED", {"eps": 0.1}, "numba", 100_000, 3),
    ("DP-IMED", {"eps": 1.0}, "numba", 100_000, 3),
    ("DP-IMED", {"eps": 1.0}, "python", 20_000, 2),
    ("DP-KLUCB", {"eps": 0.1}, "default", 50_000, 2),
    ("DP-KLUCB", {"eps": 1.0}, "default", 50_000, 2),
    ("Lazy-DP-TS", {"eps": 0.5}, "default", 20_000, 2),
    ("DP-SE", {"eps": 1.0}, "default", 50_000, 2),
    ("AdaP-KLUCB", {"eps": 1.0}, "default", 50_000, 2),
    ("IMED", {}, "phases", 2_000, 2),
    ("KL-UCB", {}, "phases", 2_000, 2),
    ("Lazy-DP-TS", {"eps": 0.5}, "phases", 2_000, 2),
    ("DP-IMED", {"eps": 0.5}, "phases", 20_000, 2),
    ("DP-UCB", {"eps": 0.5}, "default", 50_000, 2),
    ("AdaP-UCB", {"eps": 1.0}, "default", 50_000, 2),
]
SEEDS = (0, 7)

#: the cells of the "cpu" subset (cheap, every engine): (policy, engine) pairs of CELLS on mu1, seed 0
CPU_CELLS = {
    ("IMED", "python"),
    ("KL-UCB", "python"),
    ("DP-IMED", "python"),
    ("DP-KLUCB", "default"),
    ("DP-SE", "default"),
    ("AdaP-KLUCB", "default"),
    ("Lazy-DP-TS", "phases"),
    ("DP-IMED", "phases"),
    ("IMED", "phases"),
    ("DP-UCB", "default"),
    ("DP-IMED", "numba"),
    ("KL-UCB", "numba"),
}


def digest(*arrays) -> str:
    """SHA-256 of the dtypes, shapes and bytes of ``arrays``."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def result_digest(res) -> str:
    """The digest of everything a :class:`dpb.result.Result` stores of its runs."""
    return digest(
        res.run_ids,
        res.checkpoints,
        res.log_grid,
        res.linear_grid,
        res.regret,
        res.pulls,
        res.n_phases,
        res.laplace_draws,
    )


def put_back_libm() -> None:
    """Replace :mod:`dpb._detmath` by ``math``'s and numpy's functions in the Python and numpy paths
    (the arithmetic of dpb before issue 32, whose last bit depends on the CPU)."""
    from dpb import _detmath, _detmath_arrays

    np.seterr(all="ignore")
    ufuncs = {"log": np.log, "exp": np.exp, "log1p": np.log1p, "expm1": np.expm1}
    for name, f in ufuncs.items():  # the scalars through the C library (math's, with -inf, not errors)
        setattr(_detmath, name, lambda v, f=f: float(f(np.float64(v))))
    _detmath_arrays._apply = lambda name, x: ufuncs[name](np.asarray(x, dtype=np.float64))


# ----------------------------------------------------------------------------------------------
# the cases
# ----------------------------------------------------------------------------------------------
def _grid() -> np.ndarray:
    """A fixed grid of arguments: uniform on [0, 1], log-uniform over the doubles, and edges."""
    from dpb._detmath_arrays import exp_array  # (np.exp would make the grid itself CPU-dependent)

    rng = np.random.default_rng(20261129)
    return np.concatenate(
        [
            rng.random(20_000),
            exp_array(rng.uniform(-700.0, 700.0, 20_000)),
            [0.0, 0.5, 1.0, 2.0, 1e-300, 5e-324, 1.7e308],
        ]
    )


def arithmetic_cases() -> Iterator[tuple[str, Callable[[], str]]]:
    from dpb import _detmath, _detmath_arrays
    from dpb.policies import _numerics, _scalar

    x = _grid()
    small = np.concatenate(
        [
            np.random.default_rng(1).uniform(-745.0, 709.0, 20_000),
            np.random.default_rng(2).uniform(-1.0, 1.0, 20_000),
        ]
    )
    yield (
        "arithmetic/log, log1p of a grid (numpy arrays)",
        lambda: digest(_detmath_arrays.log_array(x), _detmath_arrays.log1p_array(x - 0.5)),
    )
    yield (
        "arithmetic/exp, expm1 of a grid (numpy arrays)",
        lambda: digest(_detmath_arrays.exp_array(small), _detmath_arrays.expm1_array(small / 20.0)),
    )
    yield (
        "arithmetic/log, exp of a grid (Python scalars)",
        lambda: digest(
            np.array([_detmath.log(v) for v in x[::10].tolist()]),
            np.array([_detmath.exp(v) for v in small[::10].tolist()]),
        ),
    )

    rng = np.random.default_rng(7)
    means = rng.random(20_000)
    level = _detmath_arrays.exp_array(rng.uniform(-12.0, 3.0, 20_000))
    top = np.maximum(means, rng.random(20_000))
    yield (
        "arithmetic/DP-KLUCB index on a grid (numpy)",
        lambda: digest(
            _numerics.d_eps_ucb_fast(means, level, 0.25), _numerics.d_eps_ucb_fast(means, level, 1.0)
        ),
    )
    yield (
        "arithmetic/DP-IMED divergence on a grid (numpy)",
        lambda: digest(
            _numerics.d_eps_below_fast(means, top, 0.1), _numerics.d_eps_below_fast(means, top, 1.0)
        ),
    )
    yield (
        "arithmetic/KL-UCB index and kl on a grid (numpy)",
        lambda: digest(
            _numerics.kl_ucb_fast(means, level),
            _numerics.kl_fast(means, top),
            _numerics.budget_fast(np.arange(1, 5000), 3.0),
        ),
    )

    def scalars():
        k = 2000
        return digest(
            np.array([_scalar.kl_ucb(m, c)
                      for m, c in zip(means[:k].tolist(), level[:k].tolist(), strict=True)]),
            np.array([_scalar.kl(m, q) for m, q in zip(means[:k].tolist(), top[:k].tolist(), strict=True)]),
            np.array(
                [
                    _scalar.d_eps_below(m, q, *_scalar.d_eps_terms(q, 0.5), 0.5)
                    for m, q in zip(means[:k].tolist(), top[:k].tolist(), strict=True)
                ]
            ),
        )

    yield "arithmetic/KL-UCB, DP-IMED indexes (Python scalars)", scalars


def noise_cases() -> Iterator[tuple[str, Callable[[], str]]]:
    from dpb.policies.base import RunRandom

    def laplace():
        rand = RunRandom([np.random.default_rng(s) for s in range(4)], block=64)
        rows = np.arange(4)
        return digest(np.array([rand.laplace(rows) for _ in range(25_000)]))

    yield "noise/RunRandom Laplace stream, 4 runs x 25,000", laplace


def stream_cases() -> Iterator[tuple[str, Callable[[], str]]]:
    """The counter streams of the batched private policies (:mod:`dpb._streams`) and the indexes
    their compiled runs evaluate (:mod:`dpb.policies._private_runs`)."""
    from dpb import _streams as S
    from dpb._detmath_arrays import log_array
    from dpb.engine import root_words

    key = S.run_key(*root_words(np.random.SeedSequence(20261129)), 5)
    laws = ((3, 0.2), (40, 0.5), (10**6, 1e-6), (10**6, 0.3), (10**9, 0.999), (2**40, 0.25))

    def python():
        u = [S.uniform(S.stream_key(key, S.TIES), c)[0] for c in range(5000)]
        y = [S.laplace(S.stream_key(key, S.LAPLACE), c)[0] for c in range(5000)]
        b, c = [], 0
        for n, p in laws * 50:
            v, c = S.binomial(S.stream_key(key, S.ENV), c, n, p)
            b.append(v)
        return digest(np.array(u), np.array(y), np.array(b, dtype=np.int64))

    def compiled():
        from dpb.policies import _private_kernel as K

        return digest(*(K.binomials(S.stream_key(key, S.ENV), n, p, 2000) for n, p in laws))

    def indexes():
        from dpb.policies import _private_runs as P
        from dpb.policies._keyed import compiled as kernel_of

        rng = np.random.default_rng(8)
        x = rng.random((400, 5))
        x[::7, 2] = x[::7, 0]  # exact ties
        n = rng.integers(1, 10**6, (400, 5))
        t = n.sum(axis=1) + 1
        level = 3.1 * log_array(t.astype(float))[:, None] / n
        out = []
        for eps in (0.1, 1.0):
            for f in (kernel_of("klucb_rows", "numba"), P.klucb_rows):
                o = np.empty(x.shape)
                f(x, n, t, eps, o)
                out.append(o)
        for f in (kernel_of("imed_rows", "numba"), P.imed_rows):
            o = np.empty(x.shape)
            f(x, n, 0.25, o)
            out.append(o)
        for f in (kernel_of("adap_rows", "numba"), P.adap_rows):
            o = np.empty(x.shape)
            f(0, x - 0.3, level, 0.5, o)
            out.append(o)
        # compiled = Python, bit for bit (not with the C library put back: then they differ)
        if os.environ.get("DPB_GOLDEN_PUT_BACK_LIBM") != "1":
            assert all(np.array_equal(a, b) for a, b in zip(out[0::2], out[1::2], strict=True))
        return digest(*out[0::2])

    yield "noise/counter streams: uniform, Laplace, Binomial (Python)", python
    yield "noise/counter streams: Binomial (compiled)", compiled
    yield "arithmetic/DP-KLUCB, DP-IMED, AdaP-KLUCB indexes of the compiled runs", indexes


def _cell_thunk(policy, params, engine, T, runs, env, seed):
    from dpb.simulate import simulate

    if engine == "phases":
        kw = {"fast": False}
    elif engine in ("numba", "python"):
        kw = {"engine": engine}
    else:
        kw = {}
    return lambda: result_digest(simulate(policy, env, T, runs, seed, params=params, max_seconds=None, **kw))


def cell_cases(cpu_only: bool = False) -> Iterator[tuple[str, Callable[[], str]]]:
    for policy, params, engine, T, runs in CELLS:
        if cpu_only and (policy, engine) not in CPU_CELLS:
            continue
        for env_name, env in ENVS.items():
            for seed in SEEDS:
                if cpu_only and (env_name, seed) != ("mu1", 0):
                    continue
                p = ",".join(f"{k}={v}" for k, v in sorted(params.items())) or "-"
                label = f"cell/{policy}/{engine}/{p}/{env_name}/T={T}/runs={runs}/seed={seed}"
                yield label, _cell_thunk(policy, params, engine, T, runs, env, seed)


def split_cases(cpu_only: bool = False) -> Iterator[tuple[str, Callable[[], str]]]:
    """Cells of the paper's scale (Figure 1, the appendix, the eps-sweep) in three run splits."""
    import dpb
    from dpb.experiments import DEFAULT_SEED, appendix, eps_sweep, figure1

    fig1, app, sweep = figure1(), appendix(), eps_sweep()
    picks = [
        (fig1, "mu1", 0.25, "DP-SE"),
        (fig1, "mu2", 0.25, "AdaP-KLUCB"),
        (fig1, "mu1", 0.25, "DP-KLUCB"),
        (fig1, "mu2", 0.25, "DP-IMED"),
        (fig1, "mu1", 0.25, "IMED"),
        (fig1, "mu2", 0.25, "Lazy-DP-TS"),
        (app, "mu3", 0.01, "DP-IMED"),
        (app, "mu4", 1.0, "DP-KLUCB"),
        (app, "mu3", 0.1, "Lazy-DP-TS"),
    ]
    if cpu_only:  # the cell in which a last-bit difference flipped an elimination (issue 32)
        picks = picks[:1]
    cells = []
    for exp, env, eps, policy in picks:
        cells += [
            c for s in exp.settings if (s.env, s.eps) == (env, eps) for c in s.cells if c.policy == policy
        ]
    if not cpu_only:
        cells.append(sweep.settings[37].cells[0])
    for cell in cells:
        for ids in ([0, 1, 2], [3], [17, 19]):
            label = f"split/{cell.policy}/{cell.env}/eps={cell.eps}/T={cell.T:.0e}/runs={ids}"

            def thunk(cell=cell, ids=ids):
                return result_digest(
                    dpb.simulate(
                        cell.policy,
                        cell.bandit(),
                        cell.T,
                        seed=cell.seed_sequence(DEFAULT_SEED),
                        params=cell.params,
                        run_ids=ids,
                        max_seconds=None,
                    )
                )

            yield label, thunk


def teaching_cases() -> Iterator[tuple[str, Callable[[], str]]]:
    import dpb
    from dpb import interaction, regret
    from dpb.simulate import simulate_trace

    def trace():
        tr = simulate_trace("DP-KLUCB", "mu2", 3000, seed=4, eps=0.5, run_id=2)
        tab = tr.table()
        return digest(*(np.asarray(tab[k], dtype=float) for k in sorted(tab)))

    def decomposed():
        d = regret.decompose_runs("DP-IMED", "mu1", 10**5, 3, 12, params={"eps": 0.5, "alpha": 2})
        return digest(d.grid, d.pulls, d.n_phases, d.last_pre, d.pre_at_end, d.final_means)

    def on_list():
        rewards = np.random.default_rng(0).random(300).round()
        tr = interaction.run_on_list("DP-SE", rewards, 5, seed=3, K=3, params={"eps": 1.0}, offset=2)
        return digest(tr.actions, tr.starts, tr.laplace_draws)

    def game():
        tr = interaction.run_game(
            "DP-IMED", interaction.LeaderAdversary(), 40, "R", 4, 200, seed=5, K=2, params={"eps": 1.0}
        )
        return digest(tr.actions, tr.starts, tr.laplace_draws)

    def seeded_by_generator():
        return result_digest(
            dpb.simulate(
                "DP-IMED",
                "mu2",
                10**4,
                runs=2,
                seed=np.random.default_rng(3),
                eps=0.25,
                checkpoints=17,
                max_seconds=None,
            )
        )

    yield "trace/DP-KLUCB teaching trace, mu2, run 2", trace
    yield "decompose/DP-IMED runs split by proof term", decomposed
    yield "run_on_list/DP-SE on a list of rewards", on_list
    yield "run_game/DP-IMED against the leader adversary", game
    yield "seed/DP-IMED seeded by a numpy Generator", seeded_by_generator


SUBSETS = {
    "all": lambda: [
        *arithmetic_cases(),
        *noise_cases(),
        *stream_cases(),
        *cell_cases(),
        *split_cases(),
        *teaching_cases(),
    ],
    "cpu": lambda: [
        *arithmetic_cases(),
        *noise_cases(),
        *stream_cases(),
        *cell_cases(cpu_only=True),
        *split_cases(cpu_only=True),
        *teaching_cases(),
    ],
    "paper": lambda: list(split_cases()),
}


def cases(subset: str = "all") -> dict[str, Callable[[], str]]:
    """label -> thunk returning the digest, for the cases of ``subset`` ("all", "cpu", "paper")."""
    out = dict(SUBSETS[subset]())
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--subset", choices=sorted(SUBSETS), default="all")
    args = ap.parse_args(argv)
    if os.environ.get("DPB_GOLDEN_PUT_BACK_LIBM") == "1":
        put_back_libm()
    for label, thunk in cases(args.subset).items():
        print(f"{label}\t{thunk()}", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    main()
