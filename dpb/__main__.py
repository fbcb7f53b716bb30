"""Command line of dpb: ``python -m dpb reproduce {fig1,appendix,eps-sweep,all}``.

Reruns the paper's experiments (see :mod:`dpb.experiments`), writes the result files under
``OUT/cells``, the figures (PNG and PDF) under ``OUT/figures`` and the final-regret tables under
``OUT/tables``, and prints a summary.  Finished files are reused, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from pathlib import Path

from . import experiments as E
from ._jit import jit_enabled
from .experiments.execution import check_chunk_costs
from .experiments.scale import min_runs
from .simulate import MAX_SECONDS

EPILOG = """\
examples:
  python -m dpb reproduce all                        # the paper's scale (a few minutes on 2 cores)
  python -m dpb reproduce fig1 --runs 4 --horizon 10000 --out /tmp/quick
  python -m dpb reproduce eps-sweep --scheduler tcp://127.0.0.1:8786   # on a Dask cluster
  python -m dpb status all                           # what is cached, missing, stale or damaged
  python -m dpb reproduce fig1 --policy my_policy.py:MyUCB --runs 4 --horizon 1e5   # your own policy
  python -m dpb reproduce all --scale converged      # expected regret to +-10%, thousands of runs

Result files are written atomically as they finish and reused when their recorded specification,
seed, dpb/numpy versions and source hash match the current code: rerunning after an interruption
computes only what is missing, and editing a policy recomputes only that policy's files.
"""


#: Seconds to wait for a Dask scheduler to answer before giving up.
SCHEDULER_TIMEOUT = 5.0


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


def _integer(lo: int, hi: int, what: str = "an integer"):
    """An argparse type: a decimal integer, possibly written like ``1e5``, in ``[lo, hi]``.

    Parsed exactly (``decimal``), so ``1e400`` or ``1e19`` are out of range, not an overflow."""

    def parse(text: str) -> int:
        bad = argparse.ArgumentTypeError(f"must be {what} from {_fmt(lo)} to {_fmt(hi)}, got {text!r}")
        try:
            value = Decimal(text.strip())
        except (InvalidOperation, ValueError):
            raise bad from None
        if not value.is_finite() or value != value.to_integral_value():
            raise bad
        if not lo <= value <= hi:
            raise bad
        return int(value)

    parse.__name__ = what  # argparse names the type in some messages
    return parse


def _limit(text: str) -> float | None:
    """An argparse type: a number of seconds > 0 (at most 1e12), or ``none`` (no limit)."""
    if text.strip().lower() == "none":
        return None
    bad = argparse.ArgumentTypeError(f"must be a number of seconds from 1e-3 to 1e12, or 'none', "
                                     f"got {text!r}")
    try:
        value = float(Decimal(text.strip()))
    except (InvalidOperation, ValueError, OverflowError):
        raise bad from None
    if not 1e-3 <= value <= 1e12:
        raise bad
    return value


def _check_work(args, exps: list) -> None:
    """Refuse, before any work, a run whose largest chunk is estimated above ``--max-seconds``
    (``ValueError`` naming ``--horizon``/``--runs``); at the converged scale the first blocks."""
    limit = getattr(args, "max_seconds", None)
    if limit is None:
        return
    cells = dict.fromkeys(c for exp in exps for c in exp.cells)
    if args.scale == "converged":
        cells = [replace(c, runs=min_runs(c.policy)) for c in cells]
    chunks = [(c, a, b) for c in cells for a, b in c.chunks()]
    advice = ("use a smaller --horizon or --runs, or pass --max-seconds none (or a larger limit) to run "
              "it anyway")
    try:
        check_chunk_costs(chunks, limit, advice)
    except ValueError as exc:
        raise ValueError(f"argument --horizon/--runs: {exc}") from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m dpb`` (commands ``reproduce`` and ``status``).

    Every numeric option is checked for type and range while parsing (exit status 2, one line
    naming the option); ``--out`` and ``--scheduler`` are checked by :func:`main` before any work.
    """
    parser = _Parser(
        prog="python -m dpb",
        description="Reproduce the experiments of 'Optimal Regret of Bernoulli Bandits under Global "
                    "Differential Privacy' (Azize et al.).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    choices = [*E.EXPERIMENT_NAMES, "all"]
    commands = (("reproduce", "run the experiments (missing cells only), write figures and tables"),
                ("status", "count the cached, missing, stale and damaged result files"))
    for command, help_text in commands:
        p = sub.add_parser(command, help=help_text, description=help_text,
                           formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
        p.add_argument("experiment", choices=choices,
                       help="fig1: Figure 1 (eps = 0.25, mu1 and mu2); appendix: mu1..mu4 x eps in "
                            "{0.01, 0.1, 0.5, 1}; eps-sweep: DP-IMED (alpha = 1.1) against 100 budgets at "
                            "T = 1e7; all: the three")
        p.add_argument("--runs", type=_integer(1, E.MAX_RUNS), default=None, metavar="N",
                       help=f"runs per cell, 1 to {_fmt(E.MAX_RUNS)} (default: the paper's {E.PAPER_RUNS})")
        p.add_argument("--horizon", type=_integer(100, E.MAX_T), default=None, metavar="T",
                       help=f"horizon T of every experiment, 100 to {_fmt(E.MAX_T)}, for quick runs "
                            f"(default: the paper's, 1e6 for fig1/appendix, 1e7 for eps-sweep); accepts 1e5")
        p.add_argument("--n-eps", type=_integer(1, E.MAX_N_EPS), default=None, metavar="N",
                       help=f"number of budgets eps = 1/N, 2/N, ..., 1 of the eps-sweep, 1 to {E.MAX_N_EPS} "
                            f"(default 100)")
        p.add_argument("--seed", type=_integer(0, E.MAX_SEED), default=E.DEFAULT_SEED, metavar="S",
                       help=f"experiment seed, 0 to 2**63-1; each cell derives its own from it "
                            f"(default {E.DEFAULT_SEED})")
        p.add_argument("--policy", action="append", default=[], metavar="FILE.py:CLASS",
                       help="add a policy to every table and figure of fig1 and appendix: a class in "
                            "your own file (e.g. my_policy.py:MyUCB, a subclass of "
                            "dpb.policies.Policy that sets 'name') or a registered name such as "
                            "KL-UCB; run with its paper_params, cached like the others and keyed by "
                            "its source; repeatable")
        p.add_argument("--scale", choices=E.SCALES, default="paper",
                       help="paper: the paper's 20 runs per cell (default); converged: runs added in "
                            "blocks (20, 40, 80, ...; at least 10240 for the batched policies at "
                            "T <= 1e6, 2560 beyond, 320 for IMED) until the "
                            "95%% interval of the expected regret at T is within +-10%% of it, cap 20480")
        p.add_argument("--out", default=None, metavar="DIR",
                       help=f"results directory (default: {E.default_results_dir()}, or $DPB_RESULTS); "
                            f"reproduce creates it")
        if command == "reproduce":
            p.add_argument("--jobs", type=_integer(1, E.MAX_JOBS), default=None, metavar="N",
                           help=f"worker processes of the local pool, 1 to {E.MAX_JOBS} (default: the usable "
                                f"cores; 1 runs in this process)")
            p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                           help=f"run on the Dask cluster at ADDRESS (e.g. tcp://host:8786) instead of the "
                                f"local pool; files are written by this process; the scheduler must answer "
                                f"within {SCHEDULER_TIMEOUT:g} s")
            p.add_argument("--max-seconds", type=_limit, default=MAX_SECONDS, metavar="S",
                           help=f"refuse, before any work, a run with a result file (one simulate call) "
                                f"estimated above S CPU-seconds by a pessimistic cost model (default "
                                f"{MAX_SECONDS:g}); 'none' lifts the limit")
            p.add_argument("--force", action="store_true", help="recompute every cell even if cached")
            p.add_argument("--no-figures", action="store_true", help="do not draw the figures")
            p.add_argument("--no-progress", action="store_true", help="no progress bars")
        p.add_argument("--verbose", action="store_true",
                       help="on an error, print the full traceback (by default: one line naming the cause)")
    return parser


def _check_out(args) -> Path:
    """The results directory, checked (and for ``reproduce`` created and probed for writing);
    raises ``ValueError`` naming ``--out``."""
    if args.out is not None and not args.out.strip():
        raise ValueError("argument --out: must name a directory, got ''")
    out = Path(args.out).expanduser() if args.out is not None else E.default_results_dir()
    name = "--out" if args.out is not None else "the results directory ($DPB_RESULTS or the default)"
    if out.exists() and not out.is_dir():
        raise ValueError(f"argument {name}: {out} is a file, not a directory")
    if args.command == "status":
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


def _check_scheduler(address: str):
    """A Dask client of ``address`` (it must answer within :data:`SCHEDULER_TIMEOUT` seconds);
    raises ``ValueError`` naming ``--scheduler``."""
    if not address.strip():
        raise ValueError("argument --scheduler: must be an address such as tcp://host:8786, got ''")
    try:
        from distributed.comm import parse_address
        from distributed.comm.registry import backends
    except ImportError:
        raise ValueError("argument --scheduler: needs the Python package 'distributed' "
                         "(pip install 'dask[distributed]')") from None
    scheme, location = parse_address(address.strip(), strict=False)
    if scheme not in backends or not location or any(ch.isspace() for ch in location):
        raise ValueError(f"argument --scheduler: must be an address such as tcp://host:8786 (schemes: "
                         f"{', '.join(sorted(backends))}), got {address!r}")
    try:
        return E.connect(address, timeout=SCHEDULER_TIMEOUT)
    except ConnectionError as exc:
        raise ValueError(f"argument --scheduler: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - a malformed address fails in many ways inside distributed
        why = f"{type(exc).__name__}: {exc}"
        raise ValueError(f"argument --scheduler: cannot use {address!r} ({why})") from None


def _experiments(args) -> list:
    names = E.EXPERIMENT_NAMES if args.experiment == "all" else (args.experiment,)
    extra = tuple(args.policy)
    return [E.experiment(n, T=args.horizon, runs=args.runs, n_eps=args.n_eps,
                         extra_policies=() if n == "eps-sweep" else extra) for n in names]


def _summary(res: E.ExperimentResults) -> str:
    exp = res.experiment
    lines = [f"== {exp.name}: {exp.description} =="]
    if exp.name == "eps-sweep" or len(exp.settings[0].cells) == 1:
        rows = E.sweep_table(res)
        step = max(1, len(rows) // 10)
        shown = rows[step - 1 :: step] if len(rows) > 10 else rows
        lines.append(E.format_table(shown, ["eps", "mean", "std", "lower_bound", "ratio"]))
        ratios = [r["ratio"] for r in rows]
        lines.append(f"mean regret / lower bound over all {len(rows)} budgets: min {min(ratios):.2f}, "
                     f"median {sorted(ratios)[len(ratios) // 2]:.2f}, max {max(ratios):.2f}")
    else:
        rows = E.mean_regret_summary(res)
        lines.append("mean regret at T; ratio = best private baseline / best of DP-KLUCB, DP-IMED")
        lines.append(E.format_table(rows, digits=0))
        wins = [r for r in E.ratio_summary(res) if r["ratio"] > 1]
        lines.append(f"DP-KLUCB or DP-IMED has the lowest private regret in {len(wins)} of "
                     f"{len(E.ratio_summary(res))} settings")
    lines.append(f"CPU-seconds recorded in the result files: {res.cpu_seconds():.1f}")
    return "\n".join(lines)


def _full_tables(res: E.ExperimentResults) -> str:
    blocks = []
    for s in res.settings:
        title = f"# {s.label}, T = {res.experiment.T}"
        blocks.append(E.format_table(E.final_regret_table(res.setting(s)), title=title))
    return "\n\n".join(blocks) + "\n"


def _figures(res: E.ExperimentResults, folder: Path) -> list:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plotting import experiments as pe

    folder.mkdir(parents=True, exist_ok=True)
    figs = {}
    name = res.experiment.name
    if name == "fig1":
        figs["fig1"] = pe.plot_figure1(res)
    elif name == "appendix":
        for env in dict.fromkeys(s.env for s in res.settings):
            figs[f"appendix_{env}"] = pe.plot_appendix(res, env)
        figs["appendix_ratios"] = pe.plot_ratio_grid(res)
    else:
        figs["eps_sweep"] = pe.plot_eps_sweep(res)
    written = []
    for stem, fig in figs.items():
        written += _save_figure(fig, folder / stem)
        plt.close(fig)
    return written


def _save_figure(fig, stem: Path) -> list:
    """``fig`` as ``<stem>.png`` and ``<stem>.pdf``.  The layout (constrained layout: the most
    expensive part of drawing) is computed for the PNG and kept for the PDF."""
    written = []
    for ext in ("png", "pdf"):
        path = stem.with_name(f"{stem.name}.{ext}")
        _write_atomic(path, lambda tmp, ext=ext: fig.savefig(tmp, dpi=150, format=ext))
        written.append(path)
        fig.set_layout_engine("none")  # positions stay where the first drawing put them
    return written


def _write_atomic(path: Path, write) -> None:
    """``write(tmp)`` to a unique temporary file next to ``path``, then rename it onto ``path``:
    two runs writing the same table or figure never leave a mixed or truncated file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _converged_summary(res) -> str:
    exp = res.experiment
    lines = [f"== {exp.name} at the converged scale: expected regret at T, 95% BCa interval, runs =="]
    rows = []
    for s in res.settings:
        for c in s.cells:
            ce = res.estimates[c]
            e = ce.estimate
            rows.append({"env": s.env, "eps": s.eps, "algorithm": c.policy, "mean": e.mean, "lo": e.lo,
                         "hi": e.hi, "runs": ce.runs, "converged": "yes" if ce.converged else "cap"})
    lines.append(E.format_table(rows, digits=0))
    lines.append(f"CPU-seconds recorded in the result files: {res.cpu_seconds():.1f}")
    return "\n".join(lines)


def _reproduce_converged(args, out: Path, exps: list, client) -> int:
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    report = E.run_converged(exps, out, seed=args.seed, jobs=args.jobs, scheduler=client,
                             progress=not args.no_progress, max_seconds=args.max_seconds)
    wall, parent_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    for exp in exps:
        res = E.load_converged(exp, out, seed=args.seed)
        print(_converged_summary(res), flush=True)
        if not args.no_figures and exp.name == "fig1":
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            from .plotting import experiments as pe

            folder = Path(out) / "figures"
            folder.mkdir(parents=True, exist_ok=True)
            fig = pe.plot_figure1(res, band="ci", yscale="log")
            _save_figure(fig, folder / "fig1_converged")
            plt.close(fig)
            print(f"figure: {folder / 'fig1_converged.png'} (+ .pdf)")
    print(f"done: {report.computed} result files computed, in {wall:.1f} s wall; {report.cpu_seconds:.1f} "
          f"CPU-s of simulation in the workers + {parent_cpu:.1f} CPU-s in this process (intervals, "
          f"loading); results in {out}")
    return 0


def _status(args, out: Path, exps: list) -> int:
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
    return 0


def _reproduce(args, out: Path, exps: list, client) -> int:
    if args.scale == "converged":
        return _reproduce_converged(args, out, exps, client)
    t0 = time.perf_counter()
    # one pool for every experiment: the longest chunks of all of them start first
    report = E.run(exps, out, seed=args.seed, jobs=args.jobs, scheduler=client,
                   progress=not args.no_progress, force=args.force, desc=args.experiment,
                   max_seconds=args.max_seconds)
    for exp in exps:
        res = E.load(exp, out, seed=args.seed)
        print(_summary(res), flush=True)
        tables = Path(out) / "tables"
        tables.mkdir(parents=True, exist_ok=True)
        text = _full_tables(res)
        _write_atomic(tables / f"{exp.name}.txt", lambda tmp, text=text: tmp.write_text(text))
        if not args.no_figures:
            for path in _figures(res, Path(out) / "figures"):
                if path.suffix == ".png":
                    print(f"figure: {path} (+ .pdf)")
        print(f"table: {tables / (exp.name + '.txt')}\n", flush=True)
    wall = time.perf_counter() - t0
    shared = f" ({report.shared} of them computed by another run meanwhile)" if report.shared else ""
    print(f"done: {report.computed} result files computed, {report.reused} reused{shared}, in {wall:.1f} s "
          f"wall ({report.cpu_seconds:.1f} CPU-s of simulation computed now); results in {out}")
    return 0


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C."""


def _on_sigterm(signum, frame):
    raise _Terminated()


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); returns the exit status.

    Bad options exit with status 2 and a one-line message naming the option.  A failed chunk stops
    the run (status 1, one line naming the cell and the cause; the traceback with ``--verbose``).
    Ctrl-C (status 130) or SIGTERM (status 143) stops the workers at once, keeps the finished result
    files and says how to resume.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        jit_enabled()  # the environment's DPB_JIT, named before it is read deep inside a run
    except ValueError as exc:
        parser.error(str(exc))
    if getattr(args, "scheduler", None) is not None and args.jobs is not None:
        parser.error("--jobs applies to the local pool; with --scheduler the cluster decides")
    if args.policy and args.experiment == "eps-sweep":
        parser.error("--policy applies to fig1 and appendix (and to them within 'all'), not to eps-sweep")
    if args.scale == "converged" and args.runs is not None:
        parser.error("--runs sets the paper scale; the converged scale chooses the runs of each cell")
    if args.scale == "converged" and getattr(args, "force", False):
        parser.error("--force applies to the paper scale")
    # every option is checked before any work: one line naming it, exit status 2
    client = None
    try:
        out = _check_out(args)
        try:
            exps = _experiments(args)
        except (ValueError, TypeError):
            raise
        except Exception as exc:  # noqa: BLE001 - a reader's policy file may fail in any way on import
            if not args.policy:
                raise
            if args.verbose:
                import traceback

                traceback.print_exc()
            where = f" ({exc.filename}, line {exc.lineno})" if isinstance(exc, SyntaxError) else ""
            raise ValueError(f"argument --policy: loading {', '.join(args.policy)} failed: "
                             f"{type(exc).__name__}: {exc.msg if isinstance(exc, SyntaxError) else exc}"
                             f"{where}") from None
        if args.command == "reproduce":
            _check_work(args, exps)
        if getattr(args, "scheduler", None) is not None:
            client = _check_scheduler(args.scheduler)
    except (ValueError, TypeError) as exc:
        print(f"python -m dpb {args.command}: error: {exc}", file=sys.stderr)
        return 2
    import signal
    import threading

    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        if args.command == "status":
            return _status(args, out, exps)
        return _reproduce(args, out, exps, client)
    except E.ChunkError as exc:
        if args.verbose and exc.details:
            print(exc.details.rstrip(), file=sys.stderr)
        print(f"python -m dpb: error: {exc} (the other chunks were stopped; finished files are kept in "
              f"{out}, rerun to compute the rest)", file=sys.stderr)
        return 1
    except (ValueError, TypeError, ConnectionError, RuntimeError, OSError) as exc:
        if args.verbose:
            import traceback

            traceback.print_exc()
        print(f"python -m dpb: error: {type(exc).__name__}: {exc}" if isinstance(exc, (RuntimeError, OSError))
              else f"python -m dpb: error: {exc}", file=sys.stderr)
        return 1 if isinstance(exc, (RuntimeError, OSError)) else 2
    except KeyboardInterrupt as exc:  # finished files are on disk; rerun to resume
        what = "terminated (SIGTERM)" if isinstance(exc, _Terminated) else "interrupted"
        print(f"\n{what}: the finished result files are kept in {out}; rerun the same command to "
              f"resume (only the missing files are computed)", file=sys.stderr)
        return 143 if isinstance(exc, _Terminated) else 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if client is not None:
            client.close()


if __name__ == "__main__":
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.exit(main())
