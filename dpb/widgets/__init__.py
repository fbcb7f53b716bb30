"""Interactive explorers (ipywidgets) that the chapters embed.

Each explorer redraws a :mod:`dpb.plotting` function when its controls move, so the widget and the
chapter's static figure are the same picture.  They need a running kernel; the built (static)
book shows the static figure drawn at the default parameters instead.
"""

from .._extras import require

require("ipywidgets", "widgets", "dpb.widgets")  # ImportErrors naming the extra, before any submodule
require("matplotlib", "widgets", "dpb.widgets")

from .background import kl_explorer, laplace_explorer  # noqa: E402
from .core import explorer  # noqa: E402

__all__ = ["explorer", "kl_explorer", "laplace_explorer"]
