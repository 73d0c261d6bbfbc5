// contrib.DeformableConvolution (Deformable ConvNets, Dai et al. 2017) and
// contrib.ModulatedDeformableConvolution (v2, Zhu et al. 2019): a 2-D convolution whose kernel
// taps sample the input at learned fractional offsets, by bilinear interpolation, as MXNet's.
//
//   data (N, C, H, W), offset (N, dg·2·kh·kw, Ho, Wo), [mask (N, dg·kh·kw, Ho, Wo),] weight
//   (F, C/g, kh, kw), bias (F,) → (N, F, Ho, Wo)
//
// Tap (i, j) of output pixel (y, x) reads channel c at (y·sh - ph + i·dh + Δh, x·sw - pw + j·dw + Δw),
// where Δh, Δw are offset channels 2·(i·kw + j) and 2·(i·kw + j) + 1 of c's deformable group
// (c / (C/dg)); v2 multiplies the sample by the mask channel i·kw + j. The samples fill a column
// matrix (C·kh·kw, Ho·Wo) that meets the weight in one GEMM per group, as im2col does.
// Outside the image, as MXNet: v1 samples points with 0 <= h < H (likewise w), clamping the last
// row and column; v2 samples points with -1 < h < H, reading zeros beyond the edges.
#include <cmath>
#include <cstring>
#include <vector>

#include "op/common/gemm.h"
#include "op/common/req_util.h"
#include "op/nn/conv_kernels.h"
#include "op/nn/conv_param.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

struct DeformParam {
  ConvParam conv;
  int64_t deformable_groups = 1;
  bool modulated = false;
};

const char* op_name(bool modulated) {
  return modulated ? "_contrib_ModulatedDeformableConvolution" : "_contrib_DeformableConvolution";
}

DeformParam parse_deform(const AttrMap& attrs, bool modulated) {
  const char* name = op_name(modulated);
  AttrMap conv_attrs = attrs;
  DeformParam p;
  p.modulated = modulated;
  if (auto it = conv_attrs.find("num_deformable_group"); it != conv_attrs.end()) {
    const AttrMap own{{it->first, it->second}};  // ParamReader keeps a reference
    ParamReader rd(own, name);
    p.deformable_groups = rd.get<int64_t>("num_deformable_group", 1);
    conv_attrs.erase(it);
  }
  if (modulated) conv_attrs.erase("im2col_step");  // MXNet's batching of its im2col; one image at a time here
  p.conv = parse_conv_param(conv_attrs, name, false);
  BRAID_CHECK(p.conv.spatial() == 2 && !p.conv.channels_last, "operator ", name,
              ": only 2-D kernels on NCHW data are supported, as in MXNet; got kernel=", p.conv.kernel);
  BRAID_CHECK(p.deformable_groups >= 1, "operator ", name, ": num_deformable_group must be positive; got ",
              p.deformable_groups);
  return p;
}

std::vector<std::string> deform_arguments(const DeformParam& p) {
  std::vector<std::string> names{"data", "offset"};
  if (p.modulated) names.push_back("mask");
  names.push_back("weight");
  if (!p.conv.no_bias) names.push_back("bias");
  return names;
}

bool infer_deform_shape(const DeformParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  const char* name = op_name(p.modulated);
  const size_t weight = p.modulated ? 3 : 2;
  std::vector<Shape> conv_in{in[0], in[weight]};
  if (!p.conv.no_bias) conv_in.push_back(in[weight + 1]);
  const bool done = infer_conv_shape(p.conv, conv_in, out);
  in[0] = conv_in[0];
  in[weight] = conv_in[1];
  if (!p.conv.no_bias) in[weight + 1] = conv_in[2];
  if (!done) return false;
  BRAID_CHECK(in[0][1] % p.deformable_groups == 0, "operator ", name, ": data has ", in[0][1],
              " channels, which is not divisible by num_deformable_group=", p.deformable_groups);
  const int64_t taps = p.conv.kernel[0] * p.conv.kernel[1], n = in[0][0], oh = out[0][2], ow = out[0][3];
  merge_shape(in[1], Shape({n, p.deformable_groups * 2 * taps, oh, ow}), name, "offset");
  if (p.modulated) merge_shape(in[2], Shape({n, p.deformable_groups * taps, oh, ow}), name, "mask");
  return true;
}

// A bilinear sample: up to four pixels of a plane (index -1: none), their weights and the
// weights' derivatives along h and w.
template <class T>
struct Sample {
  int64_t at[4] = {-1, -1, -1, -1};
  T weight[4] = {}, d_h[4] = {}, d_w[4] = {};

