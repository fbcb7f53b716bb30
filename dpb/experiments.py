"""The paper's experiments as data, run at full scale, cached on disk and resumable.

Every experiment of the paper (Azize, Wu, Honda, Orabona, Ito, Basu; section 'Experimental
Analysis' and appendix 'Extended Experiments') is described here as a list of *cells*: one policy
with its parameters, on one environment, for one horizon ``T`` and a number of runs.  :func:`run`
computes the cells that are missing from the cache directory (a local process pool by default, a
Dask cluster on demand), :func:`load` reads them back, and the tables below summarise them.

==================  ======================================================================  ======
experiment          what                                                                    cells
==================  ======================================================================  ======
``fig1``            eps = 0.25 on mu1 and mu2, T = 1e6, 20 runs: DP-SE (beta = 1/T),        12
                    AdaP-KLUCB (alpha = 3.1), Lazy-DP-TS (c = 3), DP-KLUCB and DP-IMED
                    (n0 = 1, alpha = 2), and the non-private IMED
``appendix``        the same algorithms on mu1..mu4 x eps in {0.01, 0.1, 0.5, 1}            84
                    (IMED does not depend on eps: one cell per instance)
``eps-sweep``       DP-IMED with alpha = 1.1 on [0.8, 0.1, 0.1, 0.1, 0.1], T = 1e7,         100
                    eps = 0.01, 0.02, ..., 1, 20 runs each
==================  ======================================================================  ======

Cells are shared between experiments when they are identical: IMED on mu1 and mu2 serves both
Figure 1 and the appendix.

Cache layout and staleness
--------------------------
A cell is stored as one or more ``.npz`` files (:meth:`dpb.simulate.Result.save`) under
``<out>/cells/``, one per *chunk* of runs (the per-step Lazy-DP-TS is split into chunks of 5 runs so
that both cores share a cell; the other policies use one chunk).  Each file records the cell's
specification, the experiment seed, the chunk's run ids, the versions of ``dpb`` and ``numpy`` and
a hash of the ``dpb`` code that produces it (the simulator, the policy's module and everything
they import from ``dpb``; docstrings and comments excluded).  A file whose record does not match
the current code is *stale* and is recomputed; a file is written atomically (temporary file +
``os.replace``), so a sweep killed at any moment leaves only complete files and a rerun computes
only what is missing.

Seeds
-----
The cell with specification ``key`` (policy, parameters, arm means, T; *not* the number of runs)
uses the root ``SeedSequence(seed, spawn_key=h(key))``, with ``h`` four 32-bit words of the SHA-256
of the canonical JSON of ``key``; run ``i`` of the cell is child ``i`` of that root
(:func:`dpb.simulate.child_seeds`).  The numbers therefore do not depend on how cells and runs are
split across processes or machines, nor on which other cells are computed.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import json
import math
import os
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._validate import as_int, as_positive
from .bounds import lower_bound_constant
from .environments import INSTANCES, BernoulliBandit, instance
from .policies import POLICIES
from .policies.registry import policy_class
from .simulate import Result, simulate

__all__ = [
    "ALGORITHMS",
    "PRIVATE_ALGORITHMS",
    "OURS",
    "BASELINES",
    "EXPERIMENT_NAMES",
    "DEFAULT_SEED",
    "Cell",
    "Setting",
    "Experiment",
    "ExperimentResults",
    "RunReport",
    "MissingResultsError",
    "paper_params",
    "figure1",
    "appendix",
    "eps_sweep",
    "experiment",
    "default_results_dir",
    "source_hash",
    "chunk_status",
    "status",
    "run",
    "load",
    "ensure",
    "final_regret_stats",
    "final_regret_table",
    "ratio_summary",
    "mean_regret_summary",
    "sweep_table",
    "outlier_runs",
    "dominance",
    "format_table",
    "cpu_seconds",
]

#: Version of the cache format and of the seed derivation; bump it when either changes.
FORMAT = 1
#: The experiment seed used by the book and the command line unless told otherwise.
DEFAULT_SEED = 2025
#: Horizon and runs of the paper's regret-vs-time figures, and the horizon of its eps-sweep.
PAPER_T, PAPER_RUNS, SWEEP_T = 10**6, 20, 10**7
#: The private algorithms of the paper's figures, in the legend's order.
PRIVATE_ALGORITHMS = ("DP-SE", "AdaP-KLUCB", "Lazy-DP-TS", "DP-KLUCB", "DP-IMED")
#: ... and with the non-private benchmark.
ALGORITHMS = PRIVATE_ALGORITHMS + ("IMED",)
#: The paper's algorithms, and the private baselines they are compared with.
OURS = ("DP-KLUCB", "DP-IMED")
BASELINES = ("DP-SE", "AdaP-KLUCB", "Lazy-DP-TS")
#: Experiment names of the command line.
EXPERIMENT_NAMES = ("fig1", "appendix", "eps-sweep")
FIG1_EPS = 0.25
APPENDIX_EPS = (0.01, 0.1, 0.5, 1.0)
APPENDIX_INSTANCES = ("mu1", "mu2", "mu3", "mu4")

#: Runs per chunk file for the per-step policies worth splitting (one run at a time inside).
CHUNK_RUNS = {"Lazy-DP-TS": 5}
#: Rough CPU-seconds per run at T = 1e6 (benchmarks/README.md), to start the longest tasks first.
_COST_PER_RUN = {"Lazy-DP-TS": 0.53, "KL-UCB": 0.5, "IMED": 0.25}
_PKG = Path(__file__).resolve().parent


class MissingResultsError(FileNotFoundError):
    """Some cells of an experiment are missing from the cache or stale (see :func:`run`)."""


# ----------------------------------------------------------------------------------------------
# specifications
# ----------------------------------------------------------------------------------------------
def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _plain(value):
    """JSON-able plain Python value (numpy scalars become int/float)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    raise TypeError(f"parameter values must be numbers, strings or None, got {type(value).__name__}")


