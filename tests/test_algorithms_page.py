"""The appendix "Algorithms as run" specifies every policy the package registers."""

from __future__ import annotations

import re
from pathlib import Path

from dpb.policies import registered

PAGE = Path(__file__).resolve().parents[1] / "book" / "algorithms_as_run.md"


def _sections() -> dict[str, str]:
    """The ``## `` sections of the page: heading -> body."""
    parts = re.split(r"^## (.+)$", PAGE.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _names(heading: str, name: str) -> bool:
    # the whole name, not a part of a longer one ("IMED" is not named by "DP-IMED")
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", heading) is not None


def test_every_registered_policy_has_a_section():
    sections = _sections()
    builtin = registered(builtin=True)
    assert len(builtin) >= 9  # the paper's algorithms, the baselines and DP-UCB
    missing = [name for name in builtin if not any(_names(h, name) for h in sections)]
    assert not missing, f"no section of {PAGE.name} is headed with the policy names {missing}"


def test_each_section_links_the_class_it_specifies():
    sections = _sections()
    for name, cls in registered(builtin=True).items():
        bodies = [body for heading, body in sections.items() if _names(heading, name)]
        target = f"{{py:class}}`dpb.policies.{cls.__name__}`"
        assert any(target in body for body in bodies), f"the section of {name} does not link {target}"


def test_the_match_is_by_whole_names():
    assert _names("DP-KLUCB and DP-IMED (the paper's algorithms)", "DP-IMED")
    assert not _names("DP-KLUCB and DP-IMED (the paper's algorithms)", "IMED")
    assert not _names("DP-UCB (the book's worked example)", "UCB")