  T value(const T* plane) const {
    T v = 0;
    for (int k = 0; k < 4; ++k)
      if (at[k] >= 0) v += weight[k] * plane[at[k]];
    return v;
  }
  T derivative(const T* plane, const T (&d)[4]) const {
    T v = 0;
    for (int k = 0; k < 4; ++k)
      if (at[k] >= 0) v += d[k] * plane[at[k]];
    return v;
  }
};

// Where the sample at (h, w) reads, as MXNet's v1 (modulated false) or v2 sampling.
template <class T>
Sample<T> sample_at(T h, T w, int64_t height, int64_t width, bool modulated) {
  Sample<T> s;
  if (modulated ? !(h > -1 && w > -1 && h < T(height) && w < T(width))
                : !(h >= 0 && w >= 0 && h < T(height) && w < T(width)))
    return s;
  auto lo_h = static_cast<int64_t>(std::floor(h)), lo_w = static_cast<int64_t>(std::floor(w));
  int64_t hi_h = lo_h + 1, hi_w = lo_w + 1;
  T lh = h - T(lo_h), lw = w - T(lo_w), slope_h = 1, slope_w = 1;
  if (!modulated && lo_h >= height - 1) hi_h = lo_h, lh = 0, slope_h = 0;  // v1 clamps the last row
  if (!modulated && lo_w >= width - 1) hi_w = lo_w, lw = 0, slope_w = 0;
  const int64_t rows[2] = {lo_h, hi_h}, cols[2] = {lo_w, hi_w};
  const T wh[2] = {1 - lh, lh}, ww[2] = {1 - lw, lw}, dwh[2] = {-slope_h, slope_h}, dww[2] = {-slope_w, slope_w};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      const int k = 2 * a + b;
      if (rows[a] < 0 || rows[a] >= height || cols[b] < 0 || cols[b] >= width) continue;  // v2's zeros
      s.at[k] = rows[a] * width + cols[b];
      s.weight[k] = wh[a] * ww[b];
      s.d_h[k] = dwh[a] * ww[b];
      s.d_w[k] = wh[a] * dww[b];
    }
  return s;
}

// The geometry of one image's columns.
struct Columns {
  int64_t c, h, w, oh, ow, kh, kw, dg;
  int64_t taps() const { return kh * kw; }
  int64_t pixels() const { return oh * ow; }
  int64_t rows() const { return c * taps(); }
};

Columns columns_of(const DeformParam& p, const Shape& data, const Shape& out) {
  return {data[1], data[2], data[3], out[2], out[3], p.conv.kernel[0], p.conv.kernel[1], p.deformable_groups};
}

// Where every tap of every output pixel samples, per deformable group: entry (group·taps + tap)·
// pixels + pixel, from one image's offsets.
template <class T>
std::vector<Sample<T>> sample_positions(const DeformParam& p, const Columns& g, const T* offset) {
  std::vector<Sample<T>> samples(static_cast<size_t>(g.dg * g.taps() * g.pixels()));
#pragma omp parallel for schedule(static) if (samples.size() > (1 << 12))
  for (int64_t e = 0; e < static_cast<int64_t>(samples.size()); ++e) {
    const int64_t px = e % g.pixels(), tap = e / g.pixels() % g.taps(), group = e / (g.pixels() * g.taps());
    const int64_t y = px / g.ow, x = px % g.ow, i = tap / g.kw, j = tap % g.kw;
    const int64_t at_h = (group * 2 * g.taps() + 2 * tap) * g.pixels() + px, at_w = at_h + g.pixels();
    const T h = T(y * p.conv.stride[0] - p.conv.pad[0] + i * p.conv.dilate[0]) + offset[at_h];
    const T w = T(x * p.conv.stride[1] - p.conv.pad[1] + j * p.conv.dilate[1]) + offset[at_w];
    samples[static_cast<size_t>(e)] = sample_at<T>(h, w, g.h, g.w, p.modulated);
  }
  return samples;
}

// Calls fn(channel, tap, pixel, entry) for every column entry, entry indexing the samples (and
// the mask), in parallel over channels: each channel's calls on one thread.
template <class Fn>
void for_each_column_entry(const Columns& g, Fn fn) {
  const int64_t per_group = g.c / g.dg;
#pragma omp parallel for schedule(static) if (g.rows() * g.pixels() > (1 << 14))
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t tap = 0; tap < g.taps(); ++tap)
      for (int64_t px = 0; px < g.pixels(); ++px) fn(c, tap, px, ((c / per_group) * g.taps() + tap) * g.pixels() + px);
}