def _policy_name(policy: str) -> str:
    if not isinstance(policy, str):
        raise TypeError(f"policy must be a policy name, got {type(policy).__name__}")
    return policy_class(policy).name


def paper_params(policy: str, eps: float | None = None) -> dict:
    """The parameters the paper uses for ``policy`` at budget ``eps`` ('Experimental Analysis').

    Read from the policy's class (:meth:`dpb.policies.base.Policy.paper_params`): DP-KLUCB and
    DP-IMED: ``n0 = 1, alpha = 2``; AdaP-KLUCB: ``alpha = 3.1``; DP-SE: confidence ``beta = 1/T``
    (``beta=None`` in :class:`~dpb.policies.DPSE` means 1/T); Lazy-DP-TS: offset constant ``c = 3``;
    IMED has no parameter.

    Raises
    ------
    ValueError
        For an unknown policy or a private policy without a positive ``eps``.
    """
    return policy_class(_policy_name(policy)).paper_params(eps)


@dataclass(frozen=True)
class Cell:
    """One policy with its parameters, on one environment, for one horizon and a number of runs.

    Build cells with :meth:`Cell.make`, which canonicalises the policy name and the parameters.

    Attributes
    ----------
    policy : str
        The paper's name of the policy (``"DP-IMED"``...).
    params_json : str
        Its parameters, canonical JSON (``params`` gives the dict).
    env : str
        The instance name (``"mu1"``...) or ``"custom"``.
    means : tuple of float
        The arm means.
    T : int
        Horizon.
    runs : int
        Number of runs.
    """

    policy: str
    params_json: str
    env: str
    means: tuple
    T: int
    runs: int

    @classmethod
    def make(cls, policy: str, env, T: int, runs: int, params: Mapping | None = None) -> Cell:
        """A cell; ``env`` is an instance name, a vector of means or a bandit."""
        name = _policy_name(policy)
        if isinstance(env, str):
            bandit = instance(env)
        elif isinstance(env, BernoulliBandit):
            bandit = env
        else:
            bandit = BernoulliBandit(env)
        label = bandit.name if bandit.name in INSTANCES else "custom"
        T = as_int("T", T, minimum=1)
        runs = as_int("runs", runs, minimum=1)
        params_json = _canonical(_plain(dict(params or {})))
        POLICIES[name](**json.loads(params_json))  # fail early on bad parameters
        return cls(name, params_json, label, tuple(float(m) for m in bandit.means), T, runs)

    @property
    def params(self) -> dict:
        return json.loads(self.params_json)

    @property
    def eps(self) -> float | None:
        """The privacy budget (None for the non-private policies)."""
        return self.params.get("eps")

    def bandit(self) -> BernoulliBandit:
        return instance(self.env) if self.env in INSTANCES else BernoulliBandit(self.means)

    @property
    def key(self) -> dict:
        """What identifies the cell's numbers (the number of runs excluded: run i is run i)."""
        return {"policy": self.policy, "params": self.params, "means": list(self.means), "T": self.T}

    @property
    def digest(self) -> str:
        """SHA-256 (hex) of the canonical JSON of :attr:`key`."""
        return hashlib.sha256(_canonical(self.key).encode()).hexdigest()

    def seed_sequence(self, seed: int) -> np.random.SeedSequence:
        """The cell's root seed ``SeedSequence(seed, spawn_key=words)``, where ``words`` are the first
        four 32-bit words of :attr:`digest`; run ``i`` of the cell is its ``i``-th child."""
        seed = as_int("seed", seed, minimum=0)
        words = tuple(int(self.digest[i : i + 8], 16) for i in range(0, 32, 8))
        return np.random.SeedSequence(seed, spawn_key=words)

    def chunks(self) -> list[tuple[int, int]]:
        """Run ranges ``[start, stop)`` stored as separate files (fixed boundaries per policy)."""
        size = CHUNK_RUNS.get(self.policy, self.runs)
        return [(a, min(a + size, self.runs)) for a in range(0, self.runs, size)]

    @property
    def name(self) -> str:
        """A readable file stem: policy, environment, eps, T and the digest's first 10 hex digits."""
        slug = "".join(ch for ch in self.policy.lower() if ch.isalnum())
        eps = "" if self.eps is None else f"_eps{self.eps:g}"
        return f"{slug}_{self.env}{eps}_T{self.T:.0e}_{self.digest[:10]}".replace("+", "")

    def path(self, out, start: int, stop: int) -> Path:
        return Path(out) / "cells" / f"{self.name}.r{start}-{stop}.npz"

    def cost(self, runs: int | None = None) -> float:
        """Rough CPU-seconds of ``runs`` runs (for scheduling the longest tasks first)."""
        runs = self.runs if runs is None else runs
        per_run = _COST_PER_RUN.get(self.policy, 0.003) * self.T / 1e6
        return per_run * runs


