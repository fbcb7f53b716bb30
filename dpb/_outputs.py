"""The outputs of a computed experiment, as ``dpb reproduce`` and ``dpb run`` write them.

:func:`write_outputs` prints the experiment's summary and writes its final-regret tables, its
experiment file and its figures, laid out by :func:`~dpb.experiments.figure_kind` (PNG and PDF,
named after :func:`~dpb.experiments.output_stem`).  A figure never fails the run: one that cannot be
drawn well is drawn as a grid of panels, or skipped with one line on stderr.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

from ._io import write_atomic
from ._validate import as_flag
from .experiments.files import FileExperiment, figure_kind, output_stem, spec_to_toml
from .experiments.scale import load_converged
from .experiments.specs import BASELINES, DEFAULT_SEED, OURS, Experiment
from .experiments.store import ExperimentResults, _out_dir, load
from .experiments.tables import (final_regret_table, format_table, mean_regret_summary, ratio_summary,
                                 sweep_table)

# (a private module: the command line's writer, above dpb.experiments and dpb.plotting)
__all__ = ["write_outputs"]


def _summary(res: ExperimentResults) -> str:
    exp = res.experiment
    lines = [f"== {exp.name}: {exp.description} =="]
    if figure_kind(exp) == "eps-sweep" or all(len(s.cells) == 1 for s in exp.settings):
        rows = sweep_table(res)
        step = max(1, len(rows) // 10)
        shown = rows[step - 1 :: step] if len(rows) > 10 else rows
        lines.append(format_table(shown, ["eps", "mean", "std", "lower_bound", "ratio"]))
        ratios = [r["ratio"] for r in rows]
        lines.append(f"mean regret / lower bound over all {len(rows)} budgets: min {min(ratios):.2f}, "
                     f"median {sorted(ratios)[len(ratios) // 2]:.2f}, max {max(ratios):.2f}")
    else:
        rows = mean_regret_summary(res)
        # an experiment of one's own may hold no private baseline (or none of ours): no ratio then
        ratios = [r["ratio"] for r in rows if not math.isnan(r["ratio"])]
        if ratios:
            lines.append("mean regret at T; ratio = best private baseline / best of DP-KLUCB, DP-IMED")
        else:
            lines.append("mean regret at T")
            rows = [{k: v for k, v in r.items() if k != "ratio"} for r in rows]
        lines.append(format_table(rows, digits=0))
        if ratios:
            lines.append(f"DP-KLUCB or DP-IMED has the lowest private regret in {sum(r > 1 for r in ratios)} "
                         f"of {len(ratios)} settings")
    lines.append(f"CPU-seconds recorded in the result files: {res.cpu_seconds():.1f}")
    return "\n".join(lines)


def _full_tables(res: ExperimentResults) -> str:
    T = res.experiment.T
    blocks = [format_table(final_regret_table(res.setting(s)), title=f"# {s.label}, T = {T}")
              for s in res.settings]
    return "\n\n".join(blocks) + "\n"


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise ImportError("the figures need matplotlib, the 'plot' extra of dpb: pip install 'dpb[plot]' "
                          "(or pass --no-figures)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _figures(res, folder: Path, stem: str, converged: bool = False) -> list:
    """The experiment's figures as ``folder/<stem>[_<part>].png`` and ``.pdf``, laid out by
    :func:`~dpb.experiments.figure_kind`: one row of panels (Figure 1), one grid per instance
    and a ratio heat map (the appendix), or the regret-against-eps plot; at the converged scale
    the panels only, with the expected regret's intervals (``<stem>_converged``).

    A figure never fails the run: one that cannot be drawn well in its layout (text over text,
    a clipped title, data it cannot show) is drawn as a grid of panels, one per setting
    (:func:`~dpb.plotting.experiments.plot_figure1`); when that fails too, or the figure needs
    what the experiment lacks (a ratio of baselines to DP-KLUCB/DP-IMED without either), it is
    skipped with one line on stderr naming it and why."""
    kind = figure_kind(res.experiment)
    if kind == "none" or (converged and kind != "panels"):
        return []
    plt = _pyplot()
    from .plotting import experiments as pe

    makers: dict = {}
    if converged:
        makers[f"{stem}_converged"] = lambda: pe.plot_figure1(res, band="ci", yscale="log")
    elif kind == "panels":
        makers[stem] = lambda: pe.plot_figure1(res)
    elif kind == "instances":
        for env in dict.fromkeys(s.env for s in res.settings):
            makers[f"{stem}_{env}"] = lambda env=env: pe.plot_appendix(res, env)
        present = {c.policy for s in res.settings for c in s.cells}
        if not present & set(OURS) or not present & set(BASELINES):
            print(f"figure {stem}_ratios skipped: the ratio map needs one of {', '.join(OURS)} and one "
                  f"private baseline ({', '.join(BASELINES)}) in a setting", file=sys.stderr)
        elif ratio_summary(res):
            makers[f"{stem}_ratios"] = lambda: pe.plot_ratio_grid(res)
    else:
        makers[stem] = lambda: pe.plot_eps_sweep(res)
    written = []
    for name, make in makers.items():
        fig = _drawn(name, make, lambda: pe.plot_figure1(res, **({"band": "ci", "yscale": "log"} if converged
                                                                 else {})), plt)
        if fig is None:
            continue
        try:
            written += _save_figure(fig, folder / name)
        except OSError:
            raise  # a disk that cannot take the file: the run's other outputs could not be saved either
        except Exception as exc:  # noqa: BLE001 - matplotlib failing to lay out or render the figure
            print(f"figure {name} skipped: {_one_line(exc)}", file=sys.stderr)
        finally:
            plt.close(fig)
    return written


def _drawn(name: str, make, fallback, plt):
    """The figure ``make()`` draws, else the one ``fallback()`` draws (a grid of panels), else None
    after one line on stderr naming the figure and why (the run goes on: its tables are saved)."""
    from .plotting._checks import check_text_overlap

    try:  # the file is saved as laid out: no text may run off its edge
        return check_text_overlap(make(), clipped="all")
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - text over text, a clipped title, data it cannot show
        plt.close("all")
        first = _one_line(exc)
    try:
        fig = check_text_overlap(fallback(), clipped="all")
    except (KeyboardInterrupt, SystemExit, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001
        plt.close("all")
        print(f"figure {name} skipped: {first}; the grid of panels failed too: {_one_line(exc)}",
              file=sys.stderr)
        return None
    print(f"figure {name}: drawn as a grid of panels, one per setting ({first})", file=sys.stderr)
    return fig


def _one_line(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _save_figure(fig, stem: Path) -> list:
    """``fig`` as ``<stem>.png`` and ``<stem>.pdf``.  The layout (constrained layout: the most
    expensive part of drawing) is computed for the PNG and kept for the PDF."""
    written = []
    for ext in ("png", "pdf"):
        path = stem.with_name(f"{stem.name}.{ext}")
        write_atomic(path, lambda tmp, ext=ext: fig.savefig(tmp, dpi=150, format=ext))
        written.append(path)
        fig.set_layout_engine("none")  # positions stay where the first drawing put them
    return written


def _converged_summary(res) -> str:
    lines = [f"== {res.experiment.name} at the converged scale: expected regret at T, "
             "95% interval (BCa, widened for rare runs), runs =="]
    rows = []
    for s in res.settings:
        for c in s.cells:
            ce = res.estimates[c]
            e = ce.estimate
            rows.append({"env": s.env, "eps": s.eps, "algorithm": c.policy, "mean": e.mean, "lo": e.lo,
                         "hi": e.hi, "runs": ce.runs, "converged": "yes" if ce.converged else "cap"})
    lines.append(format_table(rows, digits=0))
    lines.append(f"CPU-seconds recorded in the result files: {res.cpu_seconds():.1f}")
    return "\n".join(lines)


def write_outputs(exp: Experiment, out: str | os.PathLike[str] | None = None, *, seed: int = DEFAULT_SEED,
                  converged: bool = False, figures: bool = True) -> None:
    """What ``dpb reproduce`` and ``dpb run`` write of an experiment whose results are computed in
    ``out`` (with ``seed``): its summary printed on stdout; at the paper's scale its final-regret
    tables (``out/tables/<stem>.txt``, :func:`~dpb.experiments.output_stem`) and, for an
    experiment file, its specification (``<stem>.toml``, which ``dpb run`` reruns); its figures
    (``out/figures/<stem>*.png`` and ``.pdf``; ``figures=False``: none; without matplotlib: one
    line on stderr).  ``converged``: the results of :func:`~dpb.experiments.run_converged`
    (the panels with their intervals, no tables).

    Raises :class:`~dpb.experiments.MissingResultsError` when the results are not all computed."""
    converged, figures = as_flag("converged", converged), as_flag("figures", figures)
    res = (load_converged if converged else load)(exp, out, seed=seed)
    out = _out_dir(out)
    print(_converged_summary(res) if converged else _summary(res), flush=True)
    stem = output_stem(exp, seed)
    tables = Path(out) / "tables"
    if not converged:
        text = _full_tables(res)
        write_atomic(tables / f"{stem}.txt", lambda tmp: tmp.write_text(text))
        if isinstance(exp, FileExperiment):  # the specification, as a file `dpb run` reads
            spec = f"# {exp.description}; seed {seed} (dpb run --seed)\n" + spec_to_toml(exp.spec)
            write_atomic(tables / f"{stem}.toml", lambda tmp: tmp.write_text(spec))
    if figures:
        try:
            written = _figures(res, Path(out) / "figures", stem, converged)
        except ImportError as exc:  # the light install: no matplotlib, the rest still works
            written = []
            print(f"figures skipped: {exc}", file=sys.stderr)
        for path in written:
            if path.suffix == ".png":
                print(f"figure: {path} (+ .pdf)")
    if not converged:
        print(f"table: {tables / (stem + '.txt')} (its experiment file: {stem}.toml)\n", flush=True)
