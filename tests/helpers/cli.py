"""Running dpb from a test: Python code in a fresh interpreter (with this checkout on its path),
and a small input file written in one call."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_output(code: str, timeout: float = 120) -> str:
    """The standard output of ``python -c code`` run in a fresh interpreter from the repository's
    root (fails the test when it exits with an error)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def write_file(path: Path, text: str) -> Path:
    """Write ``text`` to ``path``; returns ``path``."""
    path.write_text(text)
    return path
