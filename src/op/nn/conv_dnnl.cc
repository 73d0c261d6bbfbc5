// The float32 convolution on oneDNN: forward, backward-data and backward-weights primitives,
// cached per geometry, on the caller's plain NCHW / (G)OIHW or NHWC / (G)OHWI buffers; each
// computes in whichever memory format measured fastest (see primitive()).
#include "conv_kernels.h"
#include "dnnl_util.h"
#include "op/common/req_util.h"

namespace braid::op::detail {
namespace {

using dnnl::memory;
using tag = memory::format_tag;

enum Kind : int64_t { kForward = 1, kBackwardData, kBackwardWeights };

struct Descs {
  memory::desc x, w, b, y;        // the user's plain layouts
  memory::desc x_in, w_in, y_in;  // what the primitive computes in
  memory::dims strides, dilates, pad_l, pad_r;

  // act: the activations' format the primitive computes in: ours (nchw, with our weights), nhwc,
  // or any (oneDNN's choice, blocked); the weights' format is oneDNN's choice unless nchw.
  Descs(const ConvGeom& g, bool with_bias, tag act) {
    const auto dims = [&](int64_t a, int64_t b, int64_t d, int64_t h, int64_t w) {
      return g.volumetric ? memory::dims{a, b, d, h, w} : memory::dims{a, b, h, w};
    };
    memory::dims xd = dims(g.n, g.c, g.id, g.ih, g.iw), yd = dims(g.n, g.f, g.od, g.oh, g.ow);
    memory::dims wd = dims(g.f / g.g, g.c / g.g, g.kd, g.kh, g.kw);
    if (g.g > 1) wd.insert(wd.begin(), g.g);
    act = volumetric_tag(g, act);
    const tag user = volumetric_tag(g, g.channels_last ? tag::nhwc : tag::nchw);
    x = plain_md(xd, user);
    y = plain_md(yd, user);
    w = plain_md(wd, weight_tag(g));
    if (with_bias) b = plain_md({g.f}, tag::x);
    x_in = plain_md(xd, act);
    y_in = plain_md(yd, act);
    w_in = act == user && !g.channels_last ? w : plain_md(wd, tag::any);
    strides = g.volumetric ? memory::dims{g.sd, g.sh, g.sw} : memory::dims{g.sh, g.sw};
    dilates = g.volumetric ? memory::dims{g.dd - 1, g.dh - 1, g.dw - 1} : memory::dims{g.dh - 1, g.dw - 1};
    pad_l = g.volumetric ? memory::dims{g.pd, g.ph, g.pw} : memory::dims{g.ph, g.pw};
    pad_r = g.volumetric ? memory::dims{g.pd_r, g.ph_r, g.pw_r} : memory::dims{g.ph_r, g.pw_r};
  }

  // The 3-D counterpart of a 2-D activations' tag (any stays any).
  static tag volumetric_tag(const ConvGeom& g, tag t) {
    if (!g.volumetric) return t;
    return t == tag::nhwc ? tag::ndhwc : t == tag::nchw ? tag::ncdhw : t;
  }

  // The user's weights: (G)OI(D)HW, or (G)O(D)HWI with channels last.
  static tag weight_tag(const ConvGeom& g) {
    if (g.volumetric)
      return g.g > 1 ? (g.channels_last ? tag::godhwi : tag::goidhw) : (g.channels_last ? tag::odhwi : tag::oidhw);
    return g.g > 1 ? (g.channels_last ? tag::gohwi : tag::goihw) : (g.channels_last ? tag::ohwi : tag::oihw);
  }

