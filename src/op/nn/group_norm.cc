// GroupNorm and InstanceNorm (MXNet 1.x): the channels of every sample, (N, C, spatial...), in
// G groups of C/G consecutive channels, each group normalized over its channels and positions,
// (x - mean) / sqrt(var + eps), then scaled and shifted by its group's gamma and beta.
// InstanceNorm is the case G = C (gamma, beta per channel; eps 1e-3); GroupNorm's gamma and beta
// are per group, as in MXNet 1.9. Hidden outputs: the mean and std of every (sample, group),
// (N, G), visible from GroupNorm with output_mean_var.
#include <cmath>

#include "nn_util.h"

namespace braid::op::detail {
namespace {

struct GroupNormParam {
  int64_t groups = 1;  // 0: one group per channel (InstanceNorm)
  double eps = 1e-5;
  bool output_mean_var = false;
  const char* op = "GroupNorm";
};

/// The data as N·G blocks of `size` elements each; block o uses gamma/beta [o % G].
struct GroupBlocks {
  int64_t blocks = 0, size = 0, groups = 0;
  GroupBlocks(const GroupNormParam& p, const Shape& s) : groups(p.groups == 0 ? s[1] : p.groups) {
    blocks = s[0] * groups;
    size = blocks == 0 ? 0 : s.size() / blocks;
  }
};

template <class T>
void group_norm_forward(const GroupNormParam& p, const ForwardArgs& a) {
  const GroupBlocks b(p, a.inputs[0].shape);
  const T *x = a.inputs[0].ptr<T>(), *gamma = a.inputs[1].ptr<T>(), *beta = a.inputs[2].ptr<T>();
  T *y = a.outputs[0].ptr<T>(), *saved_mean = a.outputs[1].ptr<T>(), *saved_std = a.outputs[2].ptr<T>();
  const bool save = writes_hidden(a, 1) && writes_hidden(a, 2);
  const double count = static_cast<double>(b.size);
#pragma omp parallel for schedule(static) if (b.blocks * b.size > (1 << 15))
  for (int64_t o = 0; o < b.blocks; ++o) {
    const T* xo = x + o * b.size;
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < b.size; ++i) sum += xo[i];
    const double mean = sum / count;
    for (int64_t i = 0; i < b.size; ++i) sq += (xo[i] - mean) * (xo[i] - mean);
    const double sd = std::sqrt(sq / count + p.eps);
    if (save) saved_mean[o] = static_cast<T>(mean), saved_std[o] = static_cast<T>(sd);
    const T scale = static_cast<T>(gamma[o % b.groups] / sd);
    const T shift = static_cast<T>(beta[o % b.groups] - mean * gamma[o % b.groups] / sd);
    write_each(y + o * b.size, a.req[0], b.size, [=](int64_t i) { return xo[i] * scale + shift; });
  }
}

// The gradients reaching the mean and std outputs (when visible) are propagated too:
// d mean / dx = 1 / n, d std / dx = xhat / n.
template <class T>
void group_norm_backward(const GroupNormParam& p, const BackwardArgs& a) {
  const GroupBlocks b(p, a.inputs[0].shape);
  const T *x = a.inputs[0].ptr<T>(), *gamma = a.inputs[1].ptr<T>(), *dy = a.out_grads[0].ptr<T>();
  const T *saved_mean = a.outputs[1].ptr<T>(), *saved_std = a.outputs[2].ptr<T>();
  const T* g_mean = has_out_grad(a, 1) ? a.out_grads[1].ptr<T>() : nullptr;
  const T* g_std = has_out_grad(a, 2) ? a.out_grads[2].ptr<T>() : nullptr;
  const double count = static_cast<double>(b.size);
  std::vector<double> dgamma(static_cast<size_t>(b.blocks)), dbeta(dgamma.size());
#pragma omp parallel for schedule(static) if (b.blocks * b.size > (1 << 15))
  for (int64_t o = 0; o < b.blocks; ++o) {
    const T *xo = x + o * b.size, *g = dy + o * b.size;
    const double mean = saved_mean[o], rstd = 1 / static_cast<double>(saved_std[o]), gm = gamma[o % b.groups];
    double sum_g = 0, sum_gx = 0;
    for (int64_t i = 0; i < b.size; ++i) {
      sum_g += g[i];
      sum_gx += g[i] * (xo[i] - mean) * rstd;
    }
    dgamma[static_cast<size_t>(o)] = sum_gx;
    dbeta[static_cast<size_t>(o)] = sum_g;
    if (a.req[0] == OpReq::Null) continue;
    // dx = (g·gamma - mean(g·gamma) - xhat·mean(g·gamma·xhat)) / std + g_mean / n + g_std·xhat / n
    const T coef = static_cast<T>(gm * rstd);
    const T per_xhat = static_cast<T>((-gm * sum_gx * rstd + (g_std ? g_std[o] : T(0))) / count);
    const T constant = static_cast<T>((-gm * sum_g * rstd + (g_mean ? g_mean[o] : T(0))) / count);
    const T m = static_cast<T>(mean), r = static_cast<T>(rstd);
    write_each(a.in_grads[0].ptr<T>() + o * b.size, a.req[0], b.size,
               [=](int64_t i) { return g[i] * coef + (xo[i] - m) * r * per_xhat + constant; });
  }
  for (size_t k = 1; k <= 2; ++k) {
    if (a.req[k] == OpReq::Null) continue;
    std::vector<double> per_group(static_cast<size_t>(b.groups), 0.0);
    const std::vector<double>& v = k == 1 ? dgamma : dbeta;
    for (size_t o = 0; o < v.size(); ++o) per_group[o % static_cast<size_t>(b.groups)] += v[o];
    T* d = a.in_grads[k].ptr<T>();
    write_each(d, a.req[k], b.groups, [&](int64_t i) { return static_cast<T>(per_group[static_cast<size_t>(i)]); });
  }
}

bool infer_group_norm_shape(const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
  const auto& p = param<GroupNormParam>(pa);
  merge_shape(in[0], out[0], p.op, "data");
  if (!in[0].fully_known()) return false;
  BRAID_CHECK(in[0].ndim() >= 3 || (p.groups != 0 && in[0].ndim() >= 2), "operator ", p.op,
              ": data must be (batch, channels, ...)", p.groups == 0 ? " with at least one spatial axis" : "",
              "; got shape ", in[0]);
  const int64_t channels = in[0][1];
  BRAID_CHECK(p.groups == 0 || channels % p.groups == 0, "operator ", p.op, ": num_groups=", p.groups,
              " does not divide the ", channels, " channels of data ", in[0]);
  const int64_t groups = p.groups == 0 ? channels : p.groups;
  merge_shape(out[0], in[0], p.op, "output");
  merge_shape(in[1], Shape({groups}), p.op, "gamma");
  merge_shape(in[2], Shape({groups}), p.op, "beta");
  merge_shape(out[1], Shape({in[0][0], groups}), p.op, "mean output");
  merge_shape(out[2], Shape({in[0][0], groups}), p.op, "std output");
  return true;
}

OpDef group_norm_def(const std::string& name, double eps) {
  OpDef d;
  d.name = name;
  d.parse = [name, eps](const AttrMap& attrs) {
    ParamReader rd(attrs, name);
    GroupNormParam p;
    p.op = name == "GroupNorm" ? "GroupNorm" : "InstanceNorm";
    p.eps = rd.get<double>("eps", eps);
    if (name == "GroupNorm") {
      p.groups = rd.get<int64_t>("num_groups", 1);
      p.output_mean_var = rd.get<bool>("output_mean_var", false);
      BRAID_CHECK(p.groups > 0, "operator GroupNorm: num_groups must be positive; got ", p.groups);
    } else {
      p.groups = 0;
    }
    rd.finish();
    BRAID_CHECK(p.eps >= 0, "operator ", name, ": eps must be non-negative; got ", p.eps);
    return std::any(p);
  };
  d.list_arguments = args({"data", "gamma", "beta"});
  d.num_outputs = [](const std::any&) { return 3; };
  d.num_visible_outputs = [](const std::any& pa) { return param<GroupNormParam>(pa).output_mean_var ? 3 : 1; };
  d.list_outputs = [](const std::any& pa) {
    return param<GroupNormParam>(pa).output_mean_var ? std::vector<std::string>{"output", "mean", "std"}
                                                     : std::vector<std::string>{"output"};
  };
  d.infer_shape = infer_group_norm_shape;
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<GroupNormParam>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, p.op, { group_norm_forward<T>(p, a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const auto& p = param<GroupNormParam>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, p.op, { group_norm_backward<T>(p, a); });
  };
  return d;
}

}  // namespace

void register_group_norm_ops(Registry& r) {
  OpDef group = group_norm_def("GroupNorm", 1e-5);
  group.doc =
      "Group normalization: the channels in num_groups groups, each normalized over its channels and "
      "positions, then gamma * x + beta per group.";
  r.add(std::move(group));
  OpDef instance = group_norm_def("InstanceNorm", 1e-3);
  instance.doc =
      "Instance normalization: every channel of every sample normalized over its positions, then "
      "gamma * x + beta per channel.";
  r.add(std::move(instance));
}

}  // namespace braid::op::detail
