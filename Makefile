# The two commands of the README, and a few more. Everything goes through CMake + Ninja in build/.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test conformance bench tsan asan asan-build fuzz clean

all: build

deps:
	./scripts/install-deps.sh

# A new build folder is configured twice: CMake's first run places a flag of libzmq's pkg-config
# (-isystem /usr/include/mit-krb5) elsewhere in the compile commands than every later run does,
# so without the second run the next re-run of CMake would change every command and rebuild all.
CONFIGURE_TWICE = cmake $(1) > /dev/null && cmake $(1)
COMMA := ,

$(BUILD_DIR)/build.ninja:
	$(call CONFIGURE_TWICE,-S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS))

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: a local parameter-server job (1 scheduler, 1 server, 2 workers) training LeNet on
# the real Fashion-MNIST with dist_sync for 2 epochs; each worker shows its progress and the
# final test accuracy. Only the braid command is built for it (the tests, benchmarks and the
# Python module come with make build or make test).
demo: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS) --target braid_cli
	$(BUILD_DIR)/bin/braid launch -n 2 -s 1 -- $(BUILD_DIR)/bin/braid train --model lenet --kvstore dist_sync \
		--epochs 2 --json-log $(BUILD_DIR)/demo-log.json

# The whole suite (the engine under ThreadSanitizer included), then the unit suite under
# AddressSanitizer and UndefinedBehaviorSanitizer, then every fuzz target for FUZZ_SECONDS.
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 900
	$(MAKE) asan ASAN_LABELS="unit|fuzz"
	$(MAKE) fuzz FUZZ_SECONDS=30

# Apache MXNet 1.9.1's own unit tests (../shared/mxnet-1.9.1-tests/unittest or MXNET_TESTS_DIR), run
# unmodified on Braid: a table per file and the closing "N passed, M failed" line.
conformance: build
	/usr/bin/python3 tests/conformance/run.py --build $(BUILD_DIR) $(if $(VERBOSE),-v)

# Microbenchmarks and the side-by-side comparison with PyTorch.
bench: build
	$(BUILD_DIR)/bin/engine_bench
	$(BUILD_DIR)/bin/ops_bench
	/usr/bin/python3 bench/ops_vs_torch.py --braid $(BUILD_DIR)/bin/ops_bench
	PYTHONPATH=$(BUILD_DIR)/python /usr/bin/python3 bench/linalg_vs_torch.py
	PYTHONPATH=$(BUILD_DIR)/python /usr/bin/python3 bench/deformable_vs_torch.py
	/usr/bin/python3 bench/train_vs_torch.py --braid $(BUILD_DIR)/bin/train_bench
	$(BUILD_DIR)/bin/ps_bench
	/usr/bin/python3 bench/dist_step_overhead.py --braid $(BUILD_DIR)/bin/braid
	mpirun --oversubscribe --bind-to none $(if $(filter 0,$(shell id -u)),--allow-run-as-root) -np 2 \
		-x OMP_NUM_THREADS=1 $(BUILD_DIR)/bin/allreduce_bench
	/usr/bin/python3 bench/allreduce_train.py --braid $(BUILD_DIR)/bin/braid
	/usr/bin/python3 bench/serve_bench.py --build $(BUILD_DIR)
	/usr/bin/python3 bench/serve_bench.py --build $(BUILD_DIR) --request-batch 16
	/usr/bin/python3 bench/serve_load.py --build $(BUILD_DIR) --seconds 60

# Sanitizer builds: clang, every target instrumented, in folders of their own (no Python, no
# CUDA, no benchmarks). The fuzz targets are built with the AddressSanitizer one.
SANITIZER_CMAKE_FLAGS = -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang \
	-DBRAID_WITH_PYTHON=OFF -DBRAID_WITH_CUDA=OFF -DBRAID_BUILD_BENCH=OFF
ASAN_DIR ?= build-asan
TSAN_DIR ?= build-tsan
ASAN_LABELS ?= unit|fuzz
FUZZ_SECONDS ?= 60
# Without the storage pool, so that a use of freed array memory is caught too; with dlclose a no-op
# (tests/sanitizers/keep_modules_loaded.cc), so that leaks in unloaded OpenMPI components can be named.
ASAN_ENV = ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp \
	BRAID_STORAGE_POOL=0 LD_PRELOAD=$(abspath $(ASAN_DIR))/tests/libbraid_keep_modules_loaded.so
TSAN_ENV = TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:suppressions=$(CURDIR)/scripts/tsan.supp"

$(ASAN_DIR)/build.ninja:
	$(call CONFIGURE_TWICE,-S . -B $(ASAN_DIR) $(SANITIZER_CMAKE_FLAGS) -DBRAID_SANITIZE=address$(COMMA)undefined -DBRAID_FUZZ=ON)

asan-build: deps $(ASAN_DIR)/build.ninja
	cmake --build $(ASAN_DIR) -j $(JOBS)

# The unit and fuzz-replay suites under AddressSanitizer and UndefinedBehaviorSanitizer
# (ASAN_LABELS="unit|dist|fuzz" adds the multi-process jobs).
asan: asan-build
	cd $(ASAN_DIR) && $(ASAN_ENV) ctest --output-on-failure -j $(JOBS) -L "$(ASAN_LABELS)" --timeout 900

# The unit and dist suites under ThreadSanitizer.
$(TSAN_DIR)/build.ninja:
	$(call CONFIGURE_TWICE,-S . -B $(TSAN_DIR) $(SANITIZER_CMAKE_FLAGS) -DBRAID_SANITIZE=thread)

tsan: deps $(TSAN_DIR)/build.ninja
	cmake --build $(TSAN_DIR) -j $(JOBS)
	cd $(TSAN_DIR) && $(TSAN_ENV) ctest --output-on-failure -j $(JOBS) -L "unit|dist" --timeout 900

# Every fuzz target for FUZZ_SECONDS from its seed corpus (fuzz/corpus/); a finding fails.
fuzz: asan-build
	scripts/fuzz.sh $(ASAN_DIR) $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD_DIR)
