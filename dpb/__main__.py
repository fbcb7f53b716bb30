"""Command line of dpb: the ``dpb`` command (also ``python -m dpb``).

``dpb reproduce {fig1,appendix,eps-sweep,all}`` reruns the paper's experiments, read from the
experiment files shipped with the package (:func:`~dpb.experiments.read_experiment`); ``dpb run FILE.toml``
(or ``--means``, ``--eps``, ``--policies``... alone) runs any experiment the same way: result files
under ``OUT/cells``, figures (PNG and PDF) under ``OUT/figures`` and final-regret tables under
``OUT/tables``, both named ``<name>-<digest>`` after the experiment and its specification, and a
summary.  Finished files are reused, so an interrupted run resumes.  ``dpb status`` counts the
files and says why a file is stale, ``dpb export`` writes the regret curves in long format (CSV or
Parquet) and ``dpb compile`` compiles the numba kernels ahead of the first run.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
import traceback
import uuid
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from pathlib import Path

from . import experiments as E
from .experiments import files as F
from ._jit import jit_enabled
from ._outputs import write_outputs
from ._version import __version__
from .experiments.execution import _check_chunk_costs
from .experiments.scale import min_runs
from .policies.registry import PolicyFileError
from .simulate import MAX_SECONDS

EPILOG = """\
examples:
  dpb reproduce all                                  # the paper's scale (a few minutes on 2 cores)
  dpb reproduce fig1 --runs 4 --horizon 10000 --out /tmp/quick
  dpb reproduce eps-sweep --scheduler tcp://127.0.0.1:8786   # on a Dask cluster
  dpb status all                                     # what is cached, missing, stale (and why) or damaged
  dpb reproduce fig1 --policy my_policy.py:MyUCB --runs 4 --horizon 1e5   # your own policy
  dpb reproduce all --scale converged                # expected regret to +-10%, thousands of runs
  dpb run my_experiment.toml                         # your own experiment, described in a file
  dpb run --means 0.9,0.8,0.8 --eps 0.1,1 --policies DP-KLUCB,DP-IMED,IMED --horizon 1e5 --runs 20
  dpb export my_experiment.toml --format csv         # long format: experiment, instance, eps, ..., t, regret
  dpb compile                                        # compile the numba kernels once (cached on disk)

