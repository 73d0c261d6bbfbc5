#pragma once
// Internal: elementwise loops over whole arrays, vectorized and split across OpenMP threads. Only
// for host-compiled sources (.cc): CUDA's host pass is built without OpenMP.
#include <cstdint>

#include "braid/op/tensor.h"

namespace braid::op::detail {

/// out[i] = f(i) (Write) or out[i] += f(i) (Add) for i in [0, n), for a pure `f` (it reads, never writes, and no
/// element depends on another): the loop is vectorized and, from 64K elements, split across the OpenMP threads.
template <class T, class F>
void write_all(T* out, OpReq req, int64_t n, F f) {
  if (req == OpReq::Null) return;
  constexpr int64_t kBlock = 1 << 14;
  const bool add = req == OpReq::Add;
#pragma omp parallel for schedule(static) if (n > 4 * kBlock)
  for (int64_t begin = 0; begin < n; begin += kBlock) {
    const int64_t end = begin + kBlock < n ? begin + kBlock : n;
    if (add) {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) out[i] += f(i);
    } else {
#pragma omp simd
      for (int64_t i = begin; i < end; ++i) out[i] = f(i);
    }
  }
}

}  // namespace braid::op::detail
