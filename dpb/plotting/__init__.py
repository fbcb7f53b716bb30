"""Every figure the book shows, as functions of parameters or results.

One submodule a chapter; each function draws on a given matplotlib ``Axes`` (or makes a figure),
returns the ``Figure``, and is what both a chapter's static figure and its widget call, so the
static page and the live notebook show the same picture.
"""

from .._extras import require

require("matplotlib", "plot", "dpb.plotting")  # an ImportError naming the extra, before any submodule

from .background import plot_kl, plot_laplace_mechanism  # noqa: E402
from .style import color, new_figure, series_color  # noqa: E402

__all__ = ["color", "new_figure", "plot_kl", "plot_laplace_mechanism", "series_color"]
