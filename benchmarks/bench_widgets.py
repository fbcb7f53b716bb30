"""Benchmark of the book's interactive explorers: redraw time at the defaults, redraws per drag.

For each of the 17 explorers (``dpb.widgets.*``) it reports, in one run:

- **first draw**: building the widget, which draws once at its default parameters (cold caches);
- **redraw**: one more redraw at the defaults (``Explorer.redraw``), the time a reader waits after
  moving a control back to its default; the target is <= 1.5 s, except for the explorers behind a
  "Run" button (chapter 7), which are reported but do not redraw on their own;
- **redraws per drag**: inside a running asyncio event loop (as in a kernel handling widget
  messages), the first slider of the explorer receives ten values 30 ms apart -- what a front end
  sends during a drag if it ignored ``continuous_update=False`` -- and the benchmark counts the
  plotting calls once things are quiet; the target is <= 2 (one is expected: the burst is
  coalesced).  Sliders send only the released value anyway (``continuous_update=False``), so
  a real drag costs a single message.

Run::

    .venv/bin/python benchmarks/bench_widgets.py            # all explorers (about 1-3 minutes)
    .venv/bin/python benchmarks/bench_widgets.py --only kl_explorer,tail_explorer

It is a report, not a timed test: wall-clock numbers on a shared machine move by +-30%.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import time

import ipywidgets as W
import matplotlib

matplotlib.use("Agg")

from dpb.widgets import (  # noqa: E402
    algorithms,
    background,
    concentration,
    experiments,
    lower_bound,
    privacy,
    regret,
)

EXPLORERS = [
    ("ch01", background.kl_explorer), ("ch01", background.laplace_explorer),
    ("ch02", lower_bound.d_eps_explorer), ("ch02", lower_bound.lower_bound_explorer),
    ("ch02", lower_bound.double_change_explorer), ("ch02", lower_bound.coupled_simulation_explorer),
    ("ch03", concentration.tail_explorer), ("ch03", concentration.exponent_explorer),
    ("ch04", algorithms.schedule_explorer), ("ch04", algorithms.forgetting_explorer),
    ("ch04", algorithms.trace_explorer),
    ("ch05", privacy.continual_release_explorer), ("ch05", privacy.audit_explorer),
    ("ch06", regret.convergence_explorer), ("ch06", regret.alpha_tradeoff_explorer),
    ("ch06", regret.distribution_explorer),
    ("ch07", experiments.experiment_explorer),
]
SLIDERS = (W.IntSlider, W.FloatSlider, W.FloatLogSlider, W.SelectionSlider)
TARGET_REDRAW_S = 1.5
TARGET_DRAG = 2


def drag_values(slider, n: int = 10) -> list:
    """n distinct values of the slider next to its current one (wrapping at the end of its range)."""
    if isinstance(slider, W.SelectionSlider):
        opts = list(slider.options)
        values = [opt[1] if isinstance(opt, tuple) else opt for opt in opts]
        i = values.index(slider.value)
        return [values[(i + k) % len(values)] for k in range(1, n + 1)]
    lo, hi, step = slider.min, slider.max, slider.step
    out, v = [], slider.value
    for _ in range(n):
        v = v + step if v + step <= hi else lo
        out.append(v)
    return out


async def simulated_drag(box, gap: float = 0.03) -> int | None:
    """Plotting calls caused by ten slider values ``gap`` seconds apart (None: no slider)."""
    slider = next((c for c in box.controls.values() if isinstance(c, SLIDERS)), None)
    if slider is None:
        return None
    before = box.redraws
    for value in drag_values(slider):
        slider.value = value
        await asyncio.sleep(gap)
    while getattr(box, "coalescer", None) is not None and box.coalescer.pending:
        await asyncio.sleep(0.05)
    return box.redraws - before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated explorer names")
    args = parser.parse_args()
    only = {s for s in args.only.split(",") if s}
    print(f"# Widget redraws ({platform.python_version()}, {platform.machine()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f})\n")
    print("| chapter | explorer | first draw (s) | redraw at defaults (s) | <= 1.5 s "
          "| redraws per 10-value drag |")
    print("|---|---|---|---|---|---|")
    for chapter, make in EXPLORERS:
        if only and make.__name__ not in only:
            continue
        t0 = time.perf_counter()
        box = make()
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        box.redraw()
        again = time.perf_counter() - t0
        if not hasattr(box, "coalescer"):
            verdict = "behind Run"
        else:
            verdict = "yes" if again <= TARGET_REDRAW_S else "NO"
        n = asyncio.run(simulated_drag(box))
        drag = "no slider" if n is None else f"{n}{'' if n <= TARGET_DRAG else ' (NO)'}"
        print(f"| {chapter} | {make.__name__} | {first:.2f} | {again:.2f} | {verdict} | {drag} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
