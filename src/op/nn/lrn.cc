// LRN (MXNet's local response normalization across channels, as in AlexNet): for data of shape
// (N, C, H, W), tmp_norm = knorm + alpha / nsize * (sum of x^2 over the nsize channels around c)
// and output = x * tmp_norm^-beta. The window of channel c is [c - nsize/2, c - nsize/2 + nsize - 1],
// cut at the edges. tmp_norm is a second, hidden output that backward reads.
#include <cmath>

#include "lrn.h"
#include "nn_util.h"

namespace braid::op::detail {
namespace {

std::any parse_lrn(const AttrMap& attrs) {
  ParamReader rd(attrs, "LRN");
  LrnParam p;
  p.alpha = rd.get<double>("alpha", p.alpha);
  p.beta = rd.get<double>("beta", p.beta);
  p.knorm = rd.get<double>("knorm", p.knorm);
  p.nsize = rd.get<int64_t>("nsize");
  rd.finish();
  BRAID_CHECK(p.nsize >= 1, "operator LRN: nsize must be at least 1, got ", p.nsize);
  return p;
}

template <class T>
void lrn_forward(const LrnParam& p, const ForwardArgs& a) {
  const Shape& s = a.inputs[0].shape;
  const LrnWindow w(s, p.nsize);
  const int64_t batch = w.batch, channels = w.channels, plane = w.plane;
  const T* x = a.inputs[0].ptr<T>();
  T* norm = a.outputs[1].ptr<T>();
  const double scale = p.alpha / static_cast<double>(p.nsize);
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      T* nc = norm + (n * channels + c) * plane;
      for (int64_t q = 0; q < plane; ++q) {
        double sum = 0;
        for (int64_t j = w.first(c); j <= w.last(c); ++j) {
          const double v = x[(n * channels + j) * plane + q];
          sum += v * v;
        }
        nc[q] = static_cast<T>(p.knorm + scale * sum);
      }
    }
  const double beta = p.beta;
  write_each(a.outputs[0].ptr<T>(), a.req[0], s.size(),
             [=](int64_t i) { return static_cast<T>(x[i] * std::pow(static_cast<double>(norm[i]), -beta)); });
}

// d x_i = g_i N_i^-beta - 2 alpha beta / nsize * x_i * sum over the channels c whose window holds i
// of g_c x_c N_c^(-beta - 1).
template <class T>
void lrn_backward(const LrnParam& p, const BackwardArgs& a) {
  const Shape& s = a.inputs[0].shape;
  const LrnWindow w(s, p.nsize);
  const int64_t batch = w.batch, channels = w.channels, plane = w.plane;
  const T* x = a.inputs[0].ptr<T>();
  const T* norm = a.outputs[1].ptr<T>();
  const T* g = a.out_grads[0].ptr<T>();
  const double coef = 2 * p.alpha * p.beta / static_cast<double>(p.nsize);
  std::vector<double> scaled(static_cast<size_t>(channels));  // g_c x_c N_c^(-beta - 1) at one position
  T* dx = a.in_grads[0].ptr<T>();
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t q = 0; q < plane; ++q) {
      auto at = [&](int64_t c) { return (n * channels + c) * plane + q; };
      for (int64_t c = 0; c < channels; ++c)
        scaled[static_cast<size_t>(c)] =
            static_cast<double>(g[at(c)]) * x[at(c)] * std::pow(static_cast<double>(norm[at(c)]), -p.beta - 1);
      for (int64_t i = 0; i < channels; ++i) {
        double sum = 0;
        for (int64_t c = w.first_holding(i); c <= w.last_holding(i); ++c) sum += scaled[static_cast<size_t>(c)];
        const double v = g[at(i)] * std::pow(static_cast<double>(norm[at(i)]), -p.beta) - coef * x[at(i)] * sum;
        dx[at(i)] = static_cast<T>(a.req[0] == OpReq::Add ? dx[at(i)] + v : v);
      }
    }
}

}  // namespace

void register_lrn_ops(Registry& r) {
  OpDef d;
  d.name = "LRN";
  d.doc =
      "Local response normalization across channels: x * (knorm + alpha / nsize * sum of x^2 over nsize "
      "channels)^-beta.";
  d.parse = parse_lrn;
  d.list_arguments = args({"data"});
  d.num_outputs = [](const std::any&) { return 2; };
  d.num_visible_outputs = [](const std::any&) { return 1; };
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const bool known = infer_same_shape("LRN", in, out);
    if (known) {
      BRAID_CHECK(in[0].ndim() == 4, "operator LRN: data must be 4-D (batch, channel, height, width); got shape ",
                  in[0]);
      out[1] = in[0];
    }
    return known;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "LRN", { lrn_forward<T>(param<LrnParam>(pa), a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "LRN", { lrn_backward<T>(param<LrnParam>(pa), a); });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
