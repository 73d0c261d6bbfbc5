#pragma once
// Internal: 2-D and 3-D grouped convolution kernels shared by Convolution and Deconvolution (1-D
// ops run as 2-D with height 1). float32 runs on oneDNN, float64 on the im2col + GEMM reference.
#include <cstdint>
#include <vector>

#include "braid/op/tensor.h"

namespace braid::op::detail {

/// Geometry of y = conv(x, w): x (n, c, ih, iw), w (f, c/g, kh, kw), y (n, f, oh, ow); or, when
/// channels_last (MXNet's layout NHWC), x (n, ih, iw, c), w (f, kh, kw, c/g), y (n, oh, ow, f).
/// A volumetric (3-D) convolution has a depth axis before the height: x (n, c, id, ih, iw), ...
/// (NCDHW), or x (n, id, ih, iw, c) ... (NDHWC); a 2-D one has depth 1 on every depth field.
/// Dilation is MXNet's (1 = dense). pad_r may differ from pad (transposed convolutions with adj).
struct ConvGeom {
  int64_t n = 0, c = 0, f = 0, g = 1;
  bool channels_last = false;
  bool volumetric = false;
  int64_t id = 1, ih = 1, iw = 1, od = 1, oh = 1, ow = 1;
  int64_t kd = 1, kh = 1, kw = 1, sd = 1, sh = 1, sw = 1, dd = 1, dh = 1, dw = 1;
  int64_t pd = 0, ph = 0, pw = 0, pd_r = 0, ph_r = 0, pw_r = 0;
  bool relu = false;  // forward: y = relu(conv(x, w) + bias)

  int64_t in_pixels() const { return id * ih * iw; }
  int64_t out_pixels() const { return od * oh * ow; }
  int64_t taps() const { return kd * kh * kw; }
  int64_t x_size() const { return n * c * in_pixels(); }
  int64_t y_size() const { return n * f * out_pixels(); }
  int64_t w_size() const { return f * (c / g) * taps(); }
  std::vector<int64_t> key() const {
    return {n,  c,  f,  g,  channels_last, volumetric, id,   ih,  iw, od, oh, ow, kd, kh, kw, sd, sh, sw, dd, dh,
            dw, pd, ph, pw, pd_r,          ph_r,       pw_r, relu};
  }
};

/// y = conv(x, w) + bias (bias may be null), through a relu when g.relu.
template <class T>
void conv_forward(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y, OpReq req);
/// dx = conv_transpose(dy, w): the gradient of conv with respect to x.
template <class T>
void conv_backward_data(const ConvGeom& g, const T* dy, const T* w, T* dx, OpReq req);
/// dw = gradient of conv with respect to w; db (may be null) = sum of dy over n and space.
template <class T>
void conv_backward_weights(const ConvGeom& g, const T* x, const T* dy, T* dw, OpReq req_w, T* db, OpReq req_b);

/// y[n, c, :] (+)= bias[c] for y (n, c, spatial).
template <class T>
void add_bias(T* y, const T* bias, int64_t n, int64_t c, int64_t spatial);
/// db[c] (+)= sum of dy[n, c, :] over n and spatial.
template <class T>
void bias_grad(const T* dy, int64_t n, int64_t c, int64_t spatial, T* db, OpReq req);

/// dst (n, c, spatial) = src (n, spatial, c): NHWC to NCHW, or a channels-last weight to OIHW.
template <class T>
void to_channels_first(const T* src, T* dst, int64_t n, int64_t c, int64_t spatial);
/// dst (n, spatial, c) (+)= src (n, c, spatial), as `req` says.
template <class T>
void to_channels_last(const T* src, T* dst, int64_t n, int64_t c, int64_t spatial, OpReq req);

// The implementations behind conv_*: the reference (any T, channels first), the reference on
// channels-last data through transposed copies, and oneDNN (float, either layout).
template <class T>
void ref_conv_forward(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y, OpReq req);
template <class T>
void ref_conv_backward_data(const ConvGeom& g, const T* dy, const T* w, T* dx, OpReq req);
template <class T>
void ref_conv_backward_weights(const ConvGeom& g, const T* x, const T* dy, T* dw, OpReq req_w, T* db, OpReq req_b);
template <class T>
void channels_last_ref_conv_forward(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y, OpReq req);
template <class T>
void channels_last_ref_conv_backward_data(const ConvGeom& g, const T* dy, const T* w, T* dx, OpReq req);
template <class T>
void channels_last_ref_conv_backward_weights(const ConvGeom& g, const T* x, const T* dy, T* dw, OpReq req_w, T* db,
                                             OpReq req_b);
void dnnl_conv_forward(const ConvGeom& g, const float* x, const float* w, const float* bias, float* y, OpReq req);
void dnnl_conv_backward_data(const ConvGeom& g, const float* dy, const float* w, float* dx, OpReq req);
void dnnl_conv_backward_weights(const ConvGeom& g, const float* x, const float* dy, float* dw, OpReq req_w, float* db,
                                OpReq req_b);

}  // namespace braid::op::detail
