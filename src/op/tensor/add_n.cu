// CUDA kernels of add_n (ElementWiseSum; the CPU ones are in add_n.cc): one thread per element
// sums that element of every input, so the output may be one of the inputs; float16 and
// bfloat16 are summed in float. Each input's gradient is the output's.
#include "op/common/cuda_launch.cuh"
#include "op/register_all.h"
#include "strided_copy.h"

namespace braid::op::detail {
namespace {

// The inputs of one pass: as many as a kernel's parameters carry.
constexpr int kInputsPerPass = 32;
struct Inputs {
  const void* at[kInputsPerPass];
  int count;
};

// y[i] (=/+=) Σ_k x_k[i]
template <class T>
__global__ void sum_kernel(Inputs in, T* y, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    cuda::compute_t<T> s = 0;
    for (int k = 0; k < in.count; ++k) s += cuda::load_value(static_cast<const T*>(in.at[k])[i]);
    cuda::store(y[i], add, s);
  }
}

void forward(const OpContext&, const std::any&, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const TBlob& y = a.outputs[0];
  const int64_t n = y.size();
  cuda::with_compute_type(y.dtype, "add_n", [&](auto t) {
    using T = decltype(t);
    // More inputs than one pass takes: passes after the first add to the output, so the output
    // must not be one of the inputs they read.
    for (size_t first = 0; first < a.inputs.size(); first += kInputsPerPass) {
      Inputs in{};
      for (size_t k = first; k < a.inputs.size() && in.count < kInputsPerPass; ++k) {
        BRAID_CHECK(first == 0 || a.inputs[k].dptr != y.dptr, "operator add_n on a GPU: the output is input ", k,
                    " of more than ", kInputsPerPass, "; write the sum to a new array");
        in.at[in.count++] = a.inputs[k].ptr<T>();
      }
      sum_kernel<T><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          in, y.ptr<T>(), n, first > 0 || a.req[0] == OpReq::Add);
    }
  });
  cuda::finish("add_n");
}

void backward(const OpContext& oc, const std::any&, const BackwardArgs& a) {
  const TBlob& g = a.out_grads[0];
  for (size_t k = 0; k < a.in_grads.size(); ++k)
    if (a.req[k] != OpReq::Null && a.in_grads[k].dptr != g.dptr)
      copy_in_order(oc.ctx, g, a.in_grads[k], a.req[k], "add_n");
}

}  // namespace

void register_add_n_gpu_kernels(Registry& r) { r.at("add_n").gpu = Kernels{forward, backward, /*takes_16bit=*/true}; }

}  // namespace braid::op::detail
