// Ops that reorder or select elements without changing their values: transpose, swapaxes, flip,
// slice_axis, depth_to_space, space_to_depth. Each describes its input as a strided view
// (matrix_util.h).
#include <numeric>
#include <optional>

#include "matrix_util.h"

namespace braid::op::detail {
namespace {

// ---- transpose ----

struct TransposeParam {
  std::vector<int64_t> axes;  // empty: reverse the axes
};

std::vector<int> permutation(const TransposeParam& p, const Shape& in) {
  const int n = in.ndim();
  if (p.axes.empty()) {
    std::vector<int> perm(static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) perm[static_cast<size_t>(k)] = n - 1 - k;
    return perm;
  }
  BRAID_CHECK(static_cast<int>(p.axes.size()) == n, "operator transpose: axes=", Shape(p.axes), " has ", p.axes.size(),
              " entries but the input shape ", in, " has ", n, " dimensions; give a permutation of all axes or none");
  return normalize_axes("transpose", p.axes, n, in);
}

// Output axis k is input axis perm[k].
Shape permuted_shape(const std::vector<int>& perm, const Shape& in) {
  Dims out;
  for (int a : perm) out.push_back(in[a]);
  return Shape(out);
}

InputView permuted_view(const std::vector<int>& perm, const Shape& in) {
  InputView v;
  v.bijective = true;
  Dims strides = contiguous_strides(in.dims());
  for (int a : perm) {
    v.shape.push_back(in[a]);
    v.strides.push_back(strides[static_cast<size_t>(a)]);
  }
  return v;
}

void add_transpose(Registry& r) {
  OpDef d;
  d.name = "transpose";
  d.doc = "Permutes the axes: output axis k is input axis axes[k] (default: reversed).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "transpose");
    TransposeParam p{rd.get<std::vector<int64_t>>("axes", {})};
    rd.finish();
    return std::any(p);
  };
  add_view_op(
      r, std::move(d),
      [](const std::any& p, const Shape& in) { return permuted_shape(permutation(param<TransposeParam>(p), in), in); },
      [](const std::any& p, const Shape& in) { return permuted_view(permutation(param<TransposeParam>(p), in), in); },
      true,
      [](const std::any& p, const Shape& out) {
        const std::vector<int> perm = permutation(param<TransposeParam>(p), out);
        Dims in(perm.size());
        for (size_t k = 0; k < perm.size(); ++k) in[static_cast<size_t>(perm[k])] = out[static_cast<int>(k)];
        return Shape(in);
      });
}

// ---- swapaxes (MXNet's SwapAxis) ----

struct SwapAxesParam {
  int64_t dim1 = 0, dim2 = 0;
};

std::vector<int> swapped(const SwapAxesParam& p, const Shape& in) {
  std::vector<int> perm(static_cast<size_t>(in.ndim()));
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[static_cast<size_t>(normalize_axis("swapaxes", "dim1", p.dim1, in.ndim(), in))],
            perm[static_cast<size_t>(normalize_axis("swapaxes", "dim2", p.dim2, in.ndim(), in))]);
  return perm;
}

void add_swapaxes(Registry& r) {
  OpDef d;
  d.name = "SwapAxis";
  d.doc = "Exchanges axes dim1 and dim2.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "swapaxes");
    SwapAxesParam p{rd.get<int64_t>("dim1", 0), rd.get<int64_t>("dim2", 0)};
    rd.finish();
    return std::any(p);
  };
  const ShapeFn swapped_shape = [](const std::any& p, const Shape& in) {
    return permuted_shape(swapped(param<SwapAxesParam>(p), in), in);
  };
  add_view_op(
      r, std::move(d), swapped_shape,
      [](const std::any& p, const Shape& in) { return permuted_view(swapped(param<SwapAxesParam>(p), in), in); }, true,
      swapped_shape);  // swapping twice is the identity
  r.add_alias("swapaxes", "SwapAxis");
}

// ---- flip ----

