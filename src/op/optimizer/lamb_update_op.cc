// MXNet's LAMB updates (You et al. 2019): the two phases lamb_update_phase1 / phase2 and their
// mp_ forms, and the fused multi-tensor _multi_lamb_update / _multi_mp_lamb_update.
//   phase 1: g = clip(rescale_grad*grad); mean = beta1*mean + (1-beta1)*g; var = beta2*var + (1-beta2)*g²
//            d = mean^ / (sqrt(var^) + epsilon) + wd*w, with mean^ = mean/(1-beta1^t) and
//            var^ = var/(1-beta2^t) under bias_correction, mean and var otherwise
//   phase 2: r1 = ||w|| clipped to [lower_bound, upper_bound] (each where >= 0), r2 = ||d||;
//            w -= lr * (r1 and r2 nonzero ? r1/r2 : 1) * d
// The phases take r1 and r2 as arrays (the caller's norms); the multi form computes them itself.
// mp_ forms read float32 master weights (weight32); mp_lamb_update_phase2 writes the weight
// from the master without updating the master, as MXNet 1.9.1 does, while the multi form also
// updates the master.
#include <algorithm>
#include <cmath>

#include "braid/op/param_reader.h"
#include "braid/op/shape_inference.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "update_op.h"

namespace braid::op::detail {
namespace {

struct LambMoments {
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-6, rescale_grad = 1, clip_gradient = -1;
  bool bias_correction = true;
};

struct LambPhase1Param {
  LambMoments m;
  double wd = 0;
  int64_t t = 1;
};

struct LambPhase2Param {
  double lr = 0, lower_bound = -1, upper_bound = -1;
};

struct MultiLambParam {
  LambMoments m;
  std::vector<double> lrs, wds;
  std::vector<int64_t> steps;
  double lower_bound = -1, upper_bound = -1;
  int num_tensors = 1;
};

LambMoments read_moments(ParamReader& rd) {
  LambMoments m;
  m.beta1 = rd.get<double>("beta1", m.beta1);
  m.beta2 = rd.get<double>("beta2", m.beta2);
  m.epsilon = rd.get<double>("epsilon", m.epsilon);
  m.rescale_grad = rd.get<double>("rescale_grad", m.rescale_grad);
  m.clip_gradient = rd.get<double>("clip_gradient", m.clip_gradient);
  m.bias_correction = rd.get<bool>("bias_correction", m.bias_correction);
  return m;
}

/// Phase 1 on n elements in float (double for float64 weights): updates mean and var, writes d.
template <class W, class M, class C>
void lamb_direction(const LambMoments& m, double wd, int64_t t, int64_t n, const W* w, const M* master, const W* g,
                    M* mean, M* var, C* d) {
  const C b1 = C(m.beta1), b2 = C(m.beta2), eps = C(m.epsilon), scale = C(m.rescale_grad), wdc = C(wd);
  const C clip = m.clip_gradient >= 0 ? C(m.clip_gradient) : C(INFINITY);
  const C c1 = m.bias_correction ? C(1) / (C(1) - C(std::pow(m.beta1, static_cast<double>(t)))) : C(1);
  const C c2 = m.bias_correction ? C(1) / (C(1) - C(std::pow(m.beta2, static_cast<double>(t)))) : C(1);
  for (int64_t k = 0; k < n; ++k) {
    const C gk = clip_to(scale * load_as<C>(g[k]), clip);
    const C mk = b1 * C(mean[k]) + (C(1) - b1) * gk;
    const C vk = b2 * C(var[k]) + (C(1) - b2) * gk * gk;
    mean[k] = M(mk);
    var[k] = M(vk);
    const C wk = master ? C(master[k]) : load_as<C>(w[k]);
    d[k] = (mk * c1) / (std::sqrt(vk * c2) + eps) + wdc * wk;
  }
}

/// The trust ratio's learning rate: lr * r1/r2 (r1 clipped), or lr where either norm is 0.
double lamb_rate(double lr, double r1, double r2, double lower, double upper) {
  if (lower >= 0) r1 = std::max(r1, lower);
  if (upper >= 0) r1 = std::min(r1, upper);
  return r1 == 0 || r2 == 0 ? lr : lr * r1 / r2;
}

template <class T>
double sum_of_squares(const T* x, int64_t n) {
  double s = 0;
  for (int64_t k = 0; k < n; ++k) s += static_cast<double>(load_as<float>(x[k])) * load_as<float>(x[k]);
  return s;
}

// Shapes: every argument but r1 and r2 (phase 2) has the weight's shape, as the output.
bool lamb_shapes(const char* op, std::vector<Shape>& in, std::vector<Shape>& out, const std::vector<bool>& scalar) {
  for (size_t k = 0; k < in.size(); ++k)
    if (!scalar[k]) merge_shape(out[0], in[k], op, "weight");
  for (size_t k = 0; k < in.size(); ++k) merge_shape(in[k], scalar[k] ? Shape({1}) : out[0], op, "argument");
  return out[0].fully_known();
}

// ---- the phases ----

OpDef lamb_phase_def(const char* name, std::vector<std::string> args, std::vector<int> mutated, const char* doc) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.list_arguments = [args](const std::any&) { return args; };
  d.mutate_inputs = [mutated](const std::any&) { return mutated; };
  return d;
}

void add_lamb_phase1(Registry& r, const char* name, bool mp) {
  OpDef d = mp ? lamb_phase_def(name, {"weight", "grad", "mean", "var", "weight32"}, {2, 3},
                                "LAMB phase 1 on float32 master weights: the direction d (float32), updating mean "
                                "and var.")
               : lamb_phase_def(name, {"weight", "grad", "mean", "var"}, {2, 3},
                                "LAMB phase 1: the direction d = mean^/(sqrt(var^) + epsilon) + wd*w, updating mean "
                                "and var.");
  d.parse = [name](const AttrMap& attrs) {
    ParamReader rd(attrs, name);
    LambPhase1Param p;
    p.m = read_moments(rd);
    p.t = rd.get<int64_t>("t");
    p.wd = rd.get<double>("wd");
    rd.finish();
    BRAID_CHECK(p.t >= 1, name, ": t (the step) is ", p.t, "; steps count from 1");
    return std::any(p);
  };
  d.infer_shape = [name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return lamb_shapes(name, in, out, std::vector<bool>(in.size(), false));
  };
  d.infer_type = [mp](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (in[0] == kDTypeUnknown) in[0] = in[1];
    in[1] = in[0];
    for (size_t k = 2; k < in.size(); ++k)
      if (in[k] == kDTypeUnknown) in[k] = mp ? DType::Float32 : in[0];
    out[0] = mp ? DType::Float32 : in[0];
  };
  d.cpu.forward = [name, mp](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<LambPhase1Param>(pa);
    const int64_t n = a.inputs[0].size();
    if (a.req[0] == OpReq::Null) return;
    const auto run = [&](auto w_tag, auto c_tag) {
      using W = decltype(w_tag);
      using C = decltype(c_tag);
      std::vector<C> d(static_cast<size_t>(n));
      lamb_direction<W, C, C>(p.m, p.wd, p.t, n, a.inputs[0].ptr<W>(), mp ? a.inputs[4].ptr<C>() : nullptr,
                              a.inputs[1].ptr<W>(), a.inputs[2].ptr<C>(), a.inputs[3].ptr<C>(), d.data());
      C* out = a.outputs[0].ptr<C>();
      for (int64_t k = 0; k < n; ++k) assign(out[k], a.req[0], d[static_cast<size_t>(k)]);
    };
    by_weight_dtype(a.inputs[0].dtype, mp, name, run);
  };
  r.add(std::move(d));
}

void add_lamb_phase2(Registry& r, const char* name, bool mp) {
  OpDef d = mp ? lamb_phase_def(name, {"weight", "g", "r1", "r2", "weight32"}, {4},
                                "LAMB phase 2 from float32 master weights: weight = weight32 - lr*ratio*g (the master "
                                "itself is left as it is, as in MXNet 1.9.1).")
               : lamb_phase_def(name, {"weight", "g", "r1", "r2"}, {},
                                "LAMB phase 2: w -= lr*ratio*g, ratio = r1/r2 with r1 (||w||) clipped to "
                                "[lower_bound, upper_bound], or 1 where a norm is 0.");
  d.parse = [name](const AttrMap& attrs) {
    ParamReader rd(attrs, name);
    LambPhase2Param p;
    p.lr = rd.get<double>("lr");
    p.lower_bound = rd.get<double>("lower_bound", p.lower_bound);
    p.upper_bound = rd.get<double>("upper_bound", p.upper_bound);
    rd.finish();
    return std::any(p);
  };
  d.infer_shape = [name, mp](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    std::vector<bool> scalar{false, false, true, true};
    if (mp) scalar.push_back(false);
    return lamb_shapes(name, in, out, scalar);
  };
  d.infer_type = [mp](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (in[0] == kDTypeUnknown) in[0] = out[0];
    for (size_t k = 1; k < in.size(); ++k)
      if (in[k] == kDTypeUnknown) in[k] = mp ? DType::Float32 : in[0];
    out[0] = in[0];
  };
  d.cpu.forward = [name, mp](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<LambPhase2Param>(pa);
    if (a.req[0] == OpReq::Null) return;
    const double rate = lamb_rate(p.lr, first_element(a.inputs[2], name), first_element(a.inputs[3], name),
                                  p.lower_bound, p.upper_bound);
    const int64_t n = a.inputs[0].size();
    const auto run = [&](auto w_tag, auto c_tag) {
      using W = decltype(w_tag);
      using C = decltype(c_tag);
      const C* g = a.inputs[1].ptr<C>();
      const W* w = a.inputs[0].ptr<W>();
      const C* master = mp ? a.inputs[4].ptr<C>() : nullptr;
      W* out = a.outputs[0].ptr<W>();
      for (int64_t k = 0; k < n; ++k) {
        const C from = master ? master[k] : load_as<C>(w[k]);
        assign_stored(out[k], a.req[0], from - C(rate) * g[k]);
      }
    };
    by_weight_dtype(a.inputs[0].dtype, mp, name, run);
  };
  r.add(std::move(d));
}

// ---- the multi-tensor form ----

MultiLambParam parse_multi_lamb(const AttrMap& attrs, const char* name) {
  ParamReader rd(attrs, name);
  MultiLambParam p;
  p.m = read_moments(rd);
  p.lrs = rd.get<std::vector<double>>("learning_rates");
  p.wds = rd.get<std::vector<double>>("wds");
  p.steps = rd.get<std::vector<int64_t>>("step_count");
  p.lower_bound = rd.get<double>("lower_bound", p.lower_bound);
  p.upper_bound = rd.get<double>("upper_bound", p.upper_bound);
  p.num_tensors = rd.get<int>("num_tensors", 1);
  rd.finish();
  const auto n = static_cast<size_t>(p.num_tensors);
  BRAID_CHECK(p.num_tensors >= 1 && p.lrs.size() == n && p.wds.size() == n && p.steps.size() == n, name,
              ": num_tensors is ", p.num_tensors, " but learning_rates, wds and step_count have ", p.lrs.size(), ", ",
              p.wds.size(), " and ", p.steps.size(), " values; give one of each per tensor");
  return p;
}

template <class W>
void multi_lamb_tensor(const MultiLambParam& p, size_t i, const ForwardArgs& a, size_t first, bool mp) {
  const int64_t n = a.inputs[first].size();
  const W* w = a.inputs[first].ptr<W>();
  float* master = mp ? a.inputs[first + 4].ptr<float>() : nullptr;
  std::vector<float> d(static_cast<size_t>(n));
  lamb_direction<W, float, float>(p.m, p.wds[i], p.steps[i], n, w, master, a.inputs[first + 1].ptr<W>(),
                                  a.inputs[first + 2].ptr<float>(), a.inputs[first + 3].ptr<float>(), d.data());
  const double rate = lamb_rate(p.lrs[i], std::sqrt(sum_of_squares(w, n)), std::sqrt(sum_of_squares(d.data(), n)),
                                p.lower_bound, p.upper_bound);
  W* out = a.outputs[i].ptr<W>();
  for (int64_t k = 0; k < n; ++k) {
    const float updated =
        (mp ? master[k] : load_as<float>(w[k])) - static_cast<float>(rate) * d[static_cast<size_t>(k)];
    if (mp) master[k] = updated;
    assign_stored(out[k], a.req[i], updated);
  }
}

void add_multi_lamb(Registry& r, const char* name, bool mp) {
  const size_t group = mp ? 5 : 4;
  OpDef d;
  d.name = name;
  d.doc = mp ? "LAMB on num_tensors float16 or float32 tensors with float32 master copies weight32_i (both phases; the "
               "norms computed here)."
             : "LAMB on num_tensors float32 tensors (both phases; the norms computed here): learning_rates, wds and "
               "step_count per tensor.";
  d.parse = [name](const AttrMap& attrs) { return std::any(parse_multi_lamb(attrs, name)); };
  const auto count = [](const std::any& pa) {
    return pa.has_value() ? static_cast<size_t>(param<MultiLambParam>(pa).num_tensors) : size_t{1};
  };
  d.list_arguments = [count, mp](const std::any& pa) {
    std::vector<std::string> per{"weight", "grad", "mean", "var"}, names;
    if (mp) per.push_back("weight32");
    for (size_t i = 0; i < count(pa); ++i)
      for (const auto& n : per) names.push_back(cat(n, "_", i));
    return names;
  };
  d.num_outputs = [count](const std::any& pa) { return static_cast<int>(count(pa)); };
  d.mutate_inputs = [count, group](const std::any& pa) {
    std::vector<int> mutated;
    for (size_t i = 0; i < count(pa); ++i)
      for (size_t k = 2; k < group; ++k) mutated.push_back(static_cast<int>(i * group + k));
    return mutated;
  };
  d.infer_shape = [name, group](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    bool known = true;
    for (size_t i = 0; i < out.size(); ++i) {
      std::vector<Shape> args(in.begin() + static_cast<long>(i * group),
                              in.begin() + static_cast<long>((i + 1) * group));
      std::vector<Shape> result{out[i]};
      known = lamb_shapes(name, args, result, std::vector<bool>(group, false)) && known;
      std::copy(args.begin(), args.end(), in.begin() + static_cast<long>(i * group));
      out[i] = result[0];
    }
    return known;
  };
  d.infer_type = [group](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    for (size_t i = 0; i < out.size(); ++i) {
      DType& weight = in[i * group];
      if (weight == kDTypeUnknown) weight = out[i] != kDTypeUnknown ? out[i] : in[i * group + 1];
      out[i] = in[i * group + 1] = weight;
      for (size_t k = 2; k < group; ++k) in[i * group + k] = DType::Float32;
    }
  };
  d.cpu.forward = [name, mp, group](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<MultiLambParam>(pa);
    for (size_t i = 0; i < a.outputs.size(); ++i) {
      if (a.req[i] == OpReq::Null) continue;
      const DType t = a.inputs[i * group].dtype;
      if (t == DType::Float32) {
        multi_lamb_tensor<float>(p, i, a, i * group, mp);
      } else {
        BRAID_CHECK(mp && t == DType::Float16, name, ": tensor ", i, " is ", dtype_name(t),
                    mp ? "; it updates float16 or float32 tensors" : "; it updates float32 tensors");
        multi_lamb_tensor<half_t>(p, i, a, i * group, true);
      }
    }
  };
  r.add(std::move(d));
}

}  // namespace

void register_lamb_update_ops(Registry& r) {
  add_lamb_phase1(r, "lamb_update_phase1", false);
  add_lamb_phase1(r, "mp_lamb_update_phase1", true);
  add_lamb_phase2(r, "lamb_update_phase2", false);
  add_lamb_phase2(r, "mp_lamb_update_phase2", true);
  add_multi_lamb(r, "_multi_lamb_update", false);
  add_multi_lamb(r, "_multi_mp_lamb_update", true);
}

}  // namespace braid::op::detail