@dataclass(frozen=True)
class Setting:
    """One panel of a figure: an environment and a budget, with one cell per algorithm."""

    env: str
    eps: float
    cells: tuple

    @property
    def label(self) -> str:
        return f"{self.env}, eps={self.eps:g}"


@dataclass(frozen=True)
class Experiment:
    """A named list of settings (the panels of the paper's figures).

    Attributes
    ----------
    name : str
        ``"fig1"``, ``"appendix"`` or ``"eps-sweep"`` (or a custom name).
    description : str
        One line for summaries.
    settings : tuple of Setting
    T, runs : int
    """

    name: str
    description: str
    settings: tuple
    T: int
    runs: int

    @property
    def cells(self) -> tuple:
        """The distinct cells of all settings, in order (shared cells appear once)."""
        seen: dict[Cell, None] = {}
        for s in self.settings:
            for c in s.cells:
                seen.setdefault(c, None)
        return tuple(seen)

    def __len__(self) -> int:
        return len(self.cells)


def _check_algorithms(algorithms) -> tuple:
    if isinstance(algorithms, str):
        algorithms = (algorithms,)
    algos = tuple(_policy_name(a) for a in algorithms)
    if not algos:
        raise ValueError("algorithms must name at least one policy")
    return algos


def _fmt_T(T: int) -> str:
    """``10^6`` for powers of ten, else the integer."""
    k = round(math.log10(T)) if T > 0 else 0
    return f"10^{k}" if 10**k == T else str(T)


def _grid_experiment(name, description, instances, eps_values, T, runs, algorithms) -> Experiment:
    T = as_int("T", T, minimum=10)
    runs = as_int("runs", runs, minimum=1)
    algos = _check_algorithms(algorithms)
    settings = []
    for env in instances:
        for eps in eps_values:
            eps = float(as_positive("eps", eps, allow_inf=False))
            cells = tuple(Cell.make(a, env, T, runs, paper_params(a, eps)) for a in algos)
            settings.append(Setting(instance(env).name, eps, cells))
    return Experiment(name, description, tuple(settings), T, runs)


def figure1(T: int = PAPER_T, runs: int = PAPER_RUNS, eps: float = FIG1_EPS,
            instances: Sequence[str] = ("mu1", "mu2"), algorithms: Sequence[str] = ALGORITHMS) -> Experiment:
    """Figure 1 of the paper: regret against t at eps = 0.25 on mu1 (left) and mu2 (right)."""
    return _grid_experiment("fig1", f"Figure 1: eps = {eps:g}, T = {_fmt_T(T)}, {runs} runs",
                            instances, (eps,), T, runs, algorithms)


def appendix(T: int = PAPER_T, runs: int = PAPER_RUNS, eps_values: Sequence[float] = APPENDIX_EPS,
             instances: Sequence[str] = APPENDIX_INSTANCES,
             algorithms: Sequence[str] = ALGORITHMS) -> Experiment:
    """Figures of the appendix 'Extended Experiments': mu1..mu4 x eps in {0.01, 0.1, 0.5, 1}."""
    text = f"Appendix: {len(instances)} instances x {len(eps_values)} budgets, T = {_fmt_T(T)}, {runs} runs"
    return _grid_experiment("appendix", text, instances, eps_values, T, runs, algorithms)


