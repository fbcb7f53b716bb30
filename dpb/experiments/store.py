"""The cell files of the experiments on disk: provenance, status (done, missing, stale) and loading.

Files live under ``<out>/cells`` (``out`` defaults to :func:`dpb.cache.default_results_dir`), one
per chunk of runs of a cell (:meth:`Cell.path <dpb.experiments.Cell.path>`).  What a file must
record to count as done is :func:`chunk_provenance`; the rules of the cache (directory, code hash,
atomic writes, staleness) are those of :mod:`dpb.cache`.  :func:`chunk_reason` says why a file
is not done: what differs between what it records and what the current code would record (the code
that produces it was edited, another version of dpb or numpy or another engine made it, another
experiment seed or cell), or that its arrays fail their checksums; ``dpb status`` prints these
reasons.
"""

from __future__ import annotations

from typing import Any

import inspect
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import cache
from .._validate import as_directory, as_float_array, as_instance, as_int, as_names
from ..policies.registry import policy_class, registered
from ..result import Result, _concat_rows, to_frame
from .files import _as_cells
from .specs import DEFAULT_SEED, FORMAT, Cell, Experiment, Setting, _policy_name

__all__ = [
    "MissingResultsError",
    "ExperimentResults",
    "policy_sources",
    "chunk_provenance",
    "chunk_status",
    "claim",
    "status",
    "load",
    "cpu_seconds",
    "chunk_reason",
    "reasons",
    "final_regret_stats",
]


class MissingResultsError(FileNotFoundError):
    """Some cells of an experiment are missing from the cache or stale (see :func:`dpb.experiments.run`)."""


def _out_dir(out) -> Path:
    return cache.default_results_dir() if out is None else as_directory("out", out)


def checked_seed(seed) -> int:
    return as_int("seed", seed, minimum=0)


def _checked_chunk(cell, start, stop) -> tuple:
    """Check a chunk ``[start, stop)`` of ``cell``: ``0 <= start < stop <= cell.runs``."""
    as_instance("cell", cell, Cell, "dpb.experiments.Cell")
    start = as_int("start", start, minimum=0, maximum=cell.runs - 1)
    stop = as_int("stop", stop, minimum=start + 1, maximum=cell.runs)
    return cell, start, stop


def policy_file(policy: str) -> Path | None:
    cls = policy_class(_policy_name(policy))
    try:
        path = Path(inspect.getfile(cls))
    except (TypeError, OSError):
        return None
    return path if path.suffix == ".py" and path.is_file() else None


#: The roots of every cell's code: the engines, the front that chooses among them and derives the
#: runs' seeds (``dpb.simulate``), the engine choice of the cost model (``dpb.cost``, prices left
#: out) and the experiments' own lines that make numbers (a cell's seed, a chunk's run ids).
SIMULATOR = tuple(cache.PACKAGE_DIR / f for f in ("engine.py", "simulate.py", "cost.py",
                                                    "experiments/compute.py"))


def policy_sources(policy: str) -> tuple:
    """The code behind a cell of ``policy``: :func:`dpb.cache.source_files` of the simulator
    (``SIMULATOR``) and of the file defining the policy's class (the class itself is resolved
    at run time).  For a reader's policy that file is outside the package: its cells are keyed by
    its source and its helpers'."""
    path = policy_file(policy)
    return cache.source_files(*SIMULATOR) if path is None else cache.source_files(*SIMULATOR, path)


def chunk_provenance(policy: str) -> dict:
    """What a chunk file of ``policy`` records about the code that made it: the cache ``format``
    (``dpb.experiments.FORMAT``) and :func:`dpb.cache.provenance` (versions of ``dpb`` and
    ``numpy``, source hash of :func:`policy_sources`).  A policy class without a source file (defined
    in a notebook cell, in ``python -i``, or received by value from another process) adds
    ``policy_source``, the digest of what the interpreter holds of it: its methods' bytecode,
    constants, defaults and closures, its attributes and bases, and the same for the functions and
    classes it uses, recursively (:func:`dpb.cache.object_digest`), never its name alone."""
    out = {"format": FORMAT, **cache.provenance(*policy_sources(policy))}
    if policy_file(policy) is None:
        out["policy_source"] = cache.object_digest(policy_class(_policy_name(policy)))
    return out


