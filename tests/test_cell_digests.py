"""Every policy's numbers are bitwise those recorded: a refactoring of the policies, their scalar
maths or their engines must not change one bit of a simulated array (``tests/cell_digests.py``
says which cells; ``tests/cell_digests.json`` holds their digests, computed before issue 26's
refactoring of ``dpb/policies``).  A deliberate change of the numbers records new digests:
``python tests/cell_digests.py > tests/cell_digests.json``."""

from __future__ import annotations

import json
from pathlib import Path

from cell_digests import digests

RECORDED = json.loads((Path(__file__).parent / "cell_digests.json").read_text())


def test_every_cell_is_bitwise_the_recorded_one():
    got = digests()
    assert got.keys() == RECORDED.keys()
    changed = sorted(k for k in got if got[k] != RECORDED[k])
    assert not changed, f"{len(changed)} of {len(got)} cells changed: {changed[:5]}"
