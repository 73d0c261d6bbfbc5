// CUDA kernels of the fused optimizer updates (update_op_list.h) and of their multi-weight
// forms (multi_update_op.h), one thread per element running
// the rule of update_rules.h, as the CPU's update_elements does: weight and grad float32 or
// float64 computed in their own type; the mp_ twins also float16 weights, computed in float32
// against the master copy weight32. The states (and weight32) are updated in place.
#include <utility>

#include "multi_update_op.h"
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

// One update (inputs weight, grad, states[, weight32]) queued on the stream, in the CPU kernel's
// compute type (update_op.h).
template <class Rule>
void update_on_gpu(const UpdateParam& p, const ForwardArgs& a, bool mp, const std::string& name) {
  switch (a.inputs[0].dtype) {
    case DType::Float32:
      return run_update_gpu<Rule, float, float>(p, a, mp);
    case DType::Float64:
      return mp ? run_update_gpu<Rule, double, float>(p, a, true) : run_update_gpu<Rule, double, double>(p, a, false);
    case DType::Float16:
      if (mp) return run_update_gpu<Rule, __half, float>(p, a, true);
      break;
    default:
      break;
  }
  throw_unsupported_dtype(a.inputs[0].dtype, name.c_str());
}

template <class Rule>
ForwardKernel update_forward(const std::string& name, bool mp) {
  return [name, mp](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    update_on_gpu<Rule>(param<UpdateParam>(pa), a, mp, name);
    cuda::finish(name.c_str());
  };
}

// The multi-weight updates (multi_update_op.h): one engine operation, a launch per weight.
template <class Rule>
ForwardKernel multi_update_forward(const MultiUpdateSpec& spec) {
  const size_t group = 2 + spec.single.states.size() + (spec.multi_precision ? 1 : 0);
  return [spec, group](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<MultiUpdateParam>(pa);
    for (size_t i = 0; i < a.outputs.size(); ++i)
      if (a.req[i] != OpReq::Null)
        update_on_gpu<Rule>(p.of(i), single_update_args(a, group, i), spec.multi_precision, spec.name);
    cuda::finish(spec.name.c_str());
  };
}

}  // namespace

void register_optimizer_gpu_kernels(Registry& r) {
  for_each_update_op([&r](auto rule, const UpdateOpSpec& spec) {
    using Rule = decltype(rule);
    r.at(spec.name).gpu.forward = update_forward<Rule>(spec.name, false);
    if (!spec.mp_name.empty()) r.at(spec.mp_name).gpu.forward = update_forward<Rule>(spec.mp_name, true);
  });
  for_each_multi_update_op([&r](auto rule, const MultiUpdateSpec& spec) {
    r.at(spec.name).gpu.forward = multi_update_forward<decltype(rule)>(spec);
  });
}

}  // namespace braid::op::detail
