"""Specifications of the paper's experiments: cells, settings, experiments, seeds and chunks.

A :class:`Cell` is one policy with its parameters on one environment for one horizon and a number of
runs; a :class:`Setting` is one panel of a figure; an :class:`Experiment` is a named list of settings.
The functions :func:`figure1`, :func:`appendix`, :func:`eps_sweep` and :func:`experiment` build the
paper's experiments (see :mod:`dpb.experiments`).
"""

from __future__ import annotations

import hashlib
import json
import os
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._io import json_default
from .._validate import MAX_RUNS as SIMULATE_MAX_RUNS
from .._validate import as_int, as_names, as_positive
from ..batching import make_schedule
from ..cost import estimate_cost
from ..environments import INSTANCES, BernoulliBandit, as_bandit, instance, instance_names
from ..estimates import BLOCK_EDGES
from ..policies import Policy
from ..policies.registry import is_builtin, policy_class

__all__ = [
    "FORMAT",
    "DEFAULT_SEED",
    "PAPER_T",
    "PAPER_RUNS",
    "SWEEP_T",
    "PRIVATE_ALGORITHMS",
    "ALGORITHMS",
    "OURS",
    "BASELINES",
    "EXPERIMENT_NAMES",
    "FIG1_EPS",
    "APPENDIX_EPS",
    "APPENDIX_INSTANCES",
    "MAX_T",
    "MAX_RUNS",
    "MAX_N_EPS",
    "MAX_SEED",
    "Cell",
    "Setting",
    "Experiment",
    "paper_params",
    "figure1",
    "appendix",
    "sweep_eps_values",
    "eps_sweep",
    "dpse_readings",
    "experiment",
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

#: Resource limits of a cell (checked before anything is allocated or computed): the horizon (the
#: per-step baselines still grow with T; the work bound of simulate refuses what would take
#: minutes), the runs of a cell (a cell keeps every run's regret and pulls at ~150 checkpoints in
#: memory), the budgets of an eps-sweep (one cell each), and the experiment seed (a 63-bit integer).
MAX_T, MAX_RUNS, MAX_N_EPS, MAX_SEED = 10**9, 10**4, 1000, 2**63 - 1


# ----------------------------------------------------------------------------------------------
# specifications
# ----------------------------------------------------------------------------------------------
def _canonical_json(obj) -> str:
    """``obj`` as canonical JSON (sorted keys, no spaces, no NaN), numpy numbers as plain ones."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False, default=json_default)


def _no_constant(text: str):
    raise ValueError(f"{text} is not a JSON number")


def _policy_name(policy) -> str:
    """The registered name of ``policy`` (a name, a ``"file.py:Class"`` reference or a class)."""
    if isinstance(policy, str) or (isinstance(policy, type) and issubclass(policy, Policy)):
        return policy_class(policy).name
    raise TypeError(f"policy must be a policy name, got {type(policy).__name__}")


def _policy_file(policy) -> str:
    """``"path/file.py:Class"`` for a policy defined outside the package in a real file, so that a
    worker process can load it; ``""`` for the package's own policies (and for classes without a
    file, e.g. defined in a notebook: those run in this process only, ``jobs=1``)."""
    cls = policy_class(policy)
    if is_builtin(cls) or cls.__module__ == "__main__":
        # a class of the main script stays in this process: loading the script in a worker would
        # run its top level again (a script without ``if __name__ == "__main__":`` would recurse)
        return ""
    module = sys.modules.get(cls.__module__)
    if getattr(module, cls.__name__, None) is not cls:  # nested or replaced: not loadable by name
        return ""
    path = getattr(module, "__file__", None)
    if not path or not Path(path).is_file() or Path(path).suffix != ".py":
        return ""
    return f"{Path(path).resolve()}:{cls.__name__}"


def paper_params(policy: Any, eps: float | None = None) -> dict:
    """The parameters the paper uses for ``policy`` at budget ``eps`` ('Experimental Analysis').

    Read from the policy's class (:meth:`dpb.policies.base.Policy.paper_params`): DP-KLUCB and
    DP-IMED: ``n0 = 1, alpha = 2``; AdaP-KLUCB: ``alpha = 3.1``; DP-SE: confidence ``beta = 1/T``
    (``beta=None`` in :class:`~dpb.policies.DPSE` means 1/T); Lazy-DP-TS: offset constant ``c = 3``
    (an assumption, see :doc:`/book/algorithms_as_run`); IMED has no parameter; a policy of the
    reader's declares its own.

    Raises
    ------
    ValueError
        For an unknown policy or a private policy without a positive ``eps``.
    """
    if eps is not None:  # checked even for the policies without a budget
        eps = float(as_positive("eps", eps, allow_inf=False))
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
    source : str
        For a policy defined in a file outside the package, ``"path/file.py:Class"`` (what a
        worker process loads); not part of the cell's identity (:attr:`key`), since the cached
        files of such a policy are keyed by the hash of its source instead.
    """

    policy: str
    params_json: str
    env: str
    means: tuple
    T: int
    runs: int
    source: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        """Validate every field (a cell is the key of the numbers stored for it): ``policy`` a
        registered name, ``params_json`` the canonical JSON of a dict of parameters the policy
        accepts, ``env`` a named instance whose means ``means`` are (or ``"custom"`` with any
        valid means), ``T`` and ``runs`` integers in range, ``source`` a string.  ``ValueError``
        or ``TypeError`` naming the field otherwise."""
        if not isinstance(self.policy, str):
            raise TypeError(f"Cell.policy must be a registered policy name (str), got "
                            f"{type(self.policy).__name__} {self.policy!r}")
        name = _policy_name(self.policy)  # ValueError listing the names for an unknown one
        if name != self.policy:
            raise ValueError(f"Cell.policy must be the registered name {name!r}, got {self.policy!r} "
                             f"(Cell.make canonicalises it)")
        if not isinstance(self.params_json, str):
            raise TypeError(f"Cell.params_json must be a JSON string such as '{{\"eps\": 0.5}}', got "
                            f"{type(self.params_json).__name__} {self.params_json!r}")
        try:
            params = json.loads(self.params_json, parse_constant=_no_constant)
        except ValueError as exc:
            raise ValueError(f"Cell.params_json must be a JSON object such as '{{\"eps\": 0.5}}', got "
                             f"{self.params_json!r} ({exc})") from None
        if not isinstance(params, dict):
            raise ValueError(f"Cell.params_json must be a JSON object (the policy's parameters), got "
                             f"{self.params_json!r}")
        object.__setattr__(self, "params_json", _canonical_json(params))
        try:
            policy_class(self.policy)(**params)
        except TypeError as exc:
            from ..policies.registry import _missing_parameters  # the policy, the parameter and the fix

            missing = _missing_parameters(policy_class(self.policy), params)
            raise TypeError(missing or f"Cell.params_json: bad parameters for {self.policy}: {exc}") from None
        except ValueError as exc:
            raise ValueError(f"Cell.params_json: {exc}") from None
        if not isinstance(self.env, str):
            raise TypeError(f"Cell.env must be an instance name or 'custom', got {type(self.env).__name__}")
        if isinstance(self.means, (str, bytes)) or np.ndim(self.means) != 1:
            raise TypeError(f"Cell.means must be a sequence of arm means, got {self.means!r}")
        try:
            means = tuple(float(m) for m in BernoulliBandit(self.means).means)  # in [0, 1], finite
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"Cell.means: {exc}") from None
        object.__setattr__(self, "means", means)
        if self.env != "custom":
            if self.env not in INSTANCES:
                raise ValueError(f"Cell.env must be one of {', '.join(INSTANCES)} or 'custom', "
                                 f"got {self.env!r}")
            named = tuple(float(m) for m in instance(self.env).means)
            if means != named:
                raise ValueError(f"Cell.means {list(means)} disagree with the instance {self.env} = "
                                 f"{list(named)}: the numbers would be computed on one and stored under "
                                 f"the other (use env='custom' for your own means)")
        object.__setattr__(self, "T", as_int("Cell.T", self.T, minimum=1, maximum=MAX_T))
        # a cell of the converged scale holds up to its cap (20480) runs: the bound here is the
        # simulator's, MAX_RUNS bounds what a user asks for (--runs)
        object.__setattr__(self, "runs", as_int("Cell.runs", self.runs, minimum=1, maximum=SIMULATE_MAX_RUNS))
        if not isinstance(self.source, str):
            raise TypeError(f"Cell.source must be a string ('' or 'path/file.py:Class'), got "
                            f"{type(self.source).__name__}")

    @classmethod
    def make(cls, policy: Any, env: Any, T: int, runs: int, params: Mapping | None = None) -> Cell:
        """A cell; ``policy`` is a registered name, a ``"file.py:Class"`` reference or a policy
        class, ``env`` an instance name, a vector of means or a bandit."""
        name = _policy_name(policy)
        bandit = as_bandit(env)
        label = bandit.name if bandit.name in INSTANCES else "custom"
        T = as_int("T", T, minimum=1, maximum=MAX_T)
        runs = as_int("runs", runs, minimum=1, maximum=MAX_RUNS)
        params_json = _canonical_json(dict(params or {}))  # checked by the policy's constructor
        return cls(name, params_json, label, tuple(float(m) for m in bandit.means), T, runs,
                   _policy_file(policy))

    @property
    def params(self) -> dict:
        return json.loads(self.params_json)

    @property
    def process_local(self) -> bool:
        """Whether the policy's class exists in this process only (defined in a notebook cell or a
        function, with no file a worker could load): such cells are computed in this process."""
        return not self.source and not is_builtin(policy_class(self.policy))

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
        return hashlib.sha256(_canonical_json(self.key).encode()).hexdigest()

    def seed_sequence(self, seed: int) -> np.random.SeedSequence:
        """The cell's root seed ``SeedSequence(seed, spawn_key=words)``, where ``words`` are the first
        four 32-bit words of :attr:`digest`; run ``i`` of the cell is its ``i``-th child
        (``dpb.experiments.compute._cell_seed_sequence``)."""
        from .compute import _cell_seed_sequence  # (hashed into the cells' provenance)

        return _cell_seed_sequence(self.digest, as_int("seed", seed, minimum=0, maximum=MAX_SEED))

    def chunks(self) -> list[tuple[int, int]]:
        """Run ranges ``[start, stop)`` stored as separate files (fixed boundaries per policy).

        Files break at the block edges ``20, 40, 80, ...`` of :data:`dpb.estimates.BLOCK_EDGES` (so
        a cell of ``n`` runs reuses the files of every cell of fewer runs at an edge, and the
        paper's twenty runs are the first block of a converged cell) and, for a policy whose class
        sets ``cost_chunk_runs`` (Lazy-DP-TS: 10, about a CPU-second a file at T = 1e6, so that
        the converged scale's large blocks split into resumable, parallel tasks), every
        ``cost_chunk_runs`` runs."""
        size = policy_class(self.policy).cost_chunk_runs or self.runs
        edges = sorted({0, self.runs, *range(0, self.runs, size), *(e for e in BLOCK_EDGES if e < self.runs)})
        return list(zip(edges[:-1], edges[1:], strict=True))

    @property
    def name(self) -> str:
        """A readable file stem: policy, environment, eps, T and the digest's first 10 hex digits."""
        slug = "".join(ch for ch in self.policy.lower() if ch.isalnum())
        eps = "" if self.eps is None else f"_eps{self.eps:g}"
        return f"{slug}_{self.env}{eps}_T{self.T:.0e}_{self.digest[:10]}".replace("+", "")

    def path(self, out: str | os.PathLike[str], start: int, stop: int) -> Path:
        return Path(out) / "cells" / f"{self.name}.r{start}-{stop}.npz"

    def cost(self, runs: int | None = None) -> float:
        """Estimated CPU-seconds of ``runs`` runs (:func:`dpb.cost.estimate_cost`, pessimistic), for
        starting the longest tasks first."""
        runs = self.runs if runs is None else runs
        return estimate_cost(self.policy, self.bandit(), self.T, runs, params=self.params).seconds


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
    algos = (algorithms,) if isinstance(algorithms, str) else tuple(algorithms)
    if not algos:
        raise ValueError("algorithms must name at least one policy")
    for a in algos:
        _policy_name(a)  # fail early on unknown names
    return algos