  // With `relu`, the primitive applies it to its output as a post-op.
  dnnl::convolution_forward::primitive_desc forward_pd(bool relu = false) const {
    auto alg = dnnl::algorithm::convolution_direct;
    auto prop = dnnl::prop_kind::forward_training;
    auto d = b ? dnnl::convolution_forward::desc(prop, alg, x_in, w_in, b, y_in, strides, dilates, pad_l, pad_r)
               : dnnl::convolution_forward::desc(prop, alg, x_in, w_in, y_in, strides, dilates, pad_l, pad_r);
    if (!relu) return {d, user_scratchpad(), dnnl_engine()};
    dnnl::primitive_attr attr;  // not a copy of user_scratchpad(): copies share one attribute
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
    return {d, attr, dnnl_engine()};
  }
};

DnnlExec make(const ConvGeom& g, Kind kind, bool with_bias, tag act) {
  Descs d(g, with_bias, act);
  using A = DnnlExec::Arg;
  if (kind == kForward) {
    auto fwd = d.forward_pd(g.relu);
    std::vector<A> args{{DNNL_ARG_SRC, d.x, fwd.src_desc(), false}, {DNNL_ARG_WEIGHTS, d.w, fwd.weights_desc(), false}};
    if (with_bias) args.push_back({DNNL_ARG_BIAS, d.b, fwd.bias_desc(), false});
    args.push_back({DNNL_ARG_DST, d.y, fwd.dst_desc(), true});
    return DnnlExec(dnnl::convolution_forward(fwd), std::move(args));
  }
  auto fwd = d.forward_pd();
  auto alg = dnnl::algorithm::convolution_direct;
  if (kind == kBackwardData) {
    dnnl::convolution_backward_data::primitive_desc pd(
        {alg, d.x_in, d.w_in, d.y_in, d.strides, d.dilates, d.pad_l, d.pad_r}, user_scratchpad(), dnnl_engine(), fwd);
    return DnnlExec(dnnl::convolution_backward_data(pd), {{DNNL_ARG_DIFF_DST, d.y, pd.diff_dst_desc(), false},
                                                          {DNNL_ARG_WEIGHTS, d.w, pd.weights_desc(), false},
                                                          {DNNL_ARG_DIFF_SRC, d.x, pd.diff_src_desc(), true}});
  }
  auto desc = with_bias ? dnnl::convolution_backward_weights::desc(alg, d.x_in, d.w_in, d.b, d.y_in, d.strides,
                                                                   d.dilates, d.pad_l, d.pad_r)
                        : dnnl::convolution_backward_weights::desc(alg, d.x_in, d.w_in, d.y_in, d.strides, d.dilates,
                                                                   d.pad_l, d.pad_r);
  dnnl::convolution_backward_weights::primitive_desc pd(desc, user_scratchpad(), dnnl_engine(), fwd);
  std::vector<A> args{{DNNL_ARG_SRC, d.x, pd.src_desc(), false},
                      {DNNL_ARG_DIFF_DST, d.y, pd.diff_dst_desc(), false},
                      {DNNL_ARG_DIFF_WEIGHTS, d.w, pd.diff_weights_desc(), true}};
  if (with_bias) args.push_back({DNNL_ARG_DIFF_BIAS, d.b, pd.diff_bias_desc(), true});
  return DnnlExec(dnnl::convolution_backward_weights(pd), std::move(args));
}

// The activations in NHWC measured fastest on the models of bench/ (LeNet 1.7x NCHW, ResNet-mini
// on a par with oneDNN's blocked choice); the others are the fall-backs.
std::shared_ptr<const DnnlExec> primitive(const ConvGeom& g, Kind kind, bool with_bias) {
  auto key = g.key();
  key.push_back(kind);
  key.push_back(with_bias);
  return DnnlCache<DnnlExec>::get().find(std::move(key), [&] {
    auto in = [&](tag act) { return [&, act] { return make(g, kind, with_bias, act); }; };
    return first_supported("Convolution", in(tag::nhwc), in(tag::any), in(tag::nchw));
  });
}

void* mut(const float* p) { return const_cast<float*>(p); }

}  // namespace

void dnnl_conv_forward(const ConvGeom& g, const float* x, const float* w, const float* bias, float* y, OpReq req) {
  write_with_req(y, g.y_size(), req, [&](float* out) {
    auto p = primitive(g, kForward, bias != nullptr);
    if (bias)
      p->run({mut(x), mut(w), mut(bias), out});
    else
      p->run({mut(x), mut(w), out});
  });
}

void dnnl_conv_backward_data(const ConvGeom& g, const float* dy, const float* w, float* dx, OpReq req) {
  write_with_req(dx, g.x_size(), req, [&](float* out) {
    primitive(g, kBackwardData, false)->run({mut(dy), mut(w), out});
  });
}

void dnnl_conv_backward_weights(const ConvGeom& g, const float* x, const float* dy, float* dw, OpReq req_w, float* db,
                                OpReq req_b) {
  // The bias gradient sums dy over all but the channel axis: (n, f, spatial), or (n * spatial, f, 1).
  const auto plain_bias_grad = [&] {
    if (g.channels_last)
      bias_grad(dy, g.n * g.out_pixels(), g.f, 1, db, req_b);
    else
      bias_grad(dy, g.n, g.f, g.out_pixels(), db, req_b);
  };
  if (req_w == OpReq::Null) {
    if (db) plain_bias_grad();
    return;
  }
  // The primitive computes the bias gradient alongside when both are overwritten.
  const bool fused_bias = db && req_b == OpReq::Write;
  write_with_req(dw, g.w_size(), req_w, [&](float* out) {
    auto p = primitive(g, kBackwardWeights, fused_bias);
    if (fused_bias)
      p->run({mut(x), mut(dy), out, db});
    else
      p->run({mut(x), mut(dy), out});
  });
  if (db && !fused_bias) plain_bias_grad();
}

}  // namespace braid::op::detail
