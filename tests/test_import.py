"""``import dpb`` is cheap: submodules load on first use, and every public name still resolves."""

import subprocess
import sys

import pytest


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_import_dpb_loads_no_submodule_and_no_scipy():
    # the heavy dependencies (scipy.stats ~0.5 s, matplotlib) and the submodules wait until used
    # (private leaf modules such as dpb._version are allowed)
    loaded = _run(
        "import sys, dpb; print(' '.join(sorted(m for m in sys.modules "
        "if m.startswith(('dpb.', 'scipy', 'matplotlib')) and not m.startswith('dpb._'))))"
    )
    assert loaded == ""


def test_import_dpb_simulate_does_not_load_scipy_stats():
    loaded = _run("import sys, dpb.simulate, dpb.audit; print('scipy.stats' in sys.modules)")
    assert loaded == "False"


def test_every_public_name_resolves():
    import dpb

    for name in dpb.__all__:
        assert getattr(dpb, name) is not None, name
        assert name in dir(dpb)
    from dpb import Result, audit, make_policy, simulate  # noqa: F401 - the import is the test

    assert dpb.simulate is simulate and simulate.__module__ == "dpb.simulate"  # the function
    assert dpb.Result is Result


def test_unknown_attribute_is_an_attribute_error():
    import dpb

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        dpb.nope  # noqa: B018


def test_every_public_module_is_a_lazy_attribute():
    # a new module of the package must be listed, or ``dpb.<module>`` fails after ``import dpb``
    from pathlib import Path

    import dpb

    root = Path(dpb.__file__).parent
    public = {p.stem for p in root.glob("*.py") if not p.stem.startswith("_")}
    public |= {p.name for p in root.iterdir() if (p / "__init__.py").exists() and not p.name.startswith("_")}
    assert public == set(dpb._SUBMODULES)


def test_concept_modules_never_import_a_chapter_module():
    # dpb.chapters.<topic> holds the numbers of one chapter and imports the concept modules, never
    # the reverse (CONTRIBUTING.md); only the chapter's figures and widgets import it
    import ast
    from pathlib import Path

    import dpb

    root = Path(dpb.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if rel.parts[0] in ("chapters", "plotting", "widgets"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module or ''}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            if any(n.lstrip(".").split(".")[0] == "chapters" or n.startswith("dpb.chapters") for n in names):
                offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []
