// LayerNorm (MXNet 1.x): normalizes along one axis (default the last) of every sample,
// (x - mean) / sqrt(var + eps) * gamma + beta with gamma, beta of that axis' length.
// Outputs out, mean and std (the last two hidden unless output_mean_var), the statistics shaped
// like the data with the axis reduced to 1.
#include <algorithm>
#include <cmath>

#include "layer_norm.h"
#include "nn_util.h"

namespace braid::op::detail {
namespace {

std::any parse_layer_norm(const AttrMap& attrs) {
  ParamReader rd(attrs, "LayerNorm");
  LayerNormParam p;
  p.axis = rd.get<int>("axis", p.axis);
  p.eps = rd.get<double>("eps", p.eps);
  p.output_mean_var = rd.get<bool>("output_mean_var", p.output_mean_var);
  rd.finish();
  BRAID_CHECK(p.eps >= 0, "operator LayerNorm: eps must be non-negative, got ", p.eps);
  return p;
}

// Sums f(i, k) over i in [0, n) into acc[k] for k in [0, inner); a vectorized reduction over i
// when inner is 1, a loop vectorized over k otherwise.
template <bool kUnit, class F>
void sum_over_axis(int64_t n, int64_t inner, double* acc, F f) {
  if constexpr (kUnit) {
    double r = 0;
#pragma omp simd reduction(+ : r)
    for (int64_t i = 0; i < n; ++i) r += f(i, 0);
    acc[0] = r;
  } else {
    std::fill(acc, acc + inner, 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < inner; ++k) acc[k] += f(i, k);
  }
}

template <class T>
void forward_typed(const LayerNormParam& p, const ForwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const AxisSplit s = AxisSplit::around(data.shape, checked_axis("LayerNorm", p.axis, data.shape));
  const T* gamma = a.inputs[1].ptr<T>();
  const T* beta = a.inputs[2].ptr<T>();
  T* saved_mean = a.outputs[1].ptr<T>();
  T* saved_std = a.outputs[2].ptr<T>();
  const bool save = writes_hidden(a, 1) && writes_hidden(a, 2);
  const double count = static_cast<double>(s.n);
  dispatch_unit_inner(s.inner, [&](auto unit) {
    const int64_t inner = unit ? 1 : s.inner;
    std::vector<double> mean(static_cast<size_t>(inner)), var(mean.size());
    std::vector<T> scale(mean.size()), shift(mean.size());
    for (int64_t o = 0; o < s.outer; ++o) {
      const T* x = data.ptr<T>() + o * s.n * inner;
      T* y = a.outputs[0].ptr<T>() + o * s.n * inner;
      sum_over_axis<decltype(unit)::value>(s.n, inner, mean.data(),
                                           [&](int64_t i, int64_t k) { return x[i * inner + k]; });
      for (auto& m : mean) m /= count;
      sum_over_axis<decltype(unit)::value>(s.n, inner, var.data(), [&](int64_t i, int64_t k) {
        const double d = x[i * inner + k] - mean[static_cast<size_t>(k)];
        return d * d;
      });
      for (size_t k = 0; k < mean.size(); ++k) {
        const double sd = std::sqrt(var[k] / count + p.eps);
        scale[k] = static_cast<T>(1 / sd);
        shift[k] = static_cast<T>(-mean[k] / sd);
        if (save) {
          saved_mean[o * inner + static_cast<int64_t>(k)] = static_cast<T>(mean[k]);
          saved_std[o * inner + static_cast<int64_t>(k)] = static_cast<T>(sd);
        }
      }
      for (int64_t i = 0; i < s.n; ++i)
        write_each(y + i * inner, a.req[0], inner, [&](int64_t k) {
          return (x[i * inner + k] * scale[static_cast<size_t>(k)] + shift[static_cast<size_t>(k)]) * gamma[i] +
                 beta[i];
        });
    }
  });
}

// Uses the saved mean and std; the gradients arriving at those outputs (zero when unused)
// are propagated too: d mean / dx = 1 / n, d std / dx = xhat / n.
template <class T>
void backward_typed(const LayerNormParam& p, const BackwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const AxisSplit s = AxisSplit::around(data.shape, checked_axis("LayerNorm", p.axis, data.shape));
  const T* gamma = a.inputs[1].ptr<T>();
  const T* saved_mean = a.outputs[1].ptr<T>();
  const T* saved_std = a.outputs[2].ptr<T>();
  const T* g_mean = has_out_grad(a, 1) ? a.out_grads[1].ptr<T>() : nullptr;
  const T* g_std = has_out_grad(a, 2) ? a.out_grads[2].ptr<T>() : nullptr;
  const double count = static_cast<double>(s.n);
  std::vector<double> dgamma(static_cast<size_t>(s.n), 0.0), dbeta(dgamma.size(), 0.0);
  dispatch_unit_inner(s.inner, [&](auto unit) {
    const int64_t inner = unit ? 1 : s.inner;
    std::vector<double> sum_dxh(static_cast<size_t>(inner)), sum_dxh_xh(sum_dxh.size());
    std::vector<T> mean(sum_dxh.size()), rstd(sum_dxh.size()), gx(sum_dxh.size()), c0(sum_dxh.size());
    for (int64_t o = 0; o < s.outer; ++o) {
      const int64_t off = o * s.n * inner;
      const T* x = data.ptr<T>() + off;
      const T* g = a.out_grads[0].ptr<T>() + off;
      for (int64_t k = 0; k < inner; ++k) {
        mean[static_cast<size_t>(k)] = saved_mean[o * inner + k];
        rstd[static_cast<size_t>(k)] = T(1) / saved_std[o * inner + k];
      }
      auto xhat = [&](int64_t i, int64_t k) {
        return (x[i * inner + k] - mean[static_cast<size_t>(k)]) * rstd[static_cast<size_t>(k)];
      };
      sum_over_axis<decltype(unit)::value>(s.n, inner, sum_dxh.data(),
                                           [&](int64_t i, int64_t k) { return g[i * inner + k] * gamma[i]; });
      sum_over_axis<decltype(unit)::value>(s.n, inner, sum_dxh_xh.data(), [&](int64_t i, int64_t k) {
        return g[i * inner + k] * gamma[i] * xhat(i, k);
      });
      for (int64_t i = 0; i < s.n; ++i) {
        double dg = 0, db = 0;
        for (int64_t k = 0; k < inner; ++k) {
          dg += g[i * inner + k] * xhat(i, k);
          db += g[i * inner + k];
        }
        dgamma[static_cast<size_t>(i)] += dg;
        dbeta[static_cast<size_t>(i)] += db;
      }
      if (a.req[0] == OpReq::Null) continue;
      // dx = (g * gamma - mean(g * gamma) - xhat * mean(g * gamma * xhat)) * rstd
      //      + g_mean / n + g_std * xhat / n  =  g * gamma * rstd + xhat * gx + c0.
      for (int64_t k = 0; k < inner; ++k) {
        const auto kk = static_cast<size_t>(k);
        const int64_t j = o * inner + k;
        gx[kk] = static_cast<T>((-sum_dxh_xh[kk] * rstd[kk] + (g_std ? g_std[j] : T(0))) / count);
        c0[kk] = static_cast<T>((-sum_dxh[kk] * rstd[kk] + (g_mean ? g_mean[j] : T(0))) / count);
      }
      T* dx = a.in_grads[0].ptr<T>() + off;
      for (int64_t i = 0; i < s.n; ++i)
        write_each(dx + i * inner, a.req[0], inner, [&](int64_t k) {
          const auto kk = static_cast<size_t>(k);
          return g[i * inner + k] * gamma[i] * rstd[kk] + xhat(i, k) * gx[kk] + c0[kk];
        });
    }
  });
  for (size_t k = 1; k <= 2; ++k) {
    if (a.req[k] == OpReq::Null) continue;
    const std::vector<double>& v = k == 1 ? dgamma : dbeta;
    T* d = a.in_grads[k].ptr<T>();
    for (size_t i = 0; i < v.size(); ++i) assign(d[i], a.req[k], static_cast<T>(v[i]));
  }
}

bool infer_layer_norm_shape(const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
  const auto& p = param<LayerNormParam>(pa);
  merge_shape(in[0], out[0], "LayerNorm", "data");
  if (!in[0].known()) return false;
  merge_shape(out[0], in[0], "LayerNorm", "output");
  const int axis = checked_axis("LayerNorm", p.axis, in[0]);
  const Shape ps({in[0][axis]});
  merge_shape(in[1], ps, "LayerNorm", "gamma");
  merge_shape(in[2], ps, "LayerNorm", "beta");
  Shape stat = in[0];
  stat[axis] = 1;
  merge_shape(out[1], stat, "LayerNorm", "mean output");
  merge_shape(out[2], stat, "LayerNorm", "std output");
  return all_known(in) && all_known(out);
}

}  // namespace

void register_layer_norm_ops(Registry& r) {
  OpDef d;
  d.name = "LayerNorm";
  d.doc =
      "Layer normalization along `axis` (default -1): (x - mean) / sqrt(var + eps) * gamma + beta. "
      "Outputs out, and with output_mean_var also the mean and std (axis reduced to 1).";
  d.parse = parse_layer_norm;
  d.list_arguments = args({"data", "gamma", "beta"});
  d.num_outputs = [](const std::any&) { return 3; };
  d.num_visible_outputs = [](const std::any& p) { return param<LayerNormParam>(p).output_mean_var ? 3 : 1; };
  d.infer_shape = infer_layer_norm_shape;
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "LayerNorm", { forward_typed<T>(param<LayerNormParam>(pa), a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "LayerNorm", { backward_typed<T>(param<LayerNormParam>(pa), a); });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
