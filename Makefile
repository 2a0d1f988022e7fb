# Each target installs what it needs into .venv first, so a fresh machine needs only python3.11+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint demo dev bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "azmc needs Python 3.11+ (found " + sys.version.split()[0] + ")")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .

test: $(STAMP) lint
	$(BIN)/pytest

demo: $(STAMP)
	$(BIN)/azmc demo

dev: $(STAMP)
	$(BIN)/azmc dev

bench: $(STAMP)
	$(BIN)/python -m bench.emulator_rate
	$(BIN)/python -m bench.arm_requests
	$(BIN)/python -m bench.watch_cost
	$(BIN)/python -m bench.lifecycle

clean:
	rm -rf $(VENV) .azmc .pytest_cache
