#pragma once
// NumPy broadcasting on the GPU (elemwise_binary.cu, broadcast_ops.cu): the output walked with
// both operands' strides (0 along their broadcast dimensions), and, for a gradient, the output
// elements each element of one operand was broadcast to.
#include <algorithm>
#include <vector>

#include "braid/base/error.h"
#include "braid/base/shape.h"
#include "op/common/cuda_launch.cuh"

namespace braid::op::detail {

constexpr int kMaxBroadcastDims = 12;

/// The strides of `in` walked along `out` (aligned from the right): 0 where `in` has size 1 or
/// no dimension.
inline std::vector<int64_t> broadcast_strides(const Shape& out, const Shape& in) {
  std::vector<int64_t> strides(static_cast<size_t>(out.ndim()), 0);
  int64_t stride = 1;
  for (int a = in.ndim() - 1, k = out.ndim() - 1; a >= 0; --a, --k) {
    if (in[a] != 1) strides[static_cast<size_t>(k)] = stride;
    stride *= in[a];
  }
  return strides;
}

/// Output dimensions, outermost first, with the strides of the output and both operands;
/// size-1 dimensions dropped, neighbours that walk all three alike merged.
struct BroadcastLayout {
  int n = 0;
  int64_t shape[kMaxBroadcastDims], out[kMaxBroadcastDims], a[kMaxBroadcastDims], b[kMaxBroadcastDims];

  /// The offsets in a and b of output element k.
  __device__ void offsets(int64_t k, int64_t& ia, int64_t& ib) const {
    ia = ib = 0;
    for (int d = n - 1; d >= 0; --d) {
      const int64_t c = k % shape[d];
      k /= shape[d];
      ia += c * a[d];
      ib += c * b[d];
    }
  }
};

inline BroadcastLayout broadcast_layout(const Shape& out, const Shape& a, const Shape& b, const char* op) {
  const std::vector<int64_t> sa = broadcast_strides(out, a), sb = broadcast_strides(out, b);
  BroadcastLayout l;
  for (int k = 0; k < out.ndim(); ++k) {
    const int64_t size = out[k], ak = sa[static_cast<size_t>(k)], bk = sb[static_cast<size_t>(k)];
    if (size == 1) continue;
    if (l.n > 0 && l.a[l.n - 1] == ak * size && l.b[l.n - 1] == bk * size) {
      l.shape[l.n - 1] *= size;
      l.a[l.n - 1] = ak;
      l.b[l.n - 1] = bk;
      continue;
    }
    BRAID_CHECK(l.n < kMaxBroadcastDims, "operator ", op, " on a GPU broadcasts through at most ", kMaxBroadcastDims,
                " dimensions after merging; use cpu()");
    l.shape[l.n] = size;
    l.a[l.n] = ak;
    l.b[l.n] = bk;
    ++l.n;
  }
  int64_t stride = 1;
  for (int d = l.n - 1; d >= 0; --d) {
    l.out[d] = stride;
    stride *= l.shape[d];
  }
  return l;
}

/// For the gradient of one operand (`self`, the other `other`): the dimensions it has (walked by
/// its elements in memory order) first, then those it was broadcast along (summed over), each
/// with the strides of the output and of the other operand.
struct GradLayout {
  int nkept = 0, nsum = 0;
  int64_t shape[kMaxBroadcastDims], out[kMaxBroadcastDims], other[kMaxBroadcastDims];

  /// The output and other-operand offsets of index i of dimensions [first, first + count).
  __device__ void offsets(int first, int count, int64_t i, int64_t& io, int64_t& ix) const {
    io = ix = 0;
    for (int d = first + count - 1; d >= first; --d) {
      const int64_t c = i % shape[d];
      i /= shape[d];
      io += c * out[d];
      ix += c * other[d];
    }
  }
  int64_t summed() const {
    int64_t s = 1;
    for (int d = nkept; d < nkept + nsum; ++d) s *= shape[d];
    return s;
  }
};

/// `left`: the gradient of a (else of b).
inline GradLayout grad_layout(const BroadcastLayout& l, bool left) {
  GradLayout g;
  for (bool summed : {false, true})
    for (int d = 0; d < l.n; ++d) {
      const int64_t self = left ? l.a[d] : l.b[d];
      if ((self == 0) != summed) continue;
      const int k = g.nkept + g.nsum;
      g.shape[k] = l.shape[d];
      g.out[k] = l.out[d];
      g.other[k] = left ? l.b[d] : l.a[d];
      (summed ? g.nsum : g.nkept)++;
    }
  return g;
}

}  // namespace braid::op::detail
