"""Why a result file is not current: the reason behind ``stale`` and ``damaged``.

:func:`dpb.experiments.status` counts the chunk files as done, missing, stale or damaged;
:func:`chunk_reason` says, for one file, what differs between what it records and what the
current code would record (:func:`dpb.experiments.store.chunk_provenance`): the code that produces
it was edited (its source hash), another version of dpb or numpy made it, the compiled kernels
were on or off (``DPB_JIT``), another experiment seed or cell, or the arrays fail their checksums.
``dpb status`` prints these reasons.
"""

from __future__ import annotations

from .. import cache
from .files import as_cells
from .specs import DEFAULT_SEED
from .store import checked_chunk, expected_stamp, out_dir, checked_seed

__all__ = ["chunk_reason", "reasons"]

_WHAT = {
    "source_hash": "the code that produces it changed (source hash {old} -> {new})",
    "dpb_version": "made by dpb {old}, this is dpb {new}",
    "numpy_version": "made with numpy {old}, this is numpy {new}",
    "engine": "made with the {old} engine, this run uses {new} (DPB_JIT)",
    "format": "cache format {old}, this dpb writes format {new}",
    "experiment_seed": "made with the experiment seed {old}, this run uses {new}",
    "cell": "made for another cell",
    "runs": "holds runs {old}, this chunk is runs {new}",
    "policy_source": "the policy's class changed (source hash {old} -> {new})",
}


def _short(value) -> str:
    text = str(value)
    return text[:12] if len(text) > 16 and all(c in "0123456789abcdef" for c in text) else text


def chunk_reason(cell, start: int, stop: int, out=None, *, seed: int = DEFAULT_SEED) -> str | None:
    """Why the file of runs ``[start, stop)`` of ``cell`` is not done: None when it is done,
    ``"missing"``, ``"damaged: ..."`` or ``"stale: ..."`` naming every difference."""
    cell, start, stop = checked_chunk(cell, start, stop)
    seed = checked_seed(seed)
    path = cell.path(out_dir(out), start, stop)
    expected = expected_stamp(cell, start, stop, seed)
    state = cache.file_state(path, expected)
    if state == "done":
        return None
    if state == "missing":
        return "missing"
    if state == "damaged":
        return "damaged: the file cannot be read whole or an array fails its checksum (it is recomputed)"
    meta = cache.read_meta(path) or {}
    extra = meta.get("extra", {}) if isinstance(meta.get("extra", {}), dict) else {}
    why = []
    for key, new in expected.items():
        old = extra.get(key)
        if old != new:
            template = _WHAT.get(key, f"{key} differs ({{old}} -> {{new}})")
            why.append(template.format(old=_short(old) if old is not None else "none", new=_short(new)))
    return "stale: " + "; ".join(why or ["its record differs from the current one"])


def reasons(target, out=None, *, seed: int = DEFAULT_SEED) -> list:
    """``(path, reason)`` for every chunk file of ``target`` that is not done (see
    :func:`chunk_reason`), in the order of the cells."""
    out, seed = out_dir(out), checked_seed(seed)
    rows = []
    for cell in as_cells(target):
        for a, b in cell.chunks():
            why = chunk_reason(cell, a, b, out, seed=seed)
            if why is not None:
                rows.append((cell.path(out, a, b), why))
    return rows