def chunk_status(cell: Cell, start: int, stop: int, out: str | os.PathLike[str] | None = None, *,
                 seed: int = DEFAULT_SEED) -> str:
    """``"done"``, ``"missing"``, ``"stale"`` or ``"damaged"`` for the file of runs ``[start, stop)``
    of ``cell``.

    A file is done when every array in it matches its checksum and it records this cell's key, this
    seed, these runs and the current :func:`chunk_provenance` of the policy; damaged when it cannot
    be read whole or an array differs from its checksum (see :func:`dpb.cache.file_state`).
    """
    cell, start, stop = _checked_chunk(cell, start, stop)
    seed = checked_seed(seed)
    return cache.file_state(cell.path(_out_dir(out), start, stop), expected_stamp(cell, start, stop, seed))


def expected_stamp(cell: Cell, start: int, stop: int, seed: int) -> dict:
    """What a current chunk file records (see :func:`chunk_status`)."""
    return _stamp(cell, start, stop, seed, chunk_provenance(cell.policy))


def _stamp(cell: Cell, start: int, stop: int, seed: int, code: dict) -> dict:
    """:func:`expected_stamp` with the policy's ``code`` (its :func:`chunk_provenance`) given, so
    that reading a cell's files hashes the code once, not once a file."""
    return {"cell": cell.key, "runs": [start, stop], "experiment_seed": seed, **code}


class Claim:
    """An exclusive claim on one chunk of a cell, held while this process computes it.

    The claim is an advisory lock (``flock``) on ``<out>/cells/.claims/<file>.lock``: two runs on
    one results directory (two terminals, two machines on a shared local disk) each compute the
    chunks the other has not claimed.  The kernel releases the lock when its holder exits, however
    it exits (``kill -9`` included), so a claim is never stale; the lock files themselves stay.
    A claim is also released when the object is dropped: keep a reference while computing.
    """

    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None

    def __del__(self) -> None:  # a claim dropped unreleased must not block this process' runs
        if getattr(self, "_fd", None) is not None:
            self.release()


