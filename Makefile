# Course commands. `make run` executes every notebook headless; `make test` runs the test-suite.
# Both create .venv from nothing when it is missing.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test install exercises grade bench clean

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

clean:
	rm -rf build .pytest_cache
