"""Fuzz harness for the public API of ``dpb``: hostile arguments, each call isolated.

Every public callable of ``dpb`` -- every function and class the API pages of the book document
(:func:`public_api` reads their autodoc directives) -- has a *spec* in ``tests/fuzz_specs.py`` or a
reason in its ``NOT_FUZZED`` (``tests/test_fuzz.py`` fails otherwise): for each parameter a kind
with good values (a hypothesis strategy), edge values (huge sizes, zero, subnormals, empty arrays)
and bad values (NaN, +-inf where not meaningful, strings, bools, None, negative sizes, ...).  A
generated call is one of

* ``good``: every argument good; the call must return a finite result (or the NaN/inf the spec
  allows) or refuse cleanly;
* ``edge:<param>``: one argument an edge value; a valid result or a clean error, never a hang,
  a crash, a raw OverflowError/MemoryError/IndexError or a NaN;
* ``bad:<param>``: one argument bad; the call must raise ``ValueError``/``TypeError`` whose
  message names ``<param>`` (accepting it is a bad outcome).

Calls run in a persistent worker process with a memory cap (``RLIMIT_AS``) and a time cap; a worker
that hangs or dies is killed and replaced.  The worker draws figures with the Agg backend, builds
widgets without a kernel, and keeps every file a call writes (results, caches, hostile paths) in a
temporary directory of its own (``DPB_RESULTS`` points there), removed at the end.  Outcomes are
``clean`` (a clean error), ``valid`` (a result) or ``bad`` (hang, crash, NaN/inf from finite input
where not meaningful, wrong exception type, an error that does not name the parameter, accepted
invalid input).

``python tests/fuzz_harness.py --profile long`` prints the counts per function (``make fuzz``);
``tests/test_fuzz.py`` runs the CI profile and asserts that there is no bad outcome.  A profile
draws the same calls in every run, whatever the hash seed, the test order or the modules imported
before (:func:`no_local_constants`); ``--digest`` prints the number and a SHA-256 of its calls.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import importlib
import os
import pickle
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: Memory cap of the worker (address space, bytes).  numpy/scipy need ~1 GiB of address space.
MEMORY_CAP = 3 * 2**30
#: Default time cap of one call (seconds); a spec may set its own.
TIME_CAP = 20.0
#: Time allowed for a fresh worker to import dpb (the machine may be loaded).
STARTUP_CAP = 120.0

PROFILES = {
    # examples per function; CI must stay within a few minutes on a loaded 2-core machine
    "ci": dict(examples=12, seed=20251123),
    "long": dict(examples=150, seed=1),
}


# ---------------------------------------------------------------------------------------------
# values built inside the worker (policies, transcripts, ...) and the worker itself
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Build:
    """An argument constructed inside the worker: ``target(*args, **kwargs)`` (target "mod:name")."""

    target: str
    args: tuple = ()
    kwargs: tuple = ()  # sorted (key, value) pairs, so that Build is hashable

    @classmethod
    def of(cls, target: str, *args, **kwargs) -> Build:
        return cls(target, tuple(args), tuple(sorted(kwargs.items())))

    def __repr__(self) -> str:
        inner = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        return f"{self.target.split(':')[-1]}({', '.join(inner)})"


def resolve(target: str):
    mod, _, name = target.partition(":")
    obj = importlib.import_module(mod)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _materialise(value):
    if isinstance(value, Build):
        fn = resolve(value.target)
        return fn(*[_materialise(a) for a in value.args], **{k: _materialise(v) for k, v in value.kwargs})
    if isinstance(value, tuple) and type(value) is tuple:
        return tuple(_materialise(v) for v in value)
    if isinstance(value, list):
        return [_materialise(v) for v in value]
    if isinstance(value, dict):
        return {k: _materialise(v) for k, v in value.items()}
    return value


def _nonfinite(result, depth: int = 0) -> tuple[bool, bool]:
    """(has NaN, has inf) anywhere in a result (arrays, numbers, containers, dataclasses)."""
    import numpy as np

    if depth > 6:
        return False, False
    if isinstance(result, (bool, np.bool_, str, bytes)) or result is None:
        return False, False
    if isinstance(result, (float, int, complex, np.number)):
        v = (
            complex(result)
            if isinstance(result, complex)
            else float(result)
            if not isinstance(result, int)
            else 0.0
        )
        return bool(np.isnan(v)), bool(np.isinf(v))
    if isinstance(result, np.ndarray):
        if result.dtype.kind in "fc":
            return bool(np.isnan(result).any()), bool(np.isinf(result).any())
        if result.dtype.kind == "O":
            return _nonfinite(list(result.ravel()[:1000]), depth + 1)
        return False, False
    items = None
    if isinstance(result, dict):
        items = list(result.values())
    elif isinstance(result, (list, tuple)):
        items = list(result)
    elif dataclasses.is_dataclass(result):
        items = [getattr(result, f.name) for f in dataclasses.fields(result)]
    if items is None:
        return False, False
    nan = inf = False
    for item in items[:1000]:
        a, b = _nonfinite(item, depth + 1)
        nan |= a
        inf |= b
    return nan, inf


def _send(stream, obj) -> None:
    data = pickle.dumps(obj)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _recv(stream):
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    (n,) = struct.unpack("<Q", head)
    return pickle.loads(stream.read(n))


def worker_main(memory_cap: int) -> None:  # pragma: no cover - runs in the subprocess
    """Read calls from stdin, answer outcomes on a private copy of stdout."""
    import resource
    import warnings

    out = os.fdopen(os.dup(1), "wb")
    inp = os.fdopen(os.dup(0), "rb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    resource.setrlimit(resource.RLIMIT_AS, (memory_cap, memory_cap))
    warnings.simplefilter("ignore")
    import contextlib
    import io

    import dpb  # noqa: F401  (import once, before the first call)
    import fuzz_specs

    fuzz_specs.worker_setup()
    _send(out, ("ready",))
    while True:
        try:
            target, args, kwargs = _recv(inp)
        except EOFError:
            return
        try:
            fn = resolve(target)
            args = _materialise(args)
            kwargs = _materialise(kwargs)
        except BaseException as exc:  # building an argument failed: the harness' fault
            _send(out, ("setup", type(exc).__name__, str(exc)[:500]))
            continue
        t0 = time.perf_counter()
        stderr = io.StringIO()  # what a command-line entry point prints before exiting
        try:
            with contextlib.redirect_stderr(stderr):
                result = fn(*args, **kwargs)
                if hasattr(result, "__next__"):  # a generator: run it a little
                    result = [x for _, x in zip(range(50), result, strict=False)]
            if target == "dpb.__main__:main" and result == 2:  # the CLI's usage error, as an exit code
                raise SystemExit(2)
            nan, inf = _nonfinite(result)
            reply = ("ok", nan, inf, type(result).__name__)
        except SystemExit as exc:  # the CLI: exit code 2 with one line on stderr is its clean error
            message = stderr.getvalue().strip().splitlines()
            text = message[-1] if message else ""
            reply = ("exc", f"SystemExit({exc.code})", text[:500], exc.code == 2 and len(message) <= 3)
        except BaseException as exc:  # noqa: BLE001 - classified by the parent
            clean = (
                isinstance(exc, (ValueError, TypeError))
                and not isinstance(exc, (OverflowError, MemoryError, IndexError, KeyError))
            ) or type(exc).__name__ in fuzz_specs.ALLOWED_ERRORS.get(target, ())
            reply = ("exc", type(exc).__name__, str(exc)[:500], clean)
            if isinstance(exc, MemoryError):
                # the heap may be in a poor state: answer, then let the parent replace us
                _send(out, reply + (time.perf_counter() - t0,))
                return
        finally:
            fuzz_specs.after_call()
        _send(out, reply + (time.perf_counter() - t0,))


class Worker:
    """A persistent subprocess running :func:`worker_main`, replaced after a hang or a crash."""

    def __init__(self, memory_cap: int = MEMORY_CAP):
        self.memory_cap = memory_cap
        self.proc: subprocess.Popen | None = None
        self.restarts = 0
        # every file a call writes (caches, results, hostile paths) lives under this directory,
        # removed when the worker is closed
        self.tmp = tempfile.mkdtemp(prefix="dpb-fuzz-")

    def _start(self) -> None:
        env = dict(os.environ)
        env.update(
            OMP_NUM_THREADS="1",
            OPENBLAS_NUM_THREADS="1",
            MKL_NUM_THREADS="1",
            MPLBACKEND="Agg",
            PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""),
        )
        env.update(
            DPB_FUZZ_TMP=self.tmp,
            DPB_RESULTS=os.path.join(self.tmp, "results"),
            DPB_CACHE_DIR=os.path.join(self.tmp, "cache"),
            MPLCONFIGDIR=os.path.join(self.tmp, "mpl"),
        )
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", str(self.memory_cap)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
            cwd=str(ROOT),
        )
        msg = self._read(STARTUP_CAP)
        if msg is None or msg[0] != "ready":
            self.close()
            raise RuntimeError(f"fuzz worker failed to start: {msg!r}")

    def _read(self, timeout: float):
        assert self.proc is not None
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return None
        try:
            return _recv(self.proc.stdout)
        except (EOFError, pickle.UnpicklingError):
            return "eof"

    def close(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        for s in (self.proc.stdin, self.proc.stdout):
            try:
                s.close()
            except OSError:
                pass
        self.proc = None

    def call(self, target: str, args: tuple, kwargs: dict, timeout: float = TIME_CAP) -> tuple:
        """Run one call; returns the worker's reply, ``("hang", timeout)`` or ``("crash", code)``."""
        if self.proc is None or self.proc.poll() is not None:
            if self.proc is not None:
                self.close()
                self.restarts += 1
            self._start()
        try:
            _send(self.proc.stdin, (target, args, kwargs))
        except BrokenPipeError:
            self.close()
            return ("crash", "broken pipe")
        msg = self._read(timeout)
        if msg is None:
            self.close()
            self.restarts += 1
            return ("hang", timeout)
        if msg == "eof":
            code = self.proc.wait()
            self.close()
            self.restarts += 1
            return ("crash", code)
        if msg[0] == "exc" and msg[1] == "MemoryError":
            self.close()
            self.restarts += 1
        return msg

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
        _remove_tree(self.tmp)