struct FlipParam {
  std::vector<int64_t> axis;
};

void add_flip(Registry& r) {
  OpDef d;
  d.name = "flip";
  d.doc = "Reverses the order of elements along the given axes.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "flip");
    FlipParam p{rd.get<std::vector<int64_t>>("axis")};
    rd.finish();
    return std::any(p);
  };
  add_view_op(
      r, std::move(d),
      [](const std::any& p, const Shape& in) {
        normalize_axes("flip", param<FlipParam>(p).axis, in.ndim(), in);
        return in;
      },
      [](const std::any& p, const Shape& in) {
        InputView v;
        v.bijective = true;
        v.shape = in.dims();
        v.strides = contiguous_strides(in.dims());
        for (int a : normalize_axes("flip", param<FlipParam>(p).axis, in.ndim(), in)) {
          auto k = static_cast<size_t>(a);
          v.offset += (v.shape[k] - 1) * v.strides[k];
          v.strides[k] = -v.strides[k];
        }
        return v;
      });
  r.add_alias("reverse", "flip");
}

// ---- slice_axis ----

struct SliceAxisParam {
  int64_t axis = 0, begin = 0;
  std::optional<int64_t> end;
};

struct SliceRange {
  int axis;
  int64_t begin, end;
};

// MXNet's rules: negative begin/end count from the end, None ends at the end, no clamping.
SliceRange slice_range(const SliceAxisParam& p, const Shape& in) {
  BRAID_CHECK(in.ndim() >= 1, "operator slice_axis: the input must have at least one dimension");
  SliceRange s{normalize_axis("slice_axis", "axis", p.axis, in.ndim(), in), p.begin, 0};
  const int64_t n = in[s.axis];
  if (s.begin < 0) s.begin += n;
  s.end = p.end ? (*p.end < 0 ? *p.end + n : *p.end) : n;
  BRAID_CHECK(0 <= s.begin && s.begin < s.end && s.end <= n, "operator slice_axis: begin=", p.begin,
              ", end=", p.end ? cat(*p.end) : "None", " select no valid range of axis ", s.axis, " (size ", n,
              ") of input shape ", in, "; need 0 <= begin < end <= ", n, " after adding the size to negative values");
  return s;
}

void add_slice_axis(Registry& r) {
  OpDef d;
  d.name = "slice_axis";
  d.doc = "Elements begin..end-1 along one axis.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "slice_axis");
    SliceAxisParam p;
    p.axis = rd.get<int64_t>("axis");
    p.begin = rd.get<int64_t>("begin");
    p.end = rd.get_optional<int64_t>("end");
    rd.finish();
    return std::any(p);
  };
  add_view_op(
      r, std::move(d),
      [](const std::any& p, const Shape& in) {
        BRAID_CHECK(in.ndim() >= 1, "operator slice_axis: the input must have at least one dimension");
        const auto& sp = param<SliceAxisParam>(p);
        if (!dim_known(in[normalize_axis("slice_axis", "axis", sp.axis, in.ndim(), in)])) return in;  // stays unknown
        SliceRange s = slice_range(sp, in);
        Shape out = in;
        out[s.axis] = s.end - s.begin;
        return out;
      },
      [](const std::any& p, const Shape& in) {
        SliceRange s = slice_range(param<SliceAxisParam>(p), in);
        InputView v;
        v.shape = in.dims();
        v.strides = contiguous_strides(in.dims());
        auto k = static_cast<size_t>(s.axis);
        v.shape[k] = s.end - s.begin;
        v.offset = s.begin * v.strides[k];
        return v;
      });
}

// ---- depth_to_space, space_to_depth: blocks of block_size × block_size pixels to channels and
// back, (N, C, H, W) <-> (N, C·b², H/b, W/b), in MXNet's (and ONNX's DCR) order ----

struct BlockParam {
  int64_t block_size = 0;
};

