"""A ``dask worker`` process of a test's own, for the tests that kill workers (the ``dask_cluster``
fixture of ``tests/conftest.py`` gives the scheduler)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers.processes import kill_session

ROOT = Path(__file__).resolve().parents[2]


class DaskWorker:
    """``dask worker ADDRESS`` without a nanny (nothing restarts it when killed), one thread, on
    127.0.0.1 with a free port and no dashboard, in a session of its own; killed on exit."""

    def __init__(self, tmp_path, address, name):
        self.log = tmp_path / f"{name}.log"
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "dask", "worker", address, "--no-nanny", "--nthreads", "1",
                 "--host", "127.0.0.1", "--no-dashboard", "--name", name],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self):
        kill_session(self.proc, self.proc.pid if Path("/proc").exists() else None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()
