"""A valid experiment cell to vary field by field, and stored result files damaged on purpose (to
test that a damaged file is found and recomputed)."""

from __future__ import annotations

import struct
import zipfile

import dpb.experiments as E


def damage_member(path, member="regret.npy"):
    """Flip a byte in the middle of the compressed data of ``member``; headers stay intact."""
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(member)
    raw = bytearray(path.read_bytes())
    name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26 : info.header_offset + 30])
    start = info.header_offset + 30 + name_len + extra_len
    raw[start + info.compress_size // 2] ^= 0xFF
    path.write_bytes(bytes(raw))


#: the fields of a valid Cell (policy, params_json, env, means, T, runs)
GOOD_CELL = ("DP-IMED", '{"eps": 0.5}', "custom", (0.7, 0.3), 1000, 2)


def a_cell(**change) -> E.Cell:
    """``E.Cell`` of :data:`GOOD_CELL` with the fields of ``change`` changed."""
    fields = dict(zip(("policy", "params_json", "env", "means", "T", "runs"), GOOD_CELL, strict=True))
    fields.update(change)
    return E.Cell(**fields)
