"""SHA-256 digests of the arrays of a fixed set of simulated cells: the policies' numbers, bitwise.

``python tests/cell_digests.py [scale]`` prints the digests (JSON) computed by whichever ``dpb`` is
imported (``PYTHONPATH`` chooses the checkout); ``tests/test_cell_digests.py`` compares them with
the digests recorded in ``tests/cell_digests.json``, so that a refactoring of the policies or
their engines that changes a single bit of a stored array fails.  The cells cover every engine
of the package's fast paths (the compiled kernels and ``engine="python"``, the numpy lock-step,
the generic phase engine), private and non-private policies, several budgets and seeds, and
instances with tied means.
"""

from __future__ import annotations

import hashlib
import json
import sys

import numpy as np

#: instances: the paper's mu1, and two with ties (best arms tied; every arm tied but one)
ENVS = {"mu1": "mu1", "ties2": [0.5, 0.5, 0.3], "ties3": [0.9, 0.9, 0.9, 0.1]}

#: (policy, params, engine, T, runs): the cells, each on every instance and seeds 0 and 7
CELLS = [
    ("IMED", {}, "numba", 200_000, 3),
    ("IMED", {}, "python", 3_000, 2),
    ("KL-UCB", {}, "numba", 200_000, 3),
    ("KL-UCB", {"c": 3.0}, "numba", 50_000, 2),
    ("KL-UCB", {}, "python", 3_000, 2),
    ("DP-IMED", {"eps": 0.1}, "numba", 100_000, 3),
    ("DP-IMED", {"eps": 1.0}, "numba", 100_000, 3),
    ("DP-IMED", {"eps": 1.0}, "python", 20_000, 2),
    ("DP-KLUCB", {"eps": 0.1}, None, 50_000, 2),
    ("DP-KLUCB", {"eps": 1.0}, None, 50_000, 2),
    ("Lazy-DP-TS", {"eps": 0.5}, None, 20_000, 2),
    ("DP-SE", {"eps": 1.0}, None, 50_000, 2),
    ("AdaP-KLUCB", {"eps": 1.0}, None, 50_000, 2),
    ("IMED", {}, "phases", 2_000, 2),
    ("KL-UCB", {}, "phases", 2_000, 2),
    ("Lazy-DP-TS", {"eps": 0.5}, "phases", 2_000, 2),
    ("DP-IMED", {"eps": 0.5}, "phases", 20_000, 2),
    ("DP-UCB", {"eps": 0.5}, None, 50_000, 2),
    ("AdaP-UCB", {"eps": 1.0}, None, 50_000, 2),
]
SEEDS = (0, 7)


def _digest(res) -> str:
    h = hashlib.sha256()
    for arr in (res.regret, res.pulls, res.n_phases, res.laplace_draws):
        a = np.ascontiguousarray(arr)
        h.update(str((a.dtype.str, a.shape)).encode())
        h.update(a.tobytes())
    return h.hexdigest()


def cell_key(policy, params, engine, T, runs, env, seed) -> str:
    return f"{policy} {json.dumps(params, sort_keys=True)} {engine} T={T} runs={runs} {env} seed={seed}"


def digests(scale: int = 1) -> dict[str, str]:
    """The digest of every cell (``regret``, ``pulls``, ``n_phases``, ``laplace_draws``); ``scale``
    multiplies every horizon and number of runs (a larger check than the test's)."""
    from dpb.simulate import simulate

    out = {}
    for policy, params, engine, T, runs in CELLS:
        T, runs = T * scale, runs * scale
        for env_name, env in ENVS.items():
            for seed in SEEDS:
                kw = {"fast": False} if engine == "phases" else {"engine": engine} if engine else {}
                res = simulate(policy, env, T, runs, seed, params=params, max_seconds=None, **kw)
                out[cell_key(policy, params, engine, T, runs, env_name, seed)] = _digest(res)
    return out


if __name__ == "__main__":
    json.dump(digests(int(sys.argv[1]) if len(sys.argv) > 1 else 1), sys.stdout, indent=1, sort_keys=True)
    print()