def claim(cell: Cell, start: int, stop: int, out: str | os.PathLike[str] | None = None) -> Claim | None:
    """A :class:`Claim` on the chunk ``[start, stop)`` of ``cell``, or None when another run (or
    another call in this process) holds it."""
    cell, start, stop = _checked_chunk(cell, start, stop)
    path = cell.path(_out_dir(out), start, stop)
    lock = path.parent / ".claims" / (path.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no sharing between runs
        return Claim(fd, lock)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # BlockingIOError: held elsewhere
        os.close(fd)
        return None
    return Claim(fd, lock)


def status(target: Any, out: str | os.PathLike[str] | None = None, *, seed: int = DEFAULT_SEED) -> dict:
    """Counts of chunk files ``{"done": ..., "missing": ..., "stale": ..., "damaged": ...}`` of an
    experiment (or a list of experiments or cells); see :func:`chunk_status`."""
    counts = {"done": 0, "missing": 0, "stale": 0, "damaged": 0}
    out, seed = _out_dir(out), checked_seed(seed)
    for cell, a, b in _chunks_of(target):
        counts[chunk_status(cell, a, b, out, seed=seed)] += 1
    return counts


def _chunks_of(target) -> list:
    """``(cell, start, stop)`` of every chunk file of ``target`` (see
    ``dpb.experiments.files._as_cells``), in order."""
    return [(cell, a, b) for cell in _as_cells(target) for a, b in cell.chunks()]


def _load_cell(cell: Cell, out: Path, seed: int) -> Result:
    parts = []
    code = chunk_provenance(cell.policy)  # once a cell, not once a file (it hashes the code's files)
    for a, b in cell.chunks():
        # chunk_status and Result.load in one reading of the file
        state, meta, arrays = cache._read_checked(cell.path(out, a, b), _stamp(cell, a, b, seed, code))
        if state != "done":  # never mixed: a chunk made under other code or arithmetic is refused
            why = chunk_reason(cell, a, b, out, seed=seed) if state == "stale" else state
            raise MissingResultsError(f"{cell.name} runs {a}-{b} in {out}: {why}; dpb.run (or `dpb run`) "
                                      f"recomputes it")
        part = Result.from_stored(meta, arrays)
        if (part.policy, part.T, tuple(float(m) for m in part.means)) != (cell.policy, cell.T, cell.means):
            raise MissingResultsError(f"{cell.name} runs {a}-{b} in {out}: its {part.policy} runs on arm "
                                      f"means {part.means.tolist()}, T={part.T} do not match its key; "
                                      f"delete the file and rerun")
        parts.append(part)
    res = parts[0] if len(parts) == 1 else Result.concat(parts)
    res.extra = {**res.extra, "runs": [0, cell.runs], "cpu_seconds": cpu_seconds(parts)}
    return res


@dataclass
class ExperimentResults:
    """The results of an :class:`~dpb.experiments.Experiment`: one :class:`~dpb.simulate.Result` per cell.

    ``setting(s)`` maps algorithm name -> Result for a setting (a figure panel).
    """

    experiment: Experiment
    results: dict
    seed: int = DEFAULT_SEED

    @property
    def settings(self) -> tuple:
        return self.experiment.settings

    def setting(self, setting: Setting | int) -> dict:
        s = self.settings[setting] if isinstance(setting, int) else setting
        return {c.policy: self.results[c] for c in s.cells}

    def find(self, env: str, eps: float) -> Setting:
        for s in self.settings:
            if s.env == env and math.isclose(s.eps, eps):
                return s
        raise KeyError(f"no setting env={env!r}, eps={eps!r} in {self.experiment.name}")

    def cpu_seconds(self) -> float:
        """CPU-seconds that computing every cell took (as recorded in the files)."""
        return cpu_seconds(self.results.values())

    def to_rows(self, grid: str = "all") -> dict:
        """The regret curves of every setting in long format (:meth:`dpb.result.Result.to_rows`
        of every cell, labelled with the experiment's name, the setting's instance and budget)."""
        return _concat_rows([self.results[cell].to_rows(grid, experiment=self.experiment.name,
                                                       instance=setting.env, eps=setting.eps)
                            for setting in self.settings for cell in setting.cells])

    def to_frame(self, grid: str = "all") -> Any:
        """The regret curves as a long pandas DataFrame: one row per setting, policy, run and
        checkpoint, columns experiment, instance, eps, policy, params, run, t, regret
        (:mod:`dpb.frames`; needs the ``pandas`` extra)."""
        return to_frame(self.to_rows(grid))


def cpu_seconds(results: Iterable[Result]) -> float:
    """Sum of the CPU-seconds recorded in results loaded from the cache (chunks added up)."""
    if isinstance(results, (str, bytes)) or not isinstance(results, Iterable):
        raise TypeError(f"results must be an iterable of dpb.simulate.Result, got {type(results).__name__}")
    results = [as_instance("results", r, Result, "iterable of dpb.simulate.Result") for r in results]
    return sum((float(r.extra.get("cpu_seconds", 0.0)) for r in results), 0.0)


def load(target: Any, out: str | os.PathLike[str] | None = None, *,
         seed: int = DEFAULT_SEED) -> ExperimentResults:
    """Read an experiment's cells from the cache (chunks joined by :meth:`dpb.simulate.Result.concat`).

    ``target`` is anything :func:`~dpb.experiments.run` accepts: an experiment, the name of one of
    the paper's, a path to an experiment file, a cell, or a list of them (one experiment joining
    their settings; see :func:`~dpb.experiments.as_experiment`).

    Raises
    ------
    MissingResultsError
        When a chunk file is missing or stale: call :func:`~dpb.experiments.run` (or
        :func:`~dpb.experiments.ensure`) first.
    """
    from .files import as_experiment  # everything run() accepts: files, cells, lists

    exp = as_experiment(target)
    out, seed = _out_dir(out), checked_seed(seed)
    results = {}
    for cell in exp.cells:
        results[cell] = _load_cell(cell, out, seed)
    return ExperimentResults(exp, results, seed)


def _checked_result(name: str, result) -> Result:
    """``result`` if it is a :class:`~dpb.simulate.Result` or has its ``final_regret`` array (duck
    typing: the summaries read nothing else); ``TypeError`` naming ``name`` otherwise."""
    if isinstance(result, Result):
        return result
    reg = getattr(result, "final_regret", None)
    if reg is None:
        return as_instance(name, result, Result, "dpb.simulate.Result (or has final_regret)")
    arr = as_float_array(f"{name}.final_regret", reg)
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}.final_regret must be a non-empty 1-d array of finite numbers")
    return result


