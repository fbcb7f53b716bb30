"""The installed version of ``dpb`` (a leaf module: importing it imports nothing else of ``dpb``)."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("dpb")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"

__all__ = ["__version__"]
