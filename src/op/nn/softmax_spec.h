#pragma once
// Internal: what a softmax computes along its axis and in which precision, shared by the CPU
// (softmax_kernels.h) and GPU (softmax_kernels.cuh) kernels.
#include <type_traits>

namespace braid::op::detail {

struct SoftmaxSpec {
  double temperature = 1;
  bool log = false;     // log_softmax
  bool negate = false;  // softmin: softmax of -x
  /// Scale of x inside the exponent: (negate ? -1 : 1) / temperature.
  double factor() const { return (negate ? -1.0 : 1.0) / temperature; }
};

/// Accumulation type of a softmax between TI and TO: double when either is.
template <class TI, class TO>
using SoftmaxAcc = std::conditional_t<sizeof(TI) == 8 || sizeof(TO) == 8, double, float>;

}  // namespace braid::op::detail
