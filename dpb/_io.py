"""Atomic result files shared by :mod:`dpb.simulate` and :mod:`dpb.regret`."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import numpy as np

__all__ = ["save_npz_atomic"]


def save_npz_atomic(path: Path, meta: dict, arrays: dict) -> Path:
    """Write ``meta`` (as JSON) and ``arrays`` to ``path`` as a compressed ``.npz``, atomically.

    The data go to a temporary file with a unique name in the same directory (process id plus a
    random suffix, so concurrent writers of the same path cannot clobber each other's temporary
    file), which is then renamed onto ``path``: readers see either no file or a complete one.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, meta=np.array(json.dumps(meta)), **arrays)
        os.replace(tmp, path)
    finally:
        if tmp.exists():  # only after a failure
            tmp.unlink()
    return path
