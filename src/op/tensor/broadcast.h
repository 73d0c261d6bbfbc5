#pragma once
// Internal: NumPy broadcasting of two operands onto an output, as strided iteration.
#include <vector>

#include "braid/base/shape.h"
#include "braid/op/tensor.h"

namespace braid::op::detail {

/// The broadcast shape of `a` and `b` (NumPy rules); throws naming `op` when incompatible.
Shape broadcast_shapes(const std::string& op, const Shape& a, const Shape& b);

/// Offsets of two operands while walking an output shape in row-major order. Dimensions where
/// an operand has size 1 get stride 0.
class BroadcastWalker {
 public:
  BroadcastWalker(const Shape& out, const Shape& a, const Shape& b);

  /// Calls f(out_index, a_offset, b_offset) for every output element, in order.
  template <class F>
  void for_each(F&& f) const {
    const int n = static_cast<int>(out_.size());
    if (n == 0) {
      f(int64_t{0}, int64_t{0}, int64_t{0});
      return;
    }
    const int64_t inner = out_.back(), sa = sa_.back(), sb = sb_.back();
    std::vector<int64_t> idx(static_cast<size_t>(n), 0);
    int64_t oa = 0, ob = 0, k = 0;
    const int64_t outer = total_ / (inner ? inner : 1);
    for (int64_t o = 0; o < outer && inner > 0; ++o) {
      for (int64_t i = 0; i < inner; ++i) f(k++, oa + i * sa, ob + i * sb);
      for (int d = n - 2; d >= 0; --d) {  // carry into the outer dimensions
        size_t ud = static_cast<size_t>(d);
        ++idx[ud];
        oa += sa_[ud];
        ob += sb_[ud];
        if (idx[ud] < out_[ud]) break;
        oa -= sa_[ud] * idx[ud];
        ob -= sb_[ud] * idx[ud];
        idx[ud] = 0;
      }
    }
  }

 private:
  std::vector<int64_t> out_, sa_, sb_;
  int64_t total_ = 1;
};

}  // namespace braid::op::detail
