"""dpb.cache: where results go, and what a result file records of the code and the arithmetic that
made its numbers.

- Provenance follows what the code really uses (issue 24, item 3): the hash of a user's policy
  covers every module it imports, through packages' ``__init__`` re-exports to the defining
  modules, and its sibling helper modules; editing each of these recomputes exactly the files that
  depend on it.  The package is copied to a temporary directory, so that the test can edit its
  files.
- Caches that cannot mix (issue 32, item 3): a result file records what its bits depend on (numpy
  and numba versions, the machine, the engine's arithmetic tag), and a cell resumed under other
  arithmetic recomputes the chunks made under the old one instead of joining them to new ones; a
  loader refuses them with one line naming the difference.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import dpb.engine
import dpb.experiments as E
from dpb import cache

ROOT = Path(__file__).resolve().parents[1]


def test_results_for_an_installed_package_go_to_the_user_cache(monkeypatch, tmp_path):
    from dpb import cache

    monkeypatch.delenv("DPB_RESULTS", raising=False)
    monkeypatch.setattr(cache, "PACKAGE_DIR", tmp_path / "site-packages" / "dpb")  # no pyproject beside it
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.default_results_dir() == tmp_path / "home" / ".cache" / "dpb"
    monkeypatch.setenv("DPB_RESULTS", str(tmp_path / "mine"))
    assert cache.default_results_dir() == tmp_path / "mine"


POLICY = '''
import numpy as np
from dpb.policies import BatchedPrivatePolicy
from helper import bonus
from helperpkg import scale


class MyUCB(BatchedPrivatePolicy):
    name = "My-UCB"

    def private_index(self, x, n, t, releases):
        return x + scale() * bonus(t, n)
'''


HELPER = "import numpy as np\n\n\ndef bonus(t, n):\n    return np.sqrt(np.log(t) / (2 * n))\n"


HELPERPKG_INIT = "from .core import scale\n"


HELPERPKG_CORE = "def scale():\n    return 1.0\n"


UNRELATED = "VALUE = 1\n"


SCRIPT = '''
import json, sys
from pathlib import Path
import dpb.experiments as E

user, out = Path(sys.argv[1]), Path(sys.argv[2])
cells = {p: E.Cell.make(p, "mu1", 300, 1, E.paper_params(p, 0.5) if p != "IMED" else {})
         for p in ("DP-IMED", "DP-SE", "IMED")}
cells["My-UCB"] = E.Cell.make(f"{user / 'my_policy.py'}:MyUCB", "mu1", 300, 1, {"eps": 0.5})
E.run(list(cells.values()), out, jobs=1, progress=False)
package = Path(E.__file__).resolve().parents[1]
edits = json.loads(sys.argv[3])
table = {}
for label, (where, kind) in edits.items():
    path = (package if where.startswith("dpb/") else user) / where.removeprefix("dpb/")
    before = path.read_text()
    if kind == "code":
        path.write_text(before + "\\n_provenance_probe = 1\\n")
    elif kind == "price":  # a price of the cost model, a class attribute cost_*: no number changes
        assert "cost_fast, cost_fast_python = (6e-8" in before
        path.write_text(before.replace("cost_fast_python = (6e-8", "cost_fast_python = (7e-8"))
    else:  # a docstring of its own at the top: no code changes
        path.write_text('"""An edited docstring."""\\n' + before if not before.startswith('"""') else
                        before.replace('"""', '"""Edited. ', 1))
    try:
        table[label] = sorted(p for p, c in cells.items() if E.status(c, out)["done"] == 0)
    finally:
        path.write_text(before)
    assert all(E.status(c, out)["done"] == 1 for c in cells.values()), label
