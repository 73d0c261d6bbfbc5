// CUDA kernels of the fused optimizer updates (update_op_list.h), one thread per element running
// the rule of update_rules.h, as the CPU's update_elements does: weight and grad float32 or
// float64 computed in their own type; the mp_ twins also float16 weights, computed in float32
// against the master copy weight32. The states (and weight32) are updated in place.
#include <utility>

#include "op/common/cuda_dtype.cuh"
#include "op/common/cuda_launch.cuh"
#include "op/op_util.h"
#include "op/register_all.h"
#include "update_op_list.h"

namespace braid::op::detail {
namespace {

template <class C, class W>
__device__ inline C load(W x) {
  return static_cast<C>(cuda::load_value(x));
}

template <class C, int K>
struct States {
  C* p[K > 0 ? K : 1];
};

template <class Rule, class C, int K, size_t... I>
__device__ inline C step(const Hyper<C>& h, C w, C g, const States<C, K>& s, int64_t i, std::index_sequence<I...>) {
  return Rule::step(h, w, g, s.p[I][i]...);
}

// `out` may be `w` itself; `master` is null except for the mp_ twins.
template <class Rule, class W, class C>
__global__ void update_kernel(Hyper<C> h, int64_t n, const W* w, const W* g, W* out, States<C, Rule::kStates> s,
                              C* master) {
  constexpr auto kIndices = std::make_index_sequence<Rule::kStates>();
  BRAID_GRID_STRIDE_LOOP(i, n) {
    if (master != nullptr) {
      const C nw = step<Rule>(h, master[i], load<C>(g[i]), s, i, kIndices);
      master[i] = nw;
      out[i] = cuda::store_value<W>(nw);
    } else {
      out[i] = cuda::store_value<W>(step<Rule>(h, load<C>(w[i]), load<C>(g[i]), s, i, kIndices));
    }
  }
}

template <class Rule, class W, class C>
void run_update_gpu(const UpdateParam& p, const ForwardArgs& a, bool mp) {
  States<C, Rule::kStates> s{};
  for (int k = 0; k < Rule::kStates; ++k) s.p[k] = a.inputs[2 + k].ptr<C>();
  C* master = mp ? a.inputs.back().ptr<C>() : nullptr;
  const int64_t n = a.inputs[0].size();
  update_kernel<Rule, W, C><<<cuda::blocks_for(n), cuda::kThreadsPerBlock, 0, cuda::stream()>>>(
      Hyper<C>(p), n, static_cast<const W*>(a.inputs[0].dptr), static_cast<const W*>(a.inputs[1].dptr),
      static_cast<W*>(a.outputs[0].dptr), s, master);
}

template <class Rule>
ForwardKernel update_forward(const std::string& name, bool mp) {
  return [name, mp](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const UpdateParam& p = param<UpdateParam>(pa);
    switch (a.inputs[0].dtype) {  // the CPU kernel's choices (update_op.h)
      case DType::Float32:
        run_update_gpu<Rule, float, float>(p, a, mp);
        break;
      case DType::Float64:
        if (mp)
          run_update_gpu<Rule, double, float>(p, a, true);
        else
          run_update_gpu<Rule, double, double>(p, a, false);
        break;
      case DType::Float16:
        if (mp) {
          run_update_gpu<Rule, __half, float>(p, a, true);
          break;
        }
        [[fallthrough]];
      default:
        throw_unsupported_dtype(a.inputs[0].dtype, name.c_str());
    }
    cuda::finish(name.c_str());
  };
}

}  // namespace

void register_optimizer_gpu_kernels(Registry& r) {
  for_each_update_op([&r](auto rule, const UpdateOpSpec& spec) {
    using Rule = decltype(rule);
    r.at(spec.name).gpu.forward = update_forward<Rule>(spec.name, false);
    if (!spec.mp_name.empty()) r.at(spec.mp_name).gpu.forward = update_forward<Rule>(spec.mp_name, true);
  });
}

}  // namespace braid::op::detail
