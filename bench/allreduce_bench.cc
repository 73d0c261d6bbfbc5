// Allreduce through Braid's collective backend against raw MPI_Allreduce on the same buffers in
// the same run (issue 7), under mpirun:
//
//   mpirun -np 2 build/bin/allreduce_bench [ROUNDS]
//
// 1. Bus bandwidth (algorithm bandwidth x 2(n-1)/n, NCCL's convention) of a float32 allreduce
//    of 4 KB ... 64 MB: Braid's collective::allreduce (submitted, negotiated, reduced in place)
//    and MPI_Allreduce(MPI_IN_PLACE) on MPI_COMM_WORLD, alternating round by round; median.
// 2. 100 tensors of 40 KB submitted at once, fusion on (128 MB) vs off (0): the time until all
//    are reduced; median.
// Targets: >= 0.9x raw MPI's bus bandwidth at 16 and 64 MB; fusion >= 3x faster than none.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "braid/kvstore/collective.h"
#include "braid/ndarray/creation.h"

using namespace braid;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 11;
  collective::init();
  const int n = collective::size(), me = collective::rank();
  const double bus = n > 1 ? 2.0 * (n - 1) / n : 1.0;
  if (me == 0)
    std::printf("allreduce of float32, %d ranks, median of %d rounds\n%10s %10s %14s %14s %7s\n", n, rounds, "bytes",
                "reps", "braid GB/s", "raw MPI GB/s", "ratio");
  for (int64_t bytes = 4 << 10; bytes <= (int64_t{64} << 20); bytes *= 4) {
    const int64_t count = bytes / 4;
    const int reps = static_cast<int>(std::max<int64_t>(4, (int64_t{64} << 20) / bytes / 4));
    NDArray a = nd::ones(Shape{count});
    std::vector<float> raw(static_cast<size_t>(count), 1.f);
    std::vector<double> ours, theirs;
    for (int r = -1; r < rounds; ++r) {  // one round of warm-up
      MPI_Barrier(MPI_COMM_WORLD);
      auto t = Clock::now();
      for (int i = 0; i < reps; ++i)
        collective::synchronize(collective::allreduce_async(a, a, "bench", collective::ReduceOp::Sum));
      const double s_ours = seconds_since(t) / reps;
      MPI_Barrier(MPI_COMM_WORLD);
      t = Clock::now();
      for (int i = 0; i < reps; ++i)
        MPI_Allreduce(MPI_IN_PLACE, raw.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      const double s_raw = seconds_since(t) / reps;
      if (r >= 0) {
        ours.push_back(static_cast<double>(bytes) / s_ours * bus / 1e9);
        theirs.push_back(static_cast<double>(bytes) / s_raw * bus / 1e9);
      }
    }
    if (me == 0)
      std::printf("%10lld %10d %14.3f %14.3f %7.2f\n", static_cast<long long>(bytes), reps, median(ours),
                  median(theirs), median(ours) / median(theirs));
  }

  // 100 x 40 KB at once, with and without fusion.
  std::vector<NDArray> tensors;
  for (int t = 0; t < 100; ++t) tensors.push_back(nd::ones(Shape{10 * 1024}));
  std::vector<double> fused, unfused;
  for (int r = -1; r < rounds; ++r) {
    for (int64_t threshold : {int64_t{128} << 20, int64_t{0}}) {
      collective::set_fusion_threshold(threshold);
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t = Clock::now();
      std::vector<collective::Handle> handles;
      for (int i = 0; i < 100; ++i)
        handles.push_back(collective::allreduce_async(tensors[static_cast<size_t>(i)], tensors[static_cast<size_t>(i)],
                                                      "t" + std::to_string(i), collective::ReduceOp::Average));
      for (const auto& h : handles) collective::synchronize(h);
      if (r >= 0) (threshold ? fused : unfused).push_back(seconds_since(t) * 1e3);
    }
  }
  if (me == 0)
    std::printf("100 x 40 KB: fused %.2f ms, one by one %.2f ms: fusion %.1fx faster\n", median(fused), median(unfused),
                median(unfused) / median(fused));
  collective::shutdown();
  return 0;
}
