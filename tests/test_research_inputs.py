"""What a researcher types is read as meant or refused in one line (issue 33, item 3): relative
paths inside an experiment file resolve against that file, numbers given as text are refused, a
missing policy parameter is named with the policy and the fix.  (Infinite indexes are refused like
NaN ones: ``tests/test_plans.py``.)"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import dpb
from dpb import experiments as E
from dpb.__main__ import main
from dpb.environments import as_bandit

POLICY = '''
import numpy as np
from dpb.policies import BatchedPrivatePolicy


class MyUCB(BatchedPrivatePolicy):
    name = "Rel-UCB"

    def private_index(self, x, n, t, releases):
        return x + np.sqrt(np.log(t) / (2 * n))
'''


def test_a_policy_path_in_an_experiment_file_is_relative_to_the_file(tmp_path, monkeypatch, capsys):
    folder, elsewhere = tmp_path / "study", tmp_path / "elsewhere"
    (folder / "sub").mkdir(parents=True)
    elsewhere.mkdir()
    (folder / "sub" / "my_policy.py").write_text(textwrap.dedent(POLICY))
    spec = folder / "s.toml"
    spec.write_text('name = "rel"\nhorizon = 300\nruns = 1\nmeans = [0.9, 0.8]\neps = [0.5]\n'
                    'policies = ["IMED", "sub/my_policy.py:MyUCB"]\n')
    monkeypatch.chdir(elsewhere)
    exp = E.read_experiment(str(spec))
    assert [c.policy for c in exp.cells] == ["IMED", "Rel-UCB"]
    assert main(["status", str(spec), "--out", str(tmp_path)]) == 0, capsys.readouterr().err
    assert "2 cells" in capsys.readouterr().out


@pytest.mark.parametrize("call", [
    lambda: as_bandit(["0.9", "0.8"]),
    lambda: as_bandit(np.array(["0.9", "0.8"])),
    lambda: dpb.simulate("IMED", [0.9, "0.8"], 100, runs=1),
    lambda: dpb.simulate("DP-IMED", [0.9, 0.8], 100, runs=1, eps="0.5"),
])
def test_numbers_given_as_text_are_refused(call):
    with pytest.raises(TypeError, match=r"number"):
        call()


@pytest.mark.parametrize("line", ['means = ["0.9", "0.8"]\neps = [0.5]', 'means = [0.9, 0.8]\neps = ["0.5"]'])
def test_an_experiment_file_with_numbers_as_text_is_refused(tmp_path, capsys, line):
    spec = tmp_path / "s.toml"
    spec.write_text(f'name = "txt"\nhorizon = 300\nruns = 1\n{line}\npolicies = ["DP-IMED"]\n')
    assert main(["status", str(spec), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "number" in err and str(spec) in err


def test_a_missing_parameter_names_the_policy_and_the_fix():
    for call in (lambda: dpb.simulate("DP-IMED", [0.9, 0.8], 100, runs=1),
                 lambda: E.Cell.make("DP-KLUCB", [0.9, 0.8], 100, 1, {})):
        with pytest.raises(TypeError) as info:
            call()
        text = str(info.value)
        assert "needs the parameter eps" in text and "eps=" in text and "BatchedPrivatePolicy" not in text
        assert text.startswith(("DP-IMED", "DP-KLUCB"))
