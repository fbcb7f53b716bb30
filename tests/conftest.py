"""Shared test set-up, run once before any test module is imported.

- Matplotlib draws with the non-interactive Agg backend, so that the plot and widget tests never
  need a display (the seven ``test_*_plots.py``/``test_plotting_widgets.py`` files rely on it).
- Hypothesis runs every property test under one registered profile: ``dpb`` (the default) is
  derandomized, so a failure reproduces on every machine and in CI, and has no per-example
  deadline (the exact tail computations take longer than hypothesis's 200 ms default on a loaded
  machine). ``HYPOTHESIS_PROFILE=explore`` draws fresh random examples, five times as many, for
  bug hunting. A test's own ``@settings(max_examples=...)`` still sets its number of examples.
"""

import os

import matplotlib

matplotlib.use("Agg")

from hypothesis import settings  # noqa: E402

settings.register_profile("dpb", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("explore", deadline=None, derandomize=False, print_blob=True,
                          max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dpb"))