def sweep_eps_values(n_eps: int = 100) -> tuple:
    """``k / n_eps`` for ``k = 1..n_eps``: ``n_eps`` equally spaced budgets in (0, 1]."""
    n_eps = as_int("n_eps", n_eps, minimum=1)
    return tuple(k / n_eps for k in range(1, n_eps + 1))


def eps_sweep(T: int = SWEEP_T, runs: int = PAPER_RUNS, n_eps: int = 100, alpha: float = 1.1,
              env: str = "sweep", policy: str = "DP-IMED") -> Experiment:
    """The appendix's regret-against-eps figure: DP-IMED with alpha = 1.1, T = 1e7, 100 budgets."""
    T = as_int("T", T, minimum=10)
    runs = as_int("runs", runs, minimum=1)
    settings = []
    for eps in sweep_eps_values(n_eps):
        params = {"eps": eps, "n0": 1, "alpha": float(alpha)}
        settings.append(Setting(instance(env).name, eps, (Cell.make(policy, env, T, runs, params),)))
    return Experiment("eps-sweep", f"Regret against eps: {policy} (alpha = {alpha:g}) on {env}, "
                      f"T = {_fmt_T(T)}, {runs} runs, {n_eps} budgets", tuple(settings), T, runs)


def experiment(name: str, *, T: int | None = None, runs: int | None = None,
               n_eps: int | None = None) -> Experiment:
    """The experiment called ``name`` (``fig1``, ``appendix``, ``eps-sweep``), at the paper's scale
    unless ``T``, ``runs`` or (for the sweep) ``n_eps`` are given."""
    if name not in EXPERIMENT_NAMES:
        raise ValueError(f"unknown experiment {name!r}; valid names are {', '.join(EXPERIMENT_NAMES)}")
    kw = {} if runs is None else {"runs": runs}
    if T is not None:
        kw["T"] = T
    if name == "fig1":
        return figure1(**kw)
    if name == "appendix":
        return appendix(**kw)
    return eps_sweep(**kw, **({} if n_eps is None else {"n_eps": n_eps}))


# ----------------------------------------------------------------------------------------------
# provenance: which code produced a file
# ----------------------------------------------------------------------------------------------
def _module_file(parts: list[str]) -> Path | None:
    if not parts:
        return None
    base = _PKG.joinpath(*parts)
    if base.with_name(base.name + ".py").is_file():
        return base.with_name(base.name + ".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _dpb_imports(path: Path) -> set[Path]:
    """Files of ``dpb`` imported by the module at ``path`` (relative or absolute imports)."""
    pkg = list(path.relative_to(_PKG).parent.parts)
    found: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[list[str]] = []
        if isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if not node.module or node.module.split(".")[0] != "dpb":
                    continue
                base = node.module.split(".")[1:]
            else:
                if node.level - 1 > len(pkg):
                    continue
                base = pkg[: len(pkg) - (node.level - 1)] + (node.module.split(".") if node.module else [])
            targets.append(base)
            targets.extend(base + [alias.name] for alias in node.names)
        elif isinstance(node, ast.Import):
            targets.extend(a.name.split(".")[1:] for a in node.names if a.name.split(".")[0] == "dpb")
        for parts in targets:
            f = _module_file(parts)
            if f is not None:
                found.add(f)
    return found


@functools.lru_cache(maxsize=None)
def _source_files(policy: str) -> tuple:
    """The simulator, the policy's module and what they import from ``dpb`` (package ``__init__``
    files excluded: they only re-export, and the policy's class is resolved at run time)."""
    roots = [_PKG / "simulate.py", Path(inspect.getfile(POLICIES[_policy_name(policy)])).resolve()]
    skip = {_PKG / "__init__.py", _PKG / "policies" / "__init__.py"}
    todo, seen = list(roots), set()
    while todo:
        f = todo.pop()
        if f in seen or f in skip:
            continue
        seen.add(f)
        todo.extend(_dpb_imports(f) - seen)
    return tuple(sorted(seen))


def _code_digest(path: Path) -> bytes:
    """SHA-256 of the code of a Python file: its syntax tree without docstrings (comments are not
    in the tree), so editing documentation does not make results stale.  Cached per process on
    the file's modification time and size."""
    st = path.stat()
    return _code_digest_cached(str(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=256)
def _code_digest_cached(path: str, mtime_ns: int, size: int) -> bytes:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree, include_attributes=False).encode()).digest()


