// diag (MXNet's): of a 1-D array, the square matrix with it on diagonal k; of an N-D array, the
// diagonal k of the matrices on axes (axis1, axis2), as a new last axis. Strided copies both ways.
#include "op/op_util.h"
#include "op/register_all.h"
#include "strided_copy.h"

namespace braid::op::detail {
namespace {

struct DiagParam {
  int64_t k = 0;
  int64_t axis1 = 0, axis2 = 1;
};

// Where the diagonal lies: walking `shape` in row-major order visits the packed side's elements
// in order; each is at offset + index · strides on the matrix side.
struct DiagLayout {
  Dims shape, strides;
  int64_t offset = 0;
};

DiagLayout diag_layout(const DiagParam& p, const Shape& matrix) {
  DiagLayout l;
  const Dims st = contiguous_strides(matrix.dims());
  const int a1 = matrix.axis(static_cast<int>(p.axis1), "diag axis1"),
            a2 = matrix.axis(static_cast<int>(p.axis2), "diag axis2");
  BRAID_CHECK(a1 != a2, "operator diag: axis1 and axis2 must differ; both are ", a1);
  for (int d = 0; d < matrix.ndim(); ++d)
    if (d != a1 && d != a2) {
      l.shape.push_back(matrix[d]);
      l.strides.push_back(st[static_cast<size_t>(d)]);
    }
  const int64_t n1 = matrix[a1], n2 = matrix[a2];
  const int64_t len = p.k >= 0 ? std::min(n1, n2 - p.k) : std::min(n1 + p.k, n2);
  BRAID_CHECK(len > 0, "operator diag: k=", p.k, " leaves no diagonal in matrices of ", n1, "×", n2, " (shape ", matrix,
              ")");
  l.shape.push_back(len);
  l.strides.push_back(st[static_cast<size_t>(a1)] + st[static_cast<size_t>(a2)]);
  l.offset = p.k >= 0 ? p.k * st[static_cast<size_t>(a2)] : -p.k * st[static_cast<size_t>(a1)];
  return l;
}

// The square matrix a vector of n elements makes: (n + |k|, n + |k|).
Shape square_of(const DiagParam& p, int64_t n) { return Shape({n + std::abs(p.k), n + std::abs(p.k)}); }

Shape diag_shape(const DiagParam& p, const Shape& in) {
  BRAID_CHECK(in.ndim() >= 1, "operator diag: data needs at least one axis");
  if (in.ndim() == 1) return square_of(p, in[0]);
  return Shape(diag_layout(p, in).shape);
}

// Copies between the packed diagonal (contiguous) and the matrix side: into the matrices when
// `to_matrix` (which zero first on Write, the rest of them staying 0).
void move_diagonal(const OpContext& oc, const DiagParam& p, const TBlob& packed, const TBlob& matrix, bool to_matrix,
                   OpReq req) {
  if (req == OpReq::Null) return;
  const DiagLayout l = diag_layout(p, matrix.shape);
  const DataMover& move = data_mover(oc.ctx);
  if (to_matrix) {
    if (req == OpReq::Write) move.zero(matrix);
    move.copy(matrix.dtype, packed.dptr, 0, contiguous_strides(l.shape), matrix.dptr, l.offset, l.strides, l.shape,
              req == OpReq::Write ? OpReq::Write : OpReq::Add, "diag");
  } else {
    move.copy(matrix.dtype, matrix.dptr, l.offset, l.strides, packed.dptr, 0, contiguous_strides(l.shape), l.shape, req,
              "diag");
  }
}

// A vector's diagonal lies on axes 0 and 1 of its square matrix, whatever axis1 and axis2 say.
DiagParam for_vector(DiagParam p) {
  p.axis1 = 0;
  p.axis2 = 1;
  return p;
}

}  // namespace

void register_diag_ops(Registry& r) {
  OpDef d;
  d.name = "diag";
  d.doc = "A 1-D array on diagonal k of a square matrix, or the diagonal k of the (axis1, axis2) matrices.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "diag");
    DiagParam p;
    p.k = rd.get<int64_t>("k", 0);
    p.axis1 = rd.get<int64_t>("axis1", 0);
    p.axis2 = rd.get<int64_t>("axis2", 1);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known()) return false;
    merge_shape(out[0], diag_shape(param<DiagParam>(pa), in[0]), "diag", "output");
    return true;
  };
  // A vector's matrix is the matrix side of the copy; so is an N-D input.
  d.cpu.forward = [](const OpContext& oc, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<DiagParam>(pa);
    if (a.inputs[0].shape.ndim() == 1)
      move_diagonal(oc, for_vector(p), a.inputs[0], a.outputs[0], true, a.req[0]);
    else
      move_diagonal(oc, p, a.outputs[0], a.inputs[0], false, a.req[0]);
  };
  d.cpu.backward = [](const OpContext& oc, const std::any& pa, const BackwardArgs& a) {
    const auto& p = param<DiagParam>(pa);
    if (a.in_grads[0].shape.ndim() == 1)
      move_diagonal(oc, for_vector(p), a.in_grads[0], a.out_grads[0], false, a.req[0]);
    else
      move_diagonal(oc, p, a.out_grads[0], a.in_grads[0], true, a.req[0]);
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
