# Two commands set everything up on a fresh machine with only python3:
#   make run    the dashboard on a bundled dataset at http://localhost:8501
#   make test   ruff and the whole test suite (installs Debian's chromium and Java when missing)
#   make test-fast  the library and AppTest tiers only, for the edit-run loop

PYTHON ?= python3
VENV := .venv

# Python caches compiled modules (__pycache__, ignored by git) unless PYTHONDONTWRITEBYTECODE is
# set, as it is on some machines: then every test worker re-compiles the project and pytest
# re-writes every test file's asserts (collection 12 s instead of 5 s a worker), and every
# server, command and Spark worker a test starts compiles the project again.
unexport PYTHONDONTWRITEBYTECODE
PY := $(VENV)/bin/python
PORT ?= 8501

.PHONY: run test test-browser test-fast coverage lint format bench samples clean chromium java install wheel beside-mlflow test-oldest architecture docs screenshots

$(VENV)/.runtime: requirements.txt constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt -c constraints.txt
	touch $@

$(VENV)/.dev: requirements-dev.txt requirements.txt constraints.txt $(VENV)/.runtime
	$(PY) -m pip install --quiet -r requirements-dev.txt -c constraints.txt
	touch $@

run: $(VENV)/.runtime
	$(PY) -m streamlit run app.py --server.port $(PORT) --server.headless true

# Browser tests use Debian's chromium; install it when it is missing (needs root or sudo).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; }

# The Spark tests need a Java runtime (17 or newer); install Debian's when there is none.
java:
	@command -v java >/dev/null 2>&1 || { \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq default-jre-headless; }

# Both cores, one run: pytest-xdist hands each test file to a free worker (--dist loadfile), the
# files that start processes or a browser first (tests/conftest.py), so a file's Streamlit server,
# Chromium or Spark session is started once. The browser tests wait for states the
# page reports (tests/lens_browser.py), never for a fixed time, so they run beside the rest.
# The run ends with its slowest tests and the time by kind and by file (tests/suite_timing.py).
JOBS ?= 2
PYTEST := $(PY) -m pytest -q -n $(JOBS) --dist loadfile

test: $(VENV)/.dev chromium java
	$(VENV)/bin/ruff check .
	$(PYTEST) --durations=25

# One kind at a time: the browser tests alone (make test-browser), or the library and AppTest
# tiers without the browser, the processes and the simulations (make test-fast, the edit-run loop).
test-browser: $(VENV)/.dev chromium
	$(PYTEST) -m browser --durations=10

# The edit-run loop: the library and AppTest tiers, without the browser, the processes and the
# simulations, and a quarter of the generated examples (the "fast" Hypothesis profile; set
# HYPOTHESIS_PROFILE=ci or to nothing for all of them): under 3 minutes.
test-fast: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE-fast} $(PYTEST) -m "not browser and not slow and not statistical"

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.dev
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# docs/architecture.md's table and graph of the packages, drawn from the imports (the suite
# fails while the page is stale).
architecture: $(VENV)/.dev
	$(PY) tools/import_graph.py

# The documentation site (MkDocs, Material, API pages from the docstrings) into site/, offline
# and strict: a broken link, a page missing from the nav or an unreadable docstring fails it.
docs: $(VENV)/.dev
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

# The tour's pictures, taken again from the browser suite (tests/test_browser_tour.py).
screenshots: $(VENV)/.dev chromium
	DOCS_SHOTS=docs/screenshots $(PY) -m pytest -q -p no:randomly tests/test_browser_tour.py

bench: $(VENV)/.dev
	$(PY) -m bench.bench_binary
	$(PY) -m bench.bench_bootstrap --sizes 1e5
	$(PY) -m bench.bench_classification

# The metrics-lens command (app, report, check, sql) into the project's venv; a wheel in dist/.
install: $(VENV)/.runtime
	$(PY) -m pip install --quiet . -c constraints.txt

wheel: $(VENV)/.dev
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation -w dist .

# The oldest numpy, pandas, pyarrow and duckdb requirements.txt claims (constraints-oldest.txt):
# the library and AppTest tiers in a venv of their own, without pyspark (it needs newer ones).
OLDEST := .venv-oldest
test-oldest:
	test -x $(OLDEST)/bin/python || $(PYTHON) -m venv $(OLDEST)
	sed -e '/^pyspark/d' -e 's#^-r requirements.txt#-r ../requirements.txt#' \
	  requirements-dev.txt > $(OLDEST)/requirements-dev.txt
	$(OLDEST)/bin/python -m pip install --quiet -r $(OLDEST)/requirements-dev.txt -c constraints-oldest.txt
	$(OLDEST)/bin/python -m pytest -q -n $(JOBS) --dist loadfile -m "not browser and not slow and not statistical" \
	  --ignore=tests/test_sql_cluster.py --ignore=tests/test_sql_spark.py -k "not spark"

# What pip chooses for `pip install <wheel> mlflow` (from the registry): mlflow 3.x (.ci/run too).
beside-mlflow: $(VENV)/.dev
	$(PY) .ci/beside_mlflow.py

samples: $(VENV)/.dev
	$(PY) sample_data/make_samples.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache site
	find . -name __pycache__ -type d -not -path './.venv*' -prune -exec rm -rf {} +

# Line and branch coverage of the library, the dashboard and the command (a full run, slower).
coverage: $(VENV)/.dev chromium java
	$(PYTEST) --cov=metrics --cov=ui --cov=metrics_lens --cov-branch --cov-report=term:skip-covered