def source_hash(policy: str) -> str:
    """SHA-256 of the ``dpb`` code that produces a cell of ``policy`` (see the module doc).

    Covers the simulator, the policy's module and every ``dpb`` module they import (batching,
    numerics, validation...), as syntax trees without docstrings: a change of code changes the
    hash and makes that policy's cached cells stale, an edit of comments or docstrings does not.
    """
    h = hashlib.sha256()
    for f in _source_files(policy):
        h.update(str(f.relative_to(_PKG)).encode() + b"\0" + _code_digest(f))
    return h.hexdigest()


def _stamp(policy: str) -> dict:
    from . import __version__

    return {"format": FORMAT, "dpb_version": __version__, "numpy_version": np.__version__,
            "source_hash": source_hash(policy)}


# ----------------------------------------------------------------------------------------------
# the cache
# ----------------------------------------------------------------------------------------------
def default_results_dir() -> Path:
    """``$DPB_RESULTS`` if set, else ``results/`` under the repository root (the directory holding
    ``pyproject.toml`` next to the ``dpb`` package), else ``./results``.  Created on demand."""
    env = os.environ.get("DPB_RESULTS")
    if env:
        return Path(env)
    root = _PKG.parent
    if (root / "pyproject.toml").is_file():
        return root / "results"
    return Path.cwd() / "results"


def _out(out) -> Path:
    return default_results_dir() if out is None else Path(out)


def _read_meta(path: Path) -> dict | None:
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
    except (OSError, ValueError, KeyError, json.JSONDecodeError, EOFError):
        return None  # unreadable or foreign: treated as stale
    except Exception:  # noqa: BLE001 - a truncated zip raises zipfile.BadZipFile and friends
        return None
    return meta


def chunk_status(cell: Cell, start: int, stop: int, out=None, *, seed: int = DEFAULT_SEED) -> str:
    """``"done"``, ``"missing"`` or ``"stale"`` for the file of runs ``[start, stop)`` of ``cell``.

    A file is done when it records this cell's key, this seed, these runs, the current cache format,
    ``dpb`` and ``numpy`` versions and the current :func:`source_hash` of the policy.
    """
    path = cell.path(_out(out), start, stop)
    if not path.is_file():
        return "missing"
    meta = _read_meta(path)
    if meta is None:
        return "stale"
    extra = meta.get("extra", {})
    ok = (
        extra.get("cell") == cell.key
        and extra.get("runs") == [start, stop]
        and extra.get("experiment_seed") == seed
        and all(extra.get(k) == v for k, v in _stamp(cell.policy).items())
    )
    return "done" if ok else "stale"


def status(target, out=None, *, seed: int = DEFAULT_SEED) -> dict:
    """Counts of chunk files ``{"done": ..., "missing": ..., "stale": ...}`` of an experiment
    (or a list of experiments or cells)."""
    counts = {"done": 0, "missing": 0, "stale": 0}
    for cell in _as_cells(target):
        for a, b in cell.chunks():
            counts[chunk_status(cell, a, b, out, seed=seed)] += 1
    return counts


def _as_cells(target) -> tuple:
    if isinstance(target, Experiment):
        return target.cells
    if isinstance(target, Cell):
        return (target,)
    if isinstance(target, str):
        return experiment(target).cells
    if isinstance(target, Iterable):
        seen: dict[Cell, None] = {}
        for t in target:
            for c in _as_cells(t):
                seen.setdefault(c, None)
        return tuple(seen)
    raise TypeError(f"expected an Experiment, a Cell, an experiment name or a list of them, got {target!r}")


def _save_atomic(result: Result, path: Path) -> Path:
    """Write ``result`` to a unique temporary file in ``cells/.partial/``, then :func:`os.replace` it
    onto ``path``: readers see either no file or a complete one, and concurrent writers of the
    same cell (two builds at once) cannot clobber each other's temporary files."""
    partial = path.parent / ".partial"
    partial.mkdir(parents=True, exist_ok=True)
    tmp = partial / f"{path.stem}.{os.getpid()}.{uuid.uuid4().hex[:8]}.npz"
    try:
        result.save(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():  # pragma: no cover - only after a failure
            tmp.unlink()
    return path


def _compute_chunk(cell: Cell, start: int, stop: int, seed: int, stamp: dict, out: str | None):
    """Simulate runs ``[start, stop)`` of ``cell`` (in a worker); save the file when ``out`` is given.

    Returns the :class:`~dpb.simulate.Result` with its provenance in ``extra``.
    """
    c0 = time.thread_time()
    res = simulate(cell.policy, cell.bandit(), cell.T, seed=cell.seed_sequence(seed),
                   params=cell.params, run_ids=np.arange(start, stop))
    res.extra = {**stamp, "cell": cell.key, "runs": [start, stop], "experiment_seed": seed,
                 "cpu_seconds": time.thread_time() - c0}
    if out is not None:
        _save_atomic(res, cell.path(out, start, stop))
    return res


@dataclass
class RunReport:
    """What :func:`run` did: chunk files computed and reused, wall-clock and CPU seconds.

    ``cpu_seconds`` sums the CPU time of the computed chunks (measured in the workers);
    ``cpu_by_policy`` splits it by policy.
    """

    total: int = 0
    computed: int = 0
    reused: int = 0
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    cpu_by_policy: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return (f"{self.total} chunk files: {self.computed} computed, {self.reused} reused; "
                f"{self.wall_seconds:.1f} s wall, {self.cpu_seconds:.1f} CPU-s")


def _default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _pool_context():
    import multiprocessing as mp

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["dpb.experiments"])
        return ctx
    return mp.get_context("spawn")  # pragma: no cover - not POSIX


