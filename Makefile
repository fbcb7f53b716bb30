# The two commands of the README:
#   make book   -- build the book (creates .venv, installs everything, executes every chapter) into _build/html
#   make test   -- run every test: the linter over code and chapters, unit/property/statistical, notebooks
#                  under nbval, the book build with warnings as errors, and a headless-Chromium test of
#                  the built site
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
JB := $(VENV)/bin/jupyter-book
STAMP := $(VENV)/.installed-stamp
NOTEBOOKS := $(sort $(wildcard book/ch*.ipynb)) book/research.ipynb
# each CI stage prints its wall time (and appends it to $DPB_STAGE_LOG, see .ci/run)
STAGE := .ci/stage
# where the build executes the chapters (execute_notebooks: cache) and nbval checks them
EXEC_CACHE := _build/.jupyter_cache
NBVAL_OPTS := --nbval-sanitize-with tests/nbval_sanitize.cfg
# pytest as `make test` runs it: JOBS worker processes (pytest-xdist; 2 = the CI machine's cores),
# no cache folder; each run appends its test durations to SLOWEST (tests/conftest.py)
JOBS ?= 2
SLOWEST := _build/test-durations.tsv
PYTEST := env DPB_DURATIONS=$(SLOWEST) $(PY) -m pytest -n $(JOBS) -p no:cacheprovider

.PHONY: book pdf test tests-without-build tests-of-build lint venv vendor cli-reference notebooks unit nbval build-strict browser bench bench-widgets fuzz oracle lab live clean

venv: $(STAMP)
$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	$(VENV)/bin/dpb compile  # compiles the numba kernels once (cached on disk for every later process)
	touch $@

vendor: venv
	$(PY) scripts/vendor_js.py

# The main job: the static site in _build/html. Every chapter is executed afresh (the cache of
# executions is emptied first: a cached run could predate a change in dpb), two chapters at a time
# (scripts/execute_book.py fills the cache the build then renders from).
book: venv vendor
	rm -rf $(EXEC_CACHE)
	$(PY) scripts/execute_book.py --cache $(EXEC_CACHE) --jobs 2
	$(JB) build . --all

# The PDF edition, _build/pdf/dpb.pdf: the whole book as one page (Jupyter Book's singlehtml
# builder), rendered from the execution cache of the HTML build ($(EXEC_CACHE), which `make book` or
# `make build-strict` fills; nothing is executed again unless a chapter changed since), printed by
# Debian's chromium through Playwright once MathJax has typeset it (scripts/print_pdf.py), then
# read by tests/test_pdf.py (Debian's poppler-utils: pdftotext, pdfimages, pdftoppm).
pdf: venv vendor
	@test -d $(EXEC_CACHE) || { echo "make pdf: $(EXEC_CACHE) is missing: build the book first (make book)" >&2; exit 1; }
	$(STAGE) pdf-build $(JB) build . --builder singlehtml
	$(STAGE) pdf-print $(PY) scripts/print_pdf.py
	$(STAGE) pdf-tests env DPB_DURATIONS=$(SLOWEST) $(PY) -m pytest -p no:cacheprovider tests/test_pdf.py -m pdf

# The chapters in JupyterLab (widgets live), on 127.0.0.1 and a free port; Ctrl-C stops it. A full
# Jupyter server for the person who started it: Jupyter's own token, in the address it prints.
lab: venv
	$(VENV)/bin/jupyter lab --ServerApp.ip=127.0.0.1 --ServerApp.port=0 --ServerApp.root_dir=book \
		$$( [ "$$(id -u)" = 0 ] && echo --allow-root )

# The built book and its chapters live (Voila), from one server on 127.0.0.1: open the login address
# it prints once, then each chapter's "Live" button runs it. LIVE_ARGS=--open opens the browser,
# LIVE_ARGS="--preheat all" pre-renders every chapter at start. Ctrl-C stops everything.
live: venv vendor
	test -f _build/html/index.html || $(MAKE) book
	$(PY) scripts/live.py $(LIVE_ARGS)

