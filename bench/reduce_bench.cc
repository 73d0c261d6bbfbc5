// Throughput of the reduction, indexing and ordering kernels on float32 (bytes read per second).
#include <benchmark/benchmark.h>

#include "braid/ndarray/indexing.h"
#include "braid/ndarray/ordering.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"

namespace {

using braid::NDArray;
using braid::Shape;

NDArray input(int64_t rows, int64_t cols) { return braid::nd::random_uniform(-1, 1, Shape({rows, cols})); }

template <class F>
void run(benchmark::State& state, const NDArray& x, F f) {
  x.wait_to_read();
  for (auto _ : state) f().wait_to_read();
  state.SetBytesProcessed(state.iterations() * x.size() * 4);
}

// axis 1 of (rows, 4096): contiguous inner reduction; axis 0: outer reduction.
void BM_SumInner(benchmark::State& s) {
  NDArray x = input(s.range(0), 4096);
  run(s, x, [&] { return braid::nd::sum(x, {1}); });
}
void BM_SumOuter(benchmark::State& s) {
  NDArray x = input(s.range(0), 4096);
  run(s, x, [&] { return braid::nd::sum(x, {0}); });
}
void BM_MaxInner(benchmark::State& s) {
  NDArray x = input(s.range(0), 4096);
  run(s, x, [&] { return braid::nd::max(x, {1}); });
}
void BM_ArgmaxInner(benchmark::State& s) {
  NDArray x = input(s.range(0), 4096);
  run(s, x, [&] { return braid::nd::argmax(x, 1); });
}
void BM_Top5(benchmark::State& s) {
  NDArray x = input(s.range(0), 4096);
  run(s, x, [&] { return braid::nd::topk(x, -1, 5, "value"); });
}
void BM_TakeRows(benchmark::State& s) {
  NDArray x = input(s.range(0), 4096);
  NDArray idx = braid::nd::random_randint(0, s.range(0), Shape({s.range(0)}), braid::cpu(), braid::DType::Int32);
  run(s, x, [&] { return braid::nd::take(x, idx); });
}

// Baseline: a plain copy of the same array (allocation and engine push included).
void BM_Copy(benchmark::State& s) {
  NDArray x = input(s.range(0), 4096);
  run(s, x, [&] { return x.copy(); });
}

BENCHMARK(BM_Copy)->Arg(256)->UseRealTime();
BENCHMARK(BM_SumInner)->Arg(256)->UseRealTime();
BENCHMARK(BM_SumOuter)->Arg(256)->UseRealTime();
BENCHMARK(BM_MaxInner)->Arg(256)->UseRealTime();
BENCHMARK(BM_ArgmaxInner)->Arg(256)->UseRealTime();
BENCHMARK(BM_Top5)->Arg(256)->UseRealTime();
BENCHMARK(BM_TakeRows)->Arg(256)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
