// NumPy's reshape for mx.np arrays: _np_reshape (alias _npi_reshape), where every size is
// literal but one -1 (so a 0 is an empty extent, not the legacy Reshape's "copy"), and
// numpy_extension's _npx_reshape with MXNet's codes read position by position against the
// input's axes: -1 inferred, -2 copied, -3 a size-1 axis dropped, -4 the remaining axes copied,
// -5 two axes merged, -6 one axis split in the two sizes that follow (one of them may be -1).
#include <algorithm>

#include "matrix_util.h"

namespace braid::op::detail {
namespace {

struct NpReshapeParam {
  std::vector<int64_t> newshape;
  bool reverse = false;
};

// Fills the one -1 of `out` (at `unknown`, or none when negative) so that it holds `in`'s elements.
Shape with_inferred(std::vector<int64_t> out, int unknown, const Shape& in, const char* op) {
  int64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i)
    if (static_cast<int>(i) != unknown) known *= out[i];
  if (unknown >= 0) {
    BRAID_CHECK(known != 0, "operator ", op, ": cannot infer the -1 of ", Shape(out), " for input shape ", in,
                " (the other sizes multiply to 0)");
    BRAID_CHECK(in.size() % known == 0, "operator ", op, ": cannot reshape ", in, " into ", Shape(out), " (", in.size(),
                " elements do not divide by ", known, ")");
    out[static_cast<size_t>(unknown)] = in.size() / known;
  }
  BRAID_CHECK(Shape(out).size() == in.size(), "operator ", op, ": cannot reshape ", in, " (", in.size(),
              " elements) into ", Shape(out), " (", Shape(out).size(), ")");
  return Shape(out);
}

Shape np_reshaped(const std::any& pa, const Shape& in) {
  const auto& p = param<NpReshapeParam>(pa);
  int unknown = -1;
  for (size_t i = 0; i < p.newshape.size(); ++i) {
    const int64_t d = p.newshape[i];
    BRAID_CHECK(d >= -1, "operator _np_reshape: newshape ", Shape(p.newshape), " has ", d,
                "; sizes are >= 0 with one -1 at most (mx.npx.reshape has MXNet's special values)");
    if (d == -1) {
      BRAID_CHECK(unknown < 0, "operator _np_reshape: newshape ", Shape(p.newshape), " has more than one -1");
      unknown = static_cast<int>(i);
    }
  }
  return with_inferred(p.newshape, unknown, in, "_np_reshape");
}

// The codes read left to right against `in`'s axes.
Shape npx_forward(const std::vector<int64_t>& spec, const Shape& in) {
  std::vector<int64_t> out;
  int unknown = -1, src = 0;
  auto next_input = [&](int64_t code) {
    BRAID_CHECK(src < in.ndim(), "operator _npx_reshape: newshape ", Shape(spec), " reads past the ", in.ndim(),
                " axes of input shape ", in, " (at code ", code, ")");
    return in[src++];
  };
  for (size_t j = 0; j < spec.size(); ++j) {
    const int64_t code = spec[j];
    if (code >= 0) {
      out.push_back(code);
      ++src;
    } else if (code == -1) {
      BRAID_CHECK(unknown < 0, "operator _npx_reshape: newshape ", Shape(spec), " has more than one -1");
      unknown = static_cast<int>(out.size());
      out.push_back(-1);
      ++src;
    } else if (code == -2) {
      out.push_back(next_input(code));
    } else if (code == -3) {
      const int64_t d = next_input(code);
      BRAID_CHECK(d == 1, "operator _npx_reshape: -3 drops an axis of size 1, but axis ", src - 1, " of ", in,
                  " has size ", d);
    } else if (code == -4) {
      while (src < in.ndim()) out.push_back(in[src++]);
    } else if (code == -5) {
      const int64_t a = next_input(code);
      out.push_back(a * next_input(code));
    } else if (code == -6) {
      BRAID_CHECK(j + 2 < spec.size(), "operator _npx_reshape: -6 in ", Shape(spec), " needs the two sizes after it");
      const int64_t d = next_input(code);
      int64_t a = spec[++j], b = spec[++j];
      BRAID_CHECK((a != -1 || b != -1) && a >= -1 && b >= -1, "operator _npx_reshape: -6 splits axis of size ", d,
                  " into ", a, " and ", b, "; give two sizes, at most one of them -1");
      if (a == -1) a = b == 0 ? 0 : d / b;
      if (b == -1) b = a == 0 ? 0 : d / a;
      BRAID_CHECK(a * b == d, "operator _npx_reshape: -6 cannot split an axis of size ", d, " into ", a, " x ", b);
      out.push_back(a);
      out.push_back(b);
    } else {
      throw Error(
          cat("operator _npx_reshape: unknown code ", code, " in newshape ", Shape(spec), "; the codes are -1 to -6"));
    }
  }
  return with_inferred(out, unknown, in, "_npx_reshape");
}

Shape npx_reshaped(const std::any& pa, const Shape& in) {
  const auto& p = param<NpReshapeParam>(pa);
  if (!p.reverse) return npx_forward(p.newshape, in);
  // reverse=True reads both from the right; a -6 stays before its two sizes, which then split
  // the axis in the reversed order (so the result, reversed back, has them as given).
  std::vector<int64_t> spec;
  for (size_t j = 0; j < p.newshape.size(); ++j) {
    if (p.newshape[j] == -6 && j + 2 < p.newshape.size()) {
      spec.insert(spec.end(), {p.newshape[j + 1], p.newshape[j + 2], -6});
      j += 2;
    } else {
      spec.push_back(p.newshape[j]);
    }
  }
  std::reverse(spec.begin(), spec.end());
  std::vector<int64_t> dims = in.dims();
  std::reverse(dims.begin(), dims.end());
  std::vector<int64_t> out = npx_forward(spec, Shape(dims)).dims();
  std::reverse(out.begin(), out.end());
  return Shape(out);
}

void add_np_reshape(Registry& r, const std::string& name, const std::string& doc, ShapeFn shape, bool codes) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = [name, codes](const AttrMap& a) {
    ParamReader rd(a, name);
    NpReshapeParam p;
    p.newshape = rd.get<std::vector<int64_t>>("newshape");
    if (codes) p.reverse = rd.get<bool>("reverse", false);
    const std::string order = rd.get<std::string>("order", "C");
    rd.finish();
    BRAID_CHECK(order == "C", "operator ", name, ": only order='C' is supported, not '", order, "'");
    return std::any(p);
  };
  add_view_op(r, std::move(d), std::move(shape), elements_in_order, true);
}

}  // namespace

void register_matrix_np_reshape_ops(Registry& r) {
  add_np_reshape(r, "_np_reshape", "NumPy's reshape: every size literal (0 is empty), one -1 inferred.", np_reshaped,
                 false);
  r.add_alias("_npi_reshape", "_np_reshape");
  add_np_reshape(r, "_npx_reshape",
                 "mx.npx.reshape: sizes, or -1 (inferred), -2 (copy), -3 (drop a size-1 axis), -4 (copy the rest), "
                 "-5 (merge two), -6 (split one in the two sizes that follow); reverse reads from the right.",
                 npx_reshaped, true);
}

}  // namespace braid::op::detail
