"""Tidy results: regret curves in long format, as columns, a pandas DataFrame, CSV or Parquet.

One row per run and checkpoint, with the columns of :data:`dpb.result.COLUMNS` (described in
:mod:`dpb.result`): experiment, instance, eps, policy, params, run, t, regret.

In an experiment, a policy without a budget (IMED) appears in every setting of its instance,
with the setting's ``eps``, so that each setting (a panel of a figure) is complete.

:func:`write_csv` needs nothing beyond numpy; :func:`to_frame` and Parquet need pandas (the
``pandas`` extra: ``pip install 'dpb[pandas]'``; Parquet also pyarrow).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from .experiments.store import ExperimentResults
from .result import COLUMNS, Result, concat_rows, to_frame

__all__ = ["COLUMNS", "FORMATS", "result_rows", "experiment_rows", "to_frame", "write_csv", "export"]

#: The file formats of :func:`export`.
FORMATS = ("csv", "parquet")


def result_rows(result, grid: str = "all", *, experiment: str = "", instance: str | None = None,
                eps: float | None = None) -> dict:
    """The long format of one :class:`~dpb.simulate.Result`: a dict of equal-length columns
    (:data:`dpb.result.COLUMNS`); see :meth:`dpb.result.Result.to_rows`."""
    if not isinstance(result, Result):
        raise TypeError(f"result must be a dpb.simulate.Result, got {type(result).__name__}")
    return result.to_rows(grid, experiment=experiment, instance=instance, eps=eps)


def experiment_rows(results, grid: str = "all") -> dict:
    """The long format of experiment results (:class:`~dpb.experiments.ExperimentResults`, or a
    list of them): every setting's cells, labelled with the experiment's name, the setting's
    instance and budget."""
    if isinstance(results, ExperimentResults):
        results = [results]
    elif not isinstance(results, (list, tuple)):
        raise TypeError(f"results must be ExperimentResults (dpb.experiments.load) or a list of them, got "
                        f"{type(results).__name__}")
    for res in results:
        if not isinstance(res, ExperimentResults):
            raise TypeError(f"results must be ExperimentResults (dpb.experiments.load), got "
                            f"{type(res).__name__}")
    return concat_rows([res.to_rows(grid) for res in results])


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
