"""Experiments as data: an experiment file (TOML) describes any instance, the paper's included.

An experiment file names the experiment, the horizon and the runs, the instances (the paper's
named ones or arm means of your own), the budgets and the policies; ``dpb run my.toml`` computes,
caches, resumes, plots and tabulates it exactly as ``dpb reproduce`` does the paper's experiments,
whose own files ship with the package (``dpb/experiments/paper/{fig1,appendix,eps-sweep}.toml``,
:func:`paper_file`).  A complete file::

    name = "twenty-arms"              # names the outputs (with a digest of the spec)
    title = "Twenty arms"             # optional: the summary's first words
    horizon = 100_000                 # T, 100 to 1e9 (10 to 1e9 from Python)
    runs = 20                         # runs per cell, 1 to 1e4
    instances = ["mu1", {name = "mine", means = [0.9, 0.8, 0.7]}]   # names and/or means
    # means = [0.9, 0.8, 0.7]         # shorthand: one instance of your own, called "custom"
    eps = [0.1, 1.0]                  # budgets; or eps_grid = 100 (eps = 1/100, 2/100, ..., 1)
    policies = ["DP-KLUCB", "DP-IMED", "IMED", "my_policy.py:MyUCB"]  # a path relative to this file
    figures = "panels"                # panels | instances | eps-sweep | none (default: by shape)

    [params.DP-KLUCB]                 # on top of the policy's paper_params(eps)
    alpha = 3

Each policy runs in every setting (instance x budget) with :func:`~dpb.experiments.paper_params`
at the setting's budget, updated by its ``[params.NAME]`` table; a policy without a budget (IMED)
has one cell per instance, shared by the budgets.  The seed is not part of the file: it is chosen
when running (default :data:`~dpb.experiments.DEFAULT_SEED`, ``--seed``), like ``--out``.

The same description comes from the command line (``--means``, ``--eps``, ``--policies``,
``--params``, ``--horizon``, ``--runs``) alone or on top of a file (:func:`override`).  The
figures and tables of an experiment are named ``<name>-<digest>`` (:func:`output_stem`), the digest
covering every cell, the runs and the seed, so that two specifications never overwrite each
other's outputs in one results directory.

The cells built from the paper's files are the very cells of :func:`~dpb.experiments.figure1`,
:func:`~dpb.experiments.appendix` and :func:`~dpb.experiments.eps_sweep` (same keys, file names
and seeds): their result files are shared, nothing is recomputed.
"""

from __future__ import annotations

from typing import Any

import contextlib
import hashlib
import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .._validate import as_instance, as_int, as_positive, plain
from ..environments import BernoulliBandit, instance, instance_names
from .specs import (
    DEFAULT_SEED,
    EXPERIMENT_NAMES,
    MAX_N_EPS,
    MAX_RUNS,
    MAX_SEED,
    MAX_T,
    PAPER_RUNS,
    Cell,
    Experiment,
    Setting,
    _canonical_json,
    _format_T,
    _policy_name,
    experiment,
    paper_params,
    sweep_eps_values,
)

__all__ = [
    "PAPER_DIR",
    "FIGURE_KINDS",
    "FileExperiment",
    "cell",
    "paper_file",
    "read_spec",
    "override",
    "experiments_from_options",
    "build",
    "read_experiment",
    "as_experiment",
    "spec_digest",
    "output_stem",
    "figure_kind",
    "spec_to_toml",
]

#: The directory of the paper's experiment files (package data).
PAPER_DIR = Path(__file__).resolve().parent / "paper"
#: The figure layouts: one row of panels (Figure 1), a grid per instance and a ratio heat map
#: (the appendix), the regret-against-eps plot with the lower bound, or none.
FIGURE_KINDS = ("panels", "instances", "eps-sweep", "none")
#: The keys of an experiment file.
_KEYS = ("name", "title", "horizon", "runs", "instances", "means", "eps", "eps_grid", "policies", "params",
         "figures")


