"""Tidy results: regret curves in long format, as columns, a pandas DataFrame, CSV or Parquet.

One row per run and checkpoint, with the columns of :data:`COLUMNS`:

==============  ==============================================================================
``experiment``  the experiment's name (empty for a lone :class:`~dpb.simulate.Result`)
``instance``    the instance's name (``"mu1"``...), or ``"custom"``
``eps``         the privacy budget of the setting (NaN for a non-private policy run alone)
``policy``      the policy's name
``params``      its parameters, canonical JSON (``{"alpha":2,"eps":0.25,"n0":1}``)
``run``         the run's id (child ``run`` of the cell's root seed)
``t``           the round of the checkpoint
``regret``      the pseudo-regret sum_a Delta_a N_a(t) of that run at round t
==============  ==============================================================================

In an experiment, a policy without a budget (IMED) appears in every setting of its instance,
with the setting's ``eps``, so that each setting (a panel of a figure) is complete.

:func:`write_csv` needs nothing beyond numpy; :func:`to_frame` and Parquet need pandas (the
``pandas`` extra: ``pip install 'dpb[pandas]'``; Parquet also pyarrow).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np

__all__ = ["COLUMNS", "FORMATS", "result_rows", "experiment_rows", "to_frame", "write_csv", "export"]

#: The columns of the long format, in order.
COLUMNS = ("experiment", "instance", "eps", "policy", "params", "run", "t", "regret")
#: The file formats of :func:`export`.
FORMATS = ("csv", "parquet")
_GRIDS = ("all", "log", "linear")


def _require_pandas(what: str):
    from ._extras import require

    return require("pandas", "pandas", f"{what} (CSV export works without it)")


def result_rows(result, grid: str = "all", *, experiment: str = "", instance: str | None = None,
                eps: float | None = None) -> dict:
    """The long format of one :class:`~dpb.simulate.Result`: a dict of equal-length columns
    (:data:`COLUMNS`).  ``grid``: every checkpoint (``"all"``), or the ``"log"`` or ``"linear"``
    grid only; ``experiment``, ``instance`` and ``eps`` label the rows (defaults: empty, the
    result's instance name or ``"custom"``, the policy's ``eps`` or NaN)."""
    from ._validate import as_text
    from .simulate import Result

    if not isinstance(result, Result):
        raise TypeError(f"result must be a dpb.simulate.Result, got {type(result).__name__}")
    if grid not in _GRIDS:
        raise ValueError(f"grid must be one of {', '.join(_GRIDS)}, got {grid!r}")
    experiment = as_text("experiment", experiment) or ""
    if instance is None:
        instance = result.env_name or "custom"
    instance = as_text("instance", instance) or "custom"
    if eps is None:
        eps = result.params.get("eps")
    eps = math.nan if eps is None else float(eps)
    if grid == "all":
        t, regret = result.checkpoints, result.regret
    else:
        t, regret = result.on_grid(grid)
    runs, C = regret.shape
    n = runs * C
    params = json.dumps(result.params, sort_keys=True, separators=(",", ":"))
    return {
        "experiment": np.full(n, experiment, dtype=object),
        "instance": np.full(n, instance, dtype=object),
        "eps": np.full(n, eps),
        "policy": np.full(n, result.policy, dtype=object),
        "params": np.full(n, params, dtype=object),
        "run": np.repeat(np.asarray(result.run_ids, dtype=np.int64), C),
        "t": np.tile(np.asarray(t, dtype=np.int64), runs),
        "regret": np.asarray(regret, dtype=float).reshape(-1),
    }


def _concat(parts: list) -> dict:
    if not parts:
        return {c: np.array([], dtype=object if c in ("experiment", "instance", "policy", "params")
                             else float if c in ("eps", "regret") else np.int64) for c in COLUMNS}
    return {c: np.concatenate([p[c] for p in parts]) for c in COLUMNS}


def experiment_rows(results, grid: str = "all") -> dict:
    """The long format of experiment results (:class:`~dpb.experiments.ExperimentResults`, or a
    list of them): every setting's cells, labelled with the experiment's name, the setting's
    instance and budget."""
    # (duck-typed, not imported: dpb.simulate's Result.to_rows reaches this module, and the results'
    # provenance must not take in the whole experiments layer, which makes no numbers)
    def is_results(obj) -> bool:
        return all(hasattr(obj, a) for a in ("settings", "results", "experiment", "setting"))

    if is_results(results):
        items = [results]
    elif isinstance(results, (list, tuple)):
        items = list(results)
    else:
        raise TypeError(f"results must be ExperimentResults (dpb.experiments.load) or a list of them, got "
                        f"{type(results).__name__}")
    parts = []
    for res in items:
        if not is_results(res):
            raise TypeError(f"results must be ExperimentResults (dpb.experiments.load), got "
                            f"{type(res).__name__}")
        for setting in res.settings:
            for cell in setting.cells:
                parts.append(result_rows(res.results[cell], grid, experiment=res.experiment.name,
                                         instance=setting.env, eps=setting.eps))
    return _concat(parts)


def to_frame(rows: dict):
    """A pandas DataFrame of long-format columns (:func:`result_rows`, :func:`experiment_rows`);
    ``ImportError`` naming the ``pandas`` extra when pandas is missing."""
    pd = _require_pandas("to_frame()")
    frame = pd.DataFrame({c: rows[c] for c in COLUMNS})
    for c in ("experiment", "instance", "policy", "params"):
        frame[c] = frame[c].astype(str)
    return frame


def _csv_value(v) -> str:
    if isinstance(v, (float, np.floating)):
        return "" if math.isnan(v) else repr(float(v))
    return str(v)


def write_csv(rows: dict, path) -> Path:
    """Write long-format columns to ``path`` as CSV (a header, then one line per row; an empty
    ``eps`` for a non-private policy run alone); needs nothing beyond numpy.  Floats are written
    with all their digits (``repr``), so reading the file back gives the same numbers."""
    path = Path(path)
    n = len(rows["t"])
    cols = [rows[c] for c in COLUMNS]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for i in range(n):
            w.writerow([_csv_value(col[i]) for col in cols])
    return path


def export(rows: dict, path, fmt: str | None = None) -> Path:
    """Write long-format columns to ``path`` as ``fmt`` (``"csv"`` or ``"parquet"``; default: from
    the file's suffix, else CSV), atomically (a temporary file renamed onto ``path``)."""
    import os
    import uuid

    path = Path(path)
    if fmt is None:
        fmt = "parquet" if path.suffix == ".parquet" else "csv"
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt == "parquet":
        frame = to_frame(rows)  # pandas first: a clear ImportError before any file is opened
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        if fmt == "csv":
            write_csv(rows, tmp)
        else:
            try:
                frame.to_parquet(tmp, index=False)
            except ImportError as exc:
                raise ImportError(f"Parquet export needs pyarrow (pip install pyarrow): {exc}") from None
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path
