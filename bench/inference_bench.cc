// In-process batched inference of a model file over idx images (serving::Model, no HTTP): the
// reference for braid serve's throughput (bench/serve_bench.py runs both in one go). INSTANCES
// copies of the model, copy i on cpu(i) and its own thread, take the batches in turn, as braid
// serve's model instances do; PASSES times over the images.
//
//   inference_bench SYMBOL PARAMS IMAGES [BATCH [INSTANCES [PASSES]]]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "braid/io/idx.h"
#include "braid/serving/model.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s SYMBOL PARAMS IMAGES [BATCH [INSTANCES [PASSES]]]\n", argv[0]);
    return 2;
  }
  const int64_t batch = argc > 4 ? std::atoll(argv[4]) : 64;
  const int instances = std::max(1, argc > 5 ? std::atoi(argv[5]) : 1);
  const int64_t passes = std::max(1LL, argc > 6 ? std::atoll(argv[6]) : 1LL);
  const braid::NDArray images = braid::io::load_idx_images(argv[3]);
  const int64_t per_pass = images.shape()[0] / batch;
  std::vector<std::unique_ptr<braid::serving::Model>> models;
  for (int i = 0; i < instances; ++i) {
    models.push_back(std::make_unique<braid::serving::Model>(argv[1], argv[2], braid::cpu(i)));
    models.back()->run({{models.back()->inputs()[0], images.slice(0, batch)}});  // warm-up: the executor
  }
  std::atomic<int64_t> next{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (auto& m : models)
    threads.emplace_back([&, model = m.get()] {
      for (int64_t b; (b = next++) < per_pass * passes;) {
        const int64_t at = b % per_pass * batch;
        model->run({{model->inputs()[0], images.slice(at, at + batch)}});
      }
    });
  for (auto& t : threads) t.join();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("in-process, batch %lld, %d instance(s): %.0f images/s\n", static_cast<long long>(batch), instances,
              static_cast<double>(per_pass * passes * batch) / s);
  return 0;
}