@dataclass(frozen=True)
class FileExperiment(Experiment):
    """An :class:`~dpb.experiments.Experiment` read from an experiment file (or the command line):
    the same settings and cells, plus the resolved specification ``spec`` (canonical JSON) and the
    figure layout ``figures`` (one of ``FIGURE_KINDS``: panels, instances, eps-sweep, none)."""

    spec_json: str = "{}"
    figures: str = "panels"

    @property
    def spec(self) -> dict:
        return json.loads(self.spec_json)


def cell(policy: Any, env: Any, T: int, runs: int, *, params: Mapping | None = None,
         **policy_params: Any) -> Cell:
    """:meth:`Cell.make <dpb.experiments.Cell.make>` with the policy's parameters as keywords, as in
    :func:`~dpb.simulate.simulate`: ``cell("DP-KLUCB", [0.9, 0.8], 10**5, 20, eps=0.5, alpha=3)``."""
    from .._params import merge_params

    return Cell.make(policy, env, T, runs, merge_params("cell", policy, params, policy_params))


def _err(where: str, message: str) -> ValueError:
    return ValueError(f"{where}: {message}")


@contextlib.contextmanager
def _named(where: str, what: str = ""):
    """A ``TypeError`` or ``ValueError`` of the block as one ``ValueError`` naming the file (or
    specification) and, with ``what``, the key."""
    try:
        yield
    except (TypeError, ValueError) as exc:
        raise _err(where, f"{what}{exc}") from None


def paper_file(name: str) -> Path:
    """The experiment file of the paper's experiment ``name`` (``fig1``, ``appendix``, ``eps-sweep``)."""
    if not isinstance(name, str) or name not in EXPERIMENT_NAMES:
        raise ValueError(f"unknown paper experiment {name!r}; valid names are {', '.join(EXPERIMENT_NAMES)}")
    return PAPER_DIR / f"{name}.toml"


def _load_toml(path: Path) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10: tomli, a dependency of dpb there
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"experiment file {path}: not valid TOML: {exc}") from None


def _source_path(source) -> Path:
    if isinstance(source, str) and source in EXPERIMENT_NAMES:
        return paper_file(source)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"an experiment file must be a path or a paper experiment name, got "
                        f"{type(source).__name__}")
    path = Path(source).expanduser()
    if not path.is_file():
        hint = (f" (the paper's experiments are {', '.join(EXPERIMENT_NAMES)})" if path.suffix != ".toml"
                else "")
        raise ValueError(f"experiment file {str(source)!r} does not exist{hint}")
    return path


def read_spec(source: Any) -> dict:
    """The checked specification of an experiment file: ``source`` is a path (``.toml``), the name
    of one of the paper's experiments, or a dict with the file's keys.

    Returns a dict with every key of the format filled in (``title``, ``figures``... defaults).

    Raises
    ------
    ValueError
        For an unknown key, a missing ``name``, ``horizon``, ``runs``, instance, budget or policy,
        or a value out of range; the message names the file and the key.
    """
    if isinstance(source, Mapping):
        raw, where = dict(source), "experiment spec"
    else:
        path = _source_path(source)
        raw, where = _relative_to(_load_toml(path), path.resolve().parent), f"experiment file {path}"
    return _check(raw, where)


def _relative_to(raw: dict, folder: Path) -> dict:
    """``raw`` with the relative paths of its policy files (``"my_policy.py:MyUCB"``) made absolute
    against ``folder``, the experiment file's: a file names its policies wherever it is run from."""
    policies = raw.get("policies")
    if not isinstance(policies, list):
        return raw

    def absolute(p):
        if not isinstance(p, str) or ".py:" not in p:
            return p
        file, _, cls = p.rpartition(":")
        where = Path(file).expanduser()
        return p if where.is_absolute() else f"{folder / where}:{cls}"

    return {**raw, "policies": [absolute(p) for p in policies]}


