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

bench: $(STAMP)
	$(PY) benchmarks/sandbox.py

clean:
	rm -rf build .pytest_cache
