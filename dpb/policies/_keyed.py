"""The package's policies whose compiled runs take the runs' keys (DP-KLUCB, DP-IMED, DP-SE,
AdaP-*): their base :class:`KeyedRuns` and the choice of the engine of their kernels (the plain
Python of ``dpb.policies._private_runs`` or its numba compilation, ``dpb.policies._private_kernel``).

A module of its own so that the code of those kernels belongs to the policies that run them only:
a per-step policy (IMED, KL-UCB) imports ``dpb.policies.base`` but not this module, and an edit of
``dpb.policies._private_runs`` leaves its cached numbers valid.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..engine import FastPath, _seed_keys
from . import _private_runs
from ._tapes import check_engine
from .base import Policy, Recorder

__all__ = ["KeyedRuns", "compiled", "simulate_chunk"]


def compiled(name: str, engine: str):
    """The function ``name`` of ``dpb.policies._private_runs`` compiled (``engine="numba"``,
    ``dpb.policies._private_kernel``) or as it stands (``"python"``): the same numbers."""
    if engine == "numba":
        from .._jit import announce_compile
        from . import _private_kernel

        announce_compile(_private_runs.__file__)
        return getattr(_private_kernel, name)
    return getattr(_private_runs, name)


def simulate_chunk(policy, name: str, kind: int, words, ids, means, params: tuple, recorder, engine: str,
                   laplace_per_phase: bool = True) -> None:
    """Run the chunk function ``name`` (``run_chunk``, ``dpse_chunk``, ``adap_chunk``) of ``kind``
    on the runs ``(words, ids)``, ``params`` its arguments between the gaps and the checkpoints,
    into ``recorder`` (a :class:`dpb.engine.Recorder`).  Raises ``FloatingPointError`` when a run's
    index was NaN."""
    words = np.ascontiguousarray(words, dtype=np.uint64)
    ids = np.ascontiguousarray(ids, dtype=np.uint64)
    means = np.ascontiguousarray(means, dtype=float)
    gaps = np.ascontiguousarray(recorder.gaps, dtype=float)
    ck = np.ascontiguousarray(recorder.ck, dtype=np.int64)
    phases = np.zeros(ids.size, dtype=np.int64)
    extra: tuple[np.ndarray, ...] = () if laplace_per_phase else (np.zeros(ids.size, dtype=np.int64),)
    bad = compiled(name, engine)(kind, words, ids, means, gaps, *params, ck, recorder.regret, recorder.pulls,
                                 phases, *extra)
    if bad >= 0:
        raise FloatingPointError(f"a policy index of {policy.name} is NaN")
    recorder.phases[:] += phases
    recorder.laplace[:] += phases if laplace_per_phase else extra[0]
    recorder.reg[:] = recorder.regret[:, -1]
    recorder.next[:] = ck.size


class KeyedRuns(Policy):
    """Base of the package's policies whose compiled runs take the runs' keys rather than their
    generators (``dpb.engine._seed_keys``; DP-KLUCB, DP-IMED, DP-SE, AdaP-*): each names its kernel of
    ``dpb.policies._private_runs`` (``_keyed_kind``, None for a subclass with logic of its own, and
    ``_keyed_args``), and :meth:`fast_path` runs it."""

    def _keyed_kind(self) -> int | None:
        return None

    def _keyed_args(self, T: int) -> tuple[str, tuple, bool]:
        """(kernel, its arguments between the gaps and the checkpoints, one Laplace draw a phase?)"""
        raise NotImplementedError

    def fast_path(self) -> FastPath | None:
        """The compiled runs on the runs' keys (:meth:`simulate_keys`), else ``Policy.fast_path``."""
        if self._keyed_kind() is None:
            return super().fast_path()

        def path(means: np.ndarray, T: int, seeds: Sequence, recorder: Recorder, *, engine: str) -> str:
            self.simulate_keys(means, T, *_seed_keys(seeds), recorder, engine=engine)
            return engine

        return path

    def simulate_keys(self, means: np.ndarray, T: int, words: np.ndarray, ids: np.ndarray, recorder: Recorder,
                      engine: str | None = None) -> bool:
        """Simulate the runs of keys ``(words, ids)`` (``dpb.engine._seed_keys``) to horizon ``T`` into
        ``recorder`` in one call of the policy's kernel (``dpb.policies._private_runs``), compiled
        (``engine="numba"``) or as Python: the numbers of the generic engine for the same keys.
        Returns False, doing nothing, for a subclass with its own index or phase logic."""
        kind = self._keyed_kind()
        if kind is None:
            return False
        T = int(T)
        self.start(np.asarray(means).size, T, [])  # validates K and T
        name, args, per_phase = self._keyed_args(T)
        simulate_chunk(self, name, kind, words, ids, means, args, recorder, check_engine(engine),
                       laplace_per_phase=per_phase)
        return True