def _progress_bar(total: int, desc: str, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="file", disable=not enabled, leave=True)


def run(target, out=None, *, seed: int = DEFAULT_SEED, jobs: int | None = None, scheduler=None,
        progress: bool = True, force: bool = False, desc: str | None = None) -> RunReport:
    """Compute the missing or stale chunk files of ``target`` and write them under ``out/cells``.

    Parameters
    ----------
    target : Experiment, Cell, experiment name, or a list of them
        What to compute (shared cells are computed once).
    out : path, optional
        Cache directory (default :func:`default_results_dir`), created on demand.
    seed : int
        The experiment seed (each cell derives its own from it, see the module doc).
    jobs : int, optional
        Worker processes of the local pool (default: the usable cores); ``1`` computes in this
        process.  Ignored when ``scheduler`` is given.
    scheduler : dask.distributed.Client or str, optional
        Run the chunks on this Dask cluster (a client, or a scheduler address such as
        ``"tcp://host:8786"``) instead of the local pool; the files are written by this process.
    progress : bool
        Show a progress bar (``tqdm.auto``: a widget in notebooks, text in a terminal).
    force : bool
        Recompute every chunk even when its file is up to date.

    Returns
    -------
    RunReport

    Notes
    -----
    Finished chunks are written as soon as they finish (by the worker for the local pool), each
    atomically, so killing a run loses at most the chunks in progress; the next call computes only
    what is missing.  Chunks start longest first.
    """
    out = _out(out)
    seed = as_int("seed", seed, minimum=0)
    jobs = _default_jobs() if jobs is None else as_int("jobs", jobs, minimum=1)
    t0 = time.perf_counter()
    cells = _as_cells(target)
    todo = []
    report = RunReport()
    for cell in cells:
        for a, b in cell.chunks():
            report.total += 1
            if not force and chunk_status(cell, a, b, out, seed=seed) == "done":
                report.reused += 1
            else:
                todo.append((cell, a, b))
    if not todo:
        report.wall_seconds = time.perf_counter() - t0
        return report
    todo.sort(key=lambda t: -t[0].cost(t[2] - t[1]))
    stamps = {p: _stamp(p) for p in {c.policy for c, _, _ in todo}}
    label = desc or (target.name if isinstance(target, Experiment) else "cells")

    def finished(res: Result) -> None:
        cpu = float(res.extra.get("cpu_seconds", 0.0))
        report.computed += 1
        report.cpu_seconds += cpu
        report.cpu_by_policy[res.policy] = report.cpu_by_policy.get(res.policy, 0.0) + cpu

    with _progress_bar(len(todo), label, progress) as bar:
        if scheduler is not None:
            _run_dask(todo, out, seed, stamps, scheduler, finished, bar)
        elif jobs == 1 or len(todo) == 1:
            for cell, a, b in todo:
                finished(_compute_chunk(cell, a, b, seed, stamps[cell.policy], str(out)))
                bar.update()
        else:
            _run_pool(todo, out, seed, stamps, min(jobs, len(todo)), finished, bar)
    report.wall_seconds = time.perf_counter() - t0
    return report


