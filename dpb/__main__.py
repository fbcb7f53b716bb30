"""Command line of dpb: ``python -m dpb reproduce {fig1,appendix,eps-sweep,all}``.

Reruns the paper's experiments (see :mod:`dpb.experiments`), writes the result files under
``OUT/cells``, the figures (PNG and PDF) under ``OUT/figures`` and the final-regret tables under
``OUT/tables``, and prints a summary.  Finished files are reused, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

from . import experiments as E

EPILOG = """\
examples:
  python -m dpb reproduce all                        # the paper's scale (a few minutes on 2 cores)
  python -m dpb reproduce fig1 --runs 4 --horizon 10000 --out /tmp/quick
  python -m dpb reproduce eps-sweep --scheduler tcp://127.0.0.1:8786   # on a Dask cluster
  python -m dpb status all                           # what is cached, missing or stale
  python -m dpb reproduce fig1 --policy my_policy.py:MyUCB --runs 4 --horizon 1e4   # your own policy

Result files are written atomically as they finish and reused when their recorded specification,
seed, dpb/numpy versions and source hash match the current code: rerunning after an interruption
computes only what is missing, and editing a policy recomputes only that policy's files.
"""


def _positive_int(name, minimum=1):
    def parse(text: str) -> int:
        try:
            value = int(float(text)) if "e" in text.lower() else int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None
        if (text.lower().count("e") and float(text) != value) or value < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be an integer >= {minimum}, got {text!r}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m dpb`` (commands ``reproduce`` and ``status``)."""
    parser = argparse.ArgumentParser(
        prog="python -m dpb",
        description="Reproduce the experiments of 'Optimal Regret of Bernoulli Bandits under Global "
                    "Differential Privacy' (Azize et al.).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    choices = [*E.EXPERIMENT_NAMES, "all"]
    commands = (("reproduce", "run the experiments (missing cells only), write figures and tables"),
                ("status", "count the cached, missing and stale result files"))
    for command, help_text in commands:
        p = sub.add_parser(command, help=help_text, description=help_text,
                           formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
        p.add_argument("experiment", choices=choices,
                       help="fig1: Figure 1 (eps = 0.25, mu1 and mu2); appendix: mu1..mu4 x eps in "
                            "{0.01, 0.1, 0.5, 1}; eps-sweep: DP-IMED (alpha = 1.1) against 100 budgets at "
                            "T = 1e7; all: the three")
        p.add_argument("--runs", type=_positive_int("--runs"), default=None, metavar="N",
                       help=f"runs per cell (default: the paper's {E.PAPER_RUNS})")
        p.add_argument("--horizon", type=_positive_int("--horizon", 100), default=None, metavar="T",
                       help="horizon T of every experiment, for quick runs (default: the paper's, "
                            "1e6 for fig1/appendix and 1e7 for eps-sweep); accepts 1e5")
        p.add_argument("--n-eps", type=_positive_int("--n-eps"), default=None, metavar="N",
                       help="number of budgets eps = 1/N, 2/N, ..., 1 of the eps-sweep (default 100)")
        p.add_argument("--seed", type=_positive_int("--seed", 0), default=E.DEFAULT_SEED, metavar="S",
                       help=f"experiment seed; each cell derives its own from it (default {E.DEFAULT_SEED})")
        p.add_argument("--policy", action="append", default=[], metavar="FILE.py:CLASS",
                       help="add a policy to every table and figure of fig1 and appendix: a class in "
                            "your own file (e.g. my_policy.py:MyUCB, a subclass of "
                            "dpb.policies.Policy that sets 'name') or a registered name such as "
                            "KL-UCB; run with its paper_params, cached like the others and keyed by "
                            "its source; repeatable")
        p.add_argument("--out", type=Path, default=None, metavar="DIR",
                       help=f"results directory (default: {E.default_results_dir()}, or $DPB_RESULTS)")
        if command == "reproduce":
            p.add_argument("--jobs", type=_positive_int("--jobs"), default=None, metavar="N",
                           help="worker processes of the local pool (default: the usable cores; 1 runs in "
                                "this process)")
            p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                           help="run on the Dask cluster at ADDRESS (e.g. tcp://host:8786) instead of the "
                                "local pool; files are written by this process")
            p.add_argument("--force", action="store_true", help="recompute every cell even if cached")
            p.add_argument("--no-figures", action="store_true", help="do not draw the figures")
            p.add_argument("--no-progress", action="store_true", help="no progress bars")
    return parser


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
        for ext in ("png", "pdf"):
            path = folder / f"{stem}.{ext}"
            fig.savefig(path, dpi=150)
            written.append(path)
        plt.close(fig)
    return written


def _status(args) -> int:
    out = args.out or E.default_results_dir()
    for exp in _experiments(args):
        counts = E.status(exp, out, seed=args.seed)
        total = sum(counts.values())
        print(f"{exp.name:10s} {len(exp):4d} cells, {total:4d} files: {counts['done']} done, "
              f"{counts['missing']} missing, {counts['stale']} stale  ({out})")
    return 0


def _reproduce(args) -> int:
    out = args.out or E.default_results_dir()
    exps = _experiments(args)
    t0 = time.perf_counter()
    # one pool for every experiment: the longest chunks of all of them start first
    report = E.run(exps, out, seed=args.seed, jobs=args.jobs, scheduler=args.scheduler,
                   progress=not args.no_progress, force=args.force, desc=args.experiment)
    for exp in exps:
        res = E.load(exp, out, seed=args.seed)
        print(_summary(res), flush=True)
        tables = Path(out) / "tables"
        tables.mkdir(parents=True, exist_ok=True)
        (tables / f"{exp.name}.txt").write_text(_full_tables(res))
        if not args.no_figures:
            for path in _figures(res, Path(out) / "figures"):
                if path.suffix == ".png":
                    print(f"figure: {path} (+ .pdf)")
        print(f"table: {tables / (exp.name + '.txt')}\n", flush=True)
    wall = time.perf_counter() - t0
    print(f"done: {report.computed} result files computed, {report.reused} reused, in {wall:.1f} s wall "
          f"({report.cpu_seconds:.1f} CPU-s of simulation computed now); results in {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); returns the exit status.

    Bad options exit with status 2 and a message (argparse); an interruption (Ctrl-C) keeps the
    finished result files and exits with status 130.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "scheduler", None) and args.jobs is not None:
        parser.error("--jobs applies to the local pool; with --scheduler the cluster decides")
    if args.horizon is not None and not math.isfinite(args.horizon):  # pragma: no cover - argparse
        parser.error("--horizon must be finite")
    if args.policy and args.experiment == "eps-sweep":
        parser.error("--policy applies to fig1 and appendix (and to them within 'all'), not to eps-sweep")
    try:
        return _status(args) if args.command == "status" else _reproduce(args)
    except (ValueError, TypeError) as exc:
        print(f"python -m dpb: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # finished files are on disk; rerun to resume
        print("\ninterrupted: finished result files are kept; rerun the same command to resume",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.exit(main())
