// In-process batched inference of a model file over idx images (serving::Model, no HTTP): the
// reference for braid serve's throughput (bench/serve_bench.py runs both in one go).
//
//   inference_bench SYMBOL PARAMS IMAGES [BATCH]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "braid/io/idx.h"
#include "braid/serving/model.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s SYMBOL PARAMS IMAGES [BATCH]\n", argv[0]);
    return 2;
  }
  const int64_t batch = argc > 4 ? std::atoll(argv[4]) : 64;
  braid::serving::Model model(argv[1], argv[2]);
  const braid::NDArray images = braid::io::load_idx_images(argv[3]);
  const int64_t n = images.shape()[0] / batch * batch;
  model.run({{model.inputs()[0], images.slice(0, batch)}});  // warm-up: the executor for this shape
  const auto start = std::chrono::steady_clock::now();
  for (int64_t at = 0; at < n; at += batch) model.run({{model.inputs()[0], images.slice(at, at + batch)}});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("in-process, batch %lld: %.0f images/s\n", static_cast<long long>(batch), static_cast<double>(n) / s);
  return 0;
}
