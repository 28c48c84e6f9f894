# watercolour-rl: every set-up step a fresh machine needs, and the usual tasks.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip

SCORER_VENV ?= .venv-scorer

.PHONY: setup setup-scorer demo test stack-test lint bench bench-eval bench-demo bench-looks bench-scorer bench-stack bench-webgl serve clean

PACKAGES := shared/pyproject.toml services/env/pyproject.toml services/scorer/pyproject.toml trainer/pyproject.toml \
	harness/pyproject.toml demo/pyproject.toml studio/pyproject.toml deploy/pyproject.toml

$(VENV)/.installed: $(PACKAGES) services/env/assets/package-lock.json services/env/install/system-packages.sh
	bash services/env/install/system-packages.sh
	bash services/env/install/assets.sh
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	# torch first, pinned: this version resolves to the CPU build; an unpinned one pulls the multi-GB CUDA build.
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e shared -e 'services/env[server,dev]' -e 'services/scorer[dev]' -e trainer -e harness -e demo \
		-e 'studio[dev]' -e 'deploy[dev]'
	touch $@

setup: $(VENV)/.installed

# The scorer's own environment for the real HPSv3 model (torch, transformers 4.45.2, hpsv3).
$(SCORER_VENV)/.installed: services/scorer/pyproject.toml services/scorer/requirements-hpsv3.txt services/scorer/install/model-env.sh
	bash services/scorer/install/model-env.sh $(SCORER_VENV)
	touch $@

setup-scorer: $(SCORER_VENV)/.installed

# The main job on the embedded default: the whole loop on this machine (local stack, a tiny policy
# warm-started here, GRPO through the real launch script); every painting lands in runs/demo.
demo: setup
	$(VENV)/bin/python -m watercolour_demo

# The test command: lint, then every test against real Chromium, real Redis and
# the real hpsv3 code path (on a tiny random model, in the scorer's environment); the slowest tests are named
# at the end: where CI's time goes.
test: setup setup-scorer
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/pytest -q --durations=25

# The CPU profile as containers: builds the images, brings the stack up, runs tests/stack against it and
# tears it down, leaving nothing behind (installs Docker, Compose and a local Debian base where missing).
stack-test: setup
	bash deploy/docker/stack-test.sh

lint: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: setup
	$(PY) bench/render_bench.py

# watercolour eval's own cost: 24 held-out subjects x 4 samples x 2 policies, cold, then rerun (~8 min on 2 cores).
bench-eval: setup
	$(PY) bench/eval_bench.py

# make demo with three GRPO seeds, the first from an empty warm-start cache, then each final policy against its warm
# start on the default held-out set (24 x 4), against the targets (~30 min of demo runs on 2 cores, and 6-12 min a seed for
# the held-out evaluations; bench/demo_bench.py --held-out-samples 0 leaves them out).
bench-demo: setup
	$(PY) bench/demo_bench.py

# What each of the demo's eight looks earns, and the win rate its closing evaluation can show at best (~14 min on 2 cores).
bench-looks: setup
	$(PY) bench/looks_bench.py

# The container stack: set-up, a cold build, up to healthy, each stack test, sizes (~15 min on 2 cores).
bench-stack: setup
	$(PY) bench/stack_bench.py

# WebGL back ends on a GPU host, through the renderer and /evaluate's code; a traced render; a GPU job beside the renders.
bench-webgl: MODES ?= gpu-vulkan,software
bench-webgl: BROWSERS ?= 1,4,8
bench-webgl: setup
	$(PY) bench/webgl_bench.py --modes $(MODES) --browsers $(BROWSERS) --profile --colocated

# The scorer on a random-weight HPSv3: SIZE=7b DEVICE=cuda on a GPU host.
bench-scorer: setup-scorer
	$(SCORER_VENV)/bin/python bench/scorer_bench.py --size $(or $(SIZE),tiny) --device $(or $(DEVICE),cpu)

serve: setup
	$(VENV)/bin/watercolour serve

# The recipe's training on Hugging Face Jobs (RECIPE=judge-led|hps-led|hps-only or a .yaml under trainer/;
# DRY_RUN=1 prints the command only). The scorer Space is paused when the job ends. MIX= was RECIPE='s name: refused,
# since left unread it would launch the default recipe.
.PHONY: train-job
train-job: setup
	$(if $(MIX),$(error MIX was retired: use RECIPE=$(MIX)))
	$(VENV)/bin/watercolour train-job $(if $(RECIPE),--recipe $(RECIPE)) $(if $(DRY_RUN),--dry-run)

clean:
	rm -rf $(VENV) $(SCORER_VENV) out services/env/assets/node_modules