# Everything CI checks, on both cores. The linter first (seconds). Then, side by side: the strict
# build, which executes every chapter once (into $(EXEC_CACHE)) and renders the site, and the
# unit/property and statistical tests (they need no build; pytest-xdist, $(JOBS) workers). Then the
# tests that read the build: the headless-Chromium tests of the site and of `make live`, and nbval,
# which checks the build's executions (--nbval-replay, conftest.py: nbval's rules and sanitizers, no
# second execution), so the numbers on the site are the numbers the tests checked; beside them,
# `make pdf` prints the PDF edition from the same executions and tests/test_pdf.py reads it. Every test is
# bounded (pytest-timeout); the end prints the 20 slowest tests of both runs and the time per stage.
test: lint venv vendor
	@rm -f $(SLOWEST)
	$(MAKE) --no-print-directory -j2 --output-sync=target build-strict tests-without-build
	$(MAKE) --no-print-directory -j2 --output-sync=target tests-of-build pdf
	@$(PY) tests/slowest.py $(SLOWEST) 20

# The tests that need no build: unit/property and statistical (run beside the build by `make test`).
tests-without-build: venv
	$(STAGE) tests-without-build $(PYTEST) tests -m "not browser and not pdf"

# The tests that read the build (the site in Chromium, nbval on the build's executions); `make test`
# runs them beside `make pdf`, which prints the PDF edition from the same build and reads it.
tests-of-build: venv
	$(STAGE) tests-of-build $(PYTEST) tests $(NOTEBOOKS) -m "browser or notebook" \
		--nbval-replay $(EXEC_CACHE) $(NBVAL_OPTS) --dist loadgroup

# ruff over the package, the tests, the scripts and the chapters (notebooks included); mypy over
# the package (its settings: [tool.mypy] in pyproject.toml).
lint: venv
	$(STAGE) lint $(VENV)/bin/ruff check dpb tests scripts benchmarks book conftest.py
	$(STAGE) types $(VENV)/bin/mypy

# The book with warnings as errors; every chapter executed afresh (the cache is emptied first),
# two at a time, then rendered.
build-strict: venv vendor
	rm -rf $(EXEC_CACHE)
	$(STAGE) execute $(PY) scripts/execute_book.py --cache $(EXEC_CACHE) --jobs 2
	$(STAGE) build $(JB) build . --all -W -n --keep-going

unit: venv
	$(PY) -m pytest tests -n $(JOBS) -m "not browser and not pdf" --durations=20

# The chapters executed by nbval itself in a fresh kernel (no build needed); a cell has 10 minutes.
nbval: venv
	$(PY) -m pytest $(NOTEBOOKS) --nbval --nbval-current-env --nbval-cell-timeout 600 $(NBVAL_OPTS)

browser: venv
	$(PY) -m pytest tests -n $(JOBS) --dist loadgroup -m browser --durations=20

# Re-execute the chapters in place and strip images/widget state (commit the result).
notebooks: venv
	$(PY) scripts/execute_notebooks.py $(NOTEBOOKS)

# The long fuzz profile: hostile arguments for every public callable, counts per function
# (the CI profile of the same harness runs in `make test` through tests/test_fuzz.py).
fuzz: venv
	$(PY) tests/fuzz_harness.py --profile long -v

# the per-step reference's samples the agreement tests read (tests/data/reference/): recomputes the
# ones whose code changed; commit them afterwards (tests/oracle_cache.py)
oracle: venv
	$(PYTEST) tests/test_reference_agreement.py -q

# the CLI reference page of the book, generated from the command's parser (tests/test_cli_reference.py)
cli-reference: venv
	$(PY) -c "import dpb.__main__ as m; print(m.cli_reference(), end='')" > book/api/cli.md

bench: venv
	$(PY) benchmarks/bench_simulate.py

bench-widgets: venv
	$(PY) benchmarks/bench_widgets.py

clean:
	rm -rf _build _vendor .jupyter_cache