Result files are written atomically as they finish and reused when their recorded specification,
seed, dpb/numpy/numba versions, machine and source hash match the current code: rerunning after an
interruption computes only what is missing, and editing a policy recomputes only its files.
"""


#: Seconds to wait for a Dask scheduler to answer before giving up.
SCHEDULER_TIMEOUT = 5.0
#: Stale or damaged files that ``status`` explains one by one (``--verbose``: all).
STATUS_LINES = 10


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``python -m dpb reproduce: error: argument --runs: ...``
    (exit status 2; the usage is in ``--help``)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _fmt(n: int) -> str:
    """``1e9`` for large powers of ten, ``2**63-1`` for the largest seed, else the integer."""
    if n == 2**63 - 1:
        return "2**63-1"
    k = len(str(n)) - 1
    return f"1e{k}" if k >= 4 and n == 10**k else str(n)


def _decimal(text: str) -> Decimal | None:
    """``text`` as an exact finite decimal number (``1e5`` too), or None when it is not one: so
    that ``1e400`` or ``1e19`` are out of range, not an overflow."""
    try:
        value = Decimal(text.strip())
    except (InvalidOperation, ValueError):
        return None
    return value if value.is_finite() else None


def _integer(lo: int, hi: int):
    """An argparse type: a decimal integer, possibly written like ``1e5``, in ``[lo, hi]``."""

    def parse(text: str) -> int:
        value = _decimal(text)
        if value is None or value != value.to_integral_value() or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be an integer from {_fmt(lo)} to {_fmt(hi)}, got "
                                             f"{text!r}")
        return int(value)

    parse.__name__ = "an integer"  # argparse names the type in some messages
    return parse


def _seconds(*words: str):
    """An argparse type: a number of seconds > 0 (at most 1e12), ``none`` (no limit: None), or one
    of ``words`` (e.g. ``auto``), kept as it is."""

    def parse(text: str) -> float | str | None:
        word = text.strip().lower()
        if word == "none" or word in words:
            return None if word == "none" else word
        value = _decimal(text)
        if value is None or not Decimal("1e-3") <= value <= Decimal("1e12"):
            raise argparse.ArgumentTypeError(f"must be a number of seconds from 1e-3 to 1e12, or 'none', "
                                             f"got {text!r}")
        return float(value)

    parse.__name__ = "seconds"
    return parse


def _check_work(args, exps: list) -> None:
    """Refuse, before any work, a run whose largest chunk is estimated above ``--max-seconds``
    (``ValueError`` naming ``--horizon``/``--runs``); at the converged scale the first blocks."""
    if args.max_seconds is None:
        return
    cells = list(dict.fromkeys(c for exp in exps for c in exp.cells))
    if args.scale == "converged":
        cells = [replace(c, runs=min_runs(c.policy)) for c in cells]
    chunks = [(c, a, b) for c in cells for a, b in c.chunks()]
    advice = ("use a smaller --horizon or --runs, or pass --max-seconds none (or a larger limit) to run "
              "it anyway")
    try:
        _check_chunk_costs(chunks, args.max_seconds, advice)
    except ValueError as exc:
        raise ValueError(f"argument --horizon/--runs: {exc}") from None


def _prog() -> str:
    """``dpb`` when run as the console script, else ``python -m dpb``."""
    return "dpb" if Path(sys.argv[0] or "").name == "dpb" else "python -m dpb"


def _floats(what: str):
    """An argparse type: comma-separated numbers (``0.1,0.5,1``)."""

    def parse(text: str) -> list:
        try:
            values = [float(Decimal(t.strip())) for t in text.split(",") if t.strip()]
        except (InvalidOperation, ValueError, OverflowError):
            values = []
        if not values:
            raise argparse.ArgumentTypeError(f"must be {what}, comma-separated numbers, got {text!r}")
        return values

    parse.__name__ = what
    return parse


def _means(text: str):
    """An argparse type: an instance name (``mu1``) or comma-separated arm means (``0.9,0.8``)."""
    from .environments import instance_names

    t = text.strip()
    if t.lower() in instance_names():
        return t.lower()
    if not any(ch.isdigit() for ch in t):
        raise argparse.ArgumentTypeError(f"must be an instance name ({', '.join(instance_names())}) or arm "
                                         f"means such as 0.9,0.8,0.8, got {text!r}")
    return _floats("arm means")(t)


def _names(text: str) -> list:
    """An argparse type: comma-separated policy names (``DP-KLUCB,IMED,my_policy.py:MyUCB``)."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"must be policy names separated by commas, got {text!r}")
    return names


def _param(text: str) -> tuple:
    """An argparse type: ``POLICY:key=value[,key=value]`` (parameters of one policy) or
    ``key=value[,...]`` (of every policy that takes the key)."""
    head, sep, rest = text.partition(":")
    policy, body = (head.strip(), rest) if sep and "=" not in head else (None, text)
    table = {}
    for item in body.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key.strip().isidentifier():
            raise argparse.ArgumentTypeError(f"must look like DP-KLUCB:alpha=3,n0=2 (or alpha=3 for every "
                                             f"policy taking alpha), got {text!r}")
        v = value.strip()
        try:
            num = Decimal(v)
            parsed = int(num) if num == num.to_integral_value() and "." not in v and "e" not in v.lower() \
                else float(num)
        except (InvalidOperation, ValueError, OverflowError):
            parsed = {"true": True, "false": False}.get(v.lower(), v)  # type: ignore[arg-type]
        table[key.strip()] = parsed
    return policy, table


