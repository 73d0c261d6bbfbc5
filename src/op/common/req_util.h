#pragma once
// Internal: honouring OpReq for kernels that can only overwrite their output.
#include <cstdint>
#include <vector>

#include "braid/op/tensor.h"

namespace braid::op::detail {

/// out[i] = f(i) (Write) or out[i] += f(i) (Add) for i in [0, n); nothing for Null. The req test
/// stays outside the loop so that it vectorizes.
template <class T, class F>
void write_each(T* out, OpReq req, int64_t n, F f) {
  if (req == OpReq::Write) {
    for (int64_t i = 0; i < n; ++i) out[i] = f(i);
  } else if (req == OpReq::Add) {
    for (int64_t i = 0; i < n; ++i) out[i] += f(i);
  }
}

/// Runs `compute(dst)`, which overwrites n elements at dst, so that `out` gets the result
/// according to `req`: Write computes in place, Add through a temporary added to `out`.
template <class T, class F>
void write_with_req(T* out, int64_t n, OpReq req, F&& compute) {
  if (req == OpReq::Null) return;
  if (req == OpReq::Write) {
    compute(out);
    return;
  }
  std::vector<T> tmp(static_cast<size_t>(n));
  compute(tmp.data());
  for (int64_t i = 0; i < n; ++i) out[i] += tmp[static_cast<size_t>(i)];
}

}  // namespace braid::op::detail
