#pragma once
// Shared by the reduction operators (sum, max, norm, argmax, ...): MXNet's axis conventions and a
// loop plan that walks an input in contiguous blocks instead of computing an index per element.
#include <optional>
#include <string>
#include <vector>

#include "axis_util.h"
#include "braid/base/shape.h"

namespace braid::op::detail {

/// Which input axes a reduction folds away, from MXNet's (axis, exclude). No axis or an empty
/// tuple means every axis (exclude is then ignored, as in MXNet). Negative axes count from the
/// end; an axis out of range or given twice throws naming `op`.
std::vector<bool> reduced_axes(const std::string& op, const Shape& in, const std::optional<std::vector<int64_t>>& axis,
                               bool exclude);

/// The output shape: reduced axes dropped (or kept as 1 with keepdims). Never a 0-d shape: a
/// reduction over everything gives (1,), as in MXNet 1.x.
Shape reduced_shape(const Shape& in, const std::vector<bool>& reduced, bool keepdims);

/// The input seen as [prefix dims..., R, N]: the last run of reduced axes collapsed into R, the
/// kept axes after it into N, adjacent axes of the same kind merged and size-1 axes dropped. The
/// block in[in_off + r*N + n] (r < R, n < N) reduces into out[out_off + n].
class ReducePlan {
 public:
  ReducePlan(const Shape& in, const std::vector<bool>& reduced);

  int64_t rows() const { return R_; }   // R
  int64_t inner() const { return N_; }  // N
  int64_t out_size() const { return out_size_; }
  /// Input elements folded into each output element (the divisor of mean).
  int64_t count() const { return count_; }

  /// Calls f(in_off, out_off) once per block, in memory order of the input.
  template <class F>
  void for_each_block(F&& f) const {
    const int64_t block = R_ * N_;
    if (block == 0) return;
    const size_t nd = dims_.size();
    std::vector<int64_t> idx(nd, 0);
    int64_t out_off = 0;
    for (int64_t p = 0; p < blocks_; ++p) {
      f(p * block, out_off * N_);
      for (size_t d = nd; d-- > 0;) {  // odometer over the prefix dims
        out_off += out_stride_[d];
        if (++idx[d] < dims_[d]) break;
        out_off -= out_stride_[d] * dims_[d];
        idx[d] = 0;
      }
    }
  }

 private:
  std::vector<int64_t> dims_;        // prefix dims
  std::vector<int64_t> out_stride_;  // output stride of each prefix dim, in units of N (0: reduced)
  int64_t blocks_ = 1, R_ = 1, N_ = 1, out_size_ = 1, count_ = 1;
};

}  // namespace braid::op::detail
