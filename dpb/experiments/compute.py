"""The lines of the experiments that make numbers: a cell's seeds and the runs of a chunk.

Every result file records the hash of the code that made it (:func:`dpb.experiments.chunk_provenance`),
whose roots are the simulator (:mod:`dpb.engine`, :mod:`dpb.simulate` and the engine choice in
:mod:`dpb.cost`), the policy's own file, and this module: the derivation of a cell's root seed
from its digest and the run ids of a chunk live here, so that editing either recomputes the cells,
while the rest of :mod:`dpb.experiments` (files, status, tables, scheduling) can change freely.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine import SeedChildren
from ..policies.base import check_horizon
from ..policies.registry import as_policy
from ..result import Result
from ..simulate import _simulate

#: Internal: the experiments call these; their public faces are ``Cell.seed_sequence`` and ``run``.
__all__: list[str] = []


def _cell_seed_sequence(digest: str, seed: int) -> np.random.SeedSequence:
    """``SeedSequence(seed, spawn_key=words)``, where ``words`` are the first four 32-bit words of
    the hex ``digest`` of a cell's key; run ``i`` of the cell is its ``i``-th child."""
    words = tuple(int(digest[i : i + 8], 16) for i in range(0, 32, 8))
    return np.random.SeedSequence(seed, spawn_key=words)


def chunk_run_ids(start: int, stop: int) -> np.ndarray:
    """The run ids of the chunk ``[start, stop)``: run ``i`` is the ``i``-th child of the cell's seed."""
    return np.arange(start, stop)


def _simulate_chunk(policy: Any, bandit: Any, T: int, params: dict, digest: str, seed: int, start: int,
                    stop: int) -> Result:
    """The runs ``[start, stop)`` of a cell (policy class or name, bandit, horizon, parameters and
    digest of its key) under the experiment ``seed``: a :class:`~dpb.simulate.Result`.  The cell and
    the seed were checked where they were made, and the runner checked the cost: the policy object
    and the seeds go straight to the simulator's runner (``dpb.simulate._simulate``)."""
    pol = as_policy(policy, params)
    T = check_horizon(pol, bandit.K, T)
    root, run_ids = _cell_seed_sequence(digest, seed), chunk_run_ids(start, stop)
    return _simulate(pol, bandit, T, SeedChildren(root, run_ids), None, pol.fast_path(), root=root,
                     run_ids=run_ids)
