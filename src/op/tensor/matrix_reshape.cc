// Ops that change only the shape, keeping the elements in order: Reshape, reshape_like,
// expand_dims, squeeze.
#include <algorithm>
#include <optional>

#include "braid/base/reshape.h"
#include "matrix_util.h"

namespace braid::op::detail {
namespace {

struct ReshapeParam {
  std::vector<int64_t> shape;
  bool reverse = false;
  // MXNet 0.x spelling, still found in old symbol files: 0 marks the one inferred dimension;
  // keep_highest keeps the first dimension of the input.
  std::vector<int64_t> target_shape;
  bool keep_highest = false;
  bool to_scalar = false;  // shape=() given: a one-element array as a 0-d one (as MXNet)
};

Shape legacy_target_shape(const ReshapeParam& p, const Shape& in) {
  Dims out = p.target_shape;
  if (p.keep_highest) {
    BRAID_CHECK(in.ndim() >= 1, "operator Reshape: keep_highest needs an input with dimensions");
    out[0] = in[0];
  }
  auto first = out.begin() + (p.keep_highest ? 1 : 0);
  BRAID_CHECK(std::count(first, out.end(), 0) <= 1, "operator Reshape: target_shape=", Shape(p.target_shape),
              " has more than one 0 (inferred) dimension");
  auto inferred = std::find(first, out.end(), 0);
  if (inferred != out.end()) {
    *inferred = 1;
    *inferred = in.size() / std::max<int64_t>(Shape(out).size(), 1);
  }
  BRAID_CHECK(Shape(out).size() == in.size(), "operator Reshape: target_shape=", Shape(p.target_shape),
              " does not fit input shape ", in, " (sizes differ)");
  return Shape(out);
}

Shape reshaped(const std::any& pa, const Shape& in) {
  const auto& p = param<ReshapeParam>(pa);
  if (p.to_scalar) {
    BRAID_CHECK(in.size() == 1, "operator Reshape: shape=() makes a 0-d array of one element, but the input has shape ",
                in);
    return Shape(Dims{});
  }
  if (p.shape.empty()) return legacy_target_shape(p, in);
  try {
    if (!p.reverse) return infer_reshape(in, p.shape);
    // reverse=True reads the spec from the right: reshape the reversed shape by the reversed
    // spec and reverse the result (a -4 then comes before the two sizes it splits into).
    Dims src = in.dims(), spec = p.shape;
    std::reverse(src.begin(), src.end());
    std::reverse(spec.begin(), spec.end());
    Dims out;
    try {
      out = infer_reshape(Shape(src), spec).dims();
    } catch (const Error& e) {
      throw Error(cat("cannot reshape ", in, " with ", Shape(p.shape), " and reverse=True (", e.what(),
                      ", reading both from the right)"));
    }
    std::reverse(out.begin(), out.end());
    return Shape(out);
  } catch (const Error& e) {
    throw Error(cat("operator Reshape: ", e.what()));
  }
}

void add_reshape(Registry& r) {
  OpDef d;
  d.name = "Reshape";
  d.doc =
      "The same elements in a new shape; shape uses 0 (copy), -1 (infer), -2 (copy the rest), "
      "-3 (merge two), -4 (split one).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "Reshape");
    ReshapeParam p;
    p.shape = rd.get<std::vector<int64_t>>("shape", {});
    p.reverse = rd.get<bool>("reverse", false);
    p.target_shape = rd.get<std::vector<int64_t>>("target_shape", {});
    p.keep_highest = rd.get<bool>("keep_highest", false);
    rd.finish();
    p.to_scalar = p.shape.empty() && p.target_shape.empty() && a.count("shape") > 0;
    BRAID_CHECK(!p.shape.empty() || !p.target_shape.empty() || p.to_scalar,
                "operator Reshape: give the target shape in attribute shape, e.g. shape=(2, -1)");
    BRAID_CHECK(!p.keep_highest || !p.target_shape.empty(),
                "operator Reshape: keep_highest only applies to target_shape");
    return std::any(p);
  };
  add_view_op(r, std::move(d), reshaped, elements_in_order, true);
  r.add_alias("reshape", "Reshape");
}

// ---- reshape_like: lhs's elements, with lhs's axes [lhs_begin, lhs_end) replaced by rhs's
// axes [rhs_begin, rhs_end) (all of them by default) ----

struct ReshapeLikeParam {
  std::optional<int64_t> lhs_begin, lhs_end, rhs_begin, rhs_end;
};

// [begin, end) of an n-D shape; negative values count from the end, None is the edge.
std::pair<int, int> axis_range(std::optional<int64_t> begin, std::optional<int64_t> end, const Shape& s,
                               const char* side) {
  const int64_t n = s.ndim();
  int64_t b = begin.value_or(0), e = end.value_or(n);
  if (b < 0) b += n;
  if (e < 0) e += n;
  BRAID_CHECK(0 <= b && b <= e && e <= n, "operator reshape_like: ", side, "_begin/", side,
              "_end select no valid range of ", side, " shape ", s);
  return {static_cast<int>(b), static_cast<int>(e)};
}

Shape reshaped_like(const ReshapeLikeParam& p, const Shape& lhs, const Shape& rhs) {
  const auto [lb, le] = axis_range(p.lhs_begin, p.lhs_end, lhs, "lhs");
  const auto [rb, re] = axis_range(p.rhs_begin, p.rhs_end, rhs, "rhs");
  Dims out(lhs.dims().begin(), lhs.dims().begin() + lb);
  out.insert(out.end(), rhs.dims().begin() + rb, rhs.dims().begin() + re);
  out.insert(out.end(), lhs.dims().begin() + le, lhs.dims().end());
  BRAID_CHECK(Shape(out).size() == lhs.size(), "operator reshape_like: lhs shape ", lhs, " cannot become ", Shape(out),
              " (from rhs shape ", rhs, "): the sizes differ");
  return Shape(out);
}

void add_reshape_like(Registry& r) {
  OpDef d;
  d.name = "reshape_like";
  d.doc = "lhs's elements in rhs's shape (or lhs's axes lhs_begin..lhs_end replaced by rhs's rhs_begin..rhs_end).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "reshape_like");
    ReshapeLikeParam p{rd.get_optional<int64_t>("lhs_begin"), rd.get_optional<int64_t>("lhs_end"),
                       rd.get_optional<int64_t>("rhs_begin"), rd.get_optional<int64_t>("rhs_end")};
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"lhs", "rhs"});
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    merge_shape(out[0], reshaped_like(param<ReshapeLikeParam>(p), in[0], in[1]), "reshape_like", "output");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (out[0] == kDTypeUnknown) out[0] = in[0];
  };
  d.cpu.forward = [](const OpContext& oc, const std::any&, const ForwardArgs& a) {
    copy_in_order(oc.ctx, a.inputs[0], a.outputs[0], a.req[0], "reshape_like");
  };
  d.cpu.backward = [](const OpContext& oc, const std::any&, const BackwardArgs& a) {
    if (a.req[0] != OpReq::Null) copy_in_order(oc.ctx, a.out_grads[0], a.in_grads[0], a.req[0], "reshape_like");
    if (a.req.size() > 1 && a.req[1] == OpReq::Write) data_mover(oc.ctx).zero(a.in_grads[1]);  // rhs: shape only
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

struct AxisParam {
  int64_t axis = 0;
};

void add_expand_dims(Registry& r) {
  OpDef d;
  d.name = "expand_dims";
  d.doc = "Inserts an axis of size 1 at position axis.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "expand_dims");
    AxisParam p{rd.get<int64_t>("axis")};
    rd.finish();
    return std::any(p);
  };
  add_view_op(
      r, std::move(d),
      [](const std::any& p, const Shape& in) {
        int axis = normalize_axis("expand_dims", "axis", param<AxisParam>(p).axis, in.ndim() + 1, in);
        Dims out = in.dims();
        out.insert(out.begin() + axis, 1);
        return Shape(out);
      },
      elements_in_order, true);
}

