// Pooling: max / avg / sum / Lp over 1-D (NCW, NWC), 2-D (NCHW, NHWC) or 3-D (NCDHW, NDHWC) windows, or the whole plane
// (global_pool), with MXNet's 'valid' (floor) and 'full' (ceil) output sizes. Max pooling has a
// hidden second output, the mask of where each maximum came from, read by the backward.
#include <algorithm>
#include <cmath>

#include "nn_conv_ops.h"
#include "op/op_util.h"
#include "pooling.h"

namespace braid::op::detail {
namespace {

Shape per_axis(ParamReader& r, const PoolParam& p, const char* key, int64_t fallback, int64_t min) {
  Shape s = r.get<Shape>(key, Shape({}));
  const int nd = p.kernel.ndim();
  if (s.ndim() == 0) s = Shape(std::vector<int64_t>(static_cast<size_t>(nd), fallback));
  // MXNet ignores entries past the kernel's axes (pad=(0, 0, 0) with a 1-D kernel); they are
  // accepted here where they hold the default.
  if (s.ndim() > nd && std::all_of(s.dims().begin() + nd, s.dims().end(), [=](int64_t v) { return v == fallback; }))
    s = Shape(s.dims().begin(), s.dims().begin() + nd);
  BRAID_CHECK(s.ndim() == nd, "operator Pooling: ", key, "=", s, " must have as many dimensions as kernel=", p.kernel);
  for (int i = 0; i < nd; ++i) BRAID_CHECK(s[i] >= min, "operator Pooling: ", key, "=", s, " must be at least ", min);
  return s;
}

std::any parse_pool(const AttrMap& attrs) {
  ParamReader r(attrs, "Pooling");
  PoolParam p;
  p.kernel = r.get<Shape>("kernel", Shape({}));
  const std::string type = r.get_enum("pool_type", {"max", "avg", "sum", "lp"}, "max");
  p.type = type == "max" ? PoolType::Max : type == "avg" ? PoolType::Avg : type == "sum" ? PoolType::Sum : PoolType::Lp;
  p.global = r.get<bool>("global_pool", false);
  const std::string conv = r.get_enum("pooling_convention", {"valid", "full", "same"}, "valid");
  p.full = conv == "full";
  p.same = conv == "same";
  p.include_pad = r.get_optional<bool>("count_include_pad").value_or(true);
  r.get<bool>("cudnn_off", false);  // accepted and ignored, as on MXNet's CPU
  const std::optional<int64_t> p_value = r.get_optional<int64_t>("p_value");
  if (p.type == PoolType::Lp) {
    BRAID_CHECK(p_value && *p_value >= 1 && *p_value <= 3, "operator Pooling: pool_type='lp' needs p_value=1, 2 or 3",
                p_value ? cat(", got ", *p_value) : std::string(" (MXNet's Lp pooling computes those)"));
    p.p_value = static_cast<int>(*p_value);
  }
  const int nd = p.kernel.ndim();
  BRAID_CHECK((p.global && nd == 0) || (nd >= 1 && nd <= 3), "operator Pooling: kernel=", p.kernel,
              " must be (w,), (h, w) or (d, h, w)", p.global ? "" : ", or set global_pool=True");
  for (int i = 0; i < nd; ++i)
    BRAID_CHECK(p.kernel[i] >= 1, "operator Pooling: kernel=", p.kernel, " must be positive");
  p.stride = per_axis(r, p, "stride", 1, 1);
  p.pad = per_axis(r, p, "pad", 0, 0);
  for (int i = 0; i < nd && !p.global; ++i) {
    BRAID_CHECK(p.pad[i] < p.kernel[i], "operator Pooling: pad=", p.pad, " must be smaller than kernel=", p.kernel,
                " (a window would see only padding)");
    BRAID_CHECK(!p.same || p.pad[i] == 0, "operator Pooling: pooling_convention='same' pads by itself; pad=", p.pad,
                " must be zero");
  }
  const std::string layout = r.get_enum("layout", {"None", "NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"}, "None");
  // The layout's spatial axes: its length less the batch and channel axes.
  BRAID_CHECK(layout == "None" || nd == 0 || static_cast<int>(layout.size()) - 2 == nd, "operator Pooling: layout '",
              layout, "' does not match kernel=", p.kernel);
  p.channels_last = layout == "NWC" || layout == "NHWC" || layout == "NDHWC";
  r.finish();
  return p;
}

int64_t out_size(const PoolParam& p, int i, int64_t in) {
  if (p.same) return (in + p.stride[i] - 1) / p.stride[i];
  const int64_t padded = in + 2 * p.pad[i];
  BRAID_CHECK(p.kernel[i] <= padded, "operator Pooling: kernel=", p.kernel, " exceeds the input (", in,
              " on spatial axis ", i, ", padded to ", padded, ")");
  const int64_t span = padded - p.kernel[i];
  const int64_t o = 1 + (p.full ? (span + p.stride[i] - 1) / p.stride[i] : span / p.stride[i]);
  BRAID_CHECK((o - 1) * p.stride[i] - p.pad[i] < in,
              "operator Pooling: with pooling_convention="
              "'full' the last window on spatial axis ",
              i, " lies entirely in the padding (input ", in, ", kernel=", p.kernel, ", stride=", p.stride,
              ", pad=", p.pad, "); use a smaller stride");
  return o;
}

bool infer_pool(const PoolParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  const Shape& data = in[0];
  if (!data.known()) return false;
  const int nd = data.ndim() - 2;
  BRAID_CHECK(nd >= 1 && nd <= 3, "operator Pooling: data has shape ", data, " but must be ",
              p.channels_last ? "(batch, width, channel), (batch, height, width, channel) or (batch, depth, height, "
                                "width, channel)"
                              : "(batch, channel, width), (batch, channel, height, width) or (batch, channel, depth, "
                                "height, width)");
  BRAID_CHECK(p.global || p.kernel.ndim() == nd, "operator Pooling: kernel=", p.kernel,
              " does not match data of shape ", data);
  std::vector<int64_t> o{data[0]};
  if (!p.channels_last) o.push_back(data[1]);
  for (int i = 0; i < nd; ++i) {
    const int64_t x = data[p.spatial_axis(i)];
    o.push_back(p.global ? 1 : x == 0 ? 0 : out_size(p, i, x));
  }
  if (p.channels_last) o.push_back(data[data.ndim() - 1]);
  for (auto& s : out) merge_shape(s, Shape(o), "Pooling", "output");
  return data.fully_known() && out[0].fully_known();
}

}  // namespace

PoolGeom pool_geom(const PoolParam& p, const Shape& data) {
  PoolGeom g;
  g.type = p.type;
  g.p = p.p_value;
  g.include_pad = p.include_pad;
  g.channels_last = p.channels_last;
  g.n = data[0];
  g.c = data[p.channel_axis(data.ndim())];
  const int nd = data.ndim() - 2;
  g.volumetric = nd == 3;
  int64_t PoolGeom::*fields[3][6] = {
      {&PoolGeom::id, &PoolGeom::od, &PoolGeom::kd, &PoolGeom::sd, &PoolGeom::pd, &PoolGeom::pd_r},
      {&PoolGeom::ih, &PoolGeom::oh, &PoolGeom::kh, &PoolGeom::sh, &PoolGeom::ph, &PoolGeom::ph_r},
      {&PoolGeom::iw, &PoolGeom::ow, &PoolGeom::kw, &PoolGeom::sw, &PoolGeom::pw, &PoolGeom::pw_r}};
  for (int i = 0; i < nd; ++i) {
    auto* f = fields[3 - nd + i];  // 1-D pooling runs on the width axis with height 1
    const int64_t x = data[p.spatial_axis(i)];
    g.*f[0] = x;
    if (p.global) {  // one window over the whole axis
      g.*f[1] = 1;
      g.*f[2] = x;
      continue;
    }
    const int64_t o = out_size(p, i, x);
    g.*f[1] = o;
    g.*f[2] = p.kernel[i];
    g.*f[3] = p.stride[i];
    g.*f[4] = p.pad[i];
    // The 'full' and 'same' conventions' last window may reach past the padded input.
    g.*f[5] = std::max(p.pad[i], (o - 1) * p.stride[i] + p.kernel[i] - x - p.pad[i]);
  }
  return g;
}

void add_pooling(Registry& r) {
  OpDef d;
  d.name = "Pooling";
  d.doc =
      "Max, average, sum or Lp ((sum of x^p)^(1/p), p_value 1, 2 or 3) pooling over NCW / NCHW / NCDHW (or layout NWC "
      "/ NHWC / NDHWC) data; output 1 + (in + 2*pad "
      "- kernel) / "
      "stride, rounded down ('valid') or up ('full'), or ceil(in / stride) ('same'); global_pool pools the whole "
      "plane.";
  d.parse = parse_pool;
  d.list_arguments = args({"data"});
  d.num_outputs = [](const std::any& p) { return param<PoolParam>(p).type == PoolType::Max ? 2 : 1; };
  d.num_visible_outputs = [](const std::any&) { return 1; };
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_pool(param<PoolParam>(p), in, out);
  };
  // Max pooling's mask holds indices as the bits of a float (pool_kernels.h), which a 16-bit
  // float cannot carry: with float16 or bfloat16 data it is float32.
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux) {
    std::vector<DType> visible{out[0]};
    infer_same_type("Pooling", in, visible, aux);
    out[0] = visible[0];
    if (out.size() > 1 && out[0] != kDTypeUnknown)
      out[1] = out[0] == DType::Float16 || out[0] == DType::BFloat16 ? DType::Float32 : out[0];
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const PoolGeom g = pool_geom(param<PoolParam>(pa), a.inputs[0].shape);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Pooling", {
      T* mask = g.type == PoolType::Max ? a.outputs[1].ptr<T>() : nullptr;
      pool_forward<T>(g, a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), mask, a.req[0]);
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const PoolGeom g = pool_geom(param<PoolParam>(pa), a.inputs[0].shape);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Pooling", {
      if (g.type == PoolType::Lp)
        return lp_pool_backward<T>(g, a.inputs[0].ptr<T>(), a.outputs[0].ptr<T>(), a.out_grads[0].ptr<T>(),
                                   a.in_grads[0].ptr<T>(), a.req[0]);
      const T* mask = g.type == PoolType::Max ? a.outputs[1].ptr<T>() : nullptr;
      const T* relu_y = param<PoolParam>(pa).relu_grad ? a.outputs[0].ptr<T>() : nullptr;
      pool_backward<T>(g, a.out_grads[0].ptr<T>(), mask, relu_y, a.in_grads[0].ptr<T>(), a.req[0]);
    });
  };
  // Not the input (max pooling keeps its mask, a hidden output); the output for a fused relu; both
  // for Lp pooling.
  d.backward_reads = [](const std::any& pa) {
    const PoolParam& p = param<PoolParam>(pa);
    const bool lp = p.type == PoolType::Lp;
    return BackwardReads{lp, lp || p.relu_grad};
  };
  d.fuse_input_relu_grad = [](const std::any& pa) {
    PoolParam p = param<PoolParam>(pa);
    if (p.type != PoolType::Max) return std::any();
    p.relu_grad = true;
    return std::any(p);
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
