"""Provenance covers every line that can change a number (issue 33, item 1).

- In a copy of the package, each edit the issue found reused (the engine choice of the cost
  model, the generic engine forced in ``simulate_seeds``, the seed derivation of a cell, the run
  ids of a chunk, a user's helper in a namespace package) makes ``dpb.experiments.run`` recompute
  the cells it touches; a docstring edit of the same files is reused.
- A policy's identity is its code wherever it was defined: a class redefined in a notebook (a
  real kernel: nbclient + ipykernel) or in ``python -i`` is recomputed, the same class defined
  again is reused (:func:`dpb.cache.object_digest`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

POLICY = '''
import numpy as np
from dpb.policies import BatchedPrivatePolicy
from nshelpers.bonus import bonus


class NsUCB(BatchedPrivatePolicy):
    name = "Ns-UCB"

    def private_index(self, x, n, t, releases):
        return x + bonus(t, n)
'''
NS_HELPER = "import numpy as np\n\n\ndef bonus(t, n):\n    return np.sqrt(np.log(t) / (2 * n))\n"


def _insert_first(path: Path, function: str, line: str) -> None:
    """Insert ``line`` as the first statement of ``function`` (a ``def`` of ``path``, after its
    docstring): an edit wherever the function lives."""
    import ast

    text = path.read_text()
    tree = ast.parse(text)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    first = node.body[1] if isinstance(node.body[0], ast.Expr) and len(node.body) > 1 else node.body[0]
    lines = text.splitlines(keepends=True)
    indent = " " * first.col_offset
    lines.insert(first.lineno - 1, indent + line + "\n")
    path.write_text("".join(lines))


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def _docstring(path: Path, function: str) -> None:
    """Edit the docstring of ``function`` (the code stays the same)."""
    import ast

    text = path.read_text()
    node = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.FunctionDef) and n.name == function)
    doc = node.body[0]
    assert isinstance(doc, ast.Expr) and isinstance(doc.value.value, str), function
    lines = text.splitlines(keepends=True)
    i = doc.lineno - 1
    lines[i] = lines[i].replace('"""', '"""Edited docstring. ', 1)
    path.write_text("".join(lines))


#: label -> (file relative to the copy: dpb/... or user/..., how it is edited, recomputed?)
EDITS = {
    "cost.uses_fast_path returns False": ("dpb/cost.py", lambda p: _insert_first(p, "uses_fast_path",
                                                                              "return False"), True),
    "cost.uses_fast_path docstring": ("dpb/cost.py", lambda p: _docstring(p, "uses_fast_path"), False),
    "a price of dpb.cost": ("dpb/cost.py", lambda p: _replace(p, "PHASE_COST = (5e-4", "PHASE_COST = (6e-4"),
                            False),
    "simulate_seeds forces the generic engine": ("dpb/simulate.py", lambda p: _insert_first(
        p, "simulate_seeds", "fast = False"), True),
    "simulate_seeds docstring": ("dpb/simulate.py", lambda p: _docstring(p, "simulate_seeds"), False),
    "a cell's seed from 3 words of its digest": ("dpb/experiments/compute.py", lambda p: _replace(
        p, "range(0, 32, 8)", "range(0, 24, 8)"), True),
    "a chunk simulates run ids start+1..stop": ("dpb/experiments/compute.py", lambda p: _replace(
        p, "np.arange(start, stop)", "np.arange(start, stop) + 1"), True),
    "Cell.seed_sequence docstring": ("dpb/experiments/specs.py", lambda p: _docstring(p, "seed_sequence"),
                                     False),
    "a helper in a namespace package": ("user/nshelpers/bonus.py", lambda p: _replace(
        p, "(2 * n)", "(3 * n)"), True),
    "the helper's comment": ("user/nshelpers/bonus.py", lambda p: _replace(
        p, "def bonus(t, n):\n", "def bonus(t, n):  # a comment\n"), False),
}

SCRIPT = '''
import json, sys
from pathlib import Path
import dpb.experiments as E

user, out = Path(sys.argv[1]), Path(sys.argv[2])
cells = [E.Cell.make("IMED", "mu1", 300, 2, {}),
         E.Cell.make("DP-IMED", "mu1", 300, 2, E.paper_params("DP-IMED", 0.5)),
         E.Cell.make(f"{user / 'ns_policy.py'}:NsUCB", "mu1", 300, 2, {"eps": 0.5})]
first = E.run(cells, out, jobs=1, progress=False)
print(json.dumps({"computed": first.computed, "after": [E.status(c, out)["done"] for c in cells]}))
'''


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("numbers")
    shutil.copytree(ROOT / "dpb", tmp / "dpb", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp / "user" / "nshelpers").mkdir(parents=True)  # a namespace package: no __init__.py
    (tmp / "user" / "ns_policy.py").write_text(textwrap.dedent(POLICY))
    (tmp / "user" / "nshelpers" / "bonus.py").write_text(NS_HELPER)
    return tmp


def _run(copy: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(copy), "DPB_JIT": "0"}
    env.pop("DPB_RESULTS", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(copy / "user"), str(out)], capture_output=True,
                          text=True, timeout=300, env=env, cwd=copy)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("label", list(EDITS))
def test_an_edit_that_changes_numbers_recomputes(copy, label, tmp_path):
    where, edit, recomputed = EDITS[label]
    out = tmp_path / "out"
    assert _run(copy, out)["computed"] > 0  # the cache, filled by the unedited code
    path = copy / where
    before = path.read_text()
    try:
        edit(path)
        assert path.read_text() != before
        again = _run(copy, out)
    finally:
        path.write_text(before)
    if where.startswith("user/"):  # the user's helper keys the user's policy only
        assert (again["computed"] > 0) == recomputed, again
    else:
        assert again["computed"] == (3 if recomputed else 0), again
    assert again["after"] == [1, 1, 1]


def test_source_files_follow_namespace_packages_and_relative_imports(tmp_path):
    from dpb import cache

    (tmp_path / "ns" / "deep").mkdir(parents=True)  # namespace packages, nested
    (tmp_path / "ns" / "deep" / "h.py").write_text("X = 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "rel.py").write_text("Y = 2\n")
    (tmp_path / "pkg" / "pol.py").write_text("from .rel import Y\nimport ns.deep.h\n")
    files = set(cache.source_files(tmp_path / "pkg" / "pol.py"))
    assert {tmp_path / "pkg" / "rel.py"} <= files
    policy = tmp_path / "p.py"
    policy.write_text("from ns.deep import h\nfrom ns.deep.h import X\n")
    assert tmp_path / "ns" / "deep" / "h.py" in set(cache.source_files(policy))


# ----------------------------------------------------------------------------------------------
# a class without a source file: keyed by what the interpreter holds
# ----------------------------------------------------------------------------------------------
def _ucb(divisor: int, doc: str = "") -> str:
    docstring = f'        """{doc}"""\n' if doc else "        # no docstring\n"
    return ('class NbUCB(BatchedPrivatePolicy):\n    name = "Nb-UCB"\n\n'
            "    def private_index(self, x, n, t, releases):\n" + docstring
            + f"        return x + bonus(t, n) * {divisor}\n")


NB_SETUP = '''
import json
import numpy as np
import dpb
import dpb.experiments as E
from dpb.policies import BatchedPrivatePolicy


def bonus(t, n):
    return np.sqrt(np.log(t) / (2 * n))


def go(out):
    cell = E.Cell.make("Nb-UCB", "mu1", 2000, 2, {"eps": 0.5})
    rep = E.run(cell, out, jobs=1, progress=False)
    print(json.dumps([rep.computed, rep.reused, float(E.load(cell, out).results[cell].final_regret.mean())]))
'''


def _steps() -> list:
    """The scenario of the issue: define, run; redefine with another index, run; define the same
    class again (a docstring more), run; change a helper it calls, run."""
    return [_ucb(1), "go(OUT)", _ucb(2), "go(OUT)", _ucb(2, "the same code"), "go(OUT)",
            "def bonus(t, n):\n    return np.sqrt(np.log(t) / (3 * n))\n", "go(OUT)"]


def _check(rows: list) -> None:
    (c1, r1, m1), (c2, r2, m2), (c3, r3, m3), (c4, r4, m4) = rows
    assert (c1, r1) == (1, 0)
    assert (c2, r2) == (1, 0) and m2 != m1, "a redefined class reused the old numbers"
    assert (c3, r3) == (0, 1) and m3 == m2, "the same class defined again was recomputed"
    assert (c4, r4) == (1, 0) and m4 != m3, "a changed helper reused the old numbers"


@pytest.mark.timeout(300)
def test_a_class_redefined_in_a_notebook_is_recomputed(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("DPB_JIT", "0")
    monkeypatch.delenv("DPB_RESULTS", raising=False)
    cells = [NB_SETUP + f"\nOUT = {str(tmp_path / 'out')!r}\n", *_steps()]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    client = nbclient.NotebookClient(nb, timeout=120, startup_timeout=60, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    rows = [json.loads(o["text"].strip().splitlines()[-1]) for c in nb.cells if c.source.startswith("go(")
            for o in c.outputs if o.get("name") == "stdout"]
    assert len(rows) == 4, [c.outputs for c in nb.cells]
    _check(rows)


@pytest.mark.timeout(300)
def test_a_class_redefined_in_python_i_is_recomputed(tmp_path):
    # the interactive interpreter reads blocks ended by a blank line
    script = NB_SETUP + f"\nOUT = {str(tmp_path / 'out')!r}\n\n" + "\n\n".join(_steps()) + "\n\n"
    lines = [line for line in script.splitlines() if line.strip()]
    text = "".join(line + "\n" + ("\n" if i + 1 < len(lines) and not lines[i + 1].startswith(" ") else "")
                   for i, line in enumerate(lines))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DPB_JIT": "0"}
    env.pop("DPB_RESULTS", None)
    proc = subprocess.run([sys.executable, "-i", "-q"], input=text, capture_output=True, text=True,
                          timeout=240, env=env, cwd=tmp_path)
    lines = [line.lstrip(">. ") for line in proc.stdout.splitlines()]
    rows = [json.loads(line) for line in lines if line.startswith("[")]
    assert len(rows) == 4, proc.stdout + proc.stderr
    _check(rows)


def _interactive(source: str) -> dict:
    """The namespace of ``source`` run as a notebook cell runs it (no file behind its code)."""
    namespace = {"__name__": "not_a_module_with_a_file"}
    exec(compile(textwrap.dedent(source), "<cell>", "exec"), namespace)
    return namespace


CLASS = """
import numpy as np
K = {k}