def final_regret_stats(result: Result) -> dict:
    """Mean, standard deviation (ddof = 1), median and 10%/90% quantiles of the regret at T."""
    reg = np.asarray(_checked_result("result", result).final_regret, dtype=float)
    return {
        "runs": int(reg.size),
        "mean": float(reg.mean()),
        "std": float(reg.std(ddof=1)) if reg.size > 1 else 0.0,
        "median": float(np.median(reg)),
        "q10": float(np.quantile(reg, 0.1)),
        "q90": float(np.quantile(reg, 0.9)),
    }


def _policy_names(name: str, value) -> tuple:
    """``value`` as a tuple of registered policy names (``ValueError`` naming ``name`` and listing
    the registered names for an unknown one: a typo would otherwise give NaN columns)."""
    return as_names(name, value, choices=tuple(registered()))


# ----------------------------------------------------------------------------------------------
# why a file is not current: the reason behind ``stale`` and ``damaged``
# ----------------------------------------------------------------------------------------------
_WHAT = {
    "source_hash": "the code that produces it changed (source hash {old} -> {new})",
    "dpb_version": "made by dpb {old}, this is dpb {new}",
    "numpy_version": "made with numpy {old}, this is numpy {new}",
    "numba_version": "made with numba {old}, this is numba {new}",
    "machine": "made on a {old} machine, this is {new}",
    "arithmetic": "made under the arithmetic {old}, this engine's is {new}",
    "engine": "made with the {old} engine, this run uses {new} (DPB_JIT)",
    "format": "cache format {old}, this dpb writes format {new}",
    "experiment_seed": "made with the experiment seed {old}, this run uses {new}",
    "cell": "made for another cell",
    "runs": "holds runs {old}, this chunk is runs {new}",
    "policy_source": "the policy's class changed (source hash {old} -> {new})",
}


def _short(value) -> str:
    text = str(value)
    return text[:12] if len(text) > 16 and all(c in "0123456789abcdef" for c in text) else text


def chunk_reason(cell: Any, start: int, stop: int, out: str | os.PathLike[str] | None = None, *,
                 seed: int = DEFAULT_SEED) -> str | None:
    """Why the file of runs ``[start, stop)`` of ``cell`` is not done: None when it is done,
    ``"missing"``, ``"damaged: ..."`` or ``"stale: ..."`` naming every difference."""
    cell, start, stop = _checked_chunk(cell, start, stop)
    path = cell.path(_out_dir(out), start, stop)
    expected = expected_stamp(cell, start, stop, checked_seed(seed))
    state = cache.file_state(path, expected)
    if state in ("done", "missing"):
        return None if state == "done" else state
    if state == "damaged":
        return "damaged: the file cannot be read whole or an array fails its checksum (it is recomputed)"
    meta = cache.read_meta(path) or {}
    extra = meta.get("extra", {}) if isinstance(meta.get("extra", {}), dict) else {}
    why = []
    for key, new in expected.items():
        old = extra.get(key)
        if old != new:
            template = _WHAT.get(key, f"{key} differs ({{old}} -> {{new}})")
            why.append(template.format(old=_short(old) if old is not None else "none", new=_short(new)))
    return "stale: " + "; ".join(why or ["its record differs from the current one"])


def reasons(target: Any, out: str | os.PathLike[str] | None = None, *, seed: int = DEFAULT_SEED) -> list:
    """``(path, reason)`` for every chunk file of ``target`` that is not done (see
    :func:`chunk_reason`), in the order of the cells."""
    out, seed = _out_dir(out), checked_seed(seed)
    whys = [(c.path(out, a, b), chunk_reason(c, a, b, out, seed=seed)) for c, a, b in _chunks_of(target)]
    return [(path, why) for path, why in whys if why is not None]
