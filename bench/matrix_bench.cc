// Throughput of the matrix family's kernels: transpose (tiled vs. a plain copy of the same
// bytes), dot and batch_dot. Run: build/bin/matrix_bench
#include <benchmark/benchmark.h>

#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"

namespace {

using braid::NDArray;
using braid::Shape;

void bytes_moved(benchmark::State& state, const NDArray& x) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * x.size() * 4 * 2);
}

void BM_Copy2D(benchmark::State& state) {
  NDArray x(Shape({state.range(0), state.range(0)}));
  for (auto _ : state) braid::nd::reshape(x, {-1}).wait_to_read();
  bytes_moved(state, x);
}

void BM_Transpose2D(benchmark::State& state) {
  NDArray x(Shape({state.range(0), state.range(0)}));
  for (auto _ : state) braid::nd::transpose(x).wait_to_read();
  bytes_moved(state, x);
}

void BM_Transpose4D(benchmark::State& state) {  // NCHW -> NHWC
  NDArray x(Shape({32, 64, 56, 56}));
  for (auto _ : state) braid::nd::transpose(x, {0, 2, 3, 1}).wait_to_read();
  bytes_moved(state, x);
}

void BM_Dot(benchmark::State& state, braid::DType dtype) {  // float: oneDNN; double: OpenBLAS
  const int64_t n = state.range(0);
  NDArray a(Shape({n, n}), braid::cpu(), dtype), b(Shape({n, n}), braid::cpu(), dtype);
  a.fill(1);
  b.fill(1);
  for (auto _ : state) braid::nd::dot(a, b).wait_to_read();
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 2 * n * n * n);
}

void BM_BatchDot(benchmark::State& state) {
  NDArray a(Shape({64, 128, 64})), b(Shape({64, 64, 128}));
  a.fill(1);
  b.fill(1);
  for (auto _ : state) braid::nd::batch_dot(a, b).wait_to_read();
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 2 * 64 * 128 * 64 * 128);
}

BENCHMARK(BM_Copy2D)->Arg(1024)->Arg(4096)->UseRealTime();
BENCHMARK(BM_Transpose2D)->Arg(1024)->Arg(4096)->UseRealTime();
BENCHMARK(BM_Transpose4D)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dot, float32, braid::DType::Float32)->Arg(256)->Arg(1024)->UseRealTime();
BENCHMARK_CAPTURE(BM_Dot, float64, braid::DType::Float64)->Arg(256)->Arg(1024)->UseRealTime();
BENCHMARK(BM_BatchDot)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