struct SqueezeParam {
  std::optional<std::vector<int64_t>> axis;  // None: every axis of size 1
};

// squeeze (MXNet 1.x: a result without axes is (1,)) or _np_squeeze (NumPy: 0-d, and a 0-d
// input takes axis 0 or -1).
void add_squeeze(Registry& r, const std::string& name, bool numpy) {
  OpDef d;
  d.name = name;
  d.doc = numpy ? "NumPy's squeeze: removes axes of size 1 (the given ones, or all); may give a 0-d array."
                : "Removes axes of size 1 (the given ones, or all); a result without axes is (1,).";
  d.parse = [name](const AttrMap& a) {
    ParamReader rd(a, name);
    SqueezeParam p{rd.get_optional<std::vector<int64_t>>("axis")};
    rd.finish();
    return std::any(p);
  };
  add_view_op(
      r, std::move(d),
      [name, numpy](const std::any& pa, const Shape& in) {
        const auto& p = param<SqueezeParam>(pa);
        if (numpy && in.ndim() == 0) {
          for (int64_t a : p.axis.value_or(std::vector<int64_t>{}))
            BRAID_CHECK(a == 0 || a == -1, "operator ", name, ": axis ", a, " is out of range for a 0-d array");
          return in;
        }
        std::vector<bool> drop(static_cast<size_t>(in.ndim()), false);
        if (p.axis) {
          for (int a : normalize_axes(name, *p.axis, in.ndim(), in)) {
            BRAID_CHECK(in[a] == 1, "operator ", name, ": axis ", a, " of input shape ", in, " has size ", in[a],
                        ", not 1; only axes of size 1 can be removed");
            drop[static_cast<size_t>(a)] = true;
          }
        } else {
          for (int a = 0; a < in.ndim(); ++a) drop[static_cast<size_t>(a)] = in[a] == 1;
        }
        Dims out;
        for (int a = 0; a < in.ndim(); ++a)
          if (!drop[static_cast<size_t>(a)]) out.push_back(in[a]);
        if (out.empty() && !numpy) out.push_back(1);  // MXNet 1.x has no 0-D arrays here
        return Shape(out);
      },
      elements_in_order, true);
}

}  // namespace

void register_matrix_reshape_ops(Registry& r) {
  add_reshape(r);
  add_reshape_like(r);
  add_expand_dims(r);
  add_squeeze(r, "squeeze", false);
  add_squeeze(r, "_np_squeeze", true);
  r.add_alias("_npi_squeeze", "_np_squeeze");
}

}  // namespace braid::op::detail