def _remove_tree(path: str) -> None:
    """Remove ``path``, making the read-only directories a spec created writable again first."""

    def retry(func, p, _exc):
        os.chmod(os.path.dirname(p), 0o700)
        os.chmod(p, 0o700) if os.path.isdir(p) else None
        func(p)

    shutil.rmtree(path, onerror=retry) if sys.version_info < (3, 12) else shutil.rmtree(path, onexc=retry)


# ---------------------------------------------------------------------------------------------
# the public API: every name the API pages of the book document
# ---------------------------------------------------------------------------------------------

_DIRECTIVE = re.compile(r"^\.\. (automodule|autoclass|autofunction|autodata|autoexception)::\s*(\S+)")
_OPTION = re.compile(r"^\s+:([\w-]+):\s*(.*)$")


def _option_names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def api_page_names(pages_dir: Path | None = None) -> dict:
    """Every name documented on the API pages (``book/api/*.md``): ``{"module.name": object}``.

    Reads the autodoc directives of the pages the way autodoc does with the book's settings
    (``members`` on, ``undoc-members`` off): ``automodule`` with ``:members:`` lists the module's
    ``__all__`` (or the names it defines, without a leading underscore) minus ``:exclude-members:``,
    or the names given to ``:members:``; ``:no-members:`` lists none; ``autoclass``,
    ``autofunction`` and ``autodata`` list their target.  Names without a docstring are left out,
    as autodoc leaves them out.
    """
    import inspect

    pages_dir = pages_dir or ROOT / "book" / "api"
    out: dict = {}
    for page in sorted(pages_dir.glob("*.md")):
        for block in re.findall(r"```\{eval-rst\}\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            lines = block.splitlines()
            for i, line in enumerate(lines):
                m = _DIRECTIVE.match(line)
                if not m:
                    continue
                opts = {}
                for opt_line in lines[i + 1 :]:
                    om = _OPTION.match(opt_line)
                    if not om:
                        break
                    opts[om.group(1)] = om.group(2).strip()
                directive, target = m.groups()
                if directive != "automodule":
                    modname, _, name = target.rpartition(".")
                    out[target] = getattr(importlib.import_module(modname), name)
                    continue
                if "no-members" in opts:
                    continue
                mod = importlib.import_module(target)
                if opts.get("members"):
                    names = _option_names(opts["members"])
                elif hasattr(mod, "__all__"):
                    names = list(mod.__all__)
                else:
                    names = [
                        n
                        for n, v in vars(mod).items()
                        if not n.startswith("_") and getattr(v, "__module__", None) == target
                    ]
                excluded = set(_option_names(opts.get("exclude-members", "")))
                for name in names:
                    obj = getattr(mod, name)
                    if name in excluded or (callable(obj) and not inspect.getdoc(obj)):
                        continue
                    out[f"{target}.{name}"] = obj
    return out


def public_api(pages_dir: Path | None = None) -> dict:
    """The public API of ``dpb``: :func:`api_page_names`, plus every name in the ``__all__`` of a
    public submodule that no page documents (a module without a page would otherwise escape)."""
    import pkgutil
    import types

    import dpb

    out = api_page_names(pages_dir)
    seen = {id(v) for v in out.values()}
    for info in pkgutil.walk_packages(dpb.__path__, "dpb."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        mod = importlib.import_module(info.name)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if isinstance(obj, types.ModuleType) or id(obj) in seen:
                continue
            seen.add(id(obj))
            out[f"{info.name}.{name}"] = obj
    return out


# ---------------------------------------------------------------------------------------------
# classification
# ---------------------------------------------------------------------------------------------


def classify(spec, mode: str, param: str | None, reply: tuple, finite_input: bool) -> tuple[str, str]:
    """Return ``(outcome, reason)`` with outcome in ``clean``/``valid``/``bad``."""
    kind = reply[0]
    if kind == "hang":
        return "bad", f"hang (> {reply[1]:.0f} s)"
    if kind == "crash":
        return "bad", f"worker crashed (exit {reply[1]})"
    if kind == "setup":
        return "bad", f"harness could not build an argument: {reply[1]}: {reply[2]}"
    if kind == "exc":
        _, name, message, clean = reply[:4]
        if not clean:
            return "bad", f"wrong exception type {name}: {message}"
        if mode != "bad" and name in getattr(spec, "allowed_errors", ()):
            return "clean", name  # the documented answer to a valid request it cannot serve
        names = spec.names_for(param) if mode == "bad" else spec.all_names()
        low = message.lower()
        if not any(n.lower() in low for n in names):
            return "bad", f"{name} does not name {'/'.join(sorted(names))}: {message}"
        return "clean", name
    _, nan, inf, rtype = reply[:4]
    if mode == "bad":
        return "bad", f"accepted invalid {param} (returned {rtype})"
    if finite_input and nan and not spec.nan_ok:
        return "bad", "NaN from finite input"
    if finite_input and inf and not spec.inf_ok:
        return "bad", "inf from finite input"
    return "valid", rtype


def _finite_input(values) -> bool:
    import math

    import numpy as np

    for v in values:
        if isinstance(v, float) and not math.isfinite(v):
            return False
        if isinstance(v, np.ndarray) and v.dtype.kind == "f" and not np.isfinite(v).all():
            return False
        if isinstance(v, (list, tuple)) and not isinstance(v, Build) and not _finite_input(v):
            return False
        if isinstance(v, dict) and not _finite_input(list(v.values())):
            return False
    return True


@contextlib.contextmanager
def no_local_constants():
    """Keep hypothesis from mixing constants of the imported local modules into the draws.

    Hypothesis (6.1xx) draws, with a small probability per number or string, a literal found in the
    source of any *local* module already in ``sys.modules`` (every module outside site-packages and
    the standard library, test files excepted: here the modules of ``dpb``, ``scripts``,
    ``benchmarks``).  Which of them are imported depends on the tests that ran before in the same
    process, so the same seed drew other calls in a lone ``test_fuzz.py`` than in ``make test``.
    Inside this context that pool is empty (hypothesis' own global constants stay), and the cache
    of permitted constants is cleared on the way in and out.  The seam is private to hypothesis:
    if it moves, this fails loudly rather than letting the draws vary again.
    """
    from hypothesis.internal.conjecture import providers

    if not (
        callable(getattr(providers, "_get_local_constants", None))
        and hasattr(getattr(providers, "CONSTANTS_CACHE", None), "cache")
        and hasattr(providers, "Constants")
    ):
        raise RuntimeError(
            "hypothesis no longer has providers._get_local_constants/CONSTANTS_CACHE: update "
            "fuzz_harness.no_local_constants, or the fuzz draws depend on the imported modules"
        )
    saved = providers._get_local_constants
    empty = providers.Constants()

    def no_pool():
        return empty

    no_pool.hypothesis_original = getattr(saved, "hypothesis_original", saved)  # (nested contexts)
    providers._get_local_constants = no_pool
    providers.CONSTANTS_CACHE.cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = saved
        providers.CONSTANTS_CACHE.cache.clear()


def hypothesis_local_constants():
    """The pool of local-module literals hypothesis itself would draw from now (its own function,
    also inside :func:`no_local_constants`, e.g. under the test session's fixture)."""
    from hypothesis.internal.conjecture import providers

    current = providers._get_local_constants
    return getattr(current, "hypothesis_original", current)()


def run_function(worker: Worker, spec, examples: int, seed: int, record) -> None:
    """Generate ``examples`` calls of one spec with hypothesis and record their outcomes.

    The draws depend on the seed, the spec and the hypothesis version only: not on the hash seed,
    the test order or the modules imported before (:func:`no_local_constants`), nor on the replies
    (every value is drawn before the call runs; a reply never raises into hypothesis).
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis import strategies as st

    @hseed(seed)
    @settings(
        max_examples=examples,
        derandomize=False,  # the seed decides, under pytest (derandomized profile) and standalone alike
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def inner(data):
        mode, param, args, kwargs, twin = data.draw(spec.calls(), label="call")
        reply = worker.call(spec.target, args, kwargs, timeout=spec.timeout)
        finite = _finite_input(list(args) + list(kwargs.values()))
        outcome, reason = classify(spec, mode, param, reply, finite)
        if outcome == "bad" and mode == "bad" and reply[0] == "exc" and reply[3]:
            # A clean error naming another parameter: fair only if the call is wrong without the bad
            # value too, i.e. if the same call with a good value in its place is refused as well.
            twin_reply = worker.call(spec.target, twin[0], twin[1], timeout=spec.timeout)
            if twin_reply[0] == "exc" and twin_reply[3]:
                names = spec.all_names()
                if any(n.lower() in reply[2].lower() for n in names):
                    outcome, reason = "clean", reply[1]
        record(
            spec.name,
            mode,
            param,
            args,
            kwargs,
            outcome,
            reason,
            reply[-1] if reply[0] in ("ok", "exc") else None,
        )

    with no_local_constants():
        inner()


def call_line(name, mode, param, args, kwargs) -> str:
    """One drawn call as a line: ``name [mode:param] (args, key=value, ...)`` (reprs in full)."""
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{name} [{mode}{':' + param if param else ''}] ({', '.join(parts)})"


class _DrawOnly:
    """Stands in for :class:`Worker` when only the drawn calls are wanted: nothing runs."""

    restarts = 0

    def call(self, target, args, kwargs, timeout=TIME_CAP) -> tuple:
        return ("ok", False, False, "NoneType", 0.0)


def drawn_calls(profile: str = "ci", only: list[str] | None = None) -> list[str]:
    """The calls a profile draws, one line each (function, mode, parameter, arguments), in order.

    Runs the generation of :func:`run_profile` without a worker (the draws never depend on the
    replies), so two runs can be compared: ``--digest`` prints their number and a SHA-256.
    """
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    import fuzz_specs

    cfg = PROFILES[profile]
    lines: list[str] = []

    def record(name, mode, param, args, kwargs, *_):
        lines.append(call_line(name, mode, param, args, kwargs))

    for spec in fuzz_specs.SPECS:
        if not only or any(o in spec.name for o in only):
            run_function(_DrawOnly(), spec, spec.examples(cfg["examples"]), cfg["seed"], record)
    return lines


def draws_digest(profile: str = "ci", only: list[str] | None = None) -> str:
    """``"<number of calls> <sha256>"`` of :func:`drawn_calls`."""
    return digest_lines(drawn_calls(profile, only))


def digest_lines(lines: list[str]) -> str:
    """``"<number of lines> <sha256 of the lines>"``: what ``--digest`` prints of a profile's calls."""
    return f"{len(lines)} {hashlib.sha256(chr(10).join(lines).encode()).hexdigest()}"


@dataclasses.dataclass
class Report:
    counts: dict = dataclasses.field(default_factory=lambda: defaultdict(Counter))
    bad: list = dataclasses.field(default_factory=list)
    seconds: dict = dataclasses.field(default_factory=lambda: defaultdict(float))
    calls: list = dataclasses.field(default_factory=list)  # call_line of each call, in order

    def record(self, name, mode, param, args, kwargs, outcome, reason, seconds) -> None:
        self.calls.append(call_line(name, mode, param, args, kwargs))
        self.counts[name][outcome] += 1
        self.counts[name]["calls"] += 1
        if seconds is not None:
            self.seconds[name] += seconds
        if outcome == "bad":
            self.bad.append((name, mode, param, _short(args, kwargs), reason))

    def table(self) -> str:
        lines = [f"{'function':58s} {'calls':>6s} {'clean':>6s} {'valid':>6s} {'bad':>4s} {'sec':>6s}"]
        tot = Counter()
        for name in sorted(self.counts):
            c = self.counts[name]
            tot.update(c)
            lines.append(
                f"{name:58s} {c['calls']:6d} {c['clean']:6d} {c['valid']:6d} {c['bad']:4d} "
                f"{self.seconds[name]:6.1f}"
            )
        lines.append(
            f"{'TOTAL (' + str(len(self.counts)) + ' functions)':58s} {tot['calls']:6d} "
            f"{tot['clean']:6d} {tot['valid']:6d} {tot['bad']:4d}"
        )
        return "\n".join(lines)


def _short(args, kwargs) -> str:
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    s = ", ".join(parts)
    return s if len(s) < 300 else s[:300] + "..."


def run_profile(profile: str = "ci", only: list[str] | None = None, verbose: bool = False) -> Report:
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    import fuzz_specs

    cfg = PROFILES[profile]
    report = Report()
    specs = fuzz_specs.SPECS
    if only:
        specs = [s for s in specs if any(o in s.name for o in only)]
    with Worker() as worker:
        for spec in specs:
            t0 = time.perf_counter()
            run_function(worker, spec, spec.examples(cfg["examples"]), cfg["seed"], report.record)
            if verbose:
                c = report.counts[spec.name]
                print(
                    f"{spec.name:58s} {c['calls']:4d} calls {c['bad']:3d} bad "
                    f"{time.perf_counter() - t0:6.1f} s",
                    flush=True,
                )
    report.restarts = worker.restarts
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--profile", choices=sorted(PROFILES), default="long")
    ap.add_argument("--only", nargs="*", help="fuzz only functions whose name contains one of these")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument(
        "--digest", action="store_true", help="only draw the calls; print their number and SHA-256"
    )
    ns = ap.parse_args(argv)
    if ns.worker is not None:
        # run the worker from the importable module, so that pickled Build values are its own class
        sys.path.insert(0, str(HERE))
        import fuzz_harness

        fuzz_harness.worker_main(ns.worker)
        return 0
    if ns.digest:
        print(draws_digest(ns.profile, ns.only))
        return 0
    t0 = time.perf_counter()
    report = run_profile(ns.profile, ns.only, ns.verbose)
    print(report.table())
    print(f"\nprofile {ns.profile}: {time.perf_counter() - t0:.0f} s, worker restarts {report.restarts}")
    for name, mode, param, call, reason in report.bad:
        print(f"BAD {name} [{mode}{':' + param if param else ''}] ({call}): {reason}")
    return 1 if report.bad else 0


if __name__ == "__main__":
    sys.exit(main())
