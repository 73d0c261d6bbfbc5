// Internal: builds the OpDef of a fused optimizer update, and of its multi-precision twin, from a
// rule of update_rules.h. Arguments: weight, grad, the rule's states, and for the twin the float32
// master copy `weight32` last. The weight is normally also the `out` array (MXNet's out=weight);
// the states and weight32 are updated in place (OpDef::mutate_inputs).
#pragma once
#include <array>
#include <type_traits>
#include <utility>

#include "braid/base/half.h"
#include "braid/op/registry.h"
#include "op/op_util.h"
#include "update_rules.h"

namespace braid::op::detail {

template <class C, class W>
inline C load_as(W x) {
  if constexpr (std::is_same_v<W, half_t>)
    return static_cast<C>(half_to_float(x));
  else
    return static_cast<C>(x);
}
template <class W, class C>
inline W store_as(C x) {
  if constexpr (std::is_same_v<W, half_t>)
    return float_to_half(static_cast<float>(x));
  else
    return static_cast<W>(x);
}
/// The first element of a float32 or float64 array: a scale or a norm given as an array.
inline double first_element(const TBlob& b, const std::string& op) {
  double v = 0;
  BRAID_REAL_TYPE_SWITCH(b.dtype, T, op.c_str(), { v = static_cast<double>(b.ptr<T>()[0]); });
  return v;
}

/// Calls run(W{}, C{}) for weights of dtype `t`: float32 and float64 weights compute in their own
/// type, float16 weights in float32 — only the mp_ forms (`mp`), which keep float32 master
/// copies, take them (other ops see float32 copies of 16-bit arrays: float16_compute.h); the
/// mp_ forms take no float64 weights, whose master copy would be themselves.
template <class Run>
void by_weight_dtype(DType t, bool mp, const std::string& op, Run run) {
  switch (t) {
    case DType::Float64:
      BRAID_CHECK(!mp, op, ": float64 weights need no float32 master copy; use the form without mp_");
      return run(double{}, double{});
    case DType::Float16:
      BRAID_CHECK(mp, op, ": float16 weights are updated by the mp_ form, with a float32 master copy");
      return run(half_t{}, float{});
    case DType::Float32:
      return run(float{}, float{});
    default:
      throw_unsupported_dtype(t, op.c_str());
  }
}

/// out (req) v for a weight stored as W, the sum (Add) computed in C.
template <class W, class C>
inline void assign_stored(W& out, OpReq req, C v) {
  if (req != OpReq::Null) out = store_as<W>(req == OpReq::Add ? load_as<C>(out) + v : v);
}

/// The element loop: each element on its own (out may be w itself). Where W is float32/float64
/// the loops vectorize (omp simd: GCC's -O2 cost model alone would not; optimizer_ops.cc is built
/// with -fno-math-errno so that sqrt needs no branch).
template <class Rule, class W, class C, size_t... I>
void update_elements(const Hyper<C> h, int64_t n, const W* w, const W* g, W* out, const std::array<C*, sizeof...(I)> s,
                     C* master, std::index_sequence<I...>) {
  if (master != nullptr) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const C nw = Rule::step(h, master[i], load_as<C>(g[i]), s[I][i]...);
      master[i] = nw;
      out[i] = store_as<W>(nw);
    }
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) out[i] = store_as<W>(Rule::step(h, load_as<C>(w[i]), load_as<C>(g[i]), s[I][i]...));
  }
}

template <class Rule, class W, class C>
void run_update(const UpdateParam& p, const ForwardArgs& a, bool mp) {
  std::array<C*, Rule::kStates> s{};
  for (size_t k = 0; k < s.size(); ++k) s[k] = a.inputs[2 + k].ptr<C>();
  const TBlob& last = a.inputs.back();
  C* master = mp ? last.ptr<C>() : nullptr;
  update_elements<Rule, W, C>(Hyper<C>(p), a.inputs[0].size(), a.inputs[0].ptr<W>(), a.inputs[1].ptr<W>(),
                              a.outputs[0].ptr<W>(), s, master, std::make_index_sequence<Rule::kStates>());
}

/// The parts every update op shares; `forward` is the rule-specific piece.
OpDef update_op_def(const UpdateOpSpec& spec, bool mp);

/// weight, grad and out share one dtype; the plain op computes in it (float32/float64), the
/// multi-precision twin also takes float16 and keeps its states and weight32 in float32.
void infer_update_type(const UpdateOpSpec& spec, bool mp, const std::string& name, std::vector<DType>& in,
                       std::vector<DType>& out);

/// One update on the CPU (inputs weight, grad, states[, weight32]; output the new weight), in
/// the compute type the weight's dtype asks for.
template <class Rule>
void update_on_cpu(const UpdateParam& p, const ForwardArgs& a, bool mp, const std::string& name) {
  switch (a.inputs[0].dtype) {
    case DType::Float32:
      return mp ? run_update<Rule, float, float>(p, a, true) : run_update<Rule, float, float>(p, a, false);
    case DType::Float64:
      return mp ? run_update<Rule, double, float>(p, a, true) : run_update<Rule, double, double>(p, a, false);
    case DType::Float16:
      if (mp) return run_update<Rule, half_t, float>(p, a, true);
      break;
    default:
      break;
  }
  throw_unsupported_dtype(a.inputs[0].dtype, name.c_str());
}

/// Registers spec.name and, when spec.mp_name is set, its multi-precision twin.
template <class Rule>
void add_update_ops(Registry& r, const UpdateOpSpec& spec) {
  for (bool mp : {false, true}) {
    if (mp && spec.mp_name.empty()) continue;
    OpDef d = update_op_def(spec, mp);
    d.cpu.forward = [name = d.name, mp](const OpContext&, const std::any& pa, const ForwardArgs& a) {
      if (a.req[0] != OpReq::Null) update_on_cpu<Rule>(param<UpdateParam>(pa), a, mp, name);
    };
    r.add(std::move(d));
  }
}

}  // namespace braid::op::detail