def _run_pool(todo, out, seed, stamps, jobs, finished, bar) -> None:
    (out / "cells").mkdir(parents=True, exist_ok=True)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=_pool_context())
    try:
        pending = {pool.submit(_compute_chunk, c, a, b, seed, stamps[c.policy], str(out)) for c, a, b in todo}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                finished(fut.result())
                bar.update()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _run_dask(todo, out, seed, stamps, scheduler, finished, bar) -> None:
    from distributed import Client, as_completed

    own = not isinstance(scheduler, Client)
    client = Client(scheduler) if own else scheduler
    try:
        futures = [
            client.submit(_compute_chunk, c, a, b, seed, stamps[c.policy], None,
                          key=f"dpb-{c.digest[:16]}-{seed}-{a}-{b}", pure=False)
            for c, a, b in todo
        ]
        index = {f.key: (c, a, b) for f, (c, a, b) in zip(futures, todo, strict=True)}
        for fut in as_completed(futures):
            res = fut.result()
            cell, a, b = index[fut.key]
            _save_atomic(res, cell.path(out, a, b))
            finished(res)
            bar.update()
            fut.release()
    finally:
        if own:
            client.close()


# ----------------------------------------------------------------------------------------------
# loading
# ----------------------------------------------------------------------------------------------
def _load_cell(cell: Cell, out: Path, seed: int) -> Result:
    parts = []
    for a, b in cell.chunks():
        state = chunk_status(cell, a, b, out, seed=seed)
        if state != "done":
            raise MissingResultsError(f"{cell.name} runs {a}-{b} is {state} in {out}")
        parts.append(Result.load(cell.path(out, a, b)))
    res = parts[0] if len(parts) == 1 else Result.concat(parts)
    total = sum(float(p.extra.get("cpu_seconds", 0.0)) for p in parts)
    res.extra = {**res.extra, "runs": [0, cell.runs], "cpu_seconds": total}
    return res


