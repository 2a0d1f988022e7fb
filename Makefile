# Each target installs what it needs into .venv first, so a fresh machine needs only python3.11+ and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install lock browser test test-fast lint demo dev bench bench-scale clean

# The locked versions, hashes checked (requirements/test.txt: every extra, the test tools, the build backend), then
# azmc itself, built with that locked setuptools: nothing is resolved anew (docs/testing.md, "Dependencies"). pip
# installs only uv (requirements/uv.txt); uv installs the rest in seconds, pip again should uv fail. Both write the
# bytecode at install (pip does by default): where PYTHONDONTWRITEBYTECODE is set, as on these machines and in CI,
# every test process would otherwise compile the Azure SDK again, about 2 s of CPU each (docs/testing.md, "Speed").
UV_INSTALL = UV_LINK_MODE=copy $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python --no-deps
PIP_INSTALL = $(BIN)/python -m pip install --quiet --no-deps
$(STAMP): pyproject.toml requirements/test.txt requirements/uv.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "azmc needs Python 3.11+ (found " + sys.version.split()[0] + ")")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) --require-hashes -r requirements/uv.txt
	$(UV_INSTALL) --require-hashes -r requirements/test.txt || $(PIP_INSTALL) --require-hashes -r requirements/test.txt
	$(UV_INSTALL) --no-build-isolation -e . || $(PIP_INSTALL) --no-build-isolation -e .
	touch $(STAMP)

install: $(STAMP)

# azmc's own bytecode, before the tests and benches (seconds when it is current): without .pyc files
# (PYTHONDONTWRITEBYTECODE, a read-only tree) every process compiles what it imports again, and with
# AZMC_WORKFLOW_SANDBOX the sandbox does so for every workflow instance; pip-installed packages (the image) have them.
BYTECODE = $(BIN)/python -m compileall -q models workflows activities workers cli emulator codec bench tests >/dev/null
# The test modules as pytest rewrites their asserts, written once for every test process to read
# (tests/support/rewritten_tests.py says why).
REWRITTEN = $(BIN)/python -m tests.support.rewritten_tests

# Refresh the lock files after a change to pyproject.toml's dependencies: versions already locked stay unless
# pyproject.toml refuses them; `make lock UPGRADE=--upgrade` takes the newest releases it allows. The image's
# files are held to test.txt's versions, so the image runs what `make test` tested.
UV_COMPILE = $(BIN)/uv pip compile --quiet --universal --python-version 3.11 --generate-hashes $(UPGRADE)
lock: $(STAMP)
	$(UV_COMPILE) pyproject.toml requirements/build.in --extra test -o requirements/test.txt
	$(UV_COMPILE) requirements/build.in -c requirements/test.txt -o requirements/build.txt
	$(UV_COMPILE) requirements/uv.in -c requirements/test.txt -o requirements/uv.txt
	$(UV_COMPILE) pyproject.toml --extra tracing -c requirements/test.txt -o requirements/image.txt
	$(UV_COMPILE) pyproject.toml --extra tracing --extra keyvault -c requirements/test.txt -o requirements/image-keyvault.txt

# ruff, then mypy: the shipped packages and the benches, models/ and workflows/ strictly; its cache lives in
# .venv/mypy-cache, so a warm run takes seconds (docs/testing.md, "Types").
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# tests/e2e/test_ui_browser.py drives Debian's headless Chromium: installed here where we may (root, apt);
# elsewhere that one test says why it did not run and how to install it.
browser:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing chromium and chromium-driver (apt) for the UI test"; \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; } \
	      || echo "note: could not install chromium: tests/e2e/test_ui_browser.py will not run"; \
	  else echo "note: chromium is not installed and this is not root with apt: tests/e2e/test_ui_browser.py will not run"; fi; \
	fi

# lint's two steps, with mypy (about 15 s of CPU from a fresh clone) beside the tests rather than before them: they
# leave a core idle much of the time. Its verdict is printed after theirs, and either failing fails `make test`.
test: $(STAMP) browser
	$(BYTECODE)
	$(REWRITTEN)
	$(BIN)/ruff check .
	@$(BIN)/mypy > $(VENV)/mypy.log 2>&1 & types=$$!; \
	  $(BIN)/pytest; tests=$$?; \
	  wait $$types; typed=$$?; echo "mypy:"; cat $(VENV)/mypy.log; \
	  exit $$(( tests != 0 || typed != 0 ))

# The loop to run while working: the fast tier only (docs/testing.md, "Tiers").
test-fast: $(STAMP)
	$(BYTECODE)
	$(REWRITTEN)
	$(BIN)/pytest -m fast

demo: $(STAMP)
	$(BIN)/azmc demo

dev: $(STAMP)
	$(BIN)/azmc dev

# The table: `python -m bench.report` reads every bench/results/<module>.json (about 55 min on 2 cores, fleet_churn
# alone about 35), and `python -m bench.charts` draws docs/performance-*.svg from the same files.
bench: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m bench.emulator_rate
	$(BIN)/python -m bench.arm_requests
	$(BIN)/python -m bench.watch_cost
	$(BIN)/python -m bench.repair_time
	$(BIN)/python -m bench.eviction_wave
	$(BIN)/python -m bench.pool_price
	$(BIN)/python -m bench.lifecycle
	$(BIN)/python -m bench.lifecycle --tracing
	$(BIN)/python -m bench.visibility_cost
	$(BIN)/python -m bench.pool_rollout
	$(BIN)/python -m bench.status_latency
	$(BIN)/python -m bench.fleet_churn
	$(BIN)/python -m bench.capacity_fallback
	$(BIN)/python -m bench.upgrade_fleet
	$(BIN)/python -m bench.scale
	$(BIN)/python -m bench.report
	$(BIN)/python -m bench.charts

# 10,000 machines Running on one worker (long: see docs/performance.md); its rows join the table.
bench-scale: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m bench.scale --machines 10000
	$(BIN)/python -m bench.report

clean:
	rm -rf $(VENV) .azmc .pytest_cache
