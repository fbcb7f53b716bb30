"""The outcome of a simulation: :class:`Result` (regret curves and pull counts of many runs), its
files and its long format.

A result is saved as one ``.npz`` archive written atomically (:meth:`Result.save`, with a SHA-256
of every array).  Its long format (:meth:`Result.to_rows`) has one row per run and checkpoint,
with the columns of :data:`COLUMNS`:

==============  ==============================================================================
``experiment``  the experiment's name (empty for a lone :class:`Result`)
``instance``    the instance's name (``"mu1"``...), or ``"custom"``
``eps``         the privacy budget of the setting (NaN for a non-private policy run alone)
``policy``      the policy's name
``params``      its parameters, canonical JSON (``{"alpha":2,"eps":0.25,"n0":1}``)
``run``         the run's id (child ``run`` of the cell's root seed)
``t``           the round of the checkpoint
``regret``      the pseudo-regret sum_a Delta_a N_a(t) of that run at round t
==============  ==============================================================================

:mod:`dpb.frames` writes these columns as CSV or Parquet, and gathers those of whole experiments.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ._io import save_npz_atomic
from ._validate import as_text

__all__ = ["COLUMNS", "GRIDS", "Result", "to_frame"]

#: The columns of the long format, in order.
COLUMNS = ("experiment", "instance", "eps", "policy", "params", "run", "t", "regret")
#: The grids a long format can keep: every checkpoint, or the log or linear grid only.
GRIDS = ("all", "log", "linear")


# pandas is an optional extra, not imported here (nor, in this module of the numbers' code, under
# TYPE_CHECKING): ``pandas.DataFrame`` annotates the return, and is ``Any`` to mypy.
def to_frame(rows: dict) -> pandas.DataFrame:  # type: ignore[name-defined]  # noqa: F821
    """A pandas DataFrame of long-format columns (:meth:`dpb.result.Result.to_rows`,
    :func:`dpb.frames.experiment_rows`); ``ImportError`` naming the ``pandas`` extra when pandas is
    missing."""
    from ._extras import require

    pd = require("pandas", "pandas", "to_frame() (CSV export works without it)")
    frame = pd.DataFrame({c: rows[c] for c in COLUMNS})
    for c in ("experiment", "instance", "policy", "params"):
        frame[c] = frame[c].astype(str)
    return frame


def _concat_rows(parts: list) -> dict:
    """The long-format columns of ``parts`` (a list of them) one after the other."""
    if not parts:
        return {c: np.array([], dtype=object if c in ("experiment", "instance", "policy", "params")
                             else float if c in ("eps", "regret") else np.int64) for c in COLUMNS}
    return {c: np.concatenate([p[c] for p in parts]) for c in COLUMNS}


@dataclass(eq=False)
class Result:
    """Outcome of :func:`dpb.simulate.simulate`: regret curves and pull counts of ``runs`` runs.

    Attributes
    ----------
    policy : str
        The policy's name (e.g. ``"DP-IMED"``).
    params : dict
        The policy's parameters.
    means : ndarray (K,)
        The environment's arm means; ``env_name`` its instance name (or None).
    T : int
        Horizon.
    seed : int
        Entropy of the root ``SeedSequence``; ``spawn_key`` its spawn key (usually ``()``).
    run_ids : ndarray (runs,)
        Which children of the root seed the runs are.
    checkpoints : ndarray (C,)
        Rounds at which the regret is reported (union of the log and linear grids); the masks
        ``log_grid``/``linear_grid`` select each grid.
    regret : ndarray (runs, C)
        Pseudo-regret sum_a Delta_a N_a(t) at each checkpoint.
    pulls : ndarray (runs, K)
        Final pull counts N_a(T) (each row sums to T).
    n_phases : ndarray (runs,)
        Number of phases (decisions) of each run; T for the per-step policies.
    laplace_draws : ndarray (runs,)
        Number of Laplace draws (private releases) of each run.
    engine : str
        ``"phases"`` (the generic engine), or the policy's own exact fast path run by the
        ``"numba"`` or the ``"python"`` engine (see :func:`dpb.simulate.simulate`), or ``"fast"`` for a fast
        path with one engine only (it takes no ``engine``: Lazy-DP-TS, a reader's policy).
    elapsed : float
        Wall-clock seconds (not compared by :meth:`same_as`).
    """

    policy: str
    params: dict
    means: np.ndarray
    env_name: str | None
    T: int
    seed: int
    spawn_key: tuple
    run_ids: np.ndarray
    checkpoints: np.ndarray
    log_grid: np.ndarray
    linear_grid: np.ndarray
    regret: np.ndarray
    pulls: np.ndarray
    n_phases: np.ndarray
    laplace_draws: np.ndarray
    engine: str
    elapsed: float = float("nan")
    extra: dict = field(default_factory=dict)

    _ARRAYS = ("means", "run_ids", "checkpoints", "log_grid", "linear_grid", "regret", "pulls", "n_phases",
               "laplace_draws")

    @property
    def runs(self) -> int:
        return int(self.regret.shape[0])

    @property
    def K(self) -> int:  # noqa: N802 - the paper's notation
        return int(self.means.size)

    # The summaries of the arrays are properties, like the arrays themselves: ``res.final_regret``
    # (one value a run), ``res.mean_regret`` and ``res.std_regret`` (one value a checkpoint).
    @property
    def final_regret(self) -> np.ndarray:
        """Regret at T of every run (the last checkpoint is always T)."""
        return self.regret[:, -1]

    @property
    def mean_regret(self) -> np.ndarray:
        """Mean regret over runs at each checkpoint (``mean_regret[-1]``: the mean regret at T)."""
        return self.regret.mean(axis=0)

    @property
    def std_regret(self) -> np.ndarray:
        """Standard deviation over runs (ddof=1 when there are several runs) at each checkpoint."""
        return self.regret.std(axis=0, ddof=1 if self.runs > 1 else 0)

    def to_rows(self, grid: str = "all", *, experiment: str = "", instance: str | None = None,
                eps: float | None = None) -> dict:
        """The regret curves in long format: a dict of equal-length columns
        (:data:`dpb.result.COLUMNS`), one row per run and checkpoint.  ``grid``: every
        checkpoint (``"all"``), or the ``"log"`` or ``"linear"`` grid only; ``experiment``,
        ``instance`` and ``eps`` label the rows (defaults: empty, the result's instance name or
        ``"custom"``, the policy's ``eps`` or NaN)."""
        if grid not in GRIDS:
            raise ValueError(f"grid must be one of {', '.join(GRIDS)}, got {grid!r}")
        experiment = as_text("experiment", experiment) or ""
        if instance is not None:
            instance = as_text("instance", instance) or "custom"
        eps = self.params.get("eps") if eps is None else eps
        t, regret = (self.checkpoints, self.regret) if grid == "all" else self.on_grid(grid)
        runs, C = regret.shape
        n = runs * C
        params = json.dumps(self.params, sort_keys=True, separators=(",", ":"))
        return {
            "experiment": np.full(n, experiment, dtype=object),
            "instance": np.full(n, instance or self.env_name or "custom", dtype=object),
            "eps": np.full(n, math.nan if eps is None else float(eps)),
            "policy": np.full(n, self.policy, dtype=object),
            "params": np.full(n, params, dtype=object),
            "run": np.repeat(np.asarray(self.run_ids, dtype=np.int64), C),
            "t": np.tile(np.asarray(t, dtype=np.int64), runs),
            "regret": np.asarray(regret, dtype=float).reshape(-1),
        }

    def to_frame(self, grid: str = "all", **labels: str | float | None
                 ) -> pandas.DataFrame:  # type: ignore[name-defined]  # noqa: F821 (see to_frame)
        """The regret curves as a long pandas DataFrame (one row per run and checkpoint: columns
        experiment, instance, eps, policy, params, run, t, regret); needs the ``pandas`` extra
        (``pip install 'dpb[pandas]'``).  ``grid`` and ``labels`` as in :meth:`to_rows`."""
        return to_frame(self.to_rows(grid=grid, **labels))  # type: ignore[arg-type]

    def on_grid(self, grid: str = "log") -> tuple[np.ndarray, np.ndarray]:
        """``(checkpoints, regret)`` restricted to the ``"log"`` or ``"linear"`` grid."""
        if grid not in ("log", "linear"):
            raise ValueError(f"grid must be 'log' or 'linear', got {grid!r}")
        mask = self.log_grid if grid == "log" else self.linear_grid
        return self.checkpoints[mask], self.regret[:, mask]

    #: The metadata two results must share to be compared or concatenated (the timing aside).
    _META = ("policy", "params", "env_name", "T", "seed", "spawn_key", "engine")

    def same_as(self, other: Result) -> bool:
        """True when every array and parameter is identical (the timing is ignored)."""
        return all(getattr(self, k) == getattr(other, k) for k in self._META) and all(
            np.array_equal(getattr(self, k), getattr(other, k)) for k in self._ARRAYS
        )

    @classmethod
    def concat(cls, results: Sequence[Result]) -> Result:
        """Stack the runs of compatible results (same policy, environment, T, seed, grid)."""
        if isinstance(results, (str, bytes, Result)) or not hasattr(results, "__iter__"):
            raise TypeError(f"results must be a sequence of Result, got {type(results).__name__}")
        results = list(results)
        if not results:
            raise ValueError("results must contain at least one Result")
        for r in results:
            if not isinstance(r, Result):
                raise TypeError(f"results must be a sequence of Result, got an item of type "
                                f"{type(r).__name__}")
        first = results[0]
        for r in results[1:]:
            same = all(getattr(r, k) == getattr(first, k) for k in cls._META if k != "env_name")
            if not (same and np.array_equal(r.means, first.means)
                    and np.array_equal(r.checkpoints, first.checkpoints)):
                raise ValueError(
                    "results to concatenate must share policy, params, means, T, seed, engine and checkpoints"
                )
        stack = {k: np.concatenate([getattr(r, k) for r in results])
                 for k in ("run_ids", "regret", "pulls", "n_phases", "laplace_draws")}
        if np.unique(stack["run_ids"]).size != stack["run_ids"].size:
            raise ValueError("results to concatenate must hold distinct runs (a run id appears twice)")
        elapsed = float(sum(r.elapsed for r in results))
        return replace(first, elapsed=elapsed, extra=dict(first.extra), **stack)  # type: ignore[arg-type]

    # -- persistence ---------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the result to ``path`` (``.npz``) atomically; returns the path written."""
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_suffix(".npz")
        meta = {"policy": self.policy, "params": self.params, "env_name": self.env_name, "T": self.T,
                "seed": str(self.seed), "spawn_key": list(self.spawn_key), "engine": self.engine,
                "elapsed": self.elapsed, "extra": self.extra}
        return save_npz_atomic(path, meta, {k: getattr(self, k) for k in self._ARRAYS})

    @classmethod
    def load(cls, path: str | Path) -> Result:
        """Read a result written by :meth:`save`."""
        with np.load(Path(path), allow_pickle=False) as data:
            return cls.from_stored(json.loads(str(data["meta"])), data)

    @classmethod
    def from_stored(cls, meta: dict, arrays: dict[str, np.ndarray] | np.lib.npyio.NpzFile) -> Result:
        """The result whose file held ``meta`` and ``arrays`` (see :meth:`save`; ``arrays``: any
        mapping holding at least the result's arrays, e.g. the open archive)."""
        return cls(policy=meta["policy"], params=meta["params"], env_name=meta["env_name"], T=int(meta["T"]),
                   seed=int(meta["seed"]), spawn_key=tuple(meta["spawn_key"]), engine=meta["engine"],
                   elapsed=float(meta["elapsed"]), extra=meta.get("extra", {}),
                   **{k: arrays[k] for k in cls._ARRAYS})
