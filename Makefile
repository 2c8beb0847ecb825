# make run: set up .venv and start tavola; make test: set up and run the whole suite.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Running needs the board's drivers and the camera; the tests add the dev toolchain.
RUN_STAMP  := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
SOURCES    := $(VENV)/.sources
# The `tavola` package maps the repository's folders (pyproject.toml), so the editable
# install is setuptools' "strict" mode: a tree of links that mypy and every tool can read.
# A new or removed file needs a reinstall, which the file list below triggers.
# Every install takes the versions pinned in constraints.txt, the set last tested together,
# so that a new release on the package index cannot change a fresh clone's build (opencv
# 5.1 once failed mypy --strict that way); `make lock` moves the pins on deliberately.
CONSTRAINTS := constraints.txt
INSTALL := PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet --constraint $(CONSTRAINTS) \
	--config-settings editable_mode=strict
EXTRAS_RUN  := pi,vision,web,event
EXTRAS_TEST := dev,$(EXTRAS_RUN)

.PHONY: run test lint typecheck pytest chromium mosquitto bench firmware lock clean FORCE

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Rewritten only when the set of package files changes, so installs stay rare.
$(SOURCES): FORCE | $(BIN)/python
	@find controller hardware vision -type f -not -path '*/__pycache__/*' | sort > $@.new
	@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

$(RUN_STAMP): pyproject.toml $(CONSTRAINTS) $(SOURCES)
	$(INSTALL) -e '.[$(EXTRAS_RUN)]'
	touch $@

$(TEST_STAMP): pyproject.toml $(CONSTRAINTS) $(SOURCES)
	$(INSTALL) -e '.[$(EXTRAS_TEST)]'
	touch $@ $(RUN_STAMP)

# New pins: the newest versions pyproject.toml allows, resolved in a scratch venv (this
# machine: linux x86_64, where every extra of the tests installs). Run `make test` after.
LOCK_VENV := $(VENV)-lock
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS=ignore $(LOCK_VENV)/bin/python -m pip install --quiet '.[$(EXTRAS_TEST)]'
	{ echo "# The versions 'make test' last passed with (make lock writes this file; see Makefile)."; \
	  echo "# What this machine does not install (lgpio, on a Pi) keeps pyproject.toml's ranges."; \
	  $(LOCK_VENV)/bin/python -m pip freeze --exclude tavola; } > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS)
	rm -rf $(LOCK_VENV)

run: $(RUN_STAMP)
	$(BIN)/tavola run $(RUN_ARGS)

lint: $(TEST_STAMP)
	$(BIN)/ruff check controller hardware vision tests bench firmware

# The package by its import name; the tests and benches (which import it) as files.
typecheck: $(TEST_STAMP)
	$(BIN)/mypy --strict -p tavola
	$(BIN)/mypy --strict tests bench

# $(call debian_package,PROGRAM,PACKAGE,TESTS): the tests that need PROGRAM skip without it,
# so install PACKAGE with apt-get when run as root (as CI is), else say in one line what to
# install.
define debian_package
	@if [ -x $(1) ] || command -v $(2) >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing $(2) for the $(3) (apt-get install -y $(2))"; \
		export DEBIAN_FRONTEND=noninteractive; \
		{ apt-get install -y -qq $(2) >/dev/null 2>&1 \
		  || { apt-get update -qq && apt-get install -y -qq $(2) >/dev/null; }; } \
			|| echo "$(2) could not be installed: the $(3) skip"; \
	else echo "the $(3) skip: install Debian's $(2) (sudo apt-get install $(2))"; fi
endef

# The browser tests drive Debian's chromium (Playwright's own download cannot work offline).
CHROMIUM ?= /usr/bin/chromium
chromium:
	$(call debian_package,$(CHROMIUM),chromium,browser tests)

# The event tests start their own Mosquitto (docs/event.md).
MOSQUITTO ?= /usr/sbin/mosquitto
mosquitto:
	$(call debian_package,$(MOSQUITTO),mosquitto,event tests)

pytest: $(TEST_STAMP) chromium mosquitto
	TAVOLA_CONSTRAINTS=$(CONSTRAINTS) $(BIN)/python -m pytest $(PYTEST_ARGS)

test: lint typecheck pytest

bench: $(TEST_STAMP)
	$(BIN)/python bench/engines.py
	$(BIN)/python bench/latency.py
	$(BIN)/python -m bench.sensing
	$(BIN)/python -m bench.idle
	$(BIN)/python bench/web.py

PICO ?= auto
FIRMWARE_FILES := firmware/main.py firmware/config.py firmware/board.py firmware/matrix.py \
	firmware/protocol.py

# Copy the board firmware to a Raspberry Pi Pico running MicroPython (firmware/README.md).
# Stop tavola first: it keeps reopening the port and would write into the copy.
firmware: $(RUN_STAMP)
	$(BIN)/mpremote connect $(PICO) fs cp $(FIRMWARE_FILES) : + reset

clean:
	rm -rf $(VENV) $(LOCK_VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
