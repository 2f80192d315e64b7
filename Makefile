# The two quick-start commands (README): `make demo` and `make test`. Both set up .venv first.
VENV := .venv
PY := $(VENV)/bin/python
DEMO_OUT ?= demo_out

.PHONY: setup demo test e2e lint perf bench docs lock check-latest system-deps
setup:
	@SETUP_FORCE=$(FORCE) bash scripts/setup.sh

# Regenerate uv.lock from pyproject.toml (the newest versions the declared ranges allow, except what
# the lock already holds and still satisfies; `make lock UPGRADE=1` re-resolves everything,
# `make lock UPGRADE_PACKAGE=NAME` one package). Run `make check-latest` first: docs/getting-started.md "The lock".
lock: setup
	@.venv/bin/uv lock $(if $(UPGRADE),--upgrade) $(if $(UPGRADE_PACKAGE),--upgrade-package $(UPGRADE_PACKAGE))

demo: setup
	@bash scripts/demo.sh "$(DEMO_OUT)"

# `make test`: the unit and integration tests (tests/unit, tests/integration; 4:09 in .ci/run on the 2-core machine,
# 4:08 in CI, after the shorter eval start-up; 4:33-5:30 after issues 52-55, 2:54 before them; 5:51 before issue 41).
# `make e2e`: the end-to-end tests (tests/e2e: real lmms-eval runs, the Hub stand-in, the leaderboard app, the long
# CLI runs, the Ray cluster; 12:25 in .ci/run, 12:12 in CI; 15:16-15:48 after issues 52-55, 9:31 before them).
# CI (.ci/run) runs both (16:55 on a fresh clone here and 17:04 in CI after the shorter eval start-up; 20:12 and 21:48
# after issues 52-55; 12:41 before them; 25:30 before issue 41; 20:41 here after 53's last tests, on a day the same
# tests ran 16-35 % slower here than in CI's last log).
# The numbers and what keeps them low: docs/getting-started.md "Development". Temporary files live under
# .pytest_tmp/ in the clone (pytest empties .pytest_tmp/test and .pytest_tmp/e2e at the start of the next run; a
# passed test's tmp_path is removed when it ends), never in /tmp.
# The suites start hundreds of Python processes (the console script, lmms-eval runs); each keeps the modules it
# compiles under .pytest_tmp/pycache (PYTHONPYCACHEPREFIX), also where PYTHONDONTWRITEBYTECODE is set, instead of
# compiling them again: importing lmms-eval, torch, transformers and datasets takes 14 s of CPU compiled from
# source, 5.6 s from the cache. Nothing is written beside the sources.
TEST_ENV := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/.pytest_tmp/pycache

# The system packages some tests need (Debian's Chromium for the browser tests, FFmpeg's shared libraries for
# torchcodec's previews test), installed with apt-get (as root, or it says the sudo command): README "Quick start",
# .ci/run. `make test` installs nothing: it says what is missing (scripts/check_system_deps.sh) and skips those tests.
system-deps:
	@bash scripts/install_browser.sh
	@bash scripts/install_ffmpeg_libs.sh

test: setup
	@bash scripts/check_system_deps.sh
	@mkdir -p .pytest_tmp
	@$(TEST_ENV) $(PY) -m pytest -q -n auto --dist worksteal \
	  --durations=15 --basetemp=$(CURDIR)/.pytest_tmp/test $(PYTEST_ARGS) tests/unit tests/integration

e2e: setup
	@mkdir -p .pytest_tmp
	@$(TEST_ENV) $(PY) -m pytest -q -n auto --dist worksteal \
	  --durations=25 --basetemp=$(CURDIR)/.pytest_tmp/e2e $(PYTEST_ARGS) tests/e2e

# ruff, then the import contracts of .importlinter (no import circles; the dependency direction of
# docs/architecture.md)
lint: setup
	@$(VENV)/bin/ruff check streamgaze_hf lmms_tasks build_scripts perf tests
	@PYTHONPATH=$(CURDIR) $(VENV)/bin/lint-imports --no-cache

# Would the newest versions the declared ranges allow still pass? A scratch lock and venv in .check-latest/,
# the fast tests and the evaluation smoke test run there, then the packages that differ from uv.lock and the
# declared bounds that hold one back. The step before every `make lock` (docs/getting-started.md "The lock").
check-latest: setup
	@$(PY) scripts/check_latest.py

# The timing scripts in perf/ (docs/performance.md). Every script runs even when an earlier one misses its
# target; the exit status says whether all met theirs. (perf/full_benchmark.py, about an hour, is run by
# hand: docs/performance.md "The whole benchmark's cost".) `make bench` is the old name of `make perf`.
perf: setup
	@failed=""; for b in overlay clips frames_to_model model_ready clip_write own_recordings cli_startup; do \
	  $(PY) perf/$$b.py || failed="$$failed $$b"; done; \
	if [ -n "$$failed" ]; then echo "[perf] missed their targets:$$failed" >&2; exit 1; fi

bench: perf

# Regenerate docs/cli.md from the argument parser (tests/integration/test_docs.py checks that it is up to date).
docs: setup
	@$(PY) -m streamgaze_hf.cli.clidoc --out docs/cli.md
