# Two commands set everything up on a fresh machine with only python3:
#   make run    the dashboard on a bundled dataset at http://localhost:8501
#   make test   ruff and the whole test suite (installs Debian's chromium and Java when missing)

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8501

.PHONY: run test lint format bench samples clean chromium java install wheel

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

test: $(VENV)/.dev chromium java
	$(VENV)/bin/ruff check .
	$(PY) -m pytest -q

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.dev
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: $(VENV)/.dev
	$(PY) -m bench.bench_binary
	$(PY) -m bench.bench_bootstrap --sizes 1e5
	$(PY) -m bench.bench_classification

# The metrics-lens command (app, report, check, sql) into the project's venv; a wheel in dist/.
install: $(VENV)/.runtime
	$(PY) -m pip install --quiet . -c constraints.txt

wheel: $(VENV)/.dev
	$(PY) -m pip wheel --quiet --no-deps --no-build-isolation -w dist .

samples: $(VENV)/.dev
	$(PY) sample_data/make_samples.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
