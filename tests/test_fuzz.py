"""The fuzz harness in CI: every public callable gets hostile arguments; no bad outcome allowed.

``tests/fuzz_harness.py`` runs each call in a worker process with a time and a memory cap and
classifies it (clean error / valid result / bad).  This test runs the seeded CI profile
(a few minutes at most on a loaded 2-core machine) and fails listing every bad outcome; ``make
fuzz`` runs the long profile and prints the counts per function.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_harness  # noqa: E402
import fuzz_specs  # noqa: E402


def _callables(api: dict) -> dict:
    return {n: o for n, o in api.items() if callable(o) and not isinstance(o, types.ModuleType)}


def _resolve_dotted(full: str):
    modname, _, name = full.rpartition(".")
    return getattr(importlib.import_module(modname), name)


def test_public_api_is_read_from_the_api_pages():
    # the set the coverage test below works on: every page's autodoc directives, exclusions honoured
    api = fuzz_harness.public_api()
    for full in (
        "dpb.divergences.d_eps",  # automodule :members: (the module's __all__)
        "dpb.environments.instance",  # autofunction
        "dpb.__main__.build_parser",  # :members: with an explicit list
        "dpb.plotting.experiments.plot_regret",
        "dpb.widgets.core.Explorer",
        "dpb.cache.file_state",
        "dpb.experiments.run",
        "dpb.policies.registry.load_policy",
        "dpb.plotting.new_figure",  # a submodule's __all__ that no page lists (dpb.plotting: no-members)
    ):
        assert full in api, full
    assert "dpb.policies.Policy" not in api  # :exclude-members: of the dpb.policies page
    assert "dpb.policies.base.Policy" in api  # ... documented under dpb.policies.base instead
    assert len(_callables(api)) > 250


def test_every_public_callable_has_a_spec_or_a_reason():
    api = _callables(fuzz_harness.public_api())
    fuzzed = {id(fuzz_harness.resolve(s.target)) for s in fuzz_specs.SPECS}
    excused = {id(_resolve_dotted(full)) for full in fuzz_specs.NOT_FUZZED}
    missing = sorted(n for n, o in api.items() if id(o) not in fuzzed and id(o) not in excused)
    assert not missing, (
        f"{len(missing)} public callables without a fuzz spec or a reason in NOT_FUZZED: {missing}"
    )


def test_not_fuzzed_names_are_public_callables_without_a_spec():
    # a stale reason (a name that no longer exists, or one that has a spec after all) would hide a
    # new callable of the same name
    api_ids = {id(o) for o in _callables(fuzz_harness.public_api()).values()}
    fuzzed = {id(fuzz_harness.resolve(s.target)) for s in fuzz_specs.SPECS}
    for full, reason in fuzz_specs.NOT_FUZZED.items():
        obj = _resolve_dotted(full)
        assert id(obj) in api_ids, f"{full} is not a public callable"
        assert id(obj) not in fuzzed, f"{full} has a spec and a reason not to fuzz it"
        assert len(reason) > 20, full


def test_classifier_flags_each_kind_of_bad_outcome():
    spec = fuzz_specs.Spec("dpb.divergences:kl", dict(p=fuzz_specs.PROB, q=fuzz_specs.PROB))
    ok = ("ok", False, False, "float", 0.0)
    assert fuzz_harness.classify(spec, "good", None, ok, True)[0] == "valid"
    assert fuzz_harness.classify(spec, "bad", "p", ok, True)[0] == "bad"  # accepted invalid input
    assert fuzz_harness.classify(spec, "good", None, ("ok", True, False, "float", 0.0), True)[0] == "bad"
    assert fuzz_harness.classify(spec, "good", None, ("ok", True, False, "float", 0.0), False)[0] == "valid"
    assert fuzz_harness.classify(spec, "good", None, ("hang", 20.0), True)[0] == "bad"
    assert fuzz_harness.classify(spec, "good", None, ("crash", -9), True)[0] == "bad"
    raw = ("exc", "OverflowError", "p too big", False, 0.0)
    assert fuzz_harness.classify(spec, "bad", "p", raw, True)[0] == "bad"
    unnamed = ("exc", "ValueError", "could not convert string to float", True, 0.0)
    assert fuzz_harness.classify(spec, "bad", "p", unnamed, True)[0] == "bad"
    named = ("exc", "ValueError", "p must lie in [0, 1], got 1.5", True, 0.0)
    assert fuzz_harness.classify(spec, "bad", "p", named, True) == ("clean", "ValueError")


def test_worker_survives_hangs_and_memory_blowups():
    # the isolation itself: a hang is cut at the time cap, an allocation past the memory cap is
    # a MemoryError in the worker (not the machine's), and the worker is replaced afterwards
    with fuzz_harness.Worker(memory_cap=2 * 2**30) as w:
        assert w.call("time:sleep", (30,), {}, timeout=2.0)[0] == "hang"
        reply = w.call("numpy:ones", (2**31,), {}, timeout=60.0)
        assert reply[0] == "exc" and reply[1] == "MemoryError"
        assert w.call("math:sqrt", (4.0,), {}, timeout=60.0)[:2] == ("ok", False)
        assert w.restarts >= 2


@pytest.mark.slow
def test_fuzz_ci_profile_finds_no_bad_outcome():
    # The calls that run are the ones a bare draw gives: the draw-only generation in a fresh process
    # (another hash seed, none of dpb imported, no worker) runs beside the profile, which runs here
    # after every dpb module is imported (as after other tests) -- so the draws depend neither on
    # the replies, nor on the hash seed, nor on the modules imported before.
    fuzz_harness.public_api()
    seed = "4242" if os.environ.get("PYTHONHASHSEED") != "4242" else "17"
    bare = subprocess.Popen(
        [sys.executable, os.path.join(fuzz_harness.HERE, "fuzz_harness.py"), "--profile", "ci", "--digest"],
        env=dict(os.environ, PYTHONHASHSEED=seed), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        report = fuzz_harness.run_profile("ci")
        out, err = bare.communicate(timeout=600)
    finally:
        if bare.poll() is None:
            bare.kill()
            bare.communicate(timeout=30)
    assert bare.returncode == 0, f"the bare draw failed: {err[-2000:]}"
    print(report.table())
    lines = [f"{n} [{m}{':' + p if p else ''}] ({call}): {why}" for n, m, p, call, why in report.bad]
    assert not report.bad, f"{len(report.bad)} bad outcomes:\n" + "\n".join(lines)
    total = sum(c["calls"] for c in report.counts.values())
    assert total >= 10 * len(fuzz_specs.SPECS) // 2  # the profile really ran
    assert fuzz_harness.digest_lines(report.calls) == out.strip().splitlines()[-1]
    # hypothesis stops early for a spec whose few distinct calls are all drawn (e.g. no parameters)
    budget = sum(s.examples(fuzz_harness.PROFILES["ci"]["examples"]) for s in fuzz_specs.SPECS)
    assert len(fuzz_specs.SPECS) <= len(report.calls) <= budget


def test_local_constants_are_kept_out_of_the_draws():
    # the cause of the CI profile drawing other calls in a lone run than in `make test`: hypothesis
    # mixes literals of the local modules already imported (here dpb's) into its draws
    from hypothesis.internal.conjecture import providers

    # (tests/conftest.py keeps the pool empty for the whole session: the real one is read through
    # the function it replaced)
    fuzz_harness.public_api()  # imports every dpb module, as the earlier tests of a session do
    assert 0.99 in fuzz_harness.hypothesis_local_constants().floats  # a literal of dpb's sources
    before = providers._get_local_constants
    with fuzz_harness.no_local_constants():
        pool = providers._get_local_constants()
        assert not (pool.integers or pool.floats or pool.strings or pool.bytes)
        assert 0.99 in fuzz_harness.hypothesis_local_constants().floats
    assert providers._get_local_constants is before  # restored afterwards
