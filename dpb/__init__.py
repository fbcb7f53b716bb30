"""dpb: optimal regret of Bernoulli bandits under epsilon-global differential privacy.

The tested package behind the dpb book.  One module a concept:

- :mod:`dpb.divergences` -- kl, the paper's d_eps, its minimiser and confidence inversions, tv.
"""

from importlib.metadata import PackageNotFoundError, version

from . import divergences

try:
    __version__ = version("dpb")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"

__all__ = ["divergences", "__version__"]