def _parents() -> dict:
    """The option groups of the subcommands, each defined once (argparse parent parsers):
    ``verbose`` (every command), ``spec`` (the experiment's scale, seed and results directory),
    ``own`` (an experiment of one's own: not ``reproduce``) and ``work`` (how to compute it:
    ``reproduce`` and ``run``)."""
    verbose, spec, own, work = (argparse.ArgumentParser(add_help=False) for _ in range(4))
    verbose.add_argument("--verbose", action="store_true",
                         help="on an error, print the full traceback (by default: one line naming the cause)")
    spec.add_argument("--runs", type=_integer(1, E.MAX_RUNS), default=None, metavar="N",
                      help=f"runs per cell, 1 to {_fmt(E.MAX_RUNS)} (default: the file's; the paper's "
                           f"{E.PAPER_RUNS})")
    spec.add_argument("--horizon", type=_integer(100, E.MAX_T), default=None, metavar="T",
                      help=f"horizon T of every experiment, 100 to {_fmt(E.MAX_T)}, for quick runs "
                           f"(default: the file's; the paper's 1e6 for fig1/appendix, 1e7 for eps-sweep); "
                           f"accepts 1e5")
    spec.add_argument("--n-eps", type=_integer(1, E.MAX_N_EPS), default=None, metavar="N",
                      help=f"number of budgets eps = 1/N, 2/N, ..., 1 of the eps-sweep (of any experiment: "
                           f"its budgets become this grid), 1 to {E.MAX_N_EPS} (default 100)")
    spec.add_argument("--seed", type=_integer(0, E.MAX_SEED), default=E.DEFAULT_SEED, metavar="S",
                      help=f"experiment seed, 0 to 2**63-1; each cell derives its own from it "
                           f"(default {E.DEFAULT_SEED})")
    spec.add_argument("--policy", action="append", default=[], metavar="FILE.py:CLASS",
                      help="add a policy to every table and figure (of fig1 and appendix, not eps-sweep): "
                           "a class in your own file (e.g. my_policy.py:MyUCB, a subclass of "
                           "dpb.policies.Policy that sets 'name') or a registered name such as "
                           "KL-UCB; run with its paper_params, cached like the others and keyed by "
                           "its source; repeatable")
    spec.add_argument("--scale", choices=E.SCALES, default="paper",
                      help="paper: the paper's 20 runs per cell (default); converged: runs added in "
                           "blocks (20, 40, 80, ...; at least 10240 for the batched policies at "
                           "T <= 1e6, 2560 beyond, 320 for IMED) until the "
                           "95%% interval of the expected regret at T is within +-10%% of it, cap 20480")
    spec.add_argument("--out", default=None, metavar="DIR",
                      help=f"results directory (default: {_RESULTS_HINT or E.default_results_dir()}, or "
                           f"$DPB_RESULTS); reproduce and run create it")
    own.add_argument("--name", default=None, metavar="NAME",
                     help="the experiment's name (names its figures and tables; default: the file's, "
                          "or 'experiment')")
    own.add_argument("--means", type=_means, action="append", default=None, metavar="MU",
                     help="an instance: arm means such as 0.9,0.8,0.8 (K >= 2) or a name (mu1...); "
                          "repeatable; replaces the file's instances")
    own.add_argument("--eps", type=_floats("privacy budgets"), default=None, metavar="EPS",
                     help="budgets of the settings, e.g. 0.1,0.5,1 (replaces the file's)")
    own.add_argument("--policies", type=_names, default=None, metavar="NAMES",
                     help="policies, e.g. DP-KLUCB,DP-IMED,IMED or my_policy.py:MyUCB (replaces the "
                          "file's); each runs with its paper_params at every budget")
    own.add_argument("--params", type=_param, action="append", default=[], metavar="POLICY:K=V",
                     help="policy parameters on top of paper_params, e.g. DP-KLUCB:alpha=3,n0=2, or "
                          "alpha=3 for every policy that takes alpha; repeatable")
    work.add_argument("--jobs", type=_integer(1, E.MAX_JOBS), default=None, metavar="N",
                      help=f"worker processes of the local pool, 1 to {E.MAX_JOBS} (default: the usable "
                           f"cores; 1 runs in this process)")
    work.add_argument("--scheduler", default=None, metavar="ADDRESS",
                      help=f"run on the Dask cluster at ADDRESS (e.g. tcp://host:8786) instead of the "
                           f"local pool; files are written by this process; the scheduler must answer "
                           f"within {SCHEDULER_TIMEOUT:g} s")
    work.add_argument("--max-seconds", type=_seconds(), default=MAX_SECONDS, metavar="S",
                      help=f"refuse, before any work, a run with a result file (one simulate call) "
                           f"estimated above S CPU-seconds by a pessimistic cost model (default "
                           f"{MAX_SECONDS:g}); 'none' lifts the limit")
    work.add_argument("--chunk-seconds", type=_seconds("auto"), default="auto", metavar="S",
                      help="stop a result file's computation (a chunk) that runs longer than S "
                           "seconds and end the run with one line naming the cell (a policy that "
                           "never returns); default 'auto': ten times the chunk's estimated cost, "
                           "at least 300 s; 'none' lifts the limit")
    work.add_argument("--force", action="store_true", help="recompute every cell even if cached")
    work.add_argument("--no-figures", action="store_true", help="do not draw the figures")
    work.add_argument("--no-progress", action="store_true", help="no progress bars")
    return {"verbose": verbose, "spec": spec, "own": own, "work": work}


