"""Optional dependencies: the library needs numpy, scipy, numba and tqdm; the rest are extras.

==========  ==============================================  ========================================
extra       installs                                        for
==========  ==============================================  ========================================
``plot``    matplotlib                                      :mod:`dpb.plotting`, figures of ``dpb run``
``widgets`` matplotlib, ipywidgets, ipykernel               :mod:`dpb.widgets` (the chapters' explorers)
``book``    the above, JupyterLab, Voila, Jupyter Book      building and reading the book live
``dask``    dask[distributed]                               ``--scheduler`` / ``scheduler=``
``pandas``  pandas (``parquet``: and pyarrow)               ``to_frame()``, ``dpb export --format parquet``
``dev``     everything above and the test tools             the project's own tests
==========  ==============================================  ========================================

:func:`require` imports an optional module or raises an ``ImportError`` naming the extra.
"""

from __future__ import annotations

import importlib

__all__ = ["require"]


def require(module: str, extra: str, what: str):
    """Import ``module`` (e.g. ``"matplotlib"``), or raise ``ImportError`` saying that ``what`` needs
    the extra ``extra`` (``pip install 'dpb[extra]'``)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(f"{what} needs {module.split('.')[0]}, part of the '{extra}' extra of dpb: "
                          f"pip install 'dpb[{extra}]' (the core library runs without it)") from exc
