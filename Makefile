# make run: set up .venv and start tavola; make test: set up and run the whole suite.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck pytest bench firmware clean

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
	$(BIN)/ruff check controller hardware vision tests bench firmware

typecheck: $(STAMP)
	$(BIN)/mypy --strict controller/games

pytest: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

bench: $(STAMP)
	$(BIN)/python bench/engines.py
	$(BIN)/python bench/latency.py
	$(BIN)/python -m bench.sensing

PICO ?= auto
FIRMWARE_FILES := firmware/main.py firmware/config.py firmware/board.py firmware/matrix.py \
	firmware/protocol.py

# Copy the board firmware to a Raspberry Pi Pico running MicroPython (firmware/README.md).
# Stop tavola first: it keeps reopening the port and would write into the copy.
firmware: $(STAMP)
	$(BIN)/mpremote connect $(PICO) fs cp $(FIRMWARE_FILES) : + reset

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .mypy_cache .ruff_cache
