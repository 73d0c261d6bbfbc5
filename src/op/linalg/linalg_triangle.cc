// linalg.extractdiag, makediag, extracttrian, maketrian (a diagonal or a triangle of square
// matrices, packed row by row into vectors, and back) and sumlogdiag.
#include <cmath>
#include <cstdlib>

#include "linalg_util.h"

namespace braid::op::detail::linalg {
namespace {

struct PackParam {
  int64_t offset = 0;
  bool lower = true;
  bool diagonal = true;  // the diagonal at `offset`, or the triangle it bounds
};

std::any parse_pack(const AttrMap& attrs, const std::string& op, bool diagonal) {
  ParamReader rd(attrs, op);
  PackParam p;
  p.diagonal = diagonal;
  p.offset = rd.get<int64_t>("offset", 0);
  if (!diagonal) p.lower = rd.get<bool>("lower", true);
  rd.finish();
  return p;
}

// How many entries the diagonal or triangle of an n×n matrix holds (0 where the offset leaves none).
int64_t packed_size(const PackParam& p, int64_t n) {
  const int64_t k = n - std::abs(p.offset);
  if (k <= 0) return 0;
  return p.diagonal ? k : k * (k + 1) / 2;
}

// Where each packed entry sits in the row-major n×n matrix, in order: the diagonal j - i = offset;
// the upper triangle j - i >= offset (offset > 0, or 0 and not lower) or the lower j - i <= offset.
std::vector<int64_t> packed_positions(const PackParam& p, int64_t n) {
  std::vector<int64_t> at;
  const bool upper = p.offset > 0 || (p.offset == 0 && !p.lower);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int64_t d = j - i;
      if (p.diagonal ? d == p.offset : (upper ? d >= p.offset : d <= p.offset)) at.push_back(i * n + j);
    }
  return at;
}

// The side of the square matrices that `packed` entries fill (maketrian/makediag's output).
int64_t unpacked_side(const PackParam& p, int64_t packed, const std::string& op) {
  if (p.diagonal) return packed + std::abs(p.offset);
  const auto k = static_cast<int64_t>(std::floor(0.5 + (std::sqrt(8.0 * static_cast<double>(packed) + 1) - 1) / 2));
  BRAID_CHECK(k * (k + 1) / 2 == packed, "operator ", op, ": the last axis (", packed,
              ") must hold a triangle's entries, k (k + 1) / 2 for some k");
  return k + std::abs(p.offset);
}

bool infer_pack(const PackParam& p, bool extract, const std::string& op, std::vector<Shape>& in,
                std::vector<Shape>& out) {
  if (!in[0].fully_known()) return false;
  const Shape& s = in[0];
  Shape o;
  if (extract) {
    linalg::check_square(op, s);
    const int64_t size = packed_size(p, s.back());
    BRAID_CHECK(size > 0, "operator ", op, ": offset ", p.offset, " leaves nothing of matrices of shape ", s);
    std::vector<int64_t> dims(s.dims().begin(), s.dims().end() - 1);
    dims.back() = size;
    o = Shape(dims);
  } else {
    BRAID_CHECK(s.ndim() >= 1, "operator ", op, ": A must have at least one axis");
    std::vector<int64_t> dims = s.dims();
    const int64_t n = unpacked_side(p, s.back(), op);
    dims.back() = n;
    dims.push_back(n);
    o = Shape(dims);
  }
  merge_shape(out[0], o, op, "output");
  return true;
}

// Copies between the packed vectors and the square matrices: from the matrices when `extract`.
template <class T>
void pack(const PackParam& p, bool extract, const TBlob& matrices, const TBlob& vectors, OpReq req) {
  const int64_t n = matrices.shape.back(), size = packed_size(p, n),
                count = vectors.size() / std::max<int64_t>(size, 1);
  const std::vector<int64_t> at = packed_positions(p, n);
  const T* from = extract ? matrices.ptr<T>() : vectors.ptr<T>();
  T* to = extract ? vectors.ptr<T>() : matrices.ptr<T>();
  if (!extract && req == OpReq::Write) std::fill(to, to + matrices.size(), T(0));
  for (int64_t b = 0; b < count; ++b)
    for (int64_t e = 0; e < size; ++e) {
      const int64_t m = b * n * n + at[static_cast<size_t>(e)], v = b * size + e;
      assign(to[extract ? v : m], req, from[extract ? m : v]);
    }
}

void add_pack_op(Registry& r, const std::string& name, bool diagonal, bool extract, const std::string& doc) {
  OpDef d = new_op(name, doc);
  d.parse = [name, diagonal](const AttrMap& attrs) { return parse_pack(attrs, name, diagonal); };
  d.infer_shape = [name, extract](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out,
                                  std::vector<Shape>&) {
    return infer_pack(param<PackParam>(pa), extract, name, in, out);
  };
  d.cpu.forward = [name, extract](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const TBlob& m = extract ? a.inputs[0] : a.outputs[0];
    const TBlob& v = extract ? a.outputs[0] : a.inputs[0];
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(),
                           { pack<T>(param<PackParam>(pa), extract, m, v, a.req[0]); });
  };
  // The gradient of one direction is the other direction.
  d.cpu.backward = [name, extract](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const TBlob& m = extract ? a.in_grads[0] : a.out_grads[0];
    const TBlob& v = extract ? a.out_grads[0] : a.in_grads[0];
    BRAID_REAL_TYPE_SWITCH(a.in_grads[0].dtype, T, name.c_str(),
                           { pack<T>(param<PackParam>(pa), !extract, m, v, a.req[0]); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  add_op(r, std::move(d));
}

// ---- sumlogdiag: sum_i log A_ii; dA_ii = G / A_ii.

void add_sumlogdiag(Registry& r) {
  OpDef d =
      new_op("_linalg_sumlogdiag", "Sum of the logarithms of the diagonal of square matrices (linalg.sumlogdiag).");
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known()) return false;
    linalg::check_square("_linalg_sumlogdiag", in[0]);
    merge_shape(out[0], linalg::batch_shape(in[0], 2), "_linalg_sumlogdiag", "output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_linalg_sumlogdiag", {
      const int64_t n = a.inputs[0].shape.back(), count = a.outputs[0].size();
      const T* x = a.inputs[0].ptr<T>();
      for (int64_t b = 0; b < count; ++b) {
        T sum = T(0);
        for (int64_t i = 0; i < n; ++i) sum += std::log(x[b * n * n + i * n + i]);
        assign(a.outputs[0].ptr<T>()[b], a.req[0], sum);
      }
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_linalg_sumlogdiag", {
      const int64_t n = a.inputs[0].shape.back(), count = a.out_grads[0].size();
      const T *x = a.inputs[0].ptr<T>(), *g = a.out_grads[0].ptr<T>();
      T* dx = a.in_grads[0].ptr<T>();
      for (int64_t b = 0; b < count; ++b)
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            const int64_t at = b * n * n + i * n + j;
            assign(dx[at], a.req[0], i == j ? g[b] / x[at] : T(0));
          }
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  add_op(r, std::move(d));
}

}  // namespace

void register_triangle_ops(Registry& r) {
  add_pack_op(r, "_linalg_extractdiag", true, true, "The diagonal at `offset` of square matrices, as vectors.");
  add_pack_op(r, "_linalg_makediag", true, false, "Square matrices with the given vectors as diagonal at `offset`.");
  add_pack_op(r, "_linalg_extracttrian", false, true,
              "The triangle of square matrices that `offset` and `lower` name, packed row by row.");
  add_pack_op(r, "_linalg_maketrian", false, false,
              "Square matrices with the given packed triangles (the inverse of extracttrian).");
  add_sumlogdiag(r);
}

}  // namespace braid::op::detail::linalg