def _check(raw: dict, where: str) -> dict:
    unknown = [k for k in raw if k not in _KEYS]
    if unknown:
        raise _err(where, f"unknown key {unknown[0]!r}; the keys are {', '.join(_KEYS)}")
    spec: dict = {}
    name = raw.get("name")
    if (not isinstance(name, str) or not name.strip() or any(c in name for c in "/\\\0")
            or name.startswith(".")):
        raise _err(where, f"'name' must be a non-empty string usable in a file name, got {name!r}")
    spec["name"] = name.strip()
    title = raw.get("title", spec["name"])
    if not isinstance(title, str):
        raise _err(where, f"'title' must be a string, got {title!r}")
    spec["title"] = title
    for key, lo, hi in (("horizon", 10, MAX_T), ("runs", 1, MAX_RUNS)):
        if key not in raw:
            raise _err(where, f"'{key}' is missing")
        with _named(where):
            spec[key] = as_int(key, raw[key], minimum=lo, maximum=hi)
    spec["instances"] = _check_instances(raw, where)
    spec["eps"], spec["eps_grid"] = _check_eps(raw, where)
    spec["policies"] = _check_policies(raw.get("policies"), where)
    spec["params"] = _check_params(raw.get("params", {}), spec["policies"], where)
    figures = raw.get("figures")
    if figures is not None and figures not in FIGURE_KINDS:
        raise _err(where, f"'figures' must be one of {', '.join(FIGURE_KINDS)}, got {figures!r}")
    spec["figures"] = figures
    return spec


def _check_instances(raw: dict, where: str) -> list:
    """``[{"name": ..., "means": [...] or None}]``: a named instance has ``means`` None."""
    listed = raw.get("instances", [])
    if isinstance(listed, (str, Mapping)):
        listed = [listed]
    if not isinstance(listed, list):
        raise _err(where, f"'instances' must be a list of instance names and {{name, means}} tables, got "
                          f"{listed!r}")
    items = ([{"name": "custom", "means": raw["means"]}] if "means" in raw else []) + [
        _check_instance(item, where) for item in listed]
    if not items:
        raise _err(where, "no instance: give 'instances' (names or {name, means} tables) or 'means'")
    for item in items:
        if item["means"] is not None:
            item["means"] = _check_means(item["name"], item["means"], where)
    names = [i["name"] for i in items]
    if len(set(names)) != len(names):
        raise _err(where, f"instance names must be distinct, got {names}")
    return items


def _check_instance(item, where: str) -> dict:
    """One entry of ``instances``: a paper's instance name, or a table ``{name, means}``."""
    if isinstance(item, str):
        with _named(where, "'instances': "):
            instance(item)
        return {"name": item.strip().lower(), "means": None}
    if not (isinstance(item, Mapping) and set(item) <= {"name", "means"} and "means" in item):
        raise _err(where, f"each instance must be a name ({', '.join(instance_names())}) or a table "
                          f"{{name = ..., means = [...]}}, got {item!r}")
    label = item.get("name", "custom")
    if not isinstance(label, str) or not label.strip():
        raise _err(where, f"an instance's 'name' must be a non-empty string, got {label!r}")
    if label.strip().lower() in instance_names():
        raise _err(where, f"{label!r} is the name of one of the paper's instances: call your "
                          f"means another name, or list the name alone")
    return {"name": label.strip(), "means": item["means"]}


def _check_means(name: str, means, where: str) -> list:
    """The means of the instance ``name`` as a list of floats (those of a valid Bernoulli bandit)."""
    if isinstance(means, str):
        raise _err(where, f"the means of {name!r} must be a list of numbers, got {means!r}")
    with _named(where, f"instance {name!r}: "):
        bandit = BernoulliBandit(means)
    return [float(m) for m in bandit.means]


def _check_eps(raw: dict, where: str) -> tuple:
    if "eps" in raw and "eps_grid" in raw:
        raise _err(where, "give the budgets once: 'eps' (a list) or 'eps_grid' (a count)")
    if "eps_grid" in raw:
        with _named(where):
            n = as_int("eps_grid", raw["eps_grid"], minimum=1, maximum=MAX_N_EPS)
        return list(sweep_eps_values(n)), n
    values = raw.get("eps")
    if values is None:
        raise _err(where, "'eps' is missing: the budgets of the settings (a list), or 'eps_grid'")
    if not isinstance(values, list):
        values = [values]
    if not values:
        raise _err(where, "'eps' must hold at least one budget")
    with _named(where, "'eps': "):
        out = [float(as_positive("eps", v, allow_inf=False)) for v in values]
    if len(set(out)) != len(out):
        raise _err(where, f"'eps' must hold distinct budgets, got {out}")
    return out, None


