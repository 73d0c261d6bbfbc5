#include "conv_param.h"

#include "braid/base/dim_math.h"

namespace braid::op::detail {
namespace {

// A per-axis attribute ("stride", "pad", ...): "()" or absent gives `fallback` on every axis.
Shape spatial_attr(ParamReader& r, const ConvParam& p, const char* key, int64_t fallback, int64_t min) {
  const int nd = p.spatial();
  Shape s = r.get<Shape>(key, Shape({}));
  if (s.ndim() == 0) s = Shape(std::vector<int64_t>(static_cast<size_t>(nd), fallback));
  BRAID_CHECK(s.ndim() == nd, "operator ", p.op, ": ", key, "=", s,
              " must have as many dimensions as kernel=", p.kernel);
  for (int i = 0; i < nd; ++i)
    BRAID_CHECK(s[i] >= min, "operator ", p.op, ": ", key, "=", s, " must be at least ", min);
  return s;
}

int64_t conv_out_size(const ConvParam& p, int i, int64_t in) {
  const int64_t padded = add_dims(in, mul_dims(2, p.pad[i]));
  BRAID_CHECK(p.dilated_kernel(i) <= padded, "operator ", p.op, ": the (dilated) kernel, ", p.dilated_kernel(i),
              " wide on spatial axis ", i, ", exceeds the padded input (", in, " + 2 * pad = ", padded,
              "); use a smaller kernel or more padding");
  return (padded - p.dilated_kernel(i)) / p.stride[i] + 1;
}

int64_t deconv_out_size(const ConvParam& p, int i, int64_t in) {
  auto [pad, adj] = deconv_pad_adj(p, i, in);
  // Subtracting 2 * pad (checked at parsing) from a positive sum cannot overflow.
  int64_t o = add_dims(add_dims(mul_dims(p.stride[i], in - 1), p.dilated_kernel(i)) - 2 * pad, adj);
  BRAID_CHECK(o > 0, "operator ", p.op, ": the output on spatial axis ", i, " would be ", o, " wide for an input ", in,
              " wide; reduce pad=", p.pad);
  return o;
}

}  // namespace

bool ConvParam::has_target() const {
  for (int i = 0; i < target_shape.ndim(); ++i)
    if (target_shape[i] != 0) return true;
  return false;
}

ConvParam parse_conv_param(const AttrMap& attrs, const std::string& op, bool transposed) {
  ParamReader r(attrs, op);
  ConvParam p;
  p.op = op;
  p.transposed = transposed;
  p.kernel = r.get<Shape>("kernel");
  const int nd = p.kernel.ndim();
  BRAID_CHECK(nd >= 1 && nd <= 3, "operator ", op, ": kernel=", p.kernel, " has ", nd,
              " dimensions; a kernel is 1-D (w,), 2-D (h, w) or 3-D (d, h, w)");
  for (int i = 0; i < nd; ++i)
    BRAID_CHECK(p.kernel[i] >= 1, "operator ", op, ": kernel=", p.kernel, " must be positive");
  p.stride = spatial_attr(r, p, "stride", 1, 1);
  p.dilate = spatial_attr(r, p, "dilate", 1, 1);
  p.pad = spatial_attr(r, p, "pad", 0, 0);
  for (int i = 0; i < nd; ++i) {  // so that dilated_kernel() and 2 * pad cannot overflow
    try {
      add_dims(mul_dims(p.dilate[i], p.kernel[i] - 1), 1);
      mul_dims(2, p.pad[i]);
    } catch (const Error& e) {
      throw Error(cat("operator ", op, ": kernel=", p.kernel, ", dilate=", p.dilate, ", pad=", p.pad, ": ", e.what()));
    }
  }
  if (transposed) {
    p.adj = spatial_attr(r, p, "adj", 0, 0);
    p.target_shape = spatial_attr(r, p, "target_shape", 0, 0);
    for (int i = 0; i < nd; ++i) {
      // With a target_shape, adj is computed from it and the given one ignored (as MXNet).
      BRAID_CHECK(p.has_target() || p.adj[i] < p.stride[i], "operator ", op, ": adj=", p.adj,
                  " must be smaller than stride=", p.stride);
      BRAID_CHECK(!p.has_target() || p.target_shape[i] > 0, "operator ", op, ": target_shape=", p.target_shape,
                  " must give every spatial size");
    }
  }
  p.num_filter = r.get<int64_t>("num_filter");
  p.num_group = r.get<int64_t>("num_group", 1);
  BRAID_CHECK(p.num_filter >= 1, "operator ", op, ": num_filter=", p.num_filter, " must be positive");
  BRAID_CHECK(p.num_group >= 1, "operator ", op, ": num_group=", p.num_group, " must be positive");
  BRAID_CHECK(p.num_filter % p.num_group == 0, "operator ", op, ": num_filter=", p.num_filter,
              " is not divisible by num_group=", p.num_group);
  p.no_bias = r.get<bool>("no_bias", transposed);  // MXNet: Deconvolution has no bias by default
  // cuDNN's knobs, accepted and ignored as MXNet does on the CPU.
  r.get<int64_t>("workspace", 0);
  r.get_enum("cudnn_tune", {"None", "off", "limited_workspace", "fastest"}, "None");
  r.get<bool>("cudnn_off", false);
  const std::string layout = r.get_enum("layout", {"None", "NCW", "NCHW", "NCDHW", "NHWC", "NDHWC"}, "None");
  const char* plain = nd == 1 ? "NCW" : nd == 2 ? "NCHW" : "NCDHW";
  const char* last = nd == 2 ? "NHWC" : "NDHWC";
  p.channels_last = layout == last && nd > 1 && !transposed;
  BRAID_CHECK(layout == "None" || layout == plain || p.channels_last, "operator ", op, ": layout '", layout,
              "' is not supported with a ", nd, "-D kernel; Braid computes ", op, " in ", plain,
              transposed || nd == 1 ? "" : cat(" or ", last), " (transpose the data and drop the layout attribute)");
  r.finish();
  return p;
}

std::vector<std::string> conv_arguments(const ConvParam& p) {
  if (p.no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

std::pair<int64_t, int64_t> deconv_pad_adj(const ConvParam& p, int i, int64_t in) {
  if (!p.has_target()) return {p.pad[i], p.adj[i]};
  const int64_t full = add_dims(mul_dims(p.stride[i], in - 1), p.dilated_kernel(i));
  BRAID_CHECK(full >= p.target_shape[i], "operator ", p.op, ": target_shape=", p.target_shape,
              " exceeds the largest output (", full, " on spatial axis ", i, ") for an input ", in, " wide");
  const int64_t excess = full - p.target_shape[i];
  return {(excess + 1) / 2, excess % 2};
}

namespace {

// Moves axis `from` of a shape to position `to` (unknown shapes stay unknown).
Shape move_axis(const Shape& s, int from, int to) {
  if (!s.known()) return s;
  std::vector<int64_t> d = s.dims();
  const int64_t v = d[static_cast<size_t>(from)];
  d.erase(d.begin() + from);
  d.insert(d.begin() + to, v);
  return Shape(d);
}

bool infer_channels_first(const ConvParam& p, std::vector<Shape>& in, std::vector<Shape>& out);

}  // namespace

bool infer_conv_shape(const ConvParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  if (!p.channels_last) return infer_channels_first(p, in, out);
  // NHWC: the channel axis of data, weight and output moves last; infer on channels-first views.
  for (size_t i = 0; i < 2; ++i)
    if (in[i].known()) in[i] = move_axis(in[i], in[i].ndim() - 1, 1);
  if (out[0].known()) out[0] = move_axis(out[0], out[0].ndim() - 1, 1);
  const bool done = infer_channels_first(p, in, out);
  for (size_t i = 0; i < 2; ++i)
    if (in[i].known()) in[i] = move_axis(in[i], 1, in[i].ndim() - 1);
  if (out[0].known()) out[0] = move_axis(out[0], 1, out[0].ndim() - 1);
  return done;
}

namespace {

bool infer_channels_first(const ConvParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  Shape& data = in[0];
  if (!data.known()) return false;
  const int nd = p.spatial();
  BRAID_CHECK(data.ndim() == nd + 2, "operator ", p.op, ": data has shape ", data, " but a ", nd, "-D kernel needs ",
              nd == 1   ? "(batch, channel, width)"
              : nd == 2 ? "(batch, channel, height, width)"
                        : "(batch, channel, depth, height, width)");
  const int64_t groups = p.num_group;
  Shape& weight = in[1];
  // Deferred initialization may leave the data channels unknown while the weight knows them.
  if (data[1] == 0 && weight.known() && weight.ndim() == nd + 2)
    data[1] = p.transposed ? weight[0] : weight[1] * groups;
  const int64_t channels = data[1];
  BRAID_CHECK(channels % groups == 0, "operator ", p.op, ": data has ", channels,
              " channels, which is not divisible by num_group=", groups);
  std::vector<int64_t> w{p.transposed ? channels : p.num_filter,
                         p.transposed ? p.num_filter / groups : channels / groups};
  for (int i = 0; i < nd; ++i) w.push_back(p.kernel[i]);
  merge_shape(weight, Shape(w), p.op, "weight");
  if (!p.no_bias) merge_shape(in[2], Shape({p.num_filter}), p.op, "bias");

  std::vector<int64_t> o{data[0], p.num_filter};
  for (int i = 0; i < nd; ++i) {
    const int64_t x = data[2 + i];
    o.push_back(x == 0 ? 0 : p.transposed ? deconv_out_size(p, i, x) : conv_out_size(p, i, x));
  }
  merge_shape(out[0], Shape(o), p.op, "output");
  if (data[0] == 0) data[0] = out[0][0];
  // As MXNet, an unknown input size comes back from the output's where the stride is 1.
  for (int i = 0; i < nd && !p.transposed; ++i)
    if (data[2 + i] == 0 && out[0][2 + i] != 0 && p.stride[i] == 1) {
      data[2 + i] = out[0][2 + i] + p.dilated_kernel(i) - 1 - 2 * p.pad[i];
      return infer_channels_first(p, in, out);  // checks the output against the size found
    }
  return all_known(in) && out[0].fully_known();
}

}  // namespace

ConvGeom conv_geom(const ConvParam& p, const Shape& shape) {
  const Shape data = p.channels_last ? move_axis(shape, shape.ndim() - 1, 1) : shape;
  ConvGeom g;
  g.channels_last = p.channels_last;
  const int nd = p.spatial();
  g.volumetric = nd == 3;
  g.n = data[0];
  g.g = p.num_group;
  g.c = p.transposed ? p.num_filter : data[1];
  g.f = p.transposed ? data[1] : p.num_filter;
  struct Axis {
    int64_t ConvGeom::*in, ConvGeom::*out, ConvGeom::*k, ConvGeom::*s, ConvGeom::*d, ConvGeom::*p, ConvGeom::*pr;
  };
  const Axis axes[3] = {
      {&ConvGeom::id, &ConvGeom::od, &ConvGeom::kd, &ConvGeom::sd, &ConvGeom::dd, &ConvGeom::pd, &ConvGeom::pd_r},
      {&ConvGeom::ih, &ConvGeom::oh, &ConvGeom::kh, &ConvGeom::sh, &ConvGeom::dh, &ConvGeom::ph, &ConvGeom::ph_r},
      {&ConvGeom::iw, &ConvGeom::ow, &ConvGeom::kw, &ConvGeom::sw, &ConvGeom::dw, &ConvGeom::pw, &ConvGeom::pw_r}};
  for (int i = 0; i < nd; ++i) {
    const Axis& a = axes[3 - nd + i];  // a 1-D op runs on the width axis with height 1
    const int64_t x = data[2 + i];
    g.*a.k = p.kernel[i];
    g.*a.s = p.stride[i];
    g.*a.d = p.dilate[i];
    if (p.transposed) {
      auto [pad, adj] = deconv_pad_adj(p, i, x);
      g.*a.in = deconv_out_size(p, i, x);
      g.*a.out = x;
      g.*a.p = pad;
      // The extra adj pixels sit on the bottom/right; oneDNN rounds down the output size, so the
      // symmetric pad also fits when pad < adj (< stride).
      g.*a.pr = pad >= adj ? pad - adj : pad;
    } else {
      g.*a.in = x;
      g.*a.out = conv_out_size(p, i, x);
      g.*a.p = g.*a.pr = p.pad[i];
    }
  }
  return g;
}

}  // namespace braid::op::detail
