// Time of one epoch of iterating a Fashion-MNIST DataLoader (batch 64, ToTensor), without a
// model: what the data pipeline costs per epoch, for 0 and 2 worker threads, and with a
// per-sample random transform (RandomFlipLeftRight before ToTensor).
//   bin/data_loader_bench [epochs]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "braid/gluon/data/dataloader.h"
#include "braid/gluon/data/vision/datasets.h"
#include "braid/gluon/data/vision/transforms.h"
#include "braid/ndarray/invoke.h"

using namespace braid;
using namespace braid::gluon::data;
namespace tf = braid::gluon::data::vision::transforms;

namespace {

// The fastest of `epochs` epochs: wall seconds and CPU seconds of the whole process (all threads).
std::pair<double, double> epoch_seconds(const DatasetPtr& ds, int workers, bool shuffle, int epochs) {
  DataLoader loader(ds, {.batch_size = 64, .shuffle = shuffle, .num_workers = workers});
  std::pair<double, double> best{1e30, 1e30};
  for (int e = 0; e < epochs; ++e) {
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    int64_t n = 0;
    for (const Batch& b : loader) n += b[0].shape()[0];
    nd::waitall();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    if (n != ds->size()) std::fprintf(stderr, "wrong sample count %lld\n", static_cast<long long>(n));
    if (s < best.first) best = {s, cpu};
  }
  return best;
}

void report(const char* what, const DatasetPtr& ds, int workers, bool shuffle, int epochs) {
  auto [wall, cpu] = epoch_seconds(ds, workers, shuffle, epochs);
  std::printf("%-22s shuffle=%d workers=%d: %.3f s/epoch wall, %.3f s CPU\n", what, shuffle, workers, wall, cpu);
}

}  // namespace

int main(int argc, char** argv) {
  int epochs = argc > 1 ? std::atoi(argv[1]) : 3;
  auto t0 = std::chrono::steady_clock::now();
  auto train = std::make_shared<vision::FashionMNIST>();
  nd::waitall();
  std::printf("load train set: %.3f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  DatasetPtr plain = train->transform_first(tf::ToTensor());
  DatasetPtr flipped = train->transform_first(tf::Compose({tf::RandomFlipLeftRight(), tf::ToTensor()}));
  for (bool shuffle : {false, true})
    for (int workers : {0, 2}) report("ToTensor", plain, workers, shuffle, epochs);
  for (int workers : {0, 2}) report("RandomFlip + ToTensor", flipped, workers, true, epochs);
  return 0;
}