// The column matrix of one image: row c·taps + tap, column pixel.
template <class T>
void deformable_im2col(const Columns& g, const std::vector<Sample<T>>& samples, const T* data, const T* mask, T* col) {
  for_each_column_entry(g, [&](int64_t c, int64_t tap, int64_t px, int64_t e) {
    const T v = samples[static_cast<size_t>(e)].value(data + c * g.h * g.w);
    col[(c * g.taps() + tap) * g.pixels() + px] = mask ? v * mask[e] : v;
  });
}

struct Inputs {
  size_t offset = 1, mask = 2, weight = 2, bias = 3;
  explicit Inputs(bool modulated) : weight(modulated ? 3 : 2), bias(modulated ? 4 : 3) {}
};

template <class T>
void deform_forward(const DeformParam& p, const ForwardArgs& a) {
  const Inputs in(p.modulated);
  const Columns g = columns_of(p, a.inputs[0].shape, a.outputs[0].shape);
  const int64_t groups = p.conv.num_group, f = p.conv.num_filter, fg = f / groups;
  const int64_t k = g.rows() / groups, np = g.pixels();
  std::vector<T> col(static_cast<size_t>(g.rows() * np)), y(static_cast<size_t>(f * np));
  const T *data = a.inputs[0].ptr<T>(), *offset = a.inputs[in.offset].ptr<T>(), *weight = a.inputs[in.weight].ptr<T>();
  const T* mask = p.modulated ? a.inputs[in.mask].ptr<T>() : nullptr;
  const T* bias = p.conv.no_bias ? nullptr : a.inputs[in.bias].ptr<T>();
  T* out = a.outputs[0].ptr<T>();
  const int64_t n = a.inputs[0].shape[0];
  for (int64_t b = 0; b < n; ++b) {
    const auto samples = sample_positions<T>(p, g, offset + b * a.inputs[in.offset].size() / n);
    deformable_im2col<T>(g, samples, data + b * g.c * g.h * g.w,
                         mask ? mask + b * a.inputs[in.mask].size() / n : nullptr, col.data());
    for (int64_t grp = 0; grp < groups; ++grp)
      gemm<T>(false, false, fg, np, k, T(1), weight + grp * fg * k, k, col.data() + grp * k * np, np, T(0),
              y.data() + grp * fg * np, np);
    if (bias)
      for (int64_t o = 0; o < f; ++o)
        for (int64_t px = 0; px < np; ++px) y[static_cast<size_t>(o * np + px)] += bias[o];
    write_each(out + b * f * np, a.req[0], f * np, [&y](int64_t i) { return y[static_cast<size_t>(i)]; });
  }
}