@dataclass
class ExperimentResults:
    """The results of an :class:`Experiment`: one :class:`~dpb.simulate.Result` per cell.

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


def cpu_seconds(results: Iterable[Result]) -> float:
    """Sum of the CPU-seconds recorded in results loaded from the cache (chunks added up)."""
    total = 0.0
    for r in results:
        total += float(r.extra.get("cpu_seconds", 0.0))
    return total


def load(target, out=None, *, seed: int = DEFAULT_SEED) -> ExperimentResults:
    """Read an experiment's cells from the cache (chunks joined by :meth:`dpb.simulate.Result.concat`).

    Raises
    ------
    MissingResultsError
        When a chunk file is missing or stale: call :func:`run` (or :func:`ensure`) first.
    """
    exp = experiment(target) if isinstance(target, str) else target
    if not isinstance(exp, Experiment):
        raise TypeError(f"target must be an Experiment or an experiment name, got {target!r}")
    out = _out(out)
    results = {}
    for cell in exp.cells:
        results[cell] = _load_cell(cell, out, seed)
    return ExperimentResults(exp, results, seed)


def ensure(target, out=None, *, seed: int = DEFAULT_SEED, jobs: int | None = None, scheduler=None,
           progress: bool = True) -> ExperimentResults:
    """:func:`run` then :func:`load`: the results, computing only what is missing or stale."""
    exp = experiment(target) if isinstance(target, str) else target
    run(exp, out, seed=seed, jobs=jobs, scheduler=scheduler, progress=progress)
    return load(exp, out, seed=seed)


# ----------------------------------------------------------------------------------------------
# tables
# ----------------------------------------------------------------------------------------------
def final_regret_stats(result: Result) -> dict:
    """Mean, standard deviation (ddof = 1), median and 10%/90% quantiles of the regret at T."""
    reg = np.asarray(result.final_regret, dtype=float)
    return {
        "runs": int(reg.size),
        "mean": float(reg.mean()),
        "std": float(reg.std(ddof=1)) if reg.size > 1 else 0.0,
        "median": float(np.median(reg)),
        "q10": float(np.quantile(reg, 0.1)),
        "q90": float(np.quantile(reg, 0.9)),
    }


def final_regret_table(results: Mapping[str, Result], ours: Sequence[str] = OURS) -> list:
    """One row per algorithm: :func:`final_regret_stats` plus ``ratio``, its mean regret divided by
    the smaller mean regret of the paper's algorithms (DP-KLUCB, DP-IMED) present in ``results``
    (NaN when none is present)."""
    rows = []
    best = [final_regret_stats(results[a])["mean"] for a in ours if a in results]
    ref = min(best) if best else math.nan
    for name, res in results.items():
        stats = final_regret_stats(res)
        ratio = stats["mean"] / ref if ref > 0 else math.nan
        rows.append({"algorithm": name, **stats, "ratio": ratio})
    return rows


def ratio_summary(res: ExperimentResults, baselines: Sequence[str] = BASELINES,
                  ours: Sequence[str] = OURS) -> list:
    """Per setting: the best of ours, the best private baseline, and their ratio of mean regrets.

    Each row has ``env, eps, best_ours, ours_mean, best_baseline, baseline_mean, ratio`` (best
    baseline / best of ours: above 1 when ours wins) and ``max_ratio`` (worst baseline / best of
    ours).
    """
    rows = []
    for s in res.settings:
        by = {a: final_regret_stats(r)["mean"] for a, r in res.setting(s).items()}
        o = {a: by[a] for a in ours if a in by}
        b = {a: by[a] for a in baselines if a in by}
        if not o or not b:
            continue
        bo, bb = min(o, key=o.get), min(b, key=b.get)
        rows.append({"env": s.env, "eps": s.eps, "best_ours": bo, "ours_mean": o[bo],
                     "best_baseline": bb, "baseline_mean": b[bb], "ratio": b[bb] / o[bo],
                     "max_ratio": max(b.values()) / o[bo]})
    return rows


def mean_regret_summary(res: ExperimentResults, baselines: Sequence[str] = BASELINES,
                        ours: Sequence[str] = OURS) -> list:
    """One row per setting: ``env``, ``eps``, the mean regret at T of every algorithm (one column
    each) and ``ratio``, the best private baseline's mean over the best of ours (see
    :func:`ratio_summary`; NaN when one side is absent)."""
    ratios = {(r["env"], r["eps"]): r["ratio"] for r in ratio_summary(res, baselines, ours)}
    rows = []
    for s in res.settings:
        row = {"env": s.env, "eps": s.eps}
        row.update({a: final_regret_stats(r)["mean"] for a, r in res.setting(s).items()})
        row["ratio"] = ratios.get((s.env, s.eps), math.nan)
        rows.append(row)
    return rows


def sweep_table(res: ExperimentResults) -> list:
    """Per budget of a sweep: :func:`final_regret_stats` of the regret at T, the lower bound
    ``lower_bound_constant(mu, eps) * log T`` (Theorem 'Regret lower bound'), ``ratio`` (mean over
    the bound) and ``median_ratio`` (median over the bound)."""
    rows = []
    for s in res.settings:
        (r,) = res.setting(s).values()
        st = final_regret_stats(r)
        lb = float(lower_bound_constant(r.means, s.eps)) * math.log(r.T)
        rows.append({"eps": s.eps, **st, "lower_bound": lb, "ratio": st["mean"] / lb,
                     "median_ratio": st["median"] / lb})
    return rows


def outlier_runs(result: Result, factor: float = 10.0) -> int:
    """Number of runs whose regret at T exceeds ``factor`` times the median over runs."""
    factor = float(as_positive("factor", factor, allow_inf=False))
    reg = np.asarray(result.final_regret, dtype=float)
    return int(np.count_nonzero(reg > factor * np.median(reg)))


def dominance(res: ExperimentResults, stat: str = "mean", baselines: Sequence[str] = BASELINES,
              ours: Sequence[str] = OURS) -> list:
    """Per setting, whether each of ``ours`` has a lower ``stat`` (``"mean"`` or ``"median"`` regret
    at T) than every private baseline: rows ``{"env", "eps", "DP-KLUCB": bool, "DP-IMED": bool}``."""
    if stat not in ("mean", "median"):
        raise ValueError(f"stat must be 'mean' or 'median', got {stat!r}")
    rows = []
    for s in res.settings:
        data = res.setting(s)
        v = {a: final_regret_stats(r)[stat] for a, r in data.items()}
        base = [v[b] for b in baselines if b in v]
        if not base:
            continue
        row = {"env": s.env, "eps": s.eps}
        row.update({a: bool(v[a] < min(base)) for a in ours if a in v})
        rows.append(row)
    return rows


def format_table(rows: Sequence[Mapping], columns: Sequence[str] | None = None, digits: int = 1,
                 title: str | None = None, headers: Mapping[str, str] | None = None) -> str:
    """Plain-text table of ``rows`` (numbers rounded to ``digits``; ``ratio`` columns to 2).

    ``columns`` selects and orders the keys (default: all keys of the first row); ``headers`` maps
    a key to a shorter column title.
    """
    if not rows:
        return title or ""
    columns = list(columns or rows[0].keys())
    headers = dict(headers or {})

    def fmt(k, v):
        if isinstance(v, str):
            return v
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            return str(v)
        if k == "eps":
            return f"{v:g}"
        return f"{v:.2f}" if "ratio" in k else f"{v:.{digits}f}"

    names = [headers.get(k, k) for k in columns]
    cells = [[fmt(k, r[k]) for k in columns] for r in rows]
    widths = [max(len(n), *(len(c[i]) for c in cells)) for i, n in enumerate(names)]
    lines = [] if title is None else [title]
    lines.append("  ".join(n.rjust(w) for n, w in zip(names, widths, strict=True)))
    lines.extend("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) for row in cells)
    return "\n".join(lines)
