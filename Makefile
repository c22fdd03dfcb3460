# Two commands do all the set-up on a fresh Debian machine with CPython 3.11, 3.12 or 3.13:
#   make run    serve the playground at http://127.0.0.1:8000 (SQLite, in-memory layer)
#   make test   run every test (installs what the tests need, headless Chromium included)
# .venv is made with python3 when it is one of those, otherwise the newest found;
# PYTHON=python3.13 (a command, a path or a version) chooses (.ci/pythons).
# `make test` runs the whole suite on .venv's Python, then the simulator and server
# suites on each other supported Python, in .venv-3.X (.ci/other-pythons).
# Node.js and npm (18.18 or newer) run the JavaScript checks: `make jscheck`.

VENV := .venv
PY := $(VENV)/bin/python
NODE_BIN := node_modules/.bin
HOST ?= 127.0.0.1
PORT ?= 8000
# daphne's cap on one websocket message (its default is 1 MiB); the playground refuses
# anything over 64 KiB itself (playground/inbound.py, liveserver.DAPHNE_LIMITS).
# MALLOC_ARENA_MAX=2: two glibc arenas, not eight a core, for daphne's worker threads to
# fragment (docs/architecture.md, "What one process takes at once")
WS_LIMITS := --websocket-max-message-size 262144 --websocket-max-frame-size 262144

.PHONY: run setup test lint format bench install browser clean messages jscheck other-pythons FORCE

# With PYTHON set, .ci/bootstrap runs every time, and makes .venv again when it holds
# another version (its pip install has nothing to do when nothing changed).
$(VENV)/.installed: pyproject.toml .ci/bootstrap .ci/pythons $(if $(PYTHON),FORCE)
	bash .ci/bootstrap
	touch $@

FORCE:

# .venv-3.X for each supported Python other than .venv's, where one is found (again
# when pyproject.toml changes). CI=true fails when one is missing.
other-pythons: install
	bash .ci/other-pythons install

install: $(VENV)/.installed
	$(PY) -m playground.catalogues

# The JavaScript checkers, exactly as package-lock.json pins them (again when it changes).
node_modules/.installed: package.json package-lock.json .ci/ensure-node
	bash .ci/ensure-node
	npm ci --no-audit --no-fund
	touch $@

# ESLint and TypeScript over static/js (docs/frontend.md, "Checking the JavaScript").
jscheck: node_modules/.installed
	$(NODE_BIN)/eslint static/js eslint.config.js
	$(NODE_BIN)/tsc -p tsconfig.json

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0
	$(PY) manage.py prune_rooms
	@echo "The playground is at http://$(HOST):$(PORT)/"
	MALLOC_ARENA_MAX=2 $(VENV)/bin/daphne -b $(HOST) -p $(PORT) $(WS_LIMITS) playground.asgi:application

browser:
	bash .ci/ensure-browser

# The whole suite on .venv's Python, and tests/simulators and tests/server on each
# other supported Python (.ci/other-pythons), whose digests are compared with .venv's.
# .venv's suite runs in two stages: the browser tests but those that time the server or
# the machine, in TEST_WORKERS processes (pytest-xdist, each with its own daphne,
# Chromium and databases); then those ($(ALONE): attacks holding a bystander's
# latency, two daphnes on PostgreSQL, measured CPU time against declared costs) alone,
# one at a time, with the rest of .venv's suite and then the other Pythons' suites
# beside them at a lower priority (.ci/suite).
TEST_WORKERS ?= 3
ALONE := attack or multiprocess or measured_costs
# The set-up first: what may come from apt one after the other (apt holds one lock),
# then .venv and the other Pythons' environments beside the JavaScript checks (pip
# keeps one core busy; ESLint and tsc take the other): 42 s instead of 58.
setup:
	$(MAKE) browser node_modules/.installed
	$(MAKE) -j2 --output-sync=target other-pythons jscheck

test: setup
	bash .ci/ensure-redis
	bash .ci/ensure-postgres
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	TEST_WORKERS=$(TEST_WORKERS) ALONE="$(ALONE)" bash .ci/suite

lint: install jscheck
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) $(VENV)-3.* var .pytest_cache .ruff_cache .hypothesis node_modules

# Extract every marked string (needs GNU gettext) for the Chinese and Thai catalogues.
messages: install
	$(PY) manage.py makemessages --no-obsolete -l zh_Hans -l th --ignore '.venv/*' --ignore 'var/*' \
		--ignore 'tests/*' --ignore 'benchmarks/*' \
		--ignore 'node_modules/*'
	$(PY) manage.py makemessages --no-obsolete -d djangojs -l zh_Hans -l th --ignore '.venv/*' \
		--ignore 'static/vendor/*' --ignore 'var/*' --ignore 'node_modules/*'
