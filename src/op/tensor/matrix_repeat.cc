// Ops that repeat elements: tile (the whole array) and repeat (each element). Both read their
// input through a view with stride-0 axes; the backward sums over the repeats.
#include <algorithm>
#include <optional>

#include "braid/base/dim_math.h"
#include "matrix_util.h"

namespace braid::op::detail {
namespace {

struct TileParam {
  std::vector<int64_t> reps;
};

// Input shape and reps, both left-padded with 1s to the same length (NumPy's tile rule).
std::pair<Dims, Dims> padded(const TileParam& p, const Shape& in) {
  const size_t n = std::max(static_cast<size_t>(in.ndim()), p.reps.size());
  Dims dims(n, 1), reps(n, 1);
  std::copy_backward(in.dims().begin(), in.dims().end(), dims.end());
  std::copy_backward(p.reps.begin(), p.reps.end(), reps.end());
  return {dims, reps};
}

void add_tile(Registry& r) {
  OpDef d;
  d.name = "tile";
  d.doc = "Repeats the whole array reps[k] times along axis k (NumPy's tile).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "tile");
    TileParam p{rd.get<std::vector<int64_t>>("reps")};
    rd.finish();
    for (int64_t k : p.reps) BRAID_CHECK(k >= 1, "operator tile: reps=", Shape(p.reps), " must be positive integers");
    return std::any(p);
  };
  add_view_op(
      r, std::move(d),
      [](const std::any& p, const Shape& in) {
        auto [dims, reps] = padded(param<TileParam>(p), in);
        for (size_t k = 0; k < dims.size(); ++k) dims[k] = mul_dims(dims[k], reps[k], "tile");
        return Shape(dims);
      },
      // Output axis k, of size reps·d, is walked as (rep, i) with input strides (0, stride).
      [](const std::any& p, const Shape& in) {
        auto [dims, reps] = padded(param<TileParam>(p), in);
        Dims strides = contiguous_strides(dims);
        InputView v;
        for (size_t k = 0; k < dims.size(); ++k) {
          v.shape.insert(v.shape.end(), {reps[k], dims[k]});
          v.strides.insert(v.strides.end(), {0, strides[k]});
        }
        return v;
      });
}

struct RepeatParam {
  int64_t repeats = 1;
  std::optional<int64_t> axis;  // None: repeat the flattened input
};

void add_repeat(Registry& r) {
  OpDef d;
  d.name = "repeat";
  d.doc = "Repeats each element `repeats` times along axis (or of the flattened input).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "repeat");
    RepeatParam p;
    p.repeats = rd.get<int64_t>("repeats");
    p.axis = rd.get_optional<int64_t>("axis");
    rd.finish();
    BRAID_CHECK(p.repeats >= 1, "operator repeat: repeats=", p.repeats, " must be at least 1");
    return std::any(p);
  };
  add_view_op(
      r, std::move(d),
      [](const std::any& pa, const Shape& in) {
        const auto& p = param<RepeatParam>(pa);
        if (!p.axis) return Shape({mul_dims(in.size(), p.repeats, "repeat")});
        Shape out = in;
        int64_t& d = out[normalize_axis("repeat", "axis", *p.axis, in.ndim(), in)];
        d = mul_dims(d, p.repeats, "repeat");
        return out;
      },
      // Output axis `axis`, of size d·repeats, is walked as (i, rep) with strides (stride, 0).
      [](const std::any& pa, const Shape& in) {
        const auto& p = param<RepeatParam>(pa);
        InputView v;
        if (!p.axis) {
          v.shape = {in.size(), p.repeats};
          v.strides = {1, 0};
          return v;
        }
        const int axis = normalize_axis("repeat", "axis", *p.axis, in.ndim(), in);
        v.shape = in.dims();
        v.strides = contiguous_strides(in.dims());
        v.shape.insert(v.shape.begin() + axis + 1, p.repeats);
        v.strides.insert(v.strides.begin() + axis + 1, 0);
        return v;
      });
}

}  // namespace

void register_matrix_repeat_ops(Registry& r) {
  add_tile(r);
  add_repeat(r);
}

}  // namespace braid::op::detail