def _check_policies(policies, where: str) -> list:
    if isinstance(policies, str):
        policies = [policies]
    if not isinstance(policies, list) or not policies or not all(isinstance(p, str) for p in policies):
        raise _err(where, f"'policies' must be a non-empty list of policy names (or 'file.py:Class'), got "
                          f"{policies!r}")
    with _named(where, "'policies': "):
        names = [_policy_name(p) for p in policies]
    twice = [n for i, n in enumerate(names) if n in names[:i]]
    if twice:
        raise _err(where, f"'policies': {twice[0]} is listed twice")
    return list(policies)


def _check_params(params, policies: list, where: str) -> dict:
    if not isinstance(params, Mapping):
        raise _err(where, f"'params' must be a table of tables ([params.DP-KLUCB] alpha = 3), got {params!r}")
    names = {_policy_name(p): p for p in policies}
    out = {}
    for key, table in params.items():
        match = [n for n in names if n == key or names[n] == key]
        if not match:
            raise _err(where, f"[params.{key}] is not one of the policies ({', '.join(names)})")
        if not isinstance(table, Mapping):
            raise _err(where, f"[params.{key}] must be a table of parameters, got {table!r}")
        if "eps" in table:
            raise _err(where, f"[params.{key}]: eps is set by the settings ('eps' or 'eps_grid')")
        out[match[0]] = {str(k): plain(v) for k, v in table.items()}
    return out


def _raw(spec: Mapping) -> dict:
    """A checked specification back in the form of a file (what :func:`_check` reads)."""
    raw = dict(spec)
    raw.pop("eps_grid" if raw.get("eps_grid") is None else "eps", None)
    if raw.get("figures") is None:
        raw.pop("figures", None)
    raw["instances"] = [i["name"] if i["means"] is None else dict(i) for i in spec["instances"]]
    raw.pop("means", None)
    raw["params"] = {k: dict(v) for k, v in spec.get("params", {}).items()}
    return raw


# ----------------------------------------------------------------------------------------------
# the command line's options on top of a file
# ----------------------------------------------------------------------------------------------
def override(spec: Mapping | None, *, name: str | None = None, means: Iterable | None = None,
             eps: Iterable | None = None, eps_grid: int | None = None, policies: Iterable | None = None,
             params: Mapping | None = None, horizon: int | None = None, runs: int | None = None,
             extra_policies: Iterable = ()) -> dict:
    """``spec`` (from :func:`read_spec`, or None for none) with the command line's options on top.

    ``means`` replaces the instances: each item is an instance name or a list of means (named
    ``custom``, ``custom2``, ...); ``eps`` or ``eps_grid`` replace the budgets; ``policies``
    replaces the policies and ``extra_policies`` adds to them; ``params`` maps a policy name to
    parameters that update its ``[params]`` table.  The result is checked again as a whole.
    """
    raw = {} if spec is None else _raw(spec)
    if name is not None:
        raw["name"] = name
        if spec is None or raw.get("title") == spec.get("name"):
            raw["title"] = name
    if means is not None:
        items: list = []
        k = 0
        for m in means:
            if isinstance(m, str):
                items.append(m)
            else:
                k += 1
                items.append({"name": "custom" if k == 1 else f"custom{k}", "means": list(m)})
        raw["instances"] = items
    for key, value, other in (("eps", eps, "eps_grid"), ("eps_grid", eps_grid, "eps")):
        if value is not None:
            raw.pop(other, None)
            raw[key] = list(value) if key == "eps" else value  # type: ignore[arg-type]
    if policies is not None:
        raw["policies"] = list(policies)
        kept = {_policy_name(p) for p in raw["policies"]}
        raw["params"] = {k: v for k, v in raw.get("params", {}).items() if k in kept}
    extra = [p for p in extra_policies if _policy_name(p) not in {_policy_name(q) for q in raw["policies"]}]
    if extra:
        raw["policies"] = [*raw["policies"], *extra]
    if params:
        merged = {k: dict(v) for k, v in raw.get("params", {}).items()}
        for pol, table in params.items():
            merged.setdefault(_policy_name(pol), {}).update(table)
        raw["params"] = merged
    raw.update({k: v for k, v in (("horizon", horizon), ("runs", runs)) if v is not None})
    raw.setdefault("name", "experiment")
    return _check(raw, "the command line's experiment" if spec is None else "experiment (with the options)")


