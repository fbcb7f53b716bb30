"""Shared test set-up, run once before any test module is imported.

- Matplotlib draws with the non-interactive Agg backend, so that the plot and widget tests never
  need a display (the seven ``test_*_plots.py``/``test_plotting_widgets.py`` files rely on it).
- Hypothesis runs every property test under one registered profile: ``dpb`` (the default) is
  derandomized, so a failure reproduces on every machine and in CI, and has no per-example
  deadline (the exact tail computations take longer than hypothesis's 200 ms default on a loaded
  machine). ``HYPOTHESIS_PROFILE=explore`` draws fresh random examples, five times as many, for
  bug hunting. A test's own ``@settings(max_examples=...)`` still sets its number of examples.
  For the whole session hypothesis draws no literals from the source of imported local modules
  (:func:`fuzz_harness.no_local_constants`): which modules are imported depends on the tests run
  before, so with that pool the same test drew other examples alone than in the full suite.
- Every test is bounded (pytest-timeout, ``signal`` method: the timeout raises in the test's own
  thread, so its fixtures still stop their servers and child processes and the suite goes on).
  The default (``timeout`` in pyproject.toml) is for unit and property tests; statistical tests
  (``slow``) and notebook cells get :data:`SLOW_TIMEOUT`, browser tests :data:`BROWSER_TIMEOUT`;
  a test's own ``@pytest.mark.timeout(...)`` wins. A SIGTERM (``timeout`` around CI, a cancelled
  job) becomes KeyboardInterrupt, so fixtures stop their servers then too.
- A failing browser test gets its evidence attached (``browser_guard``): screenshots of its pages
  and the tail of its servers' logs, in the report and under ``_build/test-failures/``.
- The end of the run prints the test-seconds spent per stage (unit/property, statistical, nbval,
  browser; summed over pytest-xdist's workers), also appended to ``$DPB_STAGE_LOG`` when set
  (``.ci/run`` prints the table), and appends every test's duration to ``$DPB_DURATIONS`` when set.
- Under pytest-xdist (``make test`` runs two workers) with ``--dist loadgroup``, the tests of one
  group run in one worker: the tests that share one server per module (``test_live.py``,
  ``test_lab.py``: ``xdist_group`` marks), and the per-page tests of ``test_reading.py`` and
  ``test_layout.py``, which share one visit of each page (``helpers.pages.visit``).  The groups
  are read from the test ids by :class:`_GroupScheduling`: xdist 3.8's own ``loadgroup`` puts the
  group into the test id, which pytest 9 no longer lets it do, and it spreads a group's tests over
  every worker.
- Shared fixtures are defined here (``figure_of``, ``dask_cluster``: the one Dask cluster of the
  tests); shared helpers are in the package ``tests/helpers``; a test module never imports another
  test module (``tests/test_test_modules.py``).
"""

import os
import signal
import time

import matplotlib

matplotlib.use("Agg")

import browser_guard  # noqa: E402
import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

#: per-test bound (s) of statistical tests (``slow``) and of notebook cells (nbval)
SLOW_TIMEOUT = 1200
#: per-test bound (s) of a browser test without its own ``timeout`` mark (its own waits are shorter)
BROWSER_TIMEOUT = 300

