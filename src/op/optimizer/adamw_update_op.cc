// MXNet's contrib AdamW updates: _adamw_update, _mp_adamw_update and their multi-weight forms
// _multi_adamw_update, _multi_mp_adamw_update. Unlike the fused updates of update_op_list.h, the
// gradient's scale is an array (the last argument, rescale_grad: the loss scaler's value, read
// at run time), and a scale that is 0, infinite or NaN skips the whole update, leaving weights
// and states as they were (MXNet's dynamic loss scaling relies on it). Per element, in float
// (double for float64 weights):
//   g = clip(rescale_grad * grad); mean = beta1*mean + (1-beta1)*g; var = beta2*var + (1-beta2)*g²
//   w -= eta * (lr * mean / (sqrt(var) + epsilon) + wd * w)
// The mp_ forms keep float32 master weights (weight32) and states beside float16 or float32
// weights, and write the rounded master into the weight.
#include <cmath>

#include "braid/op/param_reader.h"
#include "braid/op/shape_inference.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "update_op.h"

namespace braid::op::detail {
namespace {

struct AdamWParam {
  std::vector<double> lrs, wds, etas;  // one per weight
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8, clip_gradient = -1;
  int num_weights = 1;
};

struct AdamWSpec {
  const char* name;
  bool multi, mp;
  size_t group() const { return mp ? 5 : 4; }  // weight, grad, mean, var (, weight32)
};

AdamWParam parse_adamw(const AttrMap& attrs, const AdamWSpec& spec) {
  ParamReader rd(attrs, spec.name);
  AdamWParam p;
  if (spec.multi) {
    p.lrs = rd.get<std::vector<double>>("lrs");
    p.wds = rd.get<std::vector<double>>("wds");
    p.etas = rd.get<std::vector<double>>("etas");
    p.num_weights = rd.get<int>("num_weights", 1);
  } else {
    p.lrs = {rd.get<double>("lr")};
    p.wds = {rd.get<double>("wd", 0.0)};
    p.etas = {rd.get<double>("eta")};
  }
  p.beta1 = rd.get<double>("beta1", p.beta1);
  p.beta2 = rd.get<double>("beta2", p.beta2);
  p.epsilon = rd.get<double>("epsilon", p.epsilon);
  p.clip_gradient = rd.get<double>("clip_gradient", p.clip_gradient);
  rd.finish();
  const auto n = static_cast<size_t>(p.num_weights);
  BRAID_CHECK(p.num_weights >= 1, spec.name, ": num_weights is ", p.num_weights, "; it must be at least 1");
  BRAID_CHECK(p.lrs.size() == n && p.wds.size() == n && p.etas.size() == n, spec.name, ": num_weights is ", n,
              " but lrs, wds and etas have ", p.lrs.size(), ", ", p.wds.size(), " and ", p.etas.size(),
              " values; give one of each per weight");
  return p;
}

/// Weight i's update: states (and the master copy) in M, the weight in W, computing in C.
template <class W, class M, class C>
void adamw_step(const AdamWParam& p, size_t i, C scale, const ForwardArgs& a, size_t first, bool mp, OpReq req) {
  const TBlob& weight = a.inputs[first];
  const int64_t n = weight.size();
  const W* w = weight.ptr<W>();
  const W* g = a.inputs[first + 1].ptr<W>();
  M* mean = a.inputs[first + 2].ptr<M>();
  M* var = a.inputs[first + 3].ptr<M>();
  M* master = mp ? a.inputs[first + 4].ptr<M>() : nullptr;
  W* out = a.outputs[i].ptr<W>();
  const C lr = C(p.lrs[i]), wd = C(p.wds[i]), eta = C(p.etas[i]), b1 = C(p.beta1), b2 = C(p.beta2);
  const C eps = C(p.epsilon), clip = p.clip_gradient >= 0 ? C(p.clip_gradient) : C(INFINITY);
  for (int64_t k = 0; k < n; ++k) {
    const C d = clip_to(scale * load_as<C>(g[k]), clip);
    const C m = b1 * C(mean[k]) + (C(1) - b1) * d;
    const C v = b2 * C(var[k]) + (C(1) - b2) * d * d;
    mean[k] = M(m);
    var[k] = M(v);
    const C w0 = mp ? C(master[k]) : load_as<C>(w[k]);
    const C w1 = w0 - eta * (lr * m / (std::sqrt(v) + eps) + wd * w0);
    if (mp) master[k] = M(w1);
    assign_stored(out[k], req, w1);
  }
}

void adamw_forward(const AdamWSpec& spec, const AdamWParam& p, const ForwardArgs& a) {
  const double scale = first_element(a.inputs.back(), spec.name);
  if (!std::isfinite(scale) || scale == 0) return;  // MXNet skips the update
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    if (a.req[i] == OpReq::Null) continue;
    const size_t first = i * spec.group();
    by_weight_dtype(a.inputs[first].dtype, spec.mp, spec.name, [&](auto w_tag, auto c_tag) {
      using W = decltype(w_tag);
      using C = decltype(c_tag);
      adamw_step<W, C, C>(p, i, static_cast<C>(scale), a, first, spec.mp, a.req[i]);
    });
  }
}

void add_adamw_op(Registry& r, const AdamWSpec& spec) {
  OpDef d;
  d.name = spec.name;
  d.doc = cat(spec.multi ? "AdamW on num_weights weights (lrs, wds, etas per weight)" : "AdamW",
              spec.mp ? " on float32 master copies weight32" : "",
              ": g = clip(rescale_grad*grad); mean = beta1*mean + (1-beta1)*g; var = beta2*var + (1-beta2)*g^2; "
              "w -= eta*(lr*mean/(sqrt(var) + epsilon) + wd*w). rescale_grad is an array; when it is 0, inf or "
              "NaN nothing is updated.");
  d.parse = [spec](const AttrMap& attrs) { return std::any(parse_adamw(attrs, spec)); };
  const auto count = [](const std::any& pa) {
    return pa.has_value() ? static_cast<size_t>(param<AdamWParam>(pa).num_weights) : size_t{1};
  };
  d.list_arguments = [spec, count](const std::any& pa) {
    std::vector<std::string> per{"weight", "grad", "mean", "var"}, names;
    if (spec.mp) per.push_back("weight32");
    for (size_t i = 0; i < count(pa); ++i)
      for (const auto& n : per) names.push_back(spec.multi ? cat(n, "_", i) : n);
    names.push_back("rescale_grad");
    return names;
  };
  d.num_outputs = [count](const std::any& pa) { return static_cast<int>(count(pa)); };
  d.mutate_inputs = [spec, count](const std::any& pa) {
    std::vector<int> mutated;
    for (size_t i = 0; i < count(pa); ++i)
      for (size_t k = 2; k < spec.group(); ++k) mutated.push_back(static_cast<int>(i * spec.group() + k));
    return mutated;
  };
  d.infer_shape = [spec](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    bool known = true;
    for (size_t i = 0; i < out.size(); ++i) {
      for (size_t k = 0; k < spec.group(); ++k) merge_shape(out[i], in[i * spec.group() + k], spec.name, "weight");
      for (size_t k = 0; k < spec.group(); ++k) merge_shape(in[i * spec.group() + k], out[i], spec.name, "argument");
      known = known && out[i].fully_known();
    }
    if (!in.back().known()) in.back() = Shape({1});
    return known;
  };
  d.infer_type = [spec](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    for (size_t i = 0; i < out.size(); ++i) {
      DType& weight = in[i * spec.group()];
      for (DType t : {out[i], in[i * spec.group() + 1]})
        if (weight == kDTypeUnknown) weight = t;
      out[i] = in[i * spec.group() + 1] = weight;
      for (size_t k = 2; k < spec.group(); ++k)
        if (in[i * spec.group() + k] == kDTypeUnknown) in[i * spec.group() + k] = spec.mp ? DType::Float32 : weight;
    }
    if (in.back() == kDTypeUnknown) in.back() = DType::Float32;
  };
  d.cpu.forward = [spec](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    adamw_forward(spec, param<AdamWParam>(pa), a);
  };
  r.add(std::move(d));
}

}  // namespace

void register_adamw_update_ops(Registry& r) {
  for (const AdamWSpec& spec :
       {AdamWSpec{"_adamw_update", false, false}, AdamWSpec{"_mp_adamw_update", false, true},
        AdamWSpec{"_multi_adamw_update", true, false}, AdamWSpec{"_multi_mp_adamw_update", true, true}})
    add_adamw_op(r, spec);
}

}  // namespace braid::op::detail