_TARGET_HELP = ("an experiment file (my.toml; see 'dpb run --help'), one of the paper's experiments (fig1, "
                "appendix, eps-sweep), all (the three), or nothing with --means/--eps/--policies")


#: What the help says of the default results directory instead of this machine's path (set while
#: :func:`cli_reference` writes the book's page, which must not depend on where the checkout is).
_RESULTS_HINT: str | None = None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``dpb`` (commands ``reproduce``, ``run``, ``status``, ``export``,
    ``compile``), each command's function in ``args.func``.

    Every numeric option is checked for type and range while parsing (exit status 2, one line
    naming the option); ``--out``, ``--scheduler`` and the experiment are checked by :func:`main`
    before any work.
    """
    raw = argparse.RawDescriptionHelpFormatter
    parser = _Parser(prog=_prog(), formatter_class=raw, epilog=EPILOG,
                     description="Reproduce the experiments of 'Optimal Regret of Bernoulli Bandits under "
                                 "Global Differential Privacy' (Azize et al.), and run your own.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}",
                        help="print the version of dpb and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    groups = _parents()
    commands = [  # name, what it does, its option groups, its function
        ("reproduce", "run the paper's experiments (missing cells only), write figures and tables",
         ("spec", "work"), _reproduce),
        ("run", "run an experiment of your own (a TOML file, or the options alone): compute what is "
                "missing, write figures and tables", ("spec", "own", "work"), _reproduce),
        ("status", "count the cached, missing, stale and damaged result files, and say why a file is "
                   "stale", ("spec", "own"), _status),
        ("export", "write the regret curves of computed results in long format (CSV or Parquet)",
         ("spec", "own"), _export),
        ("compile", "compile the numba kernels of the fast simulators once (cached on disk; the first "
                    "simulation otherwise compiles them, 15-40 CPU-s)", (), _compile),
    ]
    for name, text, parents, func in commands:
        p = sub.add_parser(name, help=text, description=text, formatter_class=raw,
                           epilog=EPILOG + (_FILE_HELP if name == "run" else ""),
                           parents=[groups[g] for g in parents] + [groups["verbose"]])
        p.set_defaults(func=func)
        if name == "reproduce":
            p.add_argument("experiment", choices=[*E.EXPERIMENT_NAMES, "all"],
                           help="fig1: Figure 1 (eps = 0.25, mu1 and mu2); appendix: mu1..mu4 x eps in "
                                "{0.01, 0.1, 0.5, 1}; eps-sweep: DP-IMED (alpha = 1.1) against 100 budgets "
                                "at T = 1e7; all: the three (read from the experiment files shipped with "
                                "dpb)")
        elif name != "compile":
            p.add_argument("experiment", nargs="?", default=None, help=_TARGET_HELP,
                           metavar="FILE.toml" if name == "run" else "EXPERIMENT")
    export = sub.choices["export"]
    export.add_argument("--format", choices=("csv", "parquet"), default=None,
                        help="file format (default: from --output's suffix, else csv; parquet needs pandas "
                             "and pyarrow: pip install 'dpb[pandas]')")
    export.add_argument("--output", default=None, metavar="FILE",
                        help="the file to write (default: OUT/exports/<name>-<digest>.csv)")
    export.add_argument("--grid", choices=("all", "log", "linear"), default="all",
                        help="checkpoints: all (default), or the log or linear grid only")
    return parser


def cli_reference(width: int = 100) -> str:
    """The reference of the ``dpb`` command as a MyST page: the help of the command and of each
    sub-command, exactly as ``dpb [COMMAND] --help`` prints it at ``width`` columns (the book's
    ``book/api/cli.md`` is this text, rewritten by ``make cli-reference``;
    ``tests/test_cli_reference.py`` checks that it is current).  argparse's layout differs between
    Python versions, so the page records the version that wrote it."""
    from ._validate import as_int

    global _RESULTS_HINT
    width = as_int("width", width, minimum=40, maximum=400)
    _RESULTS_HINT = "results/ of a source checkout, else ~/.cache/dpb"
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)  # argparse wraps the help at the terminal's width
    try:
        parser = build_parser()
        parser.prog = "dpb"
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        python = f"{sys.version_info[0]}.{sys.version_info[1]}"
        parts = ["# The command line (`dpb`, or `python -m dpb`)", "",
                 f"<!-- generated by `make cli-reference` with Python {python} -->", "",
                 "Every option of every command, as `dpb COMMAND --help` prints it: this page is "
                 "generated from the command's own parser (`dpb.__main__.cli_reference`), and a test "
                 "fails when the two differ.", "",
                 "## dpb", "", "```text", parser.format_help().rstrip(), "```", ""]
        for name, command in sub.choices.items():
            command.prog = f"dpb {name}"
            parts += [f"## dpb {name}", "", "```text", command.format_help().rstrip(), "```", ""]
        parts += ["## The functions behind it", "", "```{eval-rst}", ".. automodule:: dpb.__main__",
                  "   :members: main, build_parser, cli_reference", "```", ""]
        return "\n".join(parts)
    finally:
        _RESULTS_HINT = None
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old


_FILE_HELP = """
an experiment file (TOML):
  name = "twenty-arms"                       # names the outputs: figures/twenty-arms-<digest>.png
  horizon = 100_000                          # T
  runs = 20
  means = [0.9, 0.85, 0.8, ...]              # or instances = ["mu1", {name = "mine", means = [...]}]
  eps = [0.1, 1.0]                           # or eps_grid = 100 (eps = 1/100, ..., 1)
  policies = ["DP-KLUCB", "DP-IMED", "IMED"] # each with its paper_params(eps)
  [params.DP-KLUCB]                          # ... updated by these
  alpha = 3
