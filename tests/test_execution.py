"""The backends of ``dpb.experiments.execution`` against their written protocol (:class:`Backend`).

mypy checks the three assignments in ``run`` (``backend: Backend = ...``); this test checks the same
at run time, by signature, so that a backend that renames or drops a method, or changes what it
takes, fails here and not in the middle of a run."""

import inspect

import pytest

import dpb.experiments as E
from dpb.experiments import Backend
from dpb.experiments.dask import _Dask
from dpb.experiments.execution import _InProcess
from dpb.experiments.workers import Pool

MEMBERS = ("free", "busy", "waiting", "submit", "poll", "close", "kill")


def _params(func) -> list:
    return [p.name for p in inspect.signature(func).parameters.values()]


def test_the_protocol_names_the_seven_methods_each_with_its_contract():
    own = [name for name, value in vars(Backend).items() if inspect.isfunction(value) and name[0] != "_"]
    assert sorted(own) == sorted(MEMBERS)
    for name in MEMBERS:
        assert len(inspect.getdoc(getattr(Backend, name)) or "") > 40, name  # the contract, in words


@pytest.mark.parametrize("backend", [_InProcess, Pool, _Dask], ids=lambda c: c.__name__)
def test_each_backend_has_every_method_of_the_protocol_with_its_parameters(backend):
    for name in MEMBERS:
        method = getattr(backend, name, None)
        assert callable(method), f"{backend.__name__} lacks {name}"
        assert _params(method) == _params(getattr(Backend, name)), (backend.__name__, name)


def test_a_backend_without_a_method_is_not_one():
    class Partial:  # free, busy, submit, poll, close, but no waiting nor kill
        def free(self):
            return 1

        def busy(self):
            return 0

        def submit(self, tag, task):
            pass

        def poll(self, timeout):
            return []

        def close(self):
            pass

    assert isinstance(_InProcess(), Backend)
    assert not isinstance(Partial(), Backend)
    with pytest.raises(AssertionError, match="lacks waiting"):
        test_each_backend_has_every_method_of_the_protocol_with_its_parameters(Partial)


def test_the_in_process_backend_answers_one_task_at_a_time(tmp_path):
    cell = E.Cell.make("IMED", "mu1", 100, 2, {})
    backend = _InProcess()
    assert (backend.free(), backend.busy(), backend.waiting()) == (1, 0, None)
    backend.submit("tag", (cell, 0, 2, 7, {}, str(tmp_path), None))
    assert (backend.free(), backend.busy()) == (0, 1)
    [(tag, reply)] = backend.poll(0.0)
    assert tag == "tag" and reply[:2] == ("ok", "IMED") and reply[2] >= 0
    assert cell.path(tmp_path, 0, 2).is_file()  # the reply comes once the file is written
    assert (backend.free(), backend.busy(), backend.poll(0.0)) == (1, 0, [])
    backend.close()
    backend.kill()
