"""Tidy results: regret curves in long format, as columns, a pandas DataFrame, CSV or Parquet.

One row per run and checkpoint, with the columns of :data:`dpb.result.COLUMNS` (described in
:mod:`dpb.result`): experiment, instance, eps, policy, params, run, t, regret.

In an experiment, a policy without a budget (IMED) appears in every setting of its instance,
with the setting's ``eps``, so that each setting (a panel of a figure) is complete.

:func:`write_csv` needs nothing beyond numpy; :func:`to_frame` and Parquet need pandas (the
``pandas`` extra: ``pip install 'dpb[pandas]'``; Parquet also pyarrow).
"""

from __future__ import annotations

import os

from typing import Any

import csv
import math
from pathlib import Path

import numpy as np

from ._io import write_atomic
from .experiments.store import ExperimentResults
from .result import COLUMNS, Result, _concat_rows, to_frame

__all__ = ["COLUMNS", "FORMATS", "result_rows", "experiment_rows", "to_frame", "write_csv", "export"]

#: The file formats of :func:`export`.
FORMATS = ("csv", "parquet")


def result_rows(result: Any, grid: str = "all", *, experiment: str = "", instance: str | None = None,
                eps: float | None = None) -> dict:
    """The long format of one :class:`~dpb.simulate.Result`: a dict of equal-length columns
    (:data:`dpb.result.COLUMNS`); see :meth:`dpb.result.Result.to_rows`."""
    if not isinstance(result, Result):
        raise TypeError(f"result must be a dpb.simulate.Result, got {type(result).__name__}")
    return result.to_rows(grid, experiment=experiment, instance=instance, eps=eps)


def experiment_rows(results: Any, grid: str = "all") -> dict:
    """The long format of experiment results (:class:`~dpb.experiments.ExperimentResults`, or a
    list of them): every setting's cells, labelled with the experiment's name, the setting's
    instance and budget."""
    results = results if isinstance(results, (list, tuple)) else [results]
    bad = [r for r in results if not isinstance(r, ExperimentResults)]
    if bad:
        raise TypeError(f"results must be ExperimentResults (dpb.experiments.load) or a list of them, got "
                        f"{type(bad[0]).__name__}")
    return _concat_rows([res.to_rows(grid) for res in results])


def _csv_value(v) -> str:
    if isinstance(v, (float, np.floating)):
        return "" if math.isnan(v) else repr(float(v))
    return str(v)


def write_csv(rows: dict, path: str | os.PathLike[str]) -> Path:
    """Write long-format columns to ``path`` as CSV (a header, then one line per row; an empty
    ``eps`` for a non-private policy run alone); needs nothing beyond numpy.  Floats are written
    with all their digits (``repr``), so reading the file back gives the same numbers."""
    path = Path(path)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        columns = [rows[c] for c in COLUMNS]
        w.writerows([_csv_value(v) for v in row] for row in zip(*columns, strict=True))
    return path


def export(rows: dict, path: str | os.PathLike[str], fmt: str | None = None) -> Path:
    """Write long-format columns to ``path`` as ``fmt`` (``"csv"`` or ``"parquet"``; default: from
    the file's suffix, else CSV), atomically (a temporary file renamed onto ``path``)."""
    path = Path(path)
    if fmt is None:
        fmt = "parquet" if path.suffix == ".parquet" else "csv"
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt == "csv":
        return write_atomic(path, lambda tmp: write_csv(rows, tmp))
    frame = to_frame(rows)  # pandas first: a clear ImportError before any file is opened

    def write(tmp):
        try:
            frame.to_parquet(tmp, index=False)
        except ImportError as exc:
            raise ImportError(f"Parquet export needs pyarrow (pip install pyarrow): {exc}") from None

    return write_atomic(path, write)