def _format_T(T: int) -> str:
    """``10^6`` for powers of ten, else the integer."""
    k = round(math.log10(T)) if T > 0 else 0
    return f"10^{k}" if 10**k == T else str(T)


def _grid_experiment(name, description, instances, eps_values, T, runs, algorithms) -> Experiment:
    T = as_int("T", T, minimum=10, maximum=MAX_T)
    runs = as_int("runs", runs, minimum=1, maximum=MAX_RUNS)
    algos = _check_algorithms(algorithms)
    settings = []
    for env in instances:
        for eps in eps_values:
            eps = float(as_positive("eps", eps, allow_inf=False))
            cells = tuple(Cell.make(a, env, T, runs, paper_params(a, eps)) for a in algos)
            settings.append(Setting(str(instance(env).name), eps, cells))
    return Experiment(name, description, tuple(settings), T, runs)


def figure1(T: int = PAPER_T, runs: int = PAPER_RUNS, eps: float = FIG1_EPS,
            instances: Sequence[str] = ("mu1", "mu2"), algorithms: Sequence[str] = ALGORITHMS) -> Experiment:
    """Figure 1 of the paper: regret against t at eps = 0.25 on mu1 (left) and mu2 (right)."""
    T = as_int("T", T, minimum=10, maximum=MAX_T)  # checked before the description uses them
    eps = float(as_positive("eps", eps, allow_inf=False))
    return _grid_experiment("fig1", f"Figure 1: eps = {eps:g}, T = {_format_T(T)}, {runs} runs",
                            instances, (eps,), T, runs, algorithms)