options given on the command line replace the file's values.
"""


def _check_out(args) -> Path:
    """The results directory, checked (and for ``reproduce`` created and probed for writing);
    raises ``ValueError`` naming ``--out``."""
    if args.out is not None and not args.out.strip():
        raise ValueError("argument --out: must name a directory, got ''")
    out = Path(args.out).expanduser() if args.out is not None else E.default_results_dir()
    name = "--out" if args.out is not None else "the results directory ($DPB_RESULTS or the default)"
    if out.exists() and not out.is_dir():
        raise ValueError(f"argument {name}: {out} is a file, not a directory")
    if args.command in ("status", "export"):
        if not out.exists() and args.out is not None:
            raise ValueError(f"argument --out: {out} does not exist")
        if out.exists() and not os.access(out, os.R_OK | os.X_OK):
            raise ValueError(f"argument {name}: {out} is not readable")
        return out
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".dpb-write-probe.{os.getpid()}.{uuid.uuid4().hex[:8]}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ValueError(f"argument {name}: cannot write to {out} ({reason})") from None
    return out


def _check_scheduler(args):
    """A Dask client of ``args.scheduler`` (it must answer within :data:`SCHEDULER_TIMEOUT`
    seconds); raises ``ValueError`` naming ``--scheduler``."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ValueError("argument --scheduler: needs the Python package 'distributed' "
                         "(pip install 'dask[distributed]')") from None
    if not args.verbose:  # a lost scheduler is one line; --verbose shows the Dask log
        E.quiet_dask_logs()
    address = args.scheduler.strip()
    try:
        return E.connect(address, timeout=SCHEDULER_TIMEOUT)
    except (TypeError, ValueError, ConnectionError) as exc:  # a malformed address, or no answer
        raise ValueError(f"argument --scheduler: {str(exc).removeprefix('scheduler ')}") from None
    except Exception as exc:  # noqa: BLE001 - a malformed address fails in many ways inside distributed
        raise ValueError(f"argument --scheduler: cannot use {address!r} ({type(exc).__name__}: "
                         f"{exc})") from None


