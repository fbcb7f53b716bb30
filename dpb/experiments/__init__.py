"""The paper's experiments as data, run at full scale, cached on disk and resumable.

Every experiment of the paper (Azize, Wu, Honda, Orabona, Ito, Basu; section 'Experimental
Analysis' and appendix 'Extended Experiments') is described here as a list of *cells*: one policy
with its parameters, on one environment, for one horizon ``T`` and a number of runs.  :func:`run`
computes the cells that are missing from the cache directory (a local process pool by default, a
Dask cluster on demand), :func:`load` reads them back, and the tables below summarise them.

==================  ======================================================================  ======
experiment          what                                                                    cells
==================  ======================================================================  ======
``fig1``            eps = 0.25 on mu1 and mu2, T = 1e6, 20 runs: DP-SE (beta = 1/T),        12
                    AdaP-KLUCB (alpha = 3.1), Lazy-DP-TS (c = 3), DP-KLUCB and DP-IMED
                    (n0 = 1, alpha = 2), and the non-private IMED
``appendix``        the same algorithms on mu1..mu4 x eps in {0.01, 0.1, 0.5, 1}            84
                    (IMED does not depend on eps: one cell per instance)
``eps-sweep``       DP-IMED with alpha = 1.1 on [0.8, 0.1, 0.1, 0.1, 0.1], T = 1e7,         100
                    eps = 0.01, 0.02, ..., 1, 20 runs each
==================  ======================================================================  ======

Cells are shared between experiments when they are identical: IMED on mu1 and mu2 serves both
Figure 1 and the appendix.

Cache layout and staleness
--------------------------
A cell is stored as one or more ``.npz`` files (:meth:`dpb.simulate.Result.save`) under
``<out>/cells/``, one per *chunk* of runs (the per-step Lazy-DP-TS is split into chunks of 5 runs so
that both cores share a cell; the other policies use one chunk).  Each file records the cell's
specification, the experiment seed, the chunk's run ids, the versions of ``dpb`` and ``numpy`` and
a hash of the ``dpb`` code that produces it (the simulator, the policy's module and everything
they import from ``dpb``; docstrings and comments excluded; see :mod:`dpb.cache`).  A file whose
record does not match the current code is *stale* and is recomputed; a file is written atomically
(temporary file + ``os.replace``), so a sweep killed at any moment leaves only complete files and a
rerun computes only what is missing.

Seeds
-----
The cell with specification ``key`` (policy, parameters, arm means, T; *not* the number of runs)
uses the root ``SeedSequence(seed, spawn_key=h(key))``, with ``h`` four 32-bit words of the SHA-256
of the canonical JSON of ``key``; run ``i`` of the cell is child ``i`` of that root
(:func:`dpb.simulate.child_seeds`).  The numbers therefore do not depend on how cells and runs are
split across processes or machines, nor on which other cells are computed.

The package
-----------
``dpb.experiments.specs`` (cells, settings, the paper's experiments), ``dpb.experiments.store``
(the files: provenance, status, loading), ``dpb.experiments.execution`` (the driver and the
:class:`Backend` protocol; its backends: this process, the local pool of
``dpb.experiments.workers``, a Dask cluster in ``dpb.experiments.dask``) and
``dpb.experiments.tables`` (summaries), ``dpb.experiments.files`` (experiment files: any
experiment as TOML, the paper's included) and ``dpb.experiments.scale`` (the converged scale: runs
added in blocks until the expected regret is known to +- 10 %).  Every public name is importable from
:mod:`dpb.experiments` itself.
"""


from ..cache import default_results_dir
from . import dask, execution, files, scale, specs, store, tables
from .dask import *  # noqa: F403
from .execution import *  # noqa: F403 - each submodule's __all__ is its public part
from .files import *  # noqa: F403
from .scale import *  # noqa: F403
from .specs import *  # noqa: F403
from .store import *  # noqa: F403
from .tables import *  # noqa: F403

__all__ = ["default_results_dir", *specs.__all__, *store.__all__, *execution.__all__, *dask.__all__,
           *scale.__all__, *tables.__all__, *files.__all__]
