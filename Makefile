# make run: set up .venv and start tavola; make test: set up and run the whole suite.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck pytest bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Reinstall when the project's metadata changes.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,pi,vision]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/tavola run $(RUN_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check controller hardware vision tests bench

typecheck: $(STAMP)
	$(BIN)/mypy --strict controller/games

pytest: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

bench: $(STAMP)
	$(BIN)/python bench/engines.py

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .mypy_cache .ruff_cache
