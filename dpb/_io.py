"""Atomic result files shared by :mod:`dpb.simulate` and :mod:`dpb.regret`."""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Mapping
from pathlib import Path

import numpy as np

__all__ = ["json_default", "write_atomic", "save_npz_atomic", "array_checksum"]


def json_default(value):
    """What JSON cannot write by itself, as what it can (the ``default`` of ``json.dumps``): numpy
    scalars and arrays as Python numbers and lists, mappings other than dicts as dicts."""
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    if isinstance(value, Mapping):
        return {str(k): v for k, v in value.items()}
    raise TypeError(f"parameter values must be numbers, strings or None, got {type(value).__name__}")


def array_checksum(array) -> str:
    """SHA-256 (hex) of an array: its dtype, its shape and its bytes in C order."""
    a = np.ascontiguousarray(array)
    h = hashlib.sha256(f"{a.dtype.str}|{a.shape}|".encode())
    h.update(a.tobytes())
    return h.hexdigest()


def write_atomic(path, write) -> Path:
    """``write(tmp)`` to a temporary file with a unique name next to ``path`` (process id plus a
    random suffix, so concurrent writers of the same path cannot clobber each other's temporary
    file), then rename it onto ``path``: readers see either no file or a complete one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():  # only after a failure
            tmp.unlink()
    return path


def save_npz_atomic(path: Path, meta: dict, arrays: dict) -> Path:
    """Write ``meta`` (as JSON) and ``arrays`` to ``path`` as a compressed ``.npz``, atomically
    (:func:`write_atomic`).

    ``meta`` is stored with one more key, ``"checksums"``: the :func:`array_checksum` of every
    array by name, so that a reader can tell a damaged file from a good one
    (:func:`dpb.cache.file_state`).
    """
    sums = {name: array_checksum(a) for name, a in arrays.items()}
    packed = np.array(json.dumps({**meta, "checksums": sums}))

    def write(tmp):
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, meta=packed, **arrays)

    return write_atomic(path, write)
