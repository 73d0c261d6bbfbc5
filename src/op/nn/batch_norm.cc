// BatchNorm (MXNet 1.x): per-channel normalization over every axis but `axis`.
// Inputs data, gamma, beta; aux moving_mean, moving_var; outputs out, mean, inverse std (the last
// two hidden unless output_mean_var). In training (and not use_global_stats) the batch statistics
// are used and the moving ones updated in place by the forward pass (MXNet's CPU kernel does this
// in its backward pass; updating in forward also serves inference-only training loops). The
// variance is the biased one, in normalization and in the moving average alike, as MXNet.
#include <cmath>

#include "batch_norm.h"
#include "nn_util.h"

namespace braid::op::detail {
namespace {

// The attributes BatchNorm and SyncBatchNorm share.
BatchNormParam read_batch_norm_common(ParamReader& rd) {
  BatchNormParam p;
  p.eps = rd.get<double>("eps", p.eps);
  p.momentum = rd.get<double>("momentum", p.momentum);
  p.fix_gamma = rd.get<bool>("fix_gamma", p.fix_gamma);
  p.use_global_stats = rd.get<bool>("use_global_stats", p.use_global_stats);
  p.output_mean_var = rd.get<bool>("output_mean_var", p.output_mean_var);
  return p;
}

std::any parse_batch_norm(const AttrMap& attrs) {
  ParamReader rd(attrs, "BatchNorm");
  BatchNormParam p = read_batch_norm_common(rd);
  p.axis = rd.get<int>("axis", p.axis);
  // Accepted for compatibility, without effect on the CPU: cuDNN choice and quantization ranges.
  rd.get<bool>("cudnn_off", false);
  rd.get_optional<double>("min_calib_range");
  rd.get_optional<double>("max_calib_range");
  rd.finish();
  BRAID_CHECK(p.eps >= 0, "operator BatchNorm: eps must be non-negative, got ", p.eps);
  return p;
}

// Statistics are accumulated in double whatever the data type.
template <class F>
void channel_reduce(const AxisSplit& s, std::vector<double>& acc, F f) {
  dispatch_unit_inner(s.inner, [&](auto unit) {
    const int64_t inner = unit ? 1 : s.inner;
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t c = 0; c < s.n; ++c) {
        const int64_t base = (o * s.n + c) * inner;
        double r = 0;
#pragma omp simd reduction(+ : r)
        for (int64_t k = 0; k < inner; ++k) r += f(base + k, c);
        acc[static_cast<size_t>(c)] += r;
      }
  });
}

// out[i] (req) f(i, c) for every element i of channel c.
template <class T, class F>
void channel_write(const AxisSplit& s, T* out, OpReq req, F f) {
  dispatch_unit_inner(s.inner, [&](auto unit) {
    const int64_t inner = unit ? 1 : s.inner;
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t c = 0; c < s.n; ++c) {
        const int64_t base = (o * s.n + c) * inner;
        write_each(out + base, req, inner, [&](int64_t k) { return f(base + k, c); });
      }
  });
}

