"""Imported by the ``dpb-live`` kernel (``scripts/site/jupyter/kernels/dpb-live``) before it answers.

The live server of ``make live`` keeps such a kernel started in advance, so a chapter's live page
finds dpb's explorers, matplotlib and ipywidgets imported, the numba kernels loaded from their
on-disk cache and matplotlib's fonts ready: rendering the live notebook then only builds the
explorers (whose first figures come from ``$DPB_LIVE_FIGURES``, see ``dpb._first_draw``).  Nothing
is bound in the reader's namespace; a failure here only leaves the work to the notebook.
"""

from __future__ import annotations

import importlib
import os
import sys
import time

#: The explorers' modules (every chapter's), imported with everything they use.
MODULES = ("dpb.widgets.background", "dpb.widgets.lower_bound", "dpb.widgets.concentration",
           "dpb.widgets.algorithms", "dpb.widgets.privacy", "dpb.widgets.regret", "dpb.widgets.experiments")


def warm() -> float:
    """Import the explorers, load the compiled kernels, render one small figure; the seconds spent."""
    t0 = time.perf_counter()
    for name in MODULES:
        importlib.import_module(name)
    from dpb.simulate import warm_kernels

    warm_kernels()
    from dpb._first_draw import source_digest

    source_digest()  # the key of the stored first figures, computed once per process
    import matplotlib.pyplot as plt

    from dpb.widgets.core import figure_output

    fig, ax = plt.subplots(figsize=(2, 1), layout="constrained")
    ax.plot([0, 1], [0, 1], label="x")
    ax.set_title("warm-up")
    ax.legend()
    figure_output(fig)
    plt.close(fig)
    return time.perf_counter() - t0


try:
    SECONDS = warm()
    print(f"dpb-live kernel {os.getpid()}: explorers imported, kernels loaded in {SECONDS:.1f} s",
          file=sys.__stderr__, flush=True)  # the server's log
except Exception as exc:  # noqa: BLE001 - the notebook's own imports will say what is wrong
    SECONDS = None
    ERROR = exc
