"""pytest plugin of the repository root: nbval's check of the chapters on the build's execution.

``make test`` executes every chapter once: the strict book build executes each chapter into the
execution cache (``execute_notebooks: cache`` in ``_config.yml``; the Makefile empties the cache
first, so every execution is fresh) and renders the site from it. Then::

    python -m pytest book/ch*.ipynb --nbval-replay _build/.jupyter_cache \
        --nbval-sanitize-with tests/nbval_sanitize.cfg

checks those very executions with nbval's own rules: one item per code cell as under ``--nbval``,
nbval's tags and comments (``nbval-ignore-output``, ``nbval-skip``, ``nbval-raises-exception``...),
its sanitizers and its output comparison (``IPyNbCell.compare_outputs``); only the outputs come
from the cached execution instead of a second kernel. So the numbers on the site are the numbers
the tests checked. A chapter with no execution in the cache matching its code (not built, or
edited since) fails every one of its cells with a message saying so; it is never skipped.

``--nbval`` itself is untouched: ``python -m pytest --nbval --nbval-current-env ... book/chNN.ipynb``
still executes the chapter in a fresh kernel (the loop of CONTRIBUTING.md, ``make nbval``).
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.getgroup("nbval").addoption(
        "--nbval-replay", metavar="CACHE", default=None,
        help="check notebooks like --nbval, on the outputs of their executions in the jupyter-cache "
             "folder CACHE (e.g. _build/.jupyter_cache, filled by the book build) instead of "
             "executing them again")


def pytest_configure(config):
    if config.option.nbval_replay and (config.option.nbval or config.option.nbval_lax):
        raise pytest.UsageError("--nbval-replay checks the cached executions; do not combine it "
                                "with --nbval/--nbval-lax, which execute the notebooks again")


def pytest_collect_file(file_path, parent):
    opt = parent.config.option
    if file_path.suffix == ".ipynb" and opt.nbval_replay:
        return _replay_classes()[0].from_parent(parent, path=file_path)
    return None


_CLASSES: tuple = ()


def _replay_classes():
    """The collector and item classes (built on first use: nbval is imported only when needed)."""
    global _CLASSES
    if _CLASSES:
        return _CLASSES
    from nbval.plugin import IPyNbCell, IPyNbFile, coalesce_streams

    class ReplayNbFile(IPyNbFile):
        """A notebook whose cells are checked against its execution in the jupyter-cache."""

        def setup(self):
            # no kernel: the outputs come from the cache
            self.setup_sanitize_files()
            self.executed = None
            self.problem = None
            cache_path = Path(self.config.option.nbval_replay)
            if not cache_path.is_absolute():
                cache_path = Path(self.config.rootpath) / cache_path
            if not cache_path.is_dir():
                self.problem = (f"no execution cache at {cache_path}: build the book first "
                                "(make build-strict executes every chapter into it)")
                return
            from jupyter_cache import get_cache

            cache = get_cache(str(cache_path))
            try:
                record = cache.match_cache_notebook(self.nb)
            except KeyError:
                self.problem = (f"{self.path.name} has no execution in {cache_path} that matches its "
                                "code: the build did not execute this version of the chapter "
                                "(build the book again)")
                return
            executed = cache.get_cache_bundle(record.pk).nb
            cells = [c for c in executed.cells if c.cell_type == "code"]
            mine = [c for c in self.nb.cells if c.cell_type == "code"]
            if [c.source for c in cells] != [c.source for c in mine]:
                self.problem = f"the cached execution of {self.path.name} has other code cells"
                return
            self.executed = cells
            self.record = record

        def collect(self):
            for item in super().collect():
                yield ReplayNbCell.from_parent(self, name=item.name, cell_num=item.cell_num,
                                               cell=item.cell, options=item.options)

    class ReplayNbCell(IPyNbCell):
        """nbval's check of one cell (``IPyNbCell.runtest``), on the cached outputs."""

        def runtest(self):
            if self.options["skip"]:
                pytest.skip()
            nbfile = self.parent
            if nbfile.executed is None:
                self.raise_cell_error(nbfile.problem)
            outs = [dict(out) for out in nbfile.executed[self.cell_num].get("outputs", [])]
            for out in outs:
                if out.get("output_type") == "error" and not self.options["check_exception"]:
                    self.raise_cell_error("Cell execution caused an exception",
                                          "\n" + "\n".join(out.get("traceback", [])))
            outs = coalesce_streams([_node(out) for out in outs])
            self.test_outputs = outs
            # from here on exactly nbval's IPyNbCell.runtest
            unrun = self.cell.execution_count is None
            if unrun and self.cell.outputs:
                self.raise_cell_error("Unrun reference cell has outputs")
            if self.options["check"] and not unrun:
                if not self.compare_outputs(outs, coalesce_streams(self.cell.outputs)):
                    self.raise_cell_error("Cell outputs differ", "\n".join(self.comparison_traceback))

    _CLASSES = (ReplayNbFile, ReplayNbCell)
    return _CLASSES


def _node(out: dict):
    from nbformat import NotebookNode, from_dict

    return from_dict(out) if not isinstance(out, NotebookNode) else out