template <class T>
void forward_typed(const OpContext& ctx, const BatchNormParam& p, const ForwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const AxisSplit s = AxisSplit::around(data.shape, checked_axis("BatchNorm", p.axis, data.shape));
  const auto channels = static_cast<size_t>(s.n);
  const double count = static_cast<double>(s.outer * s.inner);
  const T* x = data.ptr<T>();
  const T* gamma = a.inputs[1].ptr<T>();
  const T* beta = a.inputs[2].ptr<T>();
  T* moving_mean = a.aux[0].ptr<T>();
  T* moving_var = a.aux[1].ptr<T>();

  std::vector<double> mean(channels, 0.0), invstd(channels, 0.0);
  if (ctx.is_train && !p.use_global_stats) {
    std::vector<double> var(channels, 0.0);
    if (count > 0) {
      channel_reduce(s, mean, [x](int64_t i, int64_t) { return static_cast<double>(x[i]); });
      for (auto& m : mean) m /= count;
      channel_reduce(s, var, [&](int64_t i, int64_t c) {
        const double d = x[i] - mean[static_cast<size_t>(c)];
        return d * d;
      });
      for (auto& v : var) v /= count;
    }
    const double mom = p.momentum;
    for (size_t c = 0; c < channels; ++c) {
      invstd[c] = to_invstd(var[c], p.eps);
      moving_mean[c] = static_cast<T>(moving_mean[c] * mom + mean[c] * (1 - mom));
      moving_var[c] = static_cast<T>(moving_var[c] * mom + var[c] * (1 - mom));
    }
  } else {
    for (size_t c = 0; c < channels; ++c) {
      mean[c] = moving_mean[c];
      invstd[c] = to_invstd(moving_var[c], p.eps);
    }
  }

  // y = (x - mean) * invstd * gamma + beta = x * scale + shift.
  std::vector<T> scale(channels), shift(channels);
  for (size_t c = 0; c < channels; ++c) {
    const double sc = invstd[c] * (p.fix_gamma ? 1.0 : static_cast<double>(gamma[c]));
    scale[c] = static_cast<T>(sc);
    shift[c] = static_cast<T>(beta[c] - mean[c] * sc);
  }
  channel_write(s, a.outputs[0].ptr<T>(), a.req[0], [&](int64_t i, int64_t c) {
    return x[i] * scale[static_cast<size_t>(c)] + shift[static_cast<size_t>(c)];
  });
  for (size_t k = 1; k <= 2; ++k) {
    if (!writes_hidden(a, k)) continue;
    const std::vector<double>& v = k == 1 ? mean : invstd;
    T* o = a.outputs[k].ptr<T>();
    for (size_t c = 0; c < channels; ++c) o[c] = static_cast<T>(v[c]);
  }
}

// Uses the statistics forward saved in its outputs, so it needs no access to the moving ones.
// With batch statistics the gradients arriving at the mean and inverse-std outputs (zero when
// they are not used) are propagated too.
template <class T>
void backward_typed(const OpContext& ctx, const BatchNormParam& p, const BackwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const AxisSplit s = AxisSplit::around(data.shape, checked_axis("BatchNorm", p.axis, data.shape));
  const auto channels = static_cast<size_t>(s.n);
  const double count = static_cast<double>(s.outer * s.inner);
  const T* x = data.ptr<T>();
  const T* gamma = a.inputs[1].ptr<T>();
  const T* g = a.out_grads[0].ptr<T>();
  const T* mean = a.outputs[1].ptr<T>();
  const T* invstd = a.outputs[2].ptr<T>();

  std::vector<double> sum_g(channels, 0.0), dot(channels, 0.0);  // sum g, sum (x - mean) * g
  channel_reduce(s, sum_g, [g](int64_t i, int64_t) { return static_cast<double>(g[i]); });
  channel_reduce(s, dot, [&](int64_t i, int64_t c) { return (static_cast<double>(x[i]) - mean[c]) * g[i]; });

  if (a.req[0] != OpReq::Null) {
    // dx = g * ga + x * xa + c0 per channel.
    std::vector<T> ga(channels), xa(channels), c0(channels);
    const bool batch = ctx.is_train && !p.use_global_stats;
    const T* g_mean = batch && has_out_grad(a, 1) ? a.out_grads[1].ptr<T>() : nullptr;
    const T* g_invstd = batch && has_out_grad(a, 2) ? a.out_grads[2].ptr<T>() : nullptr;
    for (size_t c = 0; c < channels; ++c) {
      const double is = invstd[c], iw = is * (p.fix_gamma ? 1.0 : static_cast<double>(gamma[c]));
      double xc = 0, cc = 0;
      if (batch && count > 0) {
        // d/dx of the normalized output through the batch mean and variance, plus the direct
        // paths of the saved mean (1/count each) and inverse std (-is^3 (x - mean) / count).
        xc = -dot[c] * is * is / count * iw;
        cc = -sum_g[c] / count * iw;
        if (g_mean) cc += g_mean[c] / count;
        if (g_invstd) xc -= g_invstd[c] * is * is * is / count;
      }
      ga[c] = static_cast<T>(iw);
      xa[c] = static_cast<T>(xc);
      c0[c] = static_cast<T>(cc - mean[c] * xc);
    }
    channel_write(s, a.in_grads[0].ptr<T>(), a.req[0], [&](int64_t i, int64_t c) {
      const auto k = static_cast<size_t>(c);
      return g[i] * ga[k] + x[i] * xa[k] + c0[k];
    });
  }
  if (a.req[1] != OpReq::Null) {
    T* dgamma = a.in_grads[1].ptr<T>();
    for (size_t c = 0; c < channels; ++c)
      assign(dgamma[c], a.req[1], p.fix_gamma ? T(0) : static_cast<T>(dot[c] * invstd[c]));
  }
  if (a.req[2] != OpReq::Null) {
    T* dbeta = a.in_grads[2].ptr<T>();
    for (size_t c = 0; c < channels; ++c) assign(dbeta[c], a.req[2], static_cast<T>(sum_g[c]));
  }
}