def _reproduce(args, out: Path, exps: list, client) -> int:
    """``reproduce`` and ``run``: compute what is missing (one pool for every experiment: the
    longest chunks of all of them start first), then write the outputs of each experiment."""
    t0, cpu0 = time.perf_counter(), time.process_time()
    options = dict(seed=args.seed, jobs=args.jobs, scheduler=client, progress=not args.no_progress,
                   max_seconds=args.max_seconds)
    converged = args.scale == "converged"
    if converged:
        report = E.run_converged(exps, out, **options)
    else:
        report = E.run(exps, out, force=args.force, desc="+".join(e.name for e in exps),
                       chunk_seconds=args.chunk_seconds, **options)
    for exp in exps:
        write_outputs(exp, out, seed=args.seed, converged=converged, figures=not args.no_figures)
    wall, parent_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    if converged:
        print(f"done: {report.computed} result files computed, in {wall:.1f} s wall; "
              f"{report.cpu_seconds:.1f} CPU-s of simulation in the workers + {parent_cpu:.1f} CPU-s in "
              f"this process (intervals, loading); results in {out}")
        return 0
    shared = f" ({report.shared} of them computed by another run meanwhile)" if report.shared else ""
    print(f"done: {report.computed} result files computed, {report.reused} reused{shared}, in {wall:.1f} s "
          f"wall ({report.cpu_seconds:.1f} CPU-s of simulation computed now); results in {out}")
    for exp in exps:
        _ranking_note(args, E.load(exp, out, seed=args.seed))
    return 0


def _ranking_note(args, res) -> None:
    """One line when the intervals of ``res`` are too wide to rank its policies
    (:func:`dpb.experiments.unranked_settings`), with the command that converges them."""
    rows = E.unranked_settings(res)
    if not rows:
        return
    r = max(rows, key=lambda row: (row["few_runs"], row["widest"]))
    a, b = r["policies"]
    wide = f"fewer than {E.RANK_MIN_RUNS} runs" if r["few_runs"] else f"up to +-{100 * r['widest']:.0f} %"
    print(f"note: {res.experiment.name}: the intervals are too wide to rank the policies in {len(rows)} of "
          f"{len(res.settings)} settings (e.g. {r['env']}, eps {r['eps']:g}: {a} and {b} overlap, {wide}); "
          f"`{_converge_command(args)}` runs each cell until its 95 % interval is within "
          f"+-{100 * E.RANK_REL:.0f} %")


def _converge_command(args) -> str:
    """The command line of this run at the converged scale (``--runs``, ``--force``, ``--scale``
    dropped; ``status`` becomes the command that computes: ``reproduce`` for the paper's
    experiments, else ``run``)."""
    argv = list(getattr(args, "argv", None) or [args.command])
    if args.command == "status" and args.command in argv:
        paper = getattr(args, "experiment", None) in (*E.EXPERIMENT_NAMES, "all")
        argv[argv.index("status")] = "reproduce" if paper else "run"
    words, rest = [], iter(argv)
    for word in rest:
        if word in ("--runs", "--scale"):
            next(rest, None)  # and its value
        elif word != "--force" and not word.startswith(("--runs=", "--scale=")):
            words.append(word)
    return " ".join(["dpb", *words, "--scale", "converged"])