def appendix(T: int = PAPER_T, runs: int = PAPER_RUNS, eps_values: Sequence[float] = APPENDIX_EPS,
             instances: Sequence[str] = APPENDIX_INSTANCES,
             algorithms: Sequence[str] = ALGORITHMS) -> Experiment:
    """Figures of the appendix 'Extended Experiments': mu1..mu4 x eps in {0.01, 0.1, 0.5, 1}."""
    T = as_int("T", T, minimum=10, maximum=MAX_T)  # checked before the description uses it
    text = (f"Appendix: {len(instances)} instances x {len(eps_values)} budgets, T = {_format_T(T)}, "
            f"{runs} runs")
    return _grid_experiment("appendix", text, instances, eps_values, T, runs, algorithms)


def sweep_eps_values(n_eps: int = 100) -> tuple:
    """``k / n_eps`` for ``k = 1..n_eps``: ``n_eps`` equally spaced budgets in (0, 1]."""
    n_eps = as_int("n_eps", n_eps, minimum=1, maximum=MAX_N_EPS)
    return tuple(k / n_eps for k in range(1, n_eps + 1))


def eps_sweep(T: int = SWEEP_T, runs: int = PAPER_RUNS, n_eps: int = 100, alpha: float = 1.1,
              env: str = "sweep", policy: str = "DP-IMED") -> Experiment:
    """The appendix's regret-against-eps figure: DP-IMED with alpha = 1.1, T = 1e7, 100 budgets."""
    T = as_int("T", T, minimum=10, maximum=MAX_T)
    runs = as_int("runs", runs, minimum=1, maximum=MAX_RUNS)
    alpha = make_schedule(None, n0=1, alpha=alpha).alpha  # type: ignore[attr-defined]  # checks alpha (a ratio >= 1.001)
    settings = []
    for eps in sweep_eps_values(n_eps):
        params = {"eps": eps, "n0": 1, "alpha": float(alpha)}
        settings.append(Setting(str(instance(env).name), eps, (Cell.make(policy, env, T, runs, params),)))
    return Experiment("eps-sweep", f"Regret against eps: {policy} (alpha = {alpha:g}) on {env}, "
                      f"T = {_format_T(T)}, {runs} runs, {n_eps} budgets", tuple(settings), T, runs)


