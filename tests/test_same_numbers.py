"""The same seed gives the same numbers, bit for bit, across refactorings of the code that makes them.

``tests/same_numbers.txt`` holds the SHA-256 digests that ``python benchmarks/same_numbers.py``
printed on ``main`` before ``dpb/simulate.py`` was split (commit 0399587): cells of the paper's
scale in several run splits (DP-SE, AdaP-KLUCB, DP-KLUCB, DP-IMED, IMED, Lazy-DP-TS, the
eps-sweep), the generic engine, the Python engine, a teaching trace, the decomposed runs and the
transcripts of :mod:`dpb.interaction`.  A change that alters any stored array fails here; when a
change of the numbers is intended, say so in the commit and print the file anew.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = dict(line.rsplit(" ", 1) for line in (ROOT / "tests/same_numbers.txt").read_text().splitlines())


def _cases() -> dict:
    spec = importlib.util.spec_from_file_location("same_numbers", ROOT / "benchmarks" / "same_numbers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return {**dict(mod.small_cases()), **dict(mod.paper_cases())}


CASES = _cases()


def test_every_recorded_result_is_computed():
    assert sorted(CASES) == sorted(EXPECTED)


@pytest.mark.parametrize("label", sorted(EXPECTED))
def test_same_digest_as_before_the_split(label):
    assert CASES[label]() == EXPECTED[label], label