def _status(args, out: Path, exps: list, client=None) -> int:
    if args.scale == "converged":
        for exp in exps:
            counts = E.converged_status(exp, out, seed=args.seed)
            print(f"{exp.name:10s} {len(exp):4d} cells at the converged scale: {counts['decided']} decided, "
                  f"{counts['undecided']} undecided  ({out})")
        return 0
    for exp in exps:
        counts = E.status(exp, out, seed=args.seed)
        total = sum(counts.values())
        print(f"{exp.name:10s} {len(exp):4d} cells, {total:4d} files: {counts['done']} done, "
              f"{counts['missing']} missing, {counts['stale']} stale, {counts['damaged']} damaged  ({out})")
        if counts["stale"] or counts["damaged"]:
            bad = [(p, why) for p, why in E.reasons(exp, out, seed=args.seed) if why != "missing"]
            shown = bad if args.verbose else bad[:STATUS_LINES]
            for path, why in shown:
                print(f"  {path.name}: {why}")
            if len(bad) > len(shown):
                print(f"  ... and {len(bad) - len(shown)} more (--verbose lists them all)")
        if counts["done"] == total:
            _ranking_note(args, E.load(exp, out, seed=args.seed))
    return 0


def _export(args, out: Path, exps: list, client=None) -> int:
    """Write the long format of the computed results (:mod:`dpb.frames`)."""
    from . import frames

    if args.output is not None and len(exps) > 1:
        raise ValueError("argument --output: names one file; 'all' writes one file per experiment (omit "
                         "--output)")
    for exp in exps:
        try:
            res = E.load(exp, out, seed=args.seed)
        except E.MissingResultsError as exc:
            raise ValueError(f"{exp.name} is not computed in {out} ({exc}): run it first with the same "
                             f"options ({_prog()} run ... or reproduce ...)") from None
        fmt = args.format
        if args.output is not None:
            path = Path(args.output).expanduser()
        else:
            fmt = fmt or "csv"
            path = Path(out) / "exports" / f"{F.output_stem(exp, args.seed)}.{fmt}"
        t0 = time.perf_counter()
        rows = res.to_rows(grid=args.grid)
        written = frames.export(rows, path, fmt)
        print(f"export: {written} ({len(rows['t'])} rows: {', '.join(frames.COLUMNS)}; "
              f"{time.perf_counter() - t0:.1f} s)")
    return 0


def _compile(args) -> int:
    """Compile every numba kernel once (numba caches the machine code on disk beside its module):
    one tiny run of each compiled fast path."""
    if not jit_enabled():  # (not an error: `make venv` calls this with the user's environment)
        print("dpb: DPB_JIT=0, the compiled kernels are off: nothing to compile")
        return 0
    from .simulate import warm_kernels

    t0 = time.process_time()
    warm_kernels()
    print(f"dpb: compiled kernels ready ({time.process_time() - t0:.1f} CPU-s)")
    return 0


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def _conflict(args) -> str | None:
    """What is wrong with a combination of options, or None."""
    if getattr(args, "scheduler", None) is not None and args.jobs is not None:
        return "--jobs applies to the local pool; with --scheduler the cluster decides"
    if args.policy and args.experiment == "eps-sweep" and args.command == "reproduce":
        return "--policy applies to fig1 and appendix (and to them within 'all'), not to eps-sweep"
    if args.scale == "converged" and args.runs is not None:
        return "--runs sets the paper scale; the converged scale chooses the runs of each cell"
    if args.scale == "converged" and getattr(args, "force", False):
        return "--force applies to the paper scale"
    return None