print(json.dumps(table))
'''


#: edit -> the policies whose cached files are recomputed (expected).
EXPECTED = {
    "dpb/policies/dp_batched.py": ["DP-IMED", "My-UCB"],  # through dpb.policies' __init__ re-export
    "dpb/policies/dp_batched.py (docstring)": [],
    # imported by the policies on the runs' keys (policies/_keyed.py, dp_batched, dpse, adap) only:
    # an edit leaves the per-step IMED's files valid (KeyedRuns is not in policies/base.py)
    "dpb/policies/_private_runs.py": ["DP-IMED", "DP-SE", "My-UCB"],
    "dpb/policies/dpse.py": ["DP-SE"],
    "dpb/policies/nonprivate.py": ["IMED"],
    "dpb/policies/lazy_dpts.py": [],
    "dpb/policies/__init__.py": [],  # re-exports only: its names are hashed where they are defined
    "dpb/policies/nonprivate.py (price)": [],  # IMED's cost_fast: the cost model only
    "dpb/engine.py": ["DP-IMED", "DP-SE", "IMED", "My-UCB"],  # the code that makes the numbers
    # the front chooses the engine and derives the runs' seeds (issue 33): hashed, with what it imports
    "dpb/simulate.py": ["DP-IMED", "DP-SE", "IMED", "My-UCB"],
    "dpb/cost.py": [],  # a module-level constant of the cost model: a price (its functions are hashed)
    "dpb/result.py": ["DP-IMED", "DP-SE", "IMED", "My-UCB"],  # Result: what a chunk's arrays are made of
    "dpb/frames.py": [],
    "dpb/plotting/experiments.py": [],
    "my_policy.py": ["My-UCB"],
    "helper.py": ["My-UCB"],  # a sibling helper module
    "helperpkg/core.py": ["My-UCB"],  # a sibling package, through its __init__ re-export
    "unrelated.py": [],  # next to the policy, not imported
}


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("provenance")
    shutil.copytree(ROOT / "dpb", tmp / "pkg" / "dpb", ignore=shutil.ignore_patterns("__pycache__"))
    user = tmp / "user"
    (user / "helperpkg").mkdir(parents=True)
    (user / "my_policy.py").write_text(textwrap.dedent(POLICY))
    (user / "helper.py").write_text(HELPER)
    (user / "helperpkg" / "__init__.py").write_text(HELPERPKG_INIT)
    (user / "helperpkg" / "core.py").write_text(HELPERPKG_CORE)
    (user / "unrelated.py").write_text(UNRELATED)
    edits = {label: (label.split(" ")[0], "docstring" if "docstring" in label else "price" if "price" in label
                     else "code") for label in EXPECTED}
    env = {**os.environ, "PYTHONPATH": str(tmp / "pkg"), "DPB_JIT": "0", "MPLBACKEND": "Agg"}
    env.pop("DPB_RESULTS", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(user), str(tmp / "out"), json.dumps(edits)],
                          capture_output=True, text=True, timeout=600, env=env, cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("edit", list(EXPECTED))
def test_an_edit_recomputes_exactly_the_files_that_use_it(table, edit):
    assert table[edit] == EXPECTED[edit]


def test_source_files_resolve_reexports_and_siblings(tmp_path):
    from dpb import cache

    (tmp_path / "helper.py").write_text(HELPER)
    (tmp_path / "helperpkg").mkdir()
    (tmp_path / "helperpkg" / "__init__.py").write_text(HELPERPKG_INIT)
    (tmp_path / "helperpkg" / "core.py").write_text(HELPERPKG_CORE)
    (tmp_path / "unrelated.py").write_text(UNRELATED)
    policy = tmp_path / "my_policy.py"
    policy.write_text(textwrap.dedent(POLICY))
    files = set(cache.source_files(policy))
    assert {policy, tmp_path / "helper.py", tmp_path / "helperpkg" / "core.py",
            cache.PACKAGE_DIR / "policies" / "dp_batched.py"} <= files
    assert tmp_path / "unrelated.py" not in files
    assert cache.PACKAGE_DIR / "policies" / "__init__.py" not in files
    assert cache.PACKAGE_DIR / "policies" / "lazy_dpts.py" not in files
    # a name the __init__ makes at import time (the package's policy classes): every module of the
    # package, since any may define it
    other = tmp_path / "other.py"
    other.write_text("from dpb.policies import DPIMED\n")
    assert cache.PACKAGE_DIR / "policies" / "lazy_dpts.py" in set(cache.source_files(other))


def test_provenance_records_the_arithmetic(monkeypatch):
    rec = cache.provenance(cache.PACKAGE_DIR / "engine.py")
    assert rec["numpy_version"] == np.__version__
    assert rec["numba_version"] and rec["machine"] == platform.machine()
    monkeypatch.setattr(dpb.engine, "ARITHMETIC", "scalar-libm-v1", raising=False)
    assert cache.provenance(cache.PACKAGE_DIR / "engine.py")["arithmetic"] == "scalar-libm-v1"


@pytest.mark.parametrize("key, other", [("numpy_version", "1.0.0"), ("numba_version", "0.1"),
                                        ("machine", "sparc64"), ("arithmetic", "avx512-v0")])
def test_a_resumed_cell_never_mixes_arithmetic(monkeypatch, tmp_path, key, other):
    first = E.Cell.make("IMED", "mu1", 300, 20, {})  # its file is the first block of the larger cell
    whole = E.Cell.make("IMED", "mu1", 300, 40, {})
    assert first.chunks()[0] in whole.chunks() and len(whole.chunks()) == 2
    real = cache.arithmetic
    with monkeypatch.context() as m:  # the first block computed under other arithmetic
        m.setattr(cache, "arithmetic", lambda: {**real(), key: other})
        assert E.run(first, tmp_path, jobs=1, progress=False).computed == 1
    assert E.status(whole, tmp_path) == {"done": 0, "missing": 1, "stale": 1, "damaged": 0}
    why = E.reasons(whole, tmp_path)[0][1]
    assert why.startswith("stale: ") and other in why and ";" not in why, why
    with pytest.raises(E.MissingResultsError) as info:
        E.load(whole, tmp_path)
    assert "\n" not in str(info.value) and other in str(info.value)
    report = E.run(whole, tmp_path, jobs=1, progress=False)
    assert (report.computed, report.reused) == (2, 0)  # the old block recomputed, not joined
    assert E.status(whole, tmp_path)["done"] == 2
    assert E.load(whole, tmp_path).results[whole].final_regret.shape == (40,)
