// CUDA kernels of the reductions over axes (reduce.cc, reduce_norm.cc): sum, mean, nansum,
// prod, nanprod, max, min and norm, forward and backward, float32 and float64 (and integers
// where the CPU kernel takes them: sum, mean, prod, max, min forward).
#include "op/common/cuda_libs.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "reduce.cuh"
#include "reduce_op.h"

namespace braid::op::detail {
namespace {

using math::L1NormOp;
using math::L2NormOp;
using math::MaxOp;
using math::MeanOp;
using math::MinOp;
using math::NanProdOp;
using math::NanSumOp;
using math::ProdOp;
using math::ProdPartsOp;
using math::SumOp;

std::vector<bool> reduced_of(const std::string& name, const ReduceAxesParam& p, const Shape& in) {
  return reduced_axes(name, in, p.axis, p.exclude);
}

template <template <class> class Op, class T>
void reduce_forward_gpu(const std::string& name, const ReduceAxesParam& p, const ForwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const ReduceLayout l = reduce_layout(a.inputs[0].shape, reduced_of(name, p, a.inputs[0].shape), name.c_str());
  const size_t scratch = reduce_scratch_bytes<Op<T>>(l);
  reduce_gpu<Op<T>>(a.inputs[0].ptr<T>(), l,
                    StoreResult<Op<T>, T>{a.outputs[0].ptr<T>(), l.count, a.req[0] == OpReq::Add},
                    scratch ? cuda::workspace(scratch) : nullptr);
  cuda::finish(name.c_str());
}

// Integer dtypes are accepted when `Integers`. `P` is the op's parameter struct, a
// ReduceAxesParam or derived from one.
template <template <class> class Op, bool Integers, class P = ReduceAxesParam>
ForwardKernel reduce_forward_kernel(const std::string& name) {
  return [name](const OpContext&, const std::any& p, const ForwardArgs& a) {
    const ReduceAxesParam& rp = param<P>(p);
    if constexpr (Integers) {
      BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), { reduce_forward_gpu<Op, T>(name, rp, a); });
    } else {
      BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), { reduce_forward_gpu<Op, T>(name, rp, a); });
    }
  };
}

/// The backward whose input gradient is rule(x, y, dy, count) elementwise (the GPU twin of
/// elementwise_reduce_grad); `P` is the op's parameter struct.
template <class P, class Rule>
BackwardKernel elementwise_grad_gpu(const std::string& name, Rule rule) {
  return [name, rule](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const Shape& in = a.inputs[0].shape;
    const std::vector<bool> reduced = reduced_of(name, param<P>(pa), in);
    const InputToOutput to_out = input_to_output(in, reduced, name.c_str());
    int64_t count = 1;
    for (int k = 0; k < in.ndim(); ++k)
      if (reduced[static_cast<size_t>(k)]) count *= in[k];
    const int64_t n = in.size();
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      reduce_grad_kernel<<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), a.out_grads[0].ptr<T>(), a.in_grads[0].ptr<T>(), to_out, n,
          static_cast<T>(count), a.req[0] == OpReq::Add, rule);
    });
    cuda::finish(name.c_str());
  };
}

template <class T, bool SkipNan>
struct StoreParts {
  typename ProdPartsOp<T, SkipNan>::Acc* parts;
  __device__ void operator()(int64_t o, typename ProdPartsOp<T, SkipNan>::Acc acc) const { parts[o] = acc; }
};

// d(prod)/dx_i is the product of the other elements, from the product of the nonzero elements
// and the number of zeros of each output element (exact where some x are 0, as on the CPU).
template <class T, bool SkipNan>
__global__ void prod_grad_kernel(const T* x, const T* g, const typename ProdPartsOp<T, SkipNan>::Acc* parts, T* dx,
                                 InputToOutput to_out, int64_t n, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, n) {
    const int64_t o = to_out(i);
    const auto p = parts[o];
    const T xi = x[i];
    T v = T(0);
    if (SkipNan && math::is_nan(xi))
      v = T(0);
    else if (p.zeros == 0)
      v = static_cast<T>(g[o] * (p.nonzero / xi));
    else if (p.zeros == 1 && xi == T(0))
      v = static_cast<T>(g[o] * p.nonzero);
    cuda::store(dx[i], add, v);
  }
}

