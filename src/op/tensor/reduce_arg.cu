// CUDA kernels of argmax, argmin and argmax_channel (reduce_arg.cc): the position of the best
// element of each line along the axis, in the input dtype, every dtype the CPU takes.
#include "op/op_util.h"
#include "reduce.cuh"
#include "reduce_op.h"

namespace braid::op::detail {
namespace {

// Output element k is line (k / inner, k % inner) of the input seen as (outer, n, inner).
template <class T, class Better>
__global__ void arg_reduce_kernel(const T* x, T* y, int64_t lines, int64_t n, int64_t inner, bool add, Better better) {
  BRAID_GRID_STRIDE_LOOP(k, lines) {
    const T* line = x + (k / inner) * n * inner + k % inner;
    T best = line[0];
    int64_t pos = 0;
    for (int64_t j = 1; j < n; ++j)
      if (better(line[j * inner], best)) {
        best = line[j * inner];
        pos = j;
      }
    cuda::store(y[k], add, static_cast<T>(pos));
  }
}

template <class Better>
Kernels arg_reduce_kernels(const std::string& name, Better better) {
  Kernels k;
  k.forward = [name, better](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<ArgReduceParam>(pa);
    const Shape& in = a.inputs[0].shape;
    const AxisSplit s = p.axis ? split_at_axis(in, checked_axis(name, in, *p.axis)) : AxisSplit{1, in.size(), 1};
    BRAID_CHECK(s.n > 0, "operator ", name, ": the reduced axis of shape ", in, " is empty");
    const int64_t lines = s.outer * s.inner;
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      arg_reduce_kernel<<<cuda::blocks_for(lines), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), lines, s.n, s.inner, a.req[0] == OpReq::Add, better);
    });
    cuda::finish(name.c_str());
  };
  return k;
}

}  // namespace

void register_arg_reduce_gpu_kernels(Registry& r) {
  r.at("argmax").gpu = arg_reduce_kernels("argmax", math::ArgMaxBetter{});
  r.at("argmin").gpu = arg_reduce_kernels("argmin", math::ArgMinBetter{});
  r.at("argmax_channel").gpu = arg_reduce_kernels("argmax_channel", math::ArgMaxBetter{});
}

}  // namespace braid::op::detail
