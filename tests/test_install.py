"""The light install: the wheel, installed alone into a fresh virtualenv, runs the library.

Builds the wheel from a copy of the source (the checkout stays clean), installs it with its core
dependencies only (numpy, scipy, numba, tqdm; then the ``pandas`` extra) into a new virtualenv
outside the checkout, and, from a directory outside the checkout, runs ``dpb.simulate``, the
``dpb`` console script on an experiment file (computed, cached, tabulated; figures skipped
without matplotlib, with a line saying so), an export to CSV, and ``to_frame()`` once pandas is
there.  Also checks that the plotting and widget modules name their extras when missing, and
where results go for an installed package (``~/.cache/dpb`` unless ``$DPB_RESULTS``).

Every step is bounded by a timeout; pip resolves from the configured indexes and reuses its
cache (about a minute cold on the development machine, mostly unpacking scipy and numba).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow

EXPERIMENT = """\
name = "light"
horizon = 2000
runs = 3
means = [0.9, 0.8, 0.7]
eps = [0.5, 1.0]
policies = ["DP-KLUCB", "DP-SE"]   # no numba kernel: nothing to compile in the fresh install
[params.DP-KLUCB]
alpha = 3
"""

SCRIPT = """\
import json, sys
import dpb
res = dpb.simulate("DP-KLUCB", [0.9, 0.8], 5000, runs=2, seed=1, eps=0.5, alpha=2)
out = {"regret": res.final_regret.tolist(), "file": dpb.__file__}
for mod, extra in (("dpb.plotting", "plot"), ("dpb.widgets", "widgets")):
    try:
        __import__(mod)
        out[mod] = "imported"
    except ImportError as exc:
        out[mod] = str(exc)
from dpb.cache import default_results_dir
out["results"] = str(default_results_dir())
print(json.dumps(out))
"""


def _run(cmd, cwd, env, timeout):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_the_wheel_alone_in_a_fresh_virtualenv_simulates_runs_a_file_and_exports(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "dpb", src / "dpb", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nb*"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, src / name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DPB_RESULTS", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels),
          str(src)], tmp_path, env, 300)
    (wheel,) = wheels.glob("dpb-*.whl")

    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(target)
    py = target / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "-q", str(wheel)], tmp_path, env, 600)
    frozen = _run([str(py), "-m", "pip", "list", "--format=freeze"], tmp_path, env, 60).stdout.lower()
    for heavy in ("matplotlib", "ipywidgets", "ipython", "pandas", "jupyterlab", "dask"):
        assert f"\n{heavy}==" not in "\n" + frozen, f"{heavy} came with the core install"
    for core in ("numpy", "scipy", "numba", "tqdm"):
        assert f"\n{core}==" in "\n" + frozen

    work = tmp_path / "work"  # outside the checkout: results go where an installed package puts them
    work.mkdir()
    home = tmp_path / "home"
    env_run = {**env, "HOME": str(home), "MPLBACKEND": "Agg"}
    out = _run([str(py), "-c", SCRIPT], work, env_run, 300).stdout
    import json

    info = json.loads(out.strip().splitlines()[-1])
    assert info["file"].startswith(str(target)), info["file"]  # the installed copy, not the checkout
    assert len(info["regret"]) == 2 and all(r > 0 for r in info["regret"])
    assert "'plot' extra" in info["dpb.plotting"] and "pip install 'dpb[plot]'" in info["dpb.plotting"]
    assert "'widgets' extra" in info["dpb.widgets"]
    assert info["results"] == str(home / ".cache" / "dpb")

    (work / "light.toml").write_text(EXPERIMENT)
    dpb = target / "bin" / "dpb"
    run = _run([str(dpb), "run", "light.toml", "--no-progress", "--jobs", "1"], work, env_run, 300)
    results = home / ".cache" / "dpb"
    assert "done: 4 result files computed" in run.stdout
    assert "figures skipped" in run.stderr and "dpb[plot]" in run.stderr
    assert len(list((results / "cells").glob("*.npz"))) == 4
    (table,) = (results / "tables").glob("light-*.txt")
    assert (results / "tables" / (table.stem + ".toml")).is_file()
    again = _run([str(dpb), "run", "light.toml", "--no-progress", "--no-figures"], work, env_run, 300)
    assert "0 result files computed, 4 reused" in again.stdout

    exp = _run([str(dpb), "export", "light.toml", "--output", "light.csv"], work, env_run, 300)
    assert "light.csv" in exp.stdout
    lines = (work / "light.csv").read_text().splitlines()
    assert lines[0] == "experiment,instance,eps,policy,params,run,t,regret"
    checkpoints = len({line.split(",")[-2] for line in lines[1:]})
    assert len(lines) - 1 == 2 * 2 * 3 * checkpoints  # settings x policies x runs x checkpoints
    parquet = subprocess.run([str(dpb), "export", "light.toml", "--format", "parquet"], cwd=work, env=env_run,
                             capture_output=True, text=True, timeout=300)
    assert parquet.returncode == 1 and "'pandas' extra" in parquet.stderr

    # the pandas extra: to_frame() gives the same rows as the CSV
    _run([str(py), "-m", "pip", "install", "-q", f"{wheel}[pandas]"], tmp_path, env, 600)
    check = ("import dpb, pandas as pd; f = dpb.load('light.toml').to_frame(); c = pd.read_csv('light.csv'); "
             "print(len(f), len(c), bool((f.regret.values == c.regret.values).all()), "
             "bool((f.t.values == c.t.values).all()))")
    got = _run([str(py), "-c", check], work, env_run, 300).stdout.split()
    assert got[0] == got[1] and got[2:] == ["True", "True"], got