template <bool SkipNan>
BackwardKernel prod_grad_gpu(const std::string& name) {
  return [name](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const Shape& in = a.inputs[0].shape;
    const std::vector<bool> reduced = reduced_of(name, param<ReduceAxesParam>(pa), in);
    const ReduceLayout l = reduce_layout(in, reduced, name.c_str());
    const InputToOutput to_out = input_to_output(in, reduced, name.c_str());
    const int64_t n = in.size();
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      using Parts = ProdPartsOp<T, SkipNan>;
      // One workspace for the parts and the reduction's scratch (a second call may move the first).
      const size_t parts_bytes = static_cast<size_t>(l.out_size) * sizeof(typename Parts::Acc);
      auto* parts = static_cast<typename Parts::Acc*>(cuda::workspace(parts_bytes + reduce_scratch_bytes<Parts>(l)));
      reduce_gpu<Parts>(a.inputs[0].ptr<T>(), l, StoreParts<T, SkipNan>{parts}, parts + l.out_size);
      prod_grad_kernel<T, SkipNan><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
          a.inputs[0].ptr<T>(), a.out_grads[0].ptr<T>(), parts, a.in_grads[0].ptr<T>(), to_out, n,
          a.req[0] == OpReq::Add);
    });
    cuda::finish(name.c_str());
  };
}

template <template <class> class Op, bool Integers, class Rule>
Kernels value_kernels(const std::string& name, Rule rule) {
  return {reduce_forward_kernel<Op, Integers>(name), elementwise_grad_gpu<ReduceAxesParam>(name, rule)};
}

Kernels norm_kernels() {
  Kernels k;
  const ForwardKernel l1 = reduce_forward_kernel<L1NormOp, false, NormParam>("norm");
  const ForwardKernel l2 = reduce_forward_kernel<L2NormOp, false, NormParam>("norm");
  k.forward = [l1, l2](const OpContext& oc, const std::any& pa, const ForwardArgs& a) {
    (param<NormParam>(pa).ord == 1 ? l1 : l2)(oc, pa, a);
  };
  const BackwardKernel g1 = elementwise_grad_gpu<NormParam>("norm", math::L1NormGrad{});
  const BackwardKernel g2 = elementwise_grad_gpu<NormParam>("norm", math::L2NormGrad{});
  k.backward = [g1, g2](const OpContext& oc, const std::any& pa, const BackwardArgs& a) {
    (param<NormParam>(pa).ord == 1 ? g1 : g2)(oc, pa, a);
  };
  return k;
}

}  // namespace

void register_reduce_gpu_kernels(Registry& r) {
  r.at("sum").gpu = value_kernels<SumOp, true>("sum", math::PassGrad{});
  r.at("mean").gpu = value_kernels<MeanOp, true>("mean", math::MeanGrad{});
  r.at("nansum").gpu = value_kernels<NanSumOp, false>("nansum", math::NanSumGrad{});
  r.at("max").gpu = value_kernels<MaxOp, true>("max", math::ArgExtremumGrad{});
  r.at("min").gpu = value_kernels<MinOp, true>("min", math::ArgExtremumGrad{});
  r.at("prod").gpu = {reduce_forward_kernel<ProdOp, true>("prod"), prod_grad_gpu<false>("prod")};
  r.at("nanprod").gpu = {reduce_forward_kernel<NanProdOp, false>("nanprod"), prod_grad_gpu<true>("nanprod")};
  r.at("norm").gpu = norm_kernels();
  register_arg_reduce_gpu_kernels(r);
}

}  // namespace braid::op::detail