def experiments_from_options(target: str | None, *, name: str | None = None, means: Iterable | None = None,
                             eps: Iterable | None = None, policies: Iterable | None = None,
                             params: Iterable = (), horizon: int | None = None, runs: int | None = None,
                             n_eps: int | None = None, extra_policies: Iterable = ()) -> list:
    """The experiments the options of ``dpb run``, ``status`` and ``export`` describe, each a
    :class:`FileExperiment`: the paper's files (``target`` one of ``fig1``, ``appendix``,
    ``eps-sweep``, or ``all`` for the three), an experiment file (``target`` its path), or the
    options alone (``target`` None), with the options on top (:func:`override`).

    ``params`` holds ``(policy, table)`` pairs (``--params``): a table of a named policy updates its
    parameters, a table of ``None`` goes to every policy of the experiment that takes all its keys.
    ``n_eps`` (``--n-eps``) makes the budgets the grid 1/n, ..., 1 of the eps-sweep and of an
    experiment of one's own (not of fig1 and appendix); ``extra_policies`` (``--policy``) are added
    to every experiment but the eps-sweep.  Without a file, ``means``, ``eps``, ``policies`` and
    ``horizon`` are required and ``runs`` defaults to the paper's 20.

    Raises ``ValueError`` naming the option (``argument --means: ...``) for a missing or conflicting
    option, a parameter no policy takes, or a policy file named without its class.
    """
    extra_policies = list(extra_policies)
    _policy_hint([*extra_policies, *(policies or [])])
    full = {"name": name, "means": means, "eps": eps, "policies": policies}
    by_name: dict = {}
    for policy, table in params:
        by_name.setdefault(policy, {}).update(table)
    described = any(v is not None for v in full.values()) or bool(by_name)
    if target is None and not described:
        raise ValueError("give an experiment file (dpb run my.toml), a paper experiment (fig1, appendix, "
                         "eps-sweep, all) or describe one with --means, --eps, --policies and --horizon")
    names = list(EXPERIMENT_NAMES) if target == "all" else [target]
    if target == "all" and described:
        raise ValueError("--name/--means/--eps/--policies/--params describe one experiment, not 'all'")
    exps = []
    for target_name in names:
        spec = None if target_name is None else read_spec(target_name)
        given = {"--means": means, "--eps": eps, "--policies": policies, "--horizon": horizon}
        missing = [o for o, v in given.items() if v is None and spec is None]
        if missing:
            raise ValueError(f"argument {missing[0]}: without an experiment file, give --means, --eps, "
                             f"--policies and --horizon (missing: {', '.join(missing)})")
        sweep = target_name == "eps-sweep"
        exps.append(build(override(
            spec, name=name, means=means, eps=eps, policies=policies,
            eps_grid=n_eps if sweep or target_name not in EXPERIMENT_NAMES else None,
            params=_params_by_policy(by_name, spec, policies), horizon=horizon,
            runs=runs if runs is not None else (None if spec is not None else PAPER_RUNS),
            extra_policies=() if sweep else tuple(extra_policies))))
    return exps


def _params_by_policy(params: Mapping, spec: Mapping | None, policies: Iterable | None) -> dict:
    """``--params`` by policy name: ``alpha=3`` (policy None) goes to every policy taking ``alpha``
    (of ``policies``, else of ``spec``)."""
    from .._params import policy_parameter_names

    names = list(policies) if policies is not None else (spec["policies"] if spec else [])
    out: dict = {}
    for policy, table in params.items():
        if policy is not None:
            out.setdefault(policy, {}).update(table)
            continue
        takers = []
        for name in names:
            accepted = policy_parameter_names(name) or ()
            if set(table) <= set(accepted):
                out.setdefault(name, {}).update(table)
                takers.append(name)
        if not takers:
            raise ValueError(f"argument --params: no policy of the experiment takes {', '.join(table)} "
                             f"(write POLICY:{next(iter(table))}=...)")
    for policy, table in out.items():
        if "eps" in table:
            raise ValueError(f"argument --params: eps of {policy} is set by --eps (the settings' budgets)")
    return out