bool infer_batch_norm_shape(const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out,
                            std::vector<Shape>& aux) {
  const auto& p = param<BatchNormParam>(pa);
  merge_shape(in[0], out[0], "BatchNorm", "data");
  if (!in[0].known()) return false;
  merge_shape(out[0], in[0], "BatchNorm", "output");
  const int axis = checked_axis("BatchNorm", p.axis, in[0]);
  const Shape cs({in[0][axis]});
  const char* names[] = {"gamma", "beta"};
  for (size_t i = 1; i <= 2; ++i) merge_shape(in[i], cs, "BatchNorm", names[i - 1]);
  merge_shape(aux[0], cs, "BatchNorm", "moving_mean");
  merge_shape(aux[1], cs, "BatchNorm", "moving_var");
  merge_shape(out[1], cs, "BatchNorm", "mean output");
  merge_shape(out[2], cs, "BatchNorm", "inverse-std output");
  return all_known(in) && all_known(out) && all_known(aux);
}

std::any parse_sync_batch_norm(const AttrMap& attrs) {
  ParamReader rd(attrs, "SyncBatchNorm");
  BatchNormParam p = read_batch_norm_common(rd);
  rd.get<std::string>("key", "");
  const auto ndev = rd.get<int64_t>("ndev", 1);
  rd.finish();
  BRAID_CHECK(ndev == 1, "operator SyncBatchNorm: ndev=", ndev,
              " (statistics shared between devices of one process) "
              "is not supported; use ndev=1, or BatchNorm with one process per device and a kvstore");
  BRAID_CHECK(p.eps >= 0, "operator SyncBatchNorm: eps must be non-negative, got ", p.eps);
  return p;
}

/// The variances whose inverse std is `invstd` (SyncBatchNorm's third output, where BatchNorm's
/// is the inverse std).
template <class T>
std::vector<T> var_from_invstd(const TBlob& invstd, double eps) {
  std::vector<T> v(static_cast<size_t>(invstd.size()));
  const T* is = invstd.ptr<T>();
  for (size_t c = 0; c < v.size(); ++c) v[c] = is[c] == T(0) ? T(0) : static_cast<T>(1 / (is[c] * is[c]) - eps);
  return v;
}

std::any parse_batch_norm_v1(const AttrMap& attrs) {
  ParamReader rd(attrs, "BatchNorm_v1");
  BatchNormParam p = read_batch_norm_common(rd);
  rd.get<bool>("cudnn_off", false);
  rd.finish();
  BRAID_CHECK(p.eps >= 0, "operator BatchNorm_v1: eps must be non-negative, got ", p.eps);
  return p;
}

