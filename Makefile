# The two commands of the README, and a few more. Everything goes through CMake + Ninja in build/.
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build demo test bench tsan asan clean

all: build

deps:
	./scripts/install-deps.sh

$(BUILD_DIR)/build.ninja:
	cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The main job: a local parameter-server job (1 scheduler, 1 server, 2 workers) training LeNet on
# the real Fashion-MNIST with dist_sync for 2 epochs; each worker shows its progress and the
# final test accuracy.
demo: build
	$(BUILD_DIR)/bin/braid launch -n 2 -s 1 -- $(BUILD_DIR)/bin/braid train --model lenet --kvstore dist_sync \
		--epochs 2 --json-log $(BUILD_DIR)/demo-log.json

# The whole suite, the ThreadSanitizer and AddressSanitizer runs included.
test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 900

# Microbenchmarks and the side-by-side comparison with PyTorch.
bench: build
	$(BUILD_DIR)/bin/engine_bench
	$(BUILD_DIR)/bin/ops_bench
	/usr/bin/python3 bench/ops_vs_torch.py --braid $(BUILD_DIR)/bin/ops_bench
	/usr/bin/python3 bench/train_vs_torch.py --braid $(BUILD_DIR)/bin/train_bench
	$(BUILD_DIR)/bin/ps_bench
	/usr/bin/python3 bench/dist_step_overhead.py --braid $(BUILD_DIR)/bin/braid
	mpirun --oversubscribe --bind-to none $(if $(filter 0,$(shell id -u)),--allow-run-as-root) -np 2 \
		-x OMP_NUM_THREADS=1 $(BUILD_DIR)/bin/allreduce_bench
	/usr/bin/python3 bench/allreduce_train.py --braid $(BUILD_DIR)/bin/braid
	/usr/bin/python3 bench/serve_bench.py --build $(BUILD_DIR)
	/usr/bin/python3 bench/serve_bench.py --build $(BUILD_DIR) --request-batch 16
	/usr/bin/python3 bench/serve_load.py --build $(BUILD_DIR) --seconds 60

# Only the engine tests under ThreadSanitizer.
tsan: build
	cd $(BUILD_DIR) && ctest --output-on-failure -L tsan

# Only the lifetime tests against the library built with AddressSanitizer.
asan: build
	cd $(BUILD_DIR) && ctest --output-on-failure -L asan

clean:
	rm -rf $(BUILD_DIR)