def _policy_hint(policies: Iterable) -> None:
    """``--policy my_policy.py`` without ``:Class``: say how to name the class (and which ones the
    file defines, when it can be read)."""
    for spec in policies:
        if spec.endswith(".py") and ":" not in spec:
            import ast

            classes = []
            try:
                tree = ast.parse(Path(spec).expanduser().read_text())
                classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
            except (OSError, SyntaxError, ValueError):
                pass
            which = f" (it defines {', '.join(classes)})" if classes else ""
            example = f"{spec}:{classes[0] if classes else 'MyPolicy'}"
            raise ValueError(f"argument --policy: {spec!r} names a file but not the policy class in "
                             f"it{which}: write FILE.py:CLASS, e.g. --policy {example}")


# ----------------------------------------------------------------------------------------------
# the experiment
# ----------------------------------------------------------------------------------------------
def _describe(spec: dict) -> str:
    inst, eps, pols = spec["instances"], spec["eps"], spec["policies"]
    where = inst[0]["name"] if len(inst) == 1 else f"{len(inst)} instances"
    budgets = f"eps = {eps[0]:g}" if len(eps) == 1 else f"{len(eps)} budgets"
    who = _policy_name(pols[0]) if len(pols) == 1 else f"{len(pols)} policies"
    what = f"{who} on {where}, {budgets}, T = {_format_T(spec['horizon'])}, {spec['runs']} runs"
    return what if spec["title"] == spec["name"] else f"{spec['title']}: {what}"


def build(spec: Mapping) -> FileExperiment:
    """The :class:`FileExperiment` of a checked specification (:func:`read_spec`, :func:`override`):
    one setting per instance and budget (instances outer), one cell per policy in each."""
    spec = _check(_raw(spec), "experiment spec")
    T, runs = spec["horizon"], spec["runs"]
    settings = []
    for inst in spec["instances"]:
        env = inst["name"] if inst["means"] is None else BernoulliBandit(inst["means"], name=inst["name"])
        label = instance(inst["name"]).name if inst["means"] is None else inst["name"]
        for eps in spec["eps"]:
            cells = []
            for pol in spec["policies"]:
                params = {**paper_params(pol, eps), **spec["params"].get(_policy_name(pol), {})}
                cells.append(Cell.make(pol, env, T, runs, params))
            settings.append(Setting(str(label), eps, tuple(cells)))
    return FileExperiment(spec["name"], _describe(spec), tuple(settings), T, runs,
                          spec_json=_canonical_json(spec),
                          figures=spec["figures"] or _shape_kind(tuple(settings)))


def read_experiment(source: Any, **options: Any) -> FileExperiment:
    """The experiment of an experiment file (a path, or the name of one of the paper's), with
    ``options`` (those of :func:`override`: ``horizon``, ``runs``, ``eps``, ``means``...) on top.

    >>> exp = read_experiment("fig1", horizon=10_000, runs=2)
    >>> len(exp.cells), exp.T
    (12, 10000)
    """
    spec = read_spec(source)
    if options:
        spec = override(spec, **options)
    return build(spec)


def as_experiment(target: Any) -> Experiment:
    """An :class:`~dpb.experiments.Experiment` from anything :func:`dpb.experiments.run` accepts: an
    experiment, the name of one of the paper's, a path to an experiment file, a cell, or a list of
    them (joined: the settings of each, in order; cells alone make one setting per instance and
    budget)."""
    if isinstance(target, Experiment):
        return target
    if isinstance(target, str) and target in EXPERIMENT_NAMES:
        return experiment(target)
    if isinstance(target, (str, os.PathLike)):
        return read_experiment(target)
    if isinstance(target, Cell):
        return _cells_experiment([target])
    if isinstance(target, Iterable) and not isinstance(target, (bytes, Mapping)):
        items = list(target)
        if not items:
            raise ValueError("target must name at least one experiment or cell, got an empty list")
        if all(isinstance(t, Cell) for t in items):
            return _cells_experiment(items)
        parts = [as_experiment(t) for t in items]
        if len(parts) == 1:
            return parts[0]
        settings = tuple(s for p in parts for s in p.settings)
        name = "+".join(dict.fromkeys(p.name for p in parts))
        return Experiment(name, "; ".join(p.description for p in parts), settings,
                          max(p.T for p in parts), max(p.runs for p in parts))
    raise TypeError(f"target must be an Experiment, a Cell, an experiment name, a path to an experiment "
                    f"file or a list of them, got {type(target).__name__}")


def _cells_experiment(cells: list) -> Experiment:
    groups: dict = {}
    for c in dict.fromkeys(cells):
        env = c.env if c.env != "custom" else "[" + ", ".join(f"{m:g}" for m in c.means) + "]"
        eps = c.eps if c.eps is not None else math.nan
        key = (env, c.means, "nan" if math.isnan(eps) else eps)
        groups.setdefault(key, (env, eps, []))[2].append(c)
    settings = tuple(Setting(env, eps, tuple(cs)) for env, eps, cs in groups.values())
    return Experiment("cells", f"{len(cells)} cells", settings, max(c.T for c in cells),
                      max(c.runs for c in cells))


# ----------------------------------------------------------------------------------------------
# names of the outputs
# ----------------------------------------------------------------------------------------------
def spec_digest(exp: Experiment, seed: int = DEFAULT_SEED) -> str:
    """SHA-256 (hex) of what the outputs of ``exp`` show: its name, its settings (instance, budget
    and each cell's key and runs) and the experiment seed."""
    as_instance("exp", exp, Experiment, "dpb.experiments.Experiment")
    seed = as_int("seed", seed, minimum=0, maximum=MAX_SEED)
    body = {"name": exp.name, "seed": seed,
            "settings": [[s.env, None if math.isnan(s.eps) else s.eps, [[c.key, c.runs] for c in s.cells]]
                         for s in exp.settings]}
    return hashlib.sha256(_canonical_json(body).encode()).hexdigest()


def output_stem(exp: Experiment, seed: int = DEFAULT_SEED) -> str:
    """``<name>-<first 8 hex digits of spec_digest>``: the stem of the experiment's figures and
    tables (``figures/<stem>.png``, ``tables/<stem>.txt``), distinct for two specifications."""
    digest = spec_digest(exp, seed)  # checks exp and seed
    return f"{exp.name}-{digest[:8]}"


def figure_kind(exp: Experiment) -> str:
    """The figure layout of ``exp``: its file's ``figures``, else chosen from its shape (one policy
    on one instance at several budgets: the eps-sweep plot; up to four settings, or one setting per
    instance: panels, four a row; more: a grid per instance)."""
    if isinstance(exp, FileExperiment):
        return exp.figures
    return _shape_kind(as_instance("exp", exp, Experiment, "dpb.experiments.Experiment").settings)


def _shape_kind(settings: tuple) -> str:
    if all(len(s.cells) == 1 for s in settings) and len(settings) > 1 and len({s.env for s in settings}) == 1:
        return "eps-sweep"
    # one setting per instance (e.g. one instance per number of arms): one grid of panels
    return "panels" if len(settings) <= 4 or len({s.env for s in settings}) == len(settings) else "instances"


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + "}"
    if v is None:
        raise ValueError("TOML has no null")
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def spec_to_toml(spec: Mapping) -> str:
    """An experiment file (TOML text) for a checked specification: what ``dpb run`` writes beside
    an experiment's tables, so that ``dpb run tables/<stem>.toml`` reruns exactly it."""
    raw = _raw(_check(_raw(spec), "experiment spec"))
    params = raw.pop("params")
    lines = [f"{key} = {_toml_value(value)}" for key, value in raw.items()]
    for pol, table in params.items():
        lines += ["", f"[params.{json.dumps(pol)}]", *(f"{k} = {_toml_value(v)}" for k, v in table.items())]
    return "\n".join(lines) + "\n"


def _as_cells(target) -> tuple:
    """The distinct cells of anything :func:`as_experiment` accepts (or of an empty list), in order."""
    if isinstance(target, Cell):
        return (target,)
    if isinstance(target, (list, tuple)) and all(isinstance(t, Cell) for t in target):
        return tuple(dict.fromkeys(target))
    return as_experiment(target).cells