settings.register_profile("dpb", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("explore", deadline=None, derandomize=False, print_blob=True,
                          max_examples=500)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dpb"))


@pytest.fixture(scope="session", autouse=True)
def _no_local_constants():
    """Every property test draws the same examples whatever ran before it (see the docstring)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from fuzz_harness import no_local_constants

    with no_local_constants():
        yield


@pytest.fixture
def figure_of():
    """``figure_of(box)``: the PNG (base64) an explorer's output area shows now, or None.

    The explorers of :mod:`dpb.widgets` write each redraw into their ``Output`` widget as a
    ``display_data`` output; comparing it before and after a control moves checks that the move
    really redrew a different figure.
    """

    def current(box):
        outputs = box.output.outputs
        if not outputs or outputs[-1].get("output_type") != "display_data":
            return None
        return outputs[-1]["data"].get("image/png")

    return current


@pytest.fixture
def dask_cluster():
    """``dask_cluster(n_workers)``: the one Dask cluster of the tests, a multi-process
    ``LocalCluster`` on 127.0.0.1 (its ports, the dashboard's too, chosen free; one thread a worker; with
    ``n_workers=0`` the scheduler only, for tests that start and kill their own workers,
    ``helpers.dask.DaskWorker``).  A test may close it in a ``with`` block; whatever is still open
    is closed when the test ends.  Skips the test without ``distributed``."""
    distributed = pytest.importorskip("distributed")
    made = []

    def make(n_workers: int = 0):
        cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                           host="127.0.0.1", scheduler_port=0, dashboard_address=":0",
                                           silence_logs=50)
        made.append(cluster)
        return cluster

    yield make
    for cluster in made:
        cluster.close()


def _stage(report_or_item) -> str:
    """The CI stage a test belongs to: nbval, browser, statistical or unit/property."""
    nodeid = report_or_item.nodeid
    keywords = report_or_item.keywords
    if nodeid.split("::")[0].endswith(".ipynb"):
        return "nbval"
    if "browser" in keywords:
        return "browser"
    if "slow" in keywords:
        return "statistical"
    return "unit/property"


def pytest_configure(config):
    main = os.getpid()

    def interrupt(signum, frame):
        if os.getpid() != main:  # a process forked by a test: die of the signal as before
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise KeyboardInterrupt(f"signal {signum}: stopping; fixtures stop their servers")

    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, interrupt)
    config._dpb_started = time.monotonic()


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects: ``-m notebook`` selects the chapters
def pytest_collection_modifyitems(config, items):
    for item in items:
        if _stage(item) == "nbval":
            item.add_marker(pytest.mark.notebook)
        if item.get_closest_marker("timeout") is not None:
            continue
        stage = _stage(item)
        if stage in ("nbval", "statistical"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))
        elif stage == "browser":
            item.add_marker(pytest.mark.timeout(BROWSER_TIMEOUT))


#: test files whose tests share one server per module: one group each under ``--dist loadgroup``
_ONE_GROUP_FILES = ("tests/test_live.py", "tests/test_lab.py")
#: test files whose per-page tests share one visit of the page (the page's path is in the test id)
_PAGE_GROUP_FILES = ("tests/test_reading.py", "tests/test_layout.py")


def group_of(nodeid: str) -> str:
    """The work unit of a test under ``--dist loadgroup``: its file for the files of one server,
    ``page:<path>`` for a per-page test, else the test itself."""
    path = nodeid.split("::")[0]
    if path in _ONE_GROUP_FILES:
        return path
    if path in _PAGE_GROUP_FILES and "[" in nodeid:
        params = nodeid[nodeid.index("[") + 1:nodeid.rindex("]")]
        page = params[:params.index(".html") + 5] if ".html" in params else None
        if page:
            return f"page:{page}"
    return nodeid


def pytest_xdist_make_scheduler(config, log):
    if config.getoption("dist", None) != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class _GroupScheduling(LoadScopeScheduling):
        """``loadgroup`` with the groups of :func:`group_of` (see the module docstring)."""

        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    return _GroupScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    browser_guard.begin(item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and "browser" in item.keywords:
        evidence = browser_guard.collect_evidence()
        if evidence:
            report.sections.append((f"evidence ({report.when}), also under {browser_guard.ARTIFACTS}",
                                    evidence))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Test-seconds per stage (summed over pytest-xdist's workers, so more than the wall time when
    they run side by side), and every test's duration appended to ``$DPB_DURATIONS`` (``make test``
    prints the 20 slowest of its two pytest runs from it, ``tests/slowest.py``)."""
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller reports
        return
    totals: dict[str, list] = {}
    durations: list[tuple[float, str, str]] = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) not in ("setup", "call", "teardown"):
                continue
            entry = totals.setdefault(_stage(report), [0.0, set()])
            entry[0] += report.duration
            entry[1].add(report.nodeid)
            durations.append((report.duration, report.when, report.nodeid))
    if not totals:
        return
    load = " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists("/proc/loadavg") else "?"
    wall = time.monotonic() - getattr(config, "_dpb_started", time.monotonic())
    workers = getattr(config.option, "numprocesses", None) or 1
    terminalreporter.section("time per stage")
    for stage in ("unit/property", "statistical", "nbval", "browser"):
        if stage in totals:
            seconds, ids = totals[stage]
            terminalreporter.write_line(f"{stage:>14}: {seconds:7.1f} test-s  ({len(ids)} tests)")
    terminalreporter.write_line(f"{'pytest, wall':>14}: {wall:7.1f} s  ({workers} worker(s); "
                                f"load average now {load})")
    log = os.environ.get("DPB_STAGE_LOG")
    if log:
        with open(log, "a") as out:
            for stage in ("unit/property", "statistical", "nbval", "browser"):
                if stage in totals:
                    out.write(f"  {stage} (test-s)\t{totals[stage][0]:.0f}\t{load}\n")
    path = os.environ.get("DPB_DURATIONS")
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "a") as out:
            for seconds, when, nodeid in durations:
                out.write(f"{seconds:.2f}\t{when}\t{nodeid}\n")