def helper(t):
    return np.log(t) * K


class A:
    cost_fast = {price}
    eps = {eps}

    def index(self, t):
        {doc}
        return helper(t) + 1
"""


def test_object_digest_is_code_not_name():
    from dpb.cache import object_digest

    def digest(k=2, price=(1e-6, 1e-7), eps=0.5, doc="# no docstring"):
        return object_digest(_interactive(CLASS.format(k=k, price=price, eps=eps, doc=doc))["A"])

    assert digest() == digest()  # the same code, defined again
    assert digest() == digest(doc='"""A docstring."""')
    assert digest() == digest(price=(2e-6, 1e-7))  # a price: no number changes
    assert digest() != digest(k=3)  # a global of a helper it calls
    assert digest() != digest(eps=0.25)  # a class attribute
    other = _interactive(CLASS.format(k=2, price=(1e-6, 1e-7), eps=0.5, doc="# none").replace("+ 1", "+ 2"))
    assert digest() != object_digest(other["A"])  # the bytecode's constants
    closures = [_interactive(f"def make():\n    c = {c}\n    return lambda t: t * c\nf = make()")["f"]
                for c in (1, 2)]
    assert object_digest(closures[0]) != object_digest(closures[1])


def test_code_digest_ignores_documentation_hints_and_prices_not_code(tmp_path):
    from dpb.cache import code_digest

    def digest(text):
        path = tmp_path / f"m{abs(hash(text))}.py"
        path.write_text(textwrap.dedent(text))
        return code_digest(path)

    base = digest("def f(x, k=2):\n    return x * k\n")
    assert base == digest('def f(x: float, k: int = 2) -> float:\n    """Doc."""\n    return x * k  # note\n')
    assert base != digest("def f(x, k=3):\n    return x * k\n")
    cls = "class P:\n    cost_fast = (1e-6, 1e-7)\n    eps = 0.5\n"
    assert digest(cls) == digest(cls.replace("1e-6", "2e-6"))
    assert digest(cls) != digest(cls.replace("0.5", "0.25"))