// Gradients, image by image: the columns' gradient (weightᵀ · output gradient) goes to data by the
// samples' weights, to the offsets by their derivatives and to the mask by the samples; the weight
// gets output gradient · columnsᵀ and the bias the output gradient's sums.
template <class T>
void deform_backward(const DeformParam& p, const BackwardArgs& a) {
  const Inputs in(p.modulated);
  const Columns g = columns_of(p, a.inputs[0].shape, a.out_grads[0].shape);
  const int64_t groups = p.conv.num_group, f = p.conv.num_filter, fg = f / groups;
  const int64_t k = g.rows() / groups, np = g.pixels(), n = a.inputs[0].shape[0];
  const int64_t plane = g.h * g.w, offset_size = a.inputs[in.offset].size() / n;
  const int64_t mask_size = p.modulated ? a.inputs[in.mask].size() / n : 0;
  const T *data = a.inputs[0].ptr<T>(), *offset = a.inputs[in.offset].ptr<T>(), *weight = a.inputs[in.weight].ptr<T>();
  const T* mask = p.modulated ? a.inputs[in.mask].ptr<T>() : nullptr;
  const T* gy = a.out_grads[0].ptr<T>();
  const auto wanted = [&a](size_t i) { return i < a.req.size() && a.req[i] != OpReq::Null; };

  std::vector<T> grad_data(static_cast<size_t>(a.inputs[0].size())), grad_offset(static_cast<size_t>(offset_size * n));
  std::vector<T> grad_mask(static_cast<size_t>(mask_size * n)),
      grad_weight(static_cast<size_t>(a.inputs[in.weight].size()));
  std::vector<T> col(static_cast<size_t>(g.rows() * np)), grad_col(col.size());
  for (int64_t b = 0; b < n; ++b) {
    const T *x = data + b * g.c * plane, *off = offset + b * offset_size, *m = mask ? mask + b * mask_size : nullptr;
    const T* gyb = gy + b * f * np;
    for (int64_t grp = 0; grp < groups; ++grp)
      gemm<T>(true, false, k, np, fg, T(1), weight + grp * fg * k, k, gyb + grp * fg * np, np, T(0),
              grad_col.data() + grp * k * np, np);
    const auto samples = sample_positions<T>(p, g, off);
    if (wanted(in.weight)) {
      deformable_im2col<T>(g, samples, x, m, col.data());
      for (int64_t grp = 0; grp < groups; ++grp)
        gemm<T>(false, true, fg, k, np, T(1), gyb + grp * fg * np, np, col.data() + grp * k * np, np, T(1),
                grad_weight.data() + grp * fg * k, k);
    }
    const auto column_grad = [&](int64_t c, int64_t tap, int64_t px) {
      return grad_col[static_cast<size_t>((c * g.taps() + tap) * np + px)];
    };
    // data: each channel's plane gets its own taps' gradients (one thread per channel)
    T* gx = grad_data.data() + b * g.c * plane;
    for_each_column_entry(g, [&](int64_t c, int64_t tap, int64_t px, int64_t e) {
      const Sample<T>& s = samples[static_cast<size_t>(e)];
      const T gc = column_grad(c, tap, px) * (m ? m[e] : T(1));
      for (int q = 0; q < 4; ++q)
        if (s.at[q] >= 0) gx[c * plane + s.at[q]] += gc * s.weight[q];
    });
    // offsets and mask: each sample's gradient sums over its deformable group's channels
    T *go = grad_offset.data() + b * offset_size, *gm = m ? grad_mask.data() + b * mask_size : nullptr;
    const int64_t per_group = g.c / g.dg;
#pragma omp parallel for schedule(static) if (samples.size() > (1 << 12))
    for (int64_t e = 0; e < static_cast<int64_t>(samples.size()); ++e) {
      const Sample<T>& s = samples[static_cast<size_t>(e)];
      const int64_t px = e % np, tap = e / np % g.taps(), group = e / (np * g.taps());
      T along_h = 0, along_w = 0, masked = 0;
      for (int64_t c = group * per_group; c < (group + 1) * per_group; ++c) {
        const T gc = column_grad(c, tap, px), *xc = x + c * plane;
        along_h += gc * s.derivative(xc, s.d_h);
        along_w += gc * s.derivative(xc, s.d_w);
        if (gm) masked += gc * s.value(xc);
      }
      const T scale = m ? m[e] : T(1);
      const int64_t at_h = (group * 2 * g.taps() + 2 * tap) * np + px;
      go[at_h] = along_h * scale;
      go[at_h + np] = along_w * scale;
      if (gm) gm[e] = masked;
    }
  }
  const auto put = [&a](size_t i, const std::vector<T>& v) {
    write_each(a.in_grads[i].ptr<T>(), a.req[i], static_cast<int64_t>(v.size()),
               [&v](int64_t j) { return v[static_cast<size_t>(j)]; });
  };
  if (wanted(0)) put(0, grad_data);
  if (wanted(in.offset)) put(in.offset, grad_offset);
  if (p.modulated && wanted(in.mask)) put(in.mask, grad_mask);
  if (wanted(in.weight)) put(in.weight, grad_weight);
  if (!p.conv.no_bias && wanted(in.bias)) {
    std::vector<T> grad_bias(static_cast<size_t>(f));
    for (int64_t b = 0; b < n; ++b)
      for (int64_t o = 0; o < f; ++o)
        for (int64_t px = 0; px < np; ++px) grad_bias[static_cast<size_t>(o)] += gy[(b * f + o) * np + px];
    put(in.bias, grad_bias);
  }
}

void add_deformable_convolution(Registry& r, bool modulated) {
  OpDef d;
  d.name = op_name(modulated);
  d.doc = modulated ? "A 2-D convolution sampling its taps at learned offsets, each scaled by a learned mask."
                    : "A 2-D convolution sampling its taps at learned offsets by bilinear interpolation.";
  d.parse = [modulated](const AttrMap& attrs) { return std::any(parse_deform(attrs, modulated)); };
  d.list_arguments = [](const std::any& pa) { return deform_arguments(param<DeformParam>(pa)); };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_deform_shape(param<DeformParam>(pa), in, out);
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<DeformParam>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, op_name(p.modulated), { deform_forward<T>(p, a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const auto& p = param<DeformParam>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, op_name(p.modulated), { deform_backward<T>(p, a); });
  };
  r.add(std::move(d));
}

}  // namespace

void register_deformable_convolution_ops(Registry& r) {
  add_deformable_convolution(r, false);
  add_deformable_convolution(r, true);
}

}  // namespace braid::op::detail
