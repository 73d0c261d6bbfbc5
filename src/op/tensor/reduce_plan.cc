#include "reduce_plan.h"

namespace braid::op::detail {

std::vector<bool> reduced_axes(const std::string& op, const Shape& in, const std::optional<std::vector<int64_t>>& axis,
                               bool exclude) {
  const int n = in.ndim();
  if (!axis || axis->empty()) return std::vector<bool>(static_cast<size_t>(n), true);
  std::vector<bool> listed(static_cast<size_t>(n), false);
  for (int64_t a : *axis) {
    int ax = checked_axis(op, in, a);
    BRAID_CHECK(!listed[static_cast<size_t>(ax)], "operator ", op, ": axis ", ax,
                " is listed twice in axis=", Shape(*axis), "; list each axis once");
    listed[static_cast<size_t>(ax)] = true;
  }
  if (exclude) listed.flip();
  return listed;
}

Shape reduced_shape(const Shape& in, const std::vector<bool>& reduced, bool keepdims) {
  std::vector<int64_t> dims;
  for (int i = 0; i < in.ndim(); ++i) {
    if (!reduced[static_cast<size_t>(i)])
      dims.push_back(in[i]);
    else if (keepdims)
      dims.push_back(1);
  }
  if (dims.empty()) dims.push_back(1);
  return Shape(std::move(dims));
}

ReducePlan::ReducePlan(const Shape& in, const std::vector<bool>& reduced) {
  // Collapse to runs of (size, reduced); size-1 axes belong to neither kind.
  std::vector<int64_t> sizes;
  std::vector<bool> kinds;
  for (int i = 0; i < in.ndim(); ++i) {
    const bool red = reduced[static_cast<size_t>(i)];
    if (red)
      count_ *= in[i];
    else
      out_size_ *= in[i];
    if (in[i] == 1) continue;
    if (!kinds.empty() && kinds.back() == red) {
      sizes.back() *= in[i];
    } else {
      sizes.push_back(in[i]);
      kinds.push_back(red);
    }
  }
  if (!kinds.empty() && !kinds.back()) {
    N_ = sizes.back();
    sizes.pop_back();
    kinds.pop_back();
  }
  if (!kinds.empty() && kinds.back()) {
    R_ = sizes.back();
    sizes.pop_back();
    kinds.pop_back();
  }
  dims_ = sizes;
  out_stride_.assign(sizes.size(), 0);
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    blocks_ *= sizes[d];
    if (!kinds[d]) {
      out_stride_[d] = stride;
      stride *= sizes[d];
    }
  }
}

}  // namespace braid::op::detail