std::any parse_block(const AttrMap& a, const std::string& op) {
  ParamReader rd(a, op);
  BlockParam p{rd.get<int64_t>("block_size")};
  rd.finish();
  BRAID_CHECK(p.block_size > 0, "operator ", op, ": block_size must be positive, got ", p.block_size);
  return p;
}

// The input's (N, C, H, W) after checking it is 4-D and, for `to_depth`, that the block divides
// the height and width, else that b² divides the channels.
Dims block_input(const std::string& op, const Shape& in, int64_t b, bool to_depth) {
  BRAID_CHECK(in.ndim() == 4, "operator ", op, ": data must be 4-D (N, C, H, W); got shape ", in);
  for (int k = 0; k < 4; ++k)
    BRAID_CHECK(in[k] != 0, "operator ", op, ": dimension ", k, " of shape ", in, " is empty (0), as MXNet refuses");
  if (to_depth)
    BRAID_CHECK(in[2] % b == 0 && in[3] % b == 0, "operator ", op, ": block_size ", b,
                " must divide the height and width of shape ", in);
  else
    BRAID_CHECK(in[1] % (b * b) == 0, "operator ", op, ": block_size² (", b * b, ") must divide the channels of shape ",
                in);
  return in.dims();
}

void add_depth_to_space(Registry& r) {
  OpDef d;
  d.name = "depth_to_space";
  d.doc = "Moves channel blocks into block_size × block_size pixel blocks: (N, C, H, W) -> (N, C/b², H·b, W·b).";
  d.parse = [](const AttrMap& a) { return parse_block(a, "depth_to_space"); };
  add_view_op(
      r, std::move(d),
      [](const std::any& p, const Shape& in) {
        const int64_t b = param<BlockParam>(p).block_size;
        const Dims s = block_input("depth_to_space", in, b, false);
        return Shape({s[0], s[1] / (b * b), s[2] * b, s[3] * b});
      },
      [](const std::any& p, const Shape& in) {
        const int64_t b = param<BlockParam>(p).block_size;
        const Dims s = block_input("depth_to_space", in, b, false);
        const int64_t c = s[1] / (b * b), h = s[2], w = s[3];
        // Output (n, c, h, i, w, j) reads input (n, i, j, c, h, w) of shape (N, b, b, C', H, W).
        const Dims st = contiguous_strides({s[0], b, b, c, h, w});
        InputView v;
        v.bijective = true;
        v.shape = {s[0], c, h, b, w, b};
        v.strides = {st[0], st[3], st[4], st[1], st[5], st[2]};
        return v;
      },
      true);
}

void add_space_to_depth(Registry& r) {
  OpDef d;
  d.name = "space_to_depth";
  d.doc = "Moves block_size × block_size pixel blocks into channels: (N, C, H, W) -> (N, C·b², H/b, W/b).";
  d.parse = [](const AttrMap& a) { return parse_block(a, "space_to_depth"); };
  add_view_op(
      r, std::move(d),
      [](const std::any& p, const Shape& in) {
        const int64_t b = param<BlockParam>(p).block_size;
        const Dims s = block_input("space_to_depth", in, b, true);
        return Shape({s[0], s[1] * b * b, s[2] / b, s[3] / b});
      },
      [](const std::any& p, const Shape& in) {
        const int64_t b = param<BlockParam>(p).block_size;
        const Dims s = block_input("space_to_depth", in, b, true);
        const int64_t w = s[3];
        // Output (n, i, j, c, h', w') reads input (n, c, h'·b + i, w'·b + j).
        InputView v;
        v.bijective = true;
        v.shape = {s[0], b, b, s[1], s[2] / b, w / b};
        v.strides = {s[1] * s[2] * w, w, 1, s[2] * w, b * w, b};
        return v;
      },
      true);
}

}  // namespace

void register_matrix_layout_ops(Registry& r) {
  add_transpose(r);
  add_swapaxes(r);
  add_flip(r);
  add_slice_axis(r);
  add_depth_to_space(r);
  add_space_to_depth(r);
}

}  // namespace braid::op::detail