def dpse_readings(T: int = PAPER_T, runs: int = PAPER_RUNS, eps: float = FIG1_EPS,
                  instances: Sequence[str] = ("mu1", "mu2")) -> Experiment:
    """DP-SE under each reading of its elimination rule (:data:`dpb.policies.dpse.ELIMINATION_RULES`)
    on Figure 1's settings; the default reading is Figure 1's own DP-SE cell (shared)."""
    from ..policies.dpse import ELIMINATION_RULES

    instances = as_names("instances", instances, instance_names())
    settings = []
    for env in instances:
        e = float(as_positive("eps", eps, allow_inf=False))
        cells = tuple(Cell.make("DP-SE", env, T, runs, {"eps": e} if rule == ELIMINATION_RULES[0]
                                else {"eps": e, "elimination": rule}) for rule in ELIMINATION_RULES)
        settings.append(Setting(str(instance(env).name), e, cells))
    return Experiment("dpse-readings", f"DP-SE, every reading of its elimination rule: eps = {eps:g}, "
                      f"T = {_format_T(T)}, {runs} runs", tuple(settings), T, runs)


def experiment(name: str, *, T: int | None = None, runs: int | None = None,
               n_eps: int | None = None, extra_policies: Sequence = ()) -> Experiment:
    """The experiment called ``name`` (``fig1``, ``appendix``, ``eps-sweep``), at the paper's scale
    unless ``T``, ``runs`` or (for the sweep) ``n_eps`` are given.

    ``extra_policies`` (registered names, ``"file.py:Class"`` references or policy classes) are
    added to every setting of ``fig1`` and ``appendix``, with their own
    :meth:`~dpb.policies.base.Policy.paper_params`; the sweep does not take them.
    """
    if name not in EXPERIMENT_NAMES:
        raise ValueError(f"unknown experiment {name!r}; valid names are {', '.join(EXPERIMENT_NAMES)}")
    if n_eps is not None:  # checked even where it is not used (fig1, appendix)
        n_eps = as_int("n_eps", n_eps, minimum=1, maximum=MAX_N_EPS)
    kw: dict[str, Any] = {k: v for k, v in (("T", T), ("runs", runs)) if v is not None}
    extra = tuple(extra_policies)
    if extra and name == "eps-sweep":
        raise ValueError("extra policies apply to fig1 and appendix, not to the eps-sweep")
    if extra:
        names = [_policy_name(p) for p in extra]  # loads files, checks the names
        kw["algorithms"] = ALGORITHMS + tuple(p for p, n in zip(extra, names, strict=True)
                                              if n not in ALGORITHMS)
    if name == "eps-sweep" and n_eps is not None:
        kw["n_eps"] = n_eps
    builders: dict[str, Callable[..., Experiment]] = {"fig1": figure1, "appendix": appendix,
                                                      "eps-sweep": eps_sweep}
    return builders[name](**kw)
