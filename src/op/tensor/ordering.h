#pragma once
// Internal: what the CPU (ordering.cc) and GPU (ordering.cu) kernels of topk, sort and argsort
// share: the parameter, the view of the input around the axis, and the order itself.
#include <optional>
#include <string>

#include "axis_util.h"
#include "braid/base/dtype.h"
#include "op/math/host_device.h"

namespace braid::op::detail {

enum class RetTyp { Value, Indices, Mask, Both };

struct TopKParam {
  std::optional<int64_t> axis = -1;  // nullopt: the flattened array
  int64_t k = 1;                     // < 1: every element
  RetTyp ret = RetTyp::Indices;
  bool is_ascend = false;
  DType dtype = DType::Float32;  // of the indices output
};

// Value and Both compute (values, indices); Value hides the indices, which backward needs.
inline int num_outputs_of(const TopKParam& p) { return p.ret == RetTyp::Value || p.ret == RetTyp::Both ? 2 : 1; }
inline bool returns_values(const TopKParam& p) { return num_outputs_of(p) == 2; }

/// The input as lines of s.n elements along the axis; the k first of each are selected.
struct TopKLayout {
  AxisSplit s;
  int64_t k = 1;
};

TopKLayout topk_layout(const std::string& op, const TopKParam& p, const Shape& in);

/// a < b with NaN above every number.
template <class T>
BRAID_HOST_DEVICE bool nan_last_less(T a, T b) {
  if (b != b) return a == a;
  return a == a && a < b;
}

/// Whether element a at position p of a line comes before element b at position q: the order is
/// total and stable (ties keep the earlier position first).
template <class T>
BRAID_HOST_DEVICE bool comes_before(T a, int64_t p, T b, int64_t q, bool ascend) {
  const bool p_first = ascend ? nan_last_less(a, b) : nan_last_less(b, a);
  const bool q_first = ascend ? nan_last_less(b, a) : nan_last_less(a, b);
  return p_first || (!q_first && p < q);
}

}  // namespace braid::op::detail
