# The two commands of the quick start: `make run` (Mage's main job) and `make test` (the tests).
# Each creates .venv and installs what it needs on first use: torch, triton, Mage and its Rust extension.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SUITE ?= seed

.PHONY: run test test-slow wheel site

run: $(STAMP)
	$(BIN)/mage run --suite $(SUITE)

# cargo test also compiles a kernel with NVRTC when it finds libnvrtc: the pip wheel's, in the venv.
# cubecl/ holds the cubecl family's kernels: its tests run them on lavapipe (software Vulkan) when installed.
NVRTC_LIB_DIR = $(abspath $(firstword $(wildcard $(VENV)/lib/python3*/site-packages/nvidia/cu13/lib)))

# The tests come in tiers: `make test` (what CI runs) is the fast tier, every implementation's contract on its
# spec's small shapes; `make test-slow` the rest (full seed shapes under the interpreter, whole-suite subprocesses).
# Both spread the tests over every core (pytest-xdist); the GPU tier is `pytest -m gpu` on a GPU machine.
PYTEST = TRITON_INTERPRET=1 $(BIN)/python -m pytest -q -n auto --dist worksteal --durations=25

test: $(STAMP)
	cd native && MAGE_CUDA_LIB_DIRS="$(NVRTC_LIB_DIR)" cargo test --quiet
	cd cubecl && cargo test --release --quiet
	$(PYTEST) -m "not slow"

test-slow: $(STAMP)
	$(PYTEST) -m slow

# The lab notebook of the committed GPU store (built, not committed).
site: $(STAMP)
	$(BIN)/mage site --db results/h200/mage.db --out results/h200/site

# The abi3 wheel (Python 3.11 and 3.12) that travels to the GPU machine: see scripts/h200.sh.
wheel: $(STAMP)
	rm -rf dist && $(BIN)/maturin build --release --quiet -o dist

$(STAMP): pyproject.toml native/Cargo.toml native/Cargo.lock $(wildcard native/src/*.rs)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@