// BatchNorm over axis 1 whose third output holds the variance, which its backward turns back
// into the inverse std BatchNorm's backward reads: contrib.SyncBatchNorm (MXNet 1.x shares its
// statistics between the ndev devices of one process; one device here) and BatchNorm_v1.
void add_variance_batch_norm(Registry& r, const std::string& name, std::any (*parse)(const AttrMap&)) {
  OpDef d = r.find("BatchNorm");
  d.name = name;
  d.doc = "BatchNorm over axis 1; with output_mean_var the mean and the variance.";
  d.parse = parse;
  d.gpu = Kernels{};
  const Kernels bn = d.cpu;
  d.cpu.forward = [bn](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    bn.forward(ctx, pa, a);
    if (!writes_hidden(a, 2)) return;
    BRAID_REAL_TYPE_SWITCH(a.outputs[2].dtype, T, "BatchNorm", {
      const std::vector<T> var = var_from_invstd<T>(a.outputs[2], param<BatchNormParam>(pa).eps);
      std::copy(var.begin(), var.end(), a.outputs[2].ptr<T>());
    });
  };
  d.cpu.backward = [bn](const OpContext& ctx, const std::any& pa, const BackwardArgs& a) {
    const double eps = param<BatchNormParam>(pa).eps;
    BRAID_REAL_TYPE_SWITCH(a.outputs[2].dtype, T, "BatchNorm", {
      const T* var = a.outputs[2].ptr<T>();
      std::vector<T> invstd(static_cast<size_t>(a.outputs[2].size())), g_invstd;
      for (size_t c = 0; c < invstd.size(); ++c) invstd[c] = static_cast<T>(to_invstd(var[c], eps));
      BackwardArgs b = a;
      b.outputs[2].dptr = invstd.data();
      if (has_out_grad(a, 2)) {  // d var / d invstd = -2 / invstd³
        const T* g = a.out_grads[2].ptr<T>();
        g_invstd.resize(invstd.size());
        for (size_t c = 0; c < invstd.size(); ++c)
          g_invstd[c] = invstd[c] == T(0) ? T(0) : static_cast<T>(-2 * g[c] / (invstd[c] * invstd[c] * invstd[c]));
        b.out_grads[2].dptr = g_invstd.data();
      }
      bn.backward(ctx, pa, b);
    });
  };
  r.add(std::move(d));
}

}  // namespace

void register_batch_norm_ops(Registry& r) {
  OpDef d;
  d.name = "BatchNorm";
  d.doc =
      "Batch normalization over every axis but `axis` (default 1, the channels): "
      "(x - mean) / sqrt(var + eps) * gamma + beta, with gamma fixed to 1 when fix_gamma. "
      "Outputs out, and with output_mean_var also the mean and the inverse std.";
  d.parse = parse_batch_norm;
  d.list_arguments = args({"data", "gamma", "beta"});
  d.list_aux = [](const std::any&) { return std::vector<std::string>{"moving_mean", "moving_var"}; };
  d.num_outputs = [](const std::any&) { return 3; };
  d.num_visible_outputs = [](const std::any& p) { return param<BatchNormParam>(p).output_mean_var ? 3 : 1; };
  d.infer_shape = infer_batch_norm_shape;
  d.cpu.forward = [](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "BatchNorm", { forward_typed<T>(ctx, param<BatchNormParam>(pa), a); });
  };
  d.cpu.backward = [](const OpContext& ctx, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "BatchNorm",
                           { backward_typed<T>(ctx, param<BatchNormParam>(pa), a); });
  };
  d.mutates_aux = true;
  const OpDef& batch_norm = r.add(std::move(d));
  r.add_alias("CuDNNBatchNorm", "BatchNorm");  // MXNet's name for it computed by cuDNN
  add_batch_norm_relu(r, batch_norm);
  add_variance_batch_norm(r, "_contrib_SyncBatchNorm", parse_sync_batch_norm);
  add_variance_batch_norm(r, "BatchNorm_v1", parse_batch_norm_v1);
}

}  // namespace braid::op::detail
