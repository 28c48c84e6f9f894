# watercolour-rl: every set-up step a fresh machine needs, and the usual tasks.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip

.PHONY: setup demo test lint bench serve clean

$(VENV)/.installed: shared/pyproject.toml services/env/pyproject.toml services/env/assets/package-lock.json
	bash services/env/install/system-packages.sh
	bash services/env/install/assets.sh
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e shared -e 'services/env[dev]'
	touch $@

setup: $(VENV)/.installed

# The main job on the embedded default: gate and render the example flower.
demo: setup
	mkdir -p out
	$(VENV)/bin/watercolour render examples/flower.js -o out/flower.png --json
	@echo "painting: out/flower.png"

# The test command: lint, then every test against real Chromium and real Redis.
test: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/pytest -q

lint: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: setup
	$(PY) bench/render_bench.py

serve: setup
	$(VENV)/bin/watercolour serve

clean:
	rm -rf $(VENV) out services/env/assets/node_modules
