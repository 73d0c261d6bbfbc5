// LeakyReLU: the leaky family of activations, act_type leaky, prelu (learnable gamma), rrelu
// (random slope in training), elu, selu and gelu (erf form), as MXNet 1.x.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

#include "eltwise_softmax_dnnl.h"
#include "leaky_relu.h"

namespace braid::op::detail {
namespace {

std::any parse_leaky_relu(const AttrMap& attrs) {
  ParamReader rd(attrs, "LeakyReLU");
  LeakyParam p;
  std::string t = rd.get_enum("act_type", kActTypes, "leaky");
  p.act = static_cast<size_t>(std::find(kActTypes.begin(), kActTypes.end(), t) - kActTypes.begin());
  p.slope = rd.get<double>("slope", p.slope);
  p.lower = rd.get<double>("lower_bound", p.lower);
  p.upper = rd.get<double>("upper_bound", p.upper);
  rd.finish();
  BRAID_CHECK(p.lower <= p.upper, "operator LeakyReLU: lower_bound (", p.lower, ") must not exceed upper_bound (",
              p.upper, ")");
  return p;
}

int64_t channels(const Shape& data) { return data.ndim() >= 2 ? data[1] : 1; }

}  // namespace

AxisSplit gamma_split(const Shape& data, const Shape& gamma) {
  if (gamma.size() == 1) return {1, 1, data.size()};
  if (gamma == data) return {1, data.size(), 1};
  // As MXNet, gamma's last axis lines up with the data's axis 1 and a second-to-last one with
  // axis 0; a size-1 gamma axis broadcasts.
  const int64_t batch = data.ndim() >= 1 ? data[0] : 1, c = channels(data);
  const int64_t g0 = gamma.ndim() == 2 ? gamma[0] : 1, g1 = gamma.ndim() >= 1 ? gamma.back() : 1;
  BRAID_CHECK(gamma.ndim() <= 2 && data.ndim() >= 2 && (g1 == c || g1 == 1) && (g0 == batch || g0 == 1),
              "operator LeakyReLU (prelu): gamma has shape ", gamma, " but data ", data, " needs (", c,
              ",) (one slope per channel on axis 1), (", batch, ", ", c,
              ") (one per sample and channel), (1,) or the data's shape");
  const int64_t inner = data.size() / std::max<int64_t>(batch * c, 1);
  if (g0 == 1) return {batch, c, inner};      // per channel
  if (g1 == 1) return {1, batch, c * inner};  // per sample
  return {1, batch * c, inner};               // per sample and channel
}

namespace {

// Calls f(i, gi) for every data element i and its gamma element gi.
template <class F>
void for_each_gamma(const AxisSplit& s, F f) {
  for (int64_t i = 0, n = s.outer * s.n * s.inner; i < n; ++i) f(i, i / s.inner % s.n);
}

// The activations oneDNN computes in float32.
std::optional<DnnlEltwise> dnnl_of(const LeakyParam& p) {
  const auto slope = static_cast<float>(p.slope);
  if (p.act == kLeaky) return DnnlEltwise{dnnl::algorithm::eltwise_relu, slope};
  if (p.act == kELU) return DnnlEltwise{dnnl::algorithm::eltwise_elu, slope};
  if (p.act == kGELU) return DnnlEltwise{dnnl::algorithm::eltwise_gelu_erf};
  return std::nullopt;
}

template <class T>
void forward_typed(const OpContext& ctx, const LeakyParam& p, const ForwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const T* x = data.ptr<T>();
  T* y = a.outputs[0].ptr<T>();
  const OpReq req = a.req[0];
  const int64_t n = data.size();
  if constexpr (std::is_same_v<T, float>) {
    if (auto f = dnnl_of(p)) return write_with_req(y, n, req, [&](T* dst) { dnnl_eltwise_forward(*f, x, dst, n); });
  }
  const T slope = static_cast<T>(p.slope);
  switch (p.act) {
    case kLeaky:
      write_each(y, req, n, [=](int64_t i) { return LeakyFn<T>{slope}.f(x[i]); });
      break;
    case kPReLU: {
      const T* gamma = a.inputs[1].ptr<T>();
      for_each_gamma(gamma_split(data.shape, a.inputs[1].shape),
                     [&](int64_t i, int64_t gi) { assign(y[i], req, x[i] > T(0) ? x[i] : gamma[gi] * x[i]); });
      break;
    }
    case kRReLU: {
      // The mask holds each element's negative slope: random in training, the mean otherwise.
      T* mask = a.outputs[1].ptr<T>();
      if (ctx.is_train) {
        for (int64_t i = 0; i < n; ++i) mask[i] = static_cast<T>(p.lower + (p.upper - p.lower) * uniform01(*ctx.rng));
      } else {
        std::fill(mask, mask + n, static_cast<T>((p.lower + p.upper) / 2));
      }
      write_each(y, req, n, [=](int64_t i) { return x[i] > T(0) ? x[i] : mask[i] * x[i]; });
      break;
    }
    case kELU:
      write_each(y, req, n, [=](int64_t i) { return EluFn<T>{slope}.f(x[i]); });
      break;
    case kSELU:
      write_each(y, req, n, [=](int64_t i) { return SeluFn<T>{}.f(x[i]); });
      break;
    default:
      write_each(y, req, n, [=](int64_t i) { return GeluFn<T>{}.f(x[i]); });
  }
}

template <class T>
void prelu_backward(const BackwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const T* x = data.ptr<T>();
  const T* g = a.out_grads[0].ptr<T>();
  const T* gamma = a.inputs[1].ptr<T>();
  std::vector<double> dgamma(static_cast<size_t>(a.inputs[1].size()), 0.0);
  T* dx = a.in_grads[0].ptr<T>();
  for_each_gamma(gamma_split(data.shape, a.inputs[1].shape), [&](int64_t i, int64_t gi) {
    if (a.req[0] != OpReq::Null) assign(dx[i], a.req[0], x[i] > T(0) ? g[i] : gamma[gi] * g[i]);
    if (x[i] <= T(0)) dgamma[static_cast<size_t>(gi)] += static_cast<double>(g[i] * x[i]);
  });
  if (a.req[1] == OpReq::Null) return;
  T* dg = a.in_grads[1].ptr<T>();
  for (size_t j = 0; j < dgamma.size(); ++j) assign(dg[j], a.req[1], static_cast<T>(dgamma[j]));
}

template <class T>
void backward_typed(const LeakyParam& p, const BackwardArgs& a) {
  if (p.act == kPReLU) return prelu_backward<T>(a);
  const T* x = a.inputs[0].ptr<T>();
  const T* y = a.outputs[0].ptr<T>();
  const T* g = a.out_grads[0].ptr<T>();
  T* dx = a.in_grads[0].ptr<T>();
  const OpReq req = a.req[0];
  const int64_t n = a.inputs[0].size();
  if constexpr (std::is_same_v<T, float>) {
    if (auto f = dnnl_of(p)) return write_with_req(dx, n, req, [&](T* d) { dnnl_eltwise_backward(*f, x, y, g, d, n); });
  }
  const T slope = static_cast<T>(p.slope);
  switch (p.act) {
    case kLeaky:
      write_each(dx, req, n, [=](int64_t i) { return g[i] * LeakyFn<T>{slope}.df(x[i], y[i]); });
      break;
    case kRReLU: {
      const T* mask = a.outputs[1].ptr<T>();
      write_each(dx, req, n, [=](int64_t i) { return x[i] > T(0) ? g[i] : mask[i] * g[i]; });
      break;
    }
    case kELU:
      write_each(dx, req, n, [=](int64_t i) { return g[i] * EluFn<T>{slope}.df(x[i], y[i]); });
      break;
    case kSELU:
      write_each(dx, req, n, [=](int64_t i) { return g[i] * SeluFn<T>{}.df(x[i], y[i]); });
      break;
    default:
      write_each(dx, req, n, [=](int64_t i) { return g[i] * GeluFn<T>{}.df(x[i], y[i]); });
  }
}

bool infer_leaky_relu_shape(const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
  const auto& p = param<LeakyParam>(pa);
  merge_shape(in[0], out[0], "LeakyReLU", "data");
  if (p.act == kRReLU) merge_shape(in[0], out[1], "LeakyReLU", "data");
  for (auto& o : out) merge_shape(o, in[0], "LeakyReLU", "output");
  if (p.act == kPReLU && in[0].known()) {
    if (!in[1].known()) in[1] = Shape({channels(in[0])});
    if (in[0].fully_known() && in[1].fully_known()) gamma_split(in[0], in[1]);
    return in[0].fully_known() && in[1].fully_known();
  }
  return in[0].fully_known();
}

}  // namespace

void register_leaky_relu_ops(Registry& r) {
  OpDef d;
  d.name = "LeakyReLU";
  d.doc =
      "Leaky activations: act_type leaky (slope * x below 0), prelu (learnable gamma per channel "
      "of axis 1), rrelu (random slope in [lower_bound, upper_bound] in training, their mean "
      "otherwise), elu (slope * (exp(x) - 1) below 0), selu, gelu (x * Phi(x)).";
  d.parse = parse_leaky_relu;
  d.list_arguments = [](const std::any& p) {
    return param<LeakyParam>(p).act == kPReLU ? std::vector<std::string>{"data", "gamma"}
                                              : std::vector<std::string>{"data"};
  };
  d.num_outputs = [](const std::any& p) { return param<LeakyParam>(p).act == kRReLU ? 2 : 1; };
  d.num_visible_outputs = [](const std::any&) { return 1; };
  d.infer_shape = infer_leaky_relu_shape;
  d.cpu.forward = [](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "LeakyReLU", { forward_typed<T>(ctx, param<LeakyParam>(pa), a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "LeakyReLU", { backward_typed<T>(param<LeakyParam>(pa), a); });
  };
  d.needs_rng = true;  // rrelu draws its slopes
  r.add(std::move(d));
}

}  // namespace braid::op::detail
