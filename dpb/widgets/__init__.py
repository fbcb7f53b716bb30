"""Interactive explorers (ipywidgets) that the chapters embed.

Each explorer redraws a :mod:`dpb.plotting` function when its controls move, so the widget and the
chapter's static figure are the same picture.  They need a running kernel; the built (static)
book shows the static figure drawn at the default parameters instead.
"""

from .background import kl_explorer, laplace_explorer
from .core import explorer

__all__ = ["explorer", "kl_explorer", "laplace_explorer"]
