"""dpb._jit: the announcement of a cold kernel cache."""

from __future__ import annotations

import os


def test_a_cold_kernel_cache_is_announced_once(tmp_path, monkeypatch, capsys):
    from dpb import _jit

    monkeypatch.setattr(_jit, "_announced", False)
    monkeypatch.setattr(_jit, "_checked", set())
    warm = tmp_path / "warm_kernel.py"
    warm.write_text("x = 1\n")
    (tmp_path / "__pycache__").mkdir()
    index = tmp_path / "__pycache__" / "warm_kernel.f-1.py311.nbi"
    index.write_bytes(b"")
    os.utime(index, (warm.stat().st_mtime + 1, warm.stat().st_mtime + 1))
    assert _jit.announce_compile(str(warm)) is False
    cold = tmp_path / "cold_kernel.py"
    cold.write_text("x = 1\n")
    assert _jit.announce_compile(str(cold)) is True
    err = capsys.readouterr().err
    assert "compiling the numba kernels" in err and "dpb compile" in err and "CPU-s" in err
    other = tmp_path / "other_kernel.py"
    other.write_text("x = 1\n")
    assert _jit.announce_compile(str(other)) is False  # once per process
    assert capsys.readouterr().err == ""
