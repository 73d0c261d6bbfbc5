// Dropout (MXNet 1.x): in training (or always, with mode='always') zeroes each element with
// probability p and scales the kept ones by 1 / (1 - p); identity otherwise. With `axes` one
// decision is shared along those axes (variational dropout). A second, hidden output holds the
// mask (0 or 1 / (1 - p) per element, 1 when inactive), which backward multiplies by.
#include <algorithm>
#include <cmath>

#include "dropout.h"
#include "nn_util.h"

namespace braid::op::detail {
namespace {

std::any parse_dropout(const AttrMap& attrs) {
  ParamReader rd(attrs, "Dropout");
  DropoutParam p;
  p.p = rd.get<double>("p", p.p);
  p.always = rd.get_enum("mode", {"training", "always"}, "training") == "always";
  p.axes = rd.get<std::vector<int64_t>>("axes", {});
  rd.get_optional<bool>("cudnn_off");  // no cuDNN on the CPU
  rd.finish();
  BRAID_CHECK(p.p >= 0 && p.p <= 1, "operator Dropout: p must be in [0, 1], got ", p.p);
  return p;
}

// Keep/drop decisions, two per 64-bit draw: each 32-bit half drops when below p * 2^32.
class DropDecisions {
 public:
  DropDecisions(std::mt19937_64& rng, double p) : rng_(rng), threshold_(static_cast<uint64_t>(std::ldexp(p, 32))) {}
  bool drop() {
    if (spare_) {
      spare_ = false;
      return (bits_ >> 32) < threshold_;
    }
    bits_ = rng_();
    spare_ = true;
    return (bits_ & 0xffffffffu) < threshold_;
  }

 private:
  std::mt19937_64& rng_;
  uint64_t threshold_, bits_ = 0;
  bool spare_ = false;
};

// Draws the shared keep/drop decisions on the shape with `axes` reduced to 1 and broadcasts them
// into the full-size mask.
template <class T>
void draw_mask(std::mt19937_64& rng, const DropoutParam& p, const Shape& shape, T* mask) {
  const T scale = static_cast<T>(1 / (1 - p.p));
  DropDecisions decisions(rng, p.p);
  // 0 · scale: 0, or NaN for p = 1 (scale infinity), as MXNet computes it.
  const T dropped = T(0) * scale;
  auto draw = [&] { return decisions.drop() ? dropped : scale; };
  if (p.axes.empty()) {
    for (int64_t i = 0, end = shape.size(); i < end; ++i) mask[i] = draw();
    return;
  }
  const int nd = shape.ndim();
  std::vector<int64_t> reduced = shape.dims();
  for (int64_t ax : p.axes) reduced[static_cast<size_t>(checked_axis("Dropout", static_cast<int>(ax), shape))] = 1;
  std::vector<T> shared(static_cast<size_t>(Shape(reduced).size()));
  for (auto& v : shared) v = draw();
  // Strides of the reduced array, 0 along the shared axes.
  std::vector<int64_t> stride(static_cast<size_t>(nd), 0), coord(static_cast<size_t>(nd), 0);
  int64_t step = 1;
  for (int d = nd - 1; d >= 0; --d) {
    if (reduced[static_cast<size_t>(d)] != 1) stride[static_cast<size_t>(d)] = step;
    step *= reduced[static_cast<size_t>(d)];
  }
  int64_t r = 0;
  for (int64_t i = 0, end = shape.size(); i < end; ++i) {
    mask[i] = shared[static_cast<size_t>(r)];
    for (int d = nd - 1; d >= 0; --d) {  // advance the coordinate odometer
      const auto ud = static_cast<size_t>(d);
      r += stride[ud];
      if (++coord[ud] < shape[d]) break;
      r -= stride[ud] * coord[ud];
      coord[ud] = 0;
    }
  }
}

template <class T>
void forward_typed(const OpContext& ctx, const DropoutParam& p, const ForwardArgs& a) {
  const TBlob& data = a.inputs[0];
  const T* x = data.ptr<T>();
  T* mask = a.outputs[1].ptr<T>();
  const int64_t n = data.size();
  if ((p.always || ctx.is_train) && p.p > 0) {
    BRAID_CHECK(ctx.rng, "operator Dropout: no random generator was given");
    draw_mask(*ctx.rng, p, data.shape, mask);
  } else {
    std::fill(mask, mask + n, T(1));
  }
  write_each(a.outputs[0].ptr<T>(), a.req[0], n, [=](int64_t i) { return x[i] * mask[i]; });
}

}  // namespace

void register_dropout_ops(Registry& r) {
  OpDef d;
  d.name = "Dropout";
  d.doc =
      "Zeroes elements with probability p in training (mode='always': also in inference) and "
      "scales the rest by 1 / (1 - p); `axes` shares one decision along those axes.";
  d.parse = parse_dropout;
  d.list_arguments = args({"data"});
  d.num_outputs = [](const std::any&) { return 2; };
  d.num_visible_outputs = [](const std::any&) { return 1; };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    bool known = infer_same_shape("Dropout", in, out);
    if (known)
      for (int64_t ax : param<DropoutParam>(pa).axes) checked_axis("Dropout", static_cast<int>(ax), in[0]);
    return known;
  };
  d.cpu.forward = [](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Dropout", { forward_typed<T>(ctx, param<DropoutParam>(pa), a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Dropout", {
      const T* g = a.out_grads[0].ptr<T>();
      const T* mask = a.outputs[1].ptr<T>();
      write_each(a.in_grads[0].ptr<T>(), a.req[0], a.inputs[0].size(), [=](int64_t i) { return g[i] * mask[i]; });
    });
  };
  d.needs_rng = true;
  r.add(std::move(d));
}

}  // namespace braid::op::detail