def _load_experiments(args) -> list:
    """The experiments the arguments describe (:func:`~dpb.experiments.experiments_from_options`),
    with a reader's policy file that fails to load (in any way: its code may raise anything,
    ``sys.exit`` and ``KeyboardInterrupt`` too) told in one line naming it."""
    given = [*args.policy, *(getattr(args, "policies", None) or [])]
    try:
        return F.experiments_from_options(
            args.experiment, name=getattr(args, "name", None), means=getattr(args, "means", None),
            eps=getattr(args, "eps", None), policies=getattr(args, "policies", None),
            params=getattr(args, "params", None) or (), horizon=args.horizon, runs=args.runs,
            n_eps=args.n_eps, extra_policies=args.policy)
    except PolicyFileError as exc:
        cause, why = exc.__cause__, exc.cause
    except (ValueError, TypeError):
        raise
    except Exception as exc:  # noqa: BLE001 - a reader's policy file may fail in any way on import
        if not given:
            raise
        cause = exc
        where = f" ({exc.filename}, line {exc.lineno})" if isinstance(exc, SyntaxError) else ""
        why = f"{type(exc).__name__}: {exc.msg if isinstance(exc, SyntaxError) else exc}{where}"
    if args.verbose and cause is not None:
        traceback.print_exception(cause)
    raise ValueError(f"argument --policy: loading {', '.join(given)} failed: {why}") from None


def _prepare(args) -> tuple:
    """Check every option before any work: the results directory, the experiments, their cost
    and the scheduler (``ValueError`` or ``TypeError`` naming the option)."""
    out = _check_out(args)
    exps = _load_experiments(args)
    if args.command in ("reproduce", "run"):
        _check_work(args, exps)
    client = _check_scheduler(args) if getattr(args, "scheduler", None) is not None else None
    return out, exps, client


def _stopped(exc: BaseException, args, prog: str, out: Path) -> int:
    """One line on stderr saying why a command stopped (the traceback first with ``--verbose``),
    and its exit status."""
    if isinstance(exc, KeyboardInterrupt):  # finished files are on disk; rerun to resume
        term = isinstance(exc, _Terminated)
        print(f"\n{'terminated (SIGTERM)' if term else 'interrupted'}: the finished result files are kept "
              f"in {out}; rerun the same command to resume (only the missing files are computed)",
              file=sys.stderr)
        return 143 if term else 130
    if isinstance(exc, E.ChunkError):
        if args.verbose and exc.details:
            print(exc.details.rstrip(), file=sys.stderr)
        print(f"{prog}: error: {exc} (the other chunks were stopped; finished files are kept in "
              f"{out}, rerun to compute the rest)", file=sys.stderr)
        return 1
    if isinstance(exc, ImportError):  # an optional extra (matplotlib for the figures, pandas for parquet)
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    if args.verbose:
        traceback.print_exception(exc)
    if isinstance(exc, (RuntimeError, OSError)):
        print(f"{prog}: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(f"{prog}: error: {exc}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); returns the exit status.

    Bad options exit with status 2 and a one-line message naming the option.  A failed chunk stops
    the run (status 1, one line naming the cell and the cause; the traceback with ``--verbose``).
    Ctrl-C (status 130) or SIGTERM (status 143) stops the workers at once, keeps the finished result
    files and says how to resume.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # (the command that converges a run)
    prog = parser.prog
    try:
        jit_enabled()  # the environment's DPB_JIT, named before it is read deep inside a run
    except ValueError as exc:
        parser.error(str(exc))
    if args.command == "compile":
        return _compile(args)
    if (conflict := _conflict(args)) is not None:
        parser.error(conflict)
    try:  # every option is checked before any work: one line naming it, exit status 2
        out, exps, client = _prepare(args)
    except (ValueError, TypeError) as exc:
        print(f"{prog} {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # e.g. while waiting for a --scheduler to answer: nothing was computed
        print(f"\n{prog} {args.command}: interrupted before any work (nothing was computed)",
              file=sys.stderr)
        return 130
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        return args.func(args, out, exps, client)
    except (ValueError, TypeError, RuntimeError, OSError, ImportError, KeyboardInterrupt) as exc:
        return _stopped(exc, args, prog, out)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if client is not None:
            client.close()


def console() -> None:
    """The ``dpb`` console script (``[project.scripts]``)."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.exit(main())


if __name__ == "__main__":
    console()
