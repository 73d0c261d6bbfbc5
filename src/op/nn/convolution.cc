// Convolution and Deconvolution (1-D NCW, 2-D NCHW or NHWC, 3-D NCDHW or NDHWC, grouped, dilated).
// Deconvolution runs the same kernels with the roles of forward and backward-data exchanged.
#include <vector>

#include "conv_param.h"
#include "nn_conv_ops.h"

namespace braid::op::detail {
namespace {

// The gradient with respect to relu's input, from its output y and output gradient dy.
template <class T>
std::vector<T> relu_grad_from_output(const T* y, const T* dy, int64_t n) {
  std::vector<T> dv(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) dv[static_cast<size_t>(i)] = y[i] > T(0) ? dy[i] : T(0);
  return dv;
}

template <class T>
const T* opt_ptr(const std::vector<TBlob>& v, size_t i) {
  return i < v.size() ? v[i].ptr<T>() : nullptr;
}

void conv_forward_op(const ConvParam& p, const ForwardArgs& a) {
  ConvGeom g = conv_geom(p, a.inputs[0].shape);
  g.relu = p.fused_relu;
  BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Convolution", {
    conv_forward<T>(g, a.inputs[0].ptr<T>(), a.inputs[1].ptr<T>(), opt_ptr<T>(a.inputs, 2), a.outputs[0].ptr<T>(),
                    a.req[0]);
  });
}

// With a fused relu the output gradient goes through relu's gradient first (from the output:
// positive exactly where relu's input was), unless the output's reader did that already.
void conv_backward_op(const ConvParam& p, const BackwardArgs& a) {
  const ConvGeom g = conv_geom(p, a.inputs[0].shape);
  const OpReq req_b = p.no_bias ? OpReq::Null : a.req[2];
  BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Convolution", {
    const T* dy = a.out_grads[0].ptr<T>();
    std::vector<T> masked;
    if (p.fused_relu && !p.grad_before_relu) {
      masked = relu_grad_from_output(a.outputs[0].ptr<T>(), dy, g.y_size());
      dy = masked.data();
    }
    conv_backward_data<T>(g, dy, a.inputs[1].ptr<T>(), a.in_grads[0].ptr<T>(), a.req[0]);
    T* db = req_b == OpReq::Null ? nullptr : a.in_grads[2].ptr<T>();
    if (a.req[1] != OpReq::Null || db)
      conv_backward_weights<T>(g, a.inputs[0].ptr<T>(), dy, a.in_grads[1].ptr<T>(), a.req[1], db, req_b);
  });
}

// Deconvolution: y = conv_backward_data(x), dx = conv_forward(dy), dw = conv_backward_weights
// with the deconvolution's output gradient as the convolution's input.
void deconv_forward_op(const ConvParam& p, const ForwardArgs& a) {
  const ConvGeom g = conv_geom(p, a.inputs[0].shape);
  if (a.req[0] == OpReq::Null) return;
  BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Deconvolution", {
    T* y = a.outputs[0].ptr<T>();
    conv_backward_data<T>(g, a.inputs[0].ptr<T>(), a.inputs[1].ptr<T>(), y, a.req[0]);
    if (!p.no_bias) add_bias(y, a.inputs[2].ptr<T>(), g.n, g.c, g.in_pixels());
  });
}

void deconv_backward_op(const ConvParam& p, const BackwardArgs& a) {
  const ConvGeom g = conv_geom(p, a.inputs[0].shape);
  BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Deconvolution", {
    const T* dy = a.out_grads[0].ptr<T>();
    conv_forward<T>(g, dy, a.inputs[1].ptr<T>(), nullptr, a.in_grads[0].ptr<T>(), a.req[0]);
    if (a.req[1] != OpReq::Null)
      conv_backward_weights<T>(g, dy, a.inputs[0].ptr<T>(), a.in_grads[1].ptr<T>(), a.req[1], nullptr, OpReq::Null);
    if (!p.no_bias) bias_grad(dy, g.n, g.c, g.in_pixels(), a.in_grads[2].ptr<T>(), a.req[2]);
  });
}

void add_conv_op(Registry& r, const std::string& name, bool transposed, const std::string& doc,
                 void (*fwd)(const ConvParam&, const ForwardArgs&),
                 void (*bwd)(const ConvParam&, const BackwardArgs&)) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = [name, transposed](const AttrMap& a) { return std::any(parse_conv_param(a, name, transposed)); };
  d.list_arguments = [](const std::any& p) { return conv_arguments(param<ConvParam>(p)); };
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_conv_shape(param<ConvParam>(p), in, out);
  };
  d.cpu.forward = [fwd](const OpContext&, const std::any& p, const ForwardArgs& a) { fwd(param<ConvParam>(p), a); };
  d.cpu.backward = [bwd](const OpContext&, const std::any& p, const BackwardArgs& a) { bwd(param<ConvParam>(p), a); };
  // x and w; y only to take a fused relu's gradient.
  d.backward_reads = [](const std::any& p) {
    const auto& cp = param<ConvParam>(p);
    return BackwardReads{true, cp.fused_relu && !cp.grad_before_relu};
  };
  if (!transposed)
    d.fuse_output_relu = [](const std::any& p, bool grad_before_relu) {
      ConvParam cp = param<ConvParam>(p);
      cp.fused_relu = true;
      cp.grad_before_relu = grad_before_relu;
      return std::any(cp);
    };
  r.add(std::move(d));
}

}  // namespace

void add_convolution_ops(Registry& r) {
  add_conv_op(r, "Convolution", false,
              "Convolution over NCW / NCHW / NCDHW (or layout NHWC / NDHWC) data with weight (num_filter, "
              "C/num_group, k...) and optional bias (num_filter).",
              conv_forward_op, conv_backward_op);
  add_conv_op(r, "Deconvolution", true,
              "Transposed convolution over NCW / NCHW / NCDHW data with weight (C, num_filter/num_group, "
              "k...); output (in-1)*stride - 2*pad + dilate*(k-1) + 1 + adj, or target_shape.",
              deconv_forward_op, deconv_backward_op);
}

}  // namespace braid::op::detail
