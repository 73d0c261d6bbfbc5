// linalg.gemm, gemm2, trmm, trsm and syrk: batched matrix products and triangular solves on
// OpenBLAS, with their exact gradients.
#include "lapack.h"
#include "linalg_util.h"
#include "op/common/gemm.h"

namespace braid::op::detail::linalg {
namespace {

// ---- gemm, gemm2: out = alpha op(A) op(B) (+ beta C), rows along `axis`, columns along the last.

struct GemmParam {
  bool transpose_a = false, transpose_b = false, with_c = true;
  double alpha = 1, beta = 1;
  int axis = -2;
};

GemmParam parse_gemm(const AttrMap& attrs, const std::string& op, bool with_c) {
  ParamReader rd(attrs, op);
  GemmParam p;
  p.with_c = with_c;
  p.transpose_a = rd.get<bool>("transpose_a", false);
  p.transpose_b = rd.get<bool>("transpose_b", false);
  p.alpha = rd.get<double>("alpha", 1.0);
  if (with_c) p.beta = rd.get<double>("beta", 1.0);
  p.axis = rd.get<int>("axis", -2);
  rd.finish();
  return p;
}

bool infer_gemm(const GemmParam& p, const std::string& op, std::vector<Shape>& in, std::vector<Shape>& out) {
  const Shape &a = in[0], &b = in[1];
  if (!a.fully_known() || !b.fully_known()) {
    if (p.with_c && out[0].fully_known()) merge_shape(in[2], out[0], op, "C");
    return false;
  }
  const int nd = a.ndim();
  BRAID_CHECK(nd >= 2 && b.ndim() == nd, "operator ", op,
              ": A and B must have the same number of axes, at least 2; got shapes ", a, " and ", b);
  BRAID_CHECK(p.axis >= -nd && p.axis < nd - 1 && p.axis != -1, "operator ", op, ": axis ", p.axis,
              " cannot be the rows' axis of shape ", a, " (the columns run along the last axis)");
  const int r = p.axis < 0 ? p.axis + nd : p.axis, last = nd - 1;
  const int64_t m = p.transpose_a ? a[last] : a[r], ka = p.transpose_a ? a[r] : a[last];
  const int64_t kb = p.transpose_b ? b[last] : b[r], n = p.transpose_b ? b[r] : b[last];
  BRAID_CHECK(ka == kb, "operator ", op, ": op(A) has ", ka, " columns but op(B) has ", kb, " rows (shapes ", a,
              " and ", b, ", transpose_a=", p.transpose_a, ", transpose_b=", p.transpose_b, ")");
  for (int k = 0; k < last; ++k)
    BRAID_CHECK(k == r || a[k] == b[k], "operator ", op, ": A and B must share their batch axes; got shapes ", a,
                " and ", b);
  Shape o = a;
  o[r] = m;
  o[last] = n;
  if (p.with_c) merge_shape(in[2], o, op, "C");
  merge_shape(out[0], o, op, "output");
  return all_known(in) && all_known(out);
}

// The matrices of `t` (rows along `axis`) one after the other: `t` itself where the rows run along
// the second-to-last axis, else a copy kept in `copy`.
template <class T>
const T* contiguous_matrices(const TBlob& t, int axis, std::vector<T>& copy) {
  const MatrixBatch mb = matrices(t.shape, axis);
  if (mb.ld == mb.cols) return t.ptr<T>();
  copy.resize(static_cast<size_t>(t.size()));
  for (int64_t b = 0; b < mb.count; ++b) {
    const std::vector<T> m = load(t.ptr<T>() + mb.offsets[b], mb.rows, mb.cols, mb.ld);
    std::copy(m.begin(), m.end(), copy.begin() + b * mb.rows * mb.cols);
  }
  return copy.data();
}

// out (count matrices, rows along `axis`) = alpha op(a) op(b) + beta c for contiguous a, b, c
// (c optional), honouring req; the products run batched (op/common/gemm.h).
template <class T>
void batched_product(const GemmDims& g, int64_t count, const T* a, const T* b, T alpha, const TBlob& out, int axis,
                     OpReq req, const T* c = nullptr, T beta = T(0)) {
  if (req == OpReq::Null) return;
  const int64_t size = count * g.m * g.n;
  const MatrixBatch o = matrices(out.shape, axis);
  const bool direct = req == OpReq::Write && o.ld == o.cols;  // straight into the output
  std::vector<T> product(direct ? 0 : static_cast<size_t>(size));
  T* dst = direct ? out.ptr<T>() : product.data();
  gemm_batched<T>(g, count, a, g.m * g.k, b, g.k * g.n, dst, g.m * g.n, false);
  if (alpha != T(1) || c)
    for (int64_t i = 0; i < size; ++i) dst[i] = alpha * dst[i] + (c ? beta * c[i] : T(0));
  if (direct) return;
  for (int64_t bi = 0; bi < count; ++bi)
    for (int64_t r = 0; r < g.m; ++r)
      for (int64_t col = 0; col < g.n; ++col)
        assign(out.ptr<T>()[o.offsets[bi] + r * o.ld + col], req, dst[(bi * g.m + r) * g.n + col]);
}

template <class T>
void gemm_forward(const GemmParam& p, const ForwardArgs& a) {
  const MatrixBatch A = matrices(a.inputs[0].shape, p.axis), O = matrices(a.outputs[0].shape, p.axis);
  std::vector<T> copies[3];
  const T* pa = contiguous_matrices<T>(a.inputs[0], p.axis, copies[0]);
  const T* pb = contiguous_matrices<T>(a.inputs[1], p.axis, copies[1]);
  const T* pc = p.with_c ? contiguous_matrices<T>(a.inputs[2], p.axis, copies[2]) : nullptr;
  const GemmDims g{p.transpose_a, p.transpose_b, O.rows, O.cols, p.transpose_a ? A.rows : A.cols};
  batched_product<T>(g, O.count, pa, pb, static_cast<T>(p.alpha), a.outputs[0], p.axis, a.req[0], pc,
                     static_cast<T>(p.beta));
}

// dA = alpha G op(B)^T (or its transpose), dB = alpha op(A)^T G (or its transpose), dC = beta G.
template <class T>
void gemm_backward(const GemmParam& p, const BackwardArgs& a) {
  const MatrixBatch A = matrices(a.inputs[0].shape, p.axis), G = matrices(a.out_grads[0].shape, p.axis);
  const bool ta = p.transpose_a, tb = p.transpose_b;
  const int64_t m = G.rows, n = G.cols, k = ta ? A.rows : A.cols;
  const T alpha = static_cast<T>(p.alpha);
  std::vector<T> copies[3];
  const T* pa = contiguous_matrices<T>(a.inputs[0], p.axis, copies[0]);
  const T* pb = contiguous_matrices<T>(a.inputs[1], p.axis, copies[1]);
  const T* pg = contiguous_matrices<T>(a.out_grads[0], p.axis, copies[2]);
  if (!ta)
    batched_product<T>({false, !tb, m, k, n}, G.count, pg, pb, alpha, a.in_grads[0], p.axis, a.req[0]);
  else
    batched_product<T>({tb, true, k, m, n}, G.count, pb, pg, alpha, a.in_grads[0], p.axis, a.req[0]);
  if (!tb)
    batched_product<T>({!ta, false, k, n, m}, G.count, pa, pg, alpha, a.in_grads[1], p.axis, a.req[1]);
  else
    batched_product<T>({true, ta, n, k, m}, G.count, pg, pa, alpha, a.in_grads[1], p.axis, a.req[1]);
  if (p.with_c && a.req[2] != OpReq::Null) {
    const MatrixBatch C = matrices(a.inputs[2].shape, p.axis);
    for (int64_t b = 0; b < G.count; ++b) {
      std::vector<T> d = load(pg + b * m * n, m, n, n);
      for (T& v : d) v *= static_cast<T>(p.beta);
      store(a.in_grads[2].ptr<T>() + C.offsets[b], m, n, C.ld, d, a.req[2]);
    }
  }
}

void add_gemm(Registry& r, const std::string& name, bool with_c) {
  OpDef d = new_op(
      name, with_c ? "Batched alpha op(A) op(B) + beta C (linalg.gemm)." : "Batched alpha op(A) op(B) (linalg.gemm2).",
      with_c ? std::vector<std::string>{"A", "B", "C"} : std::vector<std::string>{"A", "B"});
  d.parse = [name, with_c](const AttrMap& attrs) { return std::any(parse_gemm(attrs, name, with_c)); };
  d.infer_shape = [name](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_gemm(param<GemmParam>(pa), name, in, out);
  };
  d.cpu.forward = [name](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), { gemm_forward<T>(param<GemmParam>(pa), a); });
  };
  d.cpu.backward = [name](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), { gemm_backward<T>(param<GemmParam>(pa), a); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  add_op(r, std::move(d));
}

// ---- trmm, trsm: alpha op(A) B, alpha op(A)^-1 B, or B on the left with rightside; A triangular.

struct TriangleParam {
  bool transpose = false, rightside = false, lower = true;
  double alpha = 1;
};

std::any parse_triangle(const AttrMap& attrs, const std::string& op) {
  ParamReader rd(attrs, op);
  TriangleParam p;
  p.transpose = rd.get<bool>("transpose", false);
  p.rightside = rd.get<bool>("rightside", false);
  p.lower = rd.get<bool>("lower", true);
  p.alpha = rd.get<double>("alpha", 1.0);
  rd.finish();
  return p;
}

bool infer_triangle(const TriangleParam& p, const std::string& op, std::vector<Shape>& in, std::vector<Shape>& out) {
  if (in[1].fully_known()) merge_shape(out[0], in[1], op, "output");
  if (out[0].fully_known()) merge_shape(in[1], out[0], op, "B");
  if (!in[0].fully_known() || !in[1].fully_known()) return false;
  const Shape &a = in[0], &b = in[1];
  linalg::check_square(op, a);
  const int nd = b.ndim();
  BRAID_CHECK(a.ndim() == nd, "operator ", op, ": A and B must have the same number of axes; got shapes ", a, " and ",
              b);
  const int64_t side = p.rightside ? b[nd - 1] : b[nd - 2];
  BRAID_CHECK(a[nd - 1] == side, "operator ", op, ": the triangular A (", a[nd - 1], "×", a[nd - 1],
              ") does not fit B of shape ", b, p.rightside ? " from the right" : " from the left");
  for (int k = 0; k < nd - 2; ++k)
    BRAID_CHECK(a[k] == b[k], "operator ", op, ": A and B must share their batch axes; got shapes ", a, " and ", b);
  return true;
}

// dA from dM = d op(A): transposed back where op transposes, and only A's triangle (the other is
// never read).
template <class T>
void store_triangle_grad(const TriangleParam& p, std::vector<T> dm, int64_t s, T* dst, OpReq req) {
  if (p.transpose) dm = linalg::transposed(dm, s, s);
  linalg::keep_triangle(dm, s, p.lower);
  store(dst, s, s, s, dm, req);
}

template <class T>
void triangle_forward(const TriangleParam& p, bool solve, const ForwardArgs& a) {
  const MatrixBatch A = matrices(a.inputs[0].shape), B = matrices(a.inputs[1].shape);
  const T *pa = a.inputs[0].ptr<T>(), *pb = a.inputs[1].ptr<T>();
  T* po = a.outputs[0].ptr<T>();
  for_each_matrix(B.count, [&](int64_t b) {
    std::vector<T> x = load(pb + B.offsets[b], B.rows, B.cols, B.ld);
    const auto run = solve ? lapack::trsm<T> : lapack::trmm<T>;
    run(p.rightside, p.lower, p.transpose, B.rows, B.cols, static_cast<T>(p.alpha), pa + A.offsets[b], A.ld, x.data(),
        B.cols);
    store(po + B.offsets[b], B.rows, B.cols, B.ld, x, a.req[0]);
  });
}

// With M = op(A) and X the output: trsm (X = alpha M^-1 B): Y = M^-T G, dB = alpha Y, dM = -Y X^T;
// trmm (X = alpha M B): dB = alpha M^T G, dM = alpha G B^T. Mirrored for rightside.
template <class T>
void triangle_backward(const TriangleParam& p, bool solve, const BackwardArgs& a) {
  const MatrixBatch A = matrices(a.inputs[0].shape), B = matrices(a.inputs[1].shape);
  const int64_t m = B.rows, n = B.cols, s = A.rows;
  const T alpha = static_cast<T>(p.alpha);
  const T *pa = a.inputs[0].ptr<T>(), *pb = a.inputs[1].ptr<T>(), *pg = a.out_grads[0].ptr<T>();
  const T* px = solve ? a.outputs[0].ptr<T>() : nullptr;
  for_each_matrix(B.count, [&](int64_t b) {
    const T* ma = pa + A.offsets[b];
    std::vector<T> y = load(pg + B.offsets[b], m, n, B.ld), dm(static_cast<size_t>(s * s));
    if (solve) {
      lapack::trsm(p.rightside, p.lower, !p.transpose, m, n, T(1), ma, A.ld, y.data(), n);
      const std::vector<T> x = load(px + B.offsets[b], m, n, B.ld);
      if (!p.rightside)
        lapack::gemm(false, true, m, m, n, T(-1), y.data(), n, x.data(), n, T(0), dm.data(), s);
      else
        lapack::gemm(true, false, n, n, m, T(-1), x.data(), n, y.data(), n, T(0), dm.data(), s);
      for (T& v : y) v *= alpha;
    } else {
      const std::vector<T> g = y;
      const T* mb = pb + B.offsets[b];
      lapack::trmm(p.rightside, p.lower, !p.transpose, m, n, alpha, ma, A.ld, y.data(), n);
      if (!p.rightside)
        lapack::gemm(false, true, m, m, n, alpha, g.data(), n, mb, B.ld, T(0), dm.data(), s);
      else
        lapack::gemm(true, false, n, n, m, alpha, mb, B.ld, g.data(), n, T(0), dm.data(), s);
    }
    if (a.req[0] != OpReq::Null)
      store_triangle_grad(p, std::move(dm), s, a.in_grads[0].ptr<T>() + A.offsets[b], a.req[0]);
    if (a.req[1] != OpReq::Null) store(a.in_grads[1].ptr<T>() + B.offsets[b], m, n, B.ld, y, a.req[1]);
  });
}

void add_triangle_op(Registry& r, const std::string& name, bool solve) {
  OpDef d = new_op(name,
                   solve ? "Solves op(A) X = alpha B (or X op(A) = alpha B) for X, A triangular (linalg.trsm)."
                         : "alpha op(A) B (or alpha B op(A)), A triangular (linalg.trmm).",
                   {"A", "B"});
  d.parse = [name](const AttrMap& attrs) { return parse_triangle(attrs, name); };
  d.infer_shape = [name](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_triangle(param<TriangleParam>(pa), name, in, out);
  };
  d.cpu.forward = [name, solve](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(),
                           { triangle_forward<T>(param<TriangleParam>(pa), solve, a); });
  };
  d.cpu.backward = [name, solve](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(),
                           { triangle_backward<T>(param<TriangleParam>(pa), solve, a); });
  };
  d.backward_reads = [solve](const std::any&) { return BackwardReads{true, solve}; };
  add_op(r, std::move(d));
}

// ---- syrk: alpha A A^T, or alpha A^T A with transpose.

struct SyrkParam {
  bool transpose = false;
  double alpha = 1;
};

template <class T>
void syrk_forward(const SyrkParam& p, const ForwardArgs& a) {
  const MatrixBatch A = matrices(a.inputs[0].shape), O = matrices(a.outputs[0].shape);
  const int64_t m = A.rows, n = A.cols, s = O.rows;
  const T* pa = a.inputs[0].ptr<T>();
  for_each_matrix(A.count, [&](int64_t b) {
    std::vector<T> o(static_cast<size_t>(s * s));
    const T* x = pa + A.offsets[b];
    lapack::gemm(p.transpose, !p.transpose, s, s, p.transpose ? m : n, static_cast<T>(p.alpha), x, A.ld, x, A.ld, T(0),
                 o.data(), s);
    store(a.outputs[0].ptr<T>() + O.offsets[b], s, s, s, o, a.req[0]);
  });
}

// dA = alpha (G + G^T) A, or alpha A (G + G^T) with transpose.
template <class T>
void syrk_backward(const SyrkParam& p, const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const MatrixBatch A = matrices(a.inputs[0].shape), G = matrices(a.out_grads[0].shape);
  const int64_t m = A.rows, n = A.cols, s = G.rows;
  const T* pa = a.inputs[0].ptr<T>();
  for_each_matrix(A.count, [&](int64_t b) {
    std::vector<T> sym = load(a.out_grads[0].ptr<T>() + G.offsets[b], s, s, s), d(static_cast<size_t>(m * n));
    const std::vector<T> gt = linalg::transposed(sym, s, s);
    for (size_t i = 0; i < sym.size(); ++i) sym[i] += gt[i];
    const T* x = pa + A.offsets[b];
    if (!p.transpose)
      lapack::gemm(false, false, m, n, m, static_cast<T>(p.alpha), sym.data(), s, x, A.ld, T(0), d.data(), n);
    else
      lapack::gemm(false, false, m, n, n, static_cast<T>(p.alpha), x, A.ld, sym.data(), s, T(0), d.data(), n);
    store(a.in_grads[0].ptr<T>() + A.offsets[b], m, n, A.ld, d, a.req[0]);
  });
}

void add_syrk(Registry& r) {
  OpDef d = new_op("_linalg_syrk", "Batched alpha A A^T, or alpha A^T A with transpose (linalg.syrk).");
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "_linalg_syrk");
    SyrkParam p;
    p.transpose = rd.get<bool>("transpose", false);
    p.alpha = rd.get<double>("alpha", 1.0);
    rd.finish();
    return std::any(p);
  };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known()) return false;
    const Shape& a = in[0];
    BRAID_CHECK(a.ndim() >= 2, "operator _linalg_syrk: A must hold matrices (at least 2 axes); got shape ", a);
    Shape o = a;
    const int nd = a.ndim();
    const int64_t s = param<SyrkParam>(pa).transpose ? a[nd - 1] : a[nd - 2];
    o[nd - 2] = o[nd - 1] = s;
    merge_shape(out[0], o, "_linalg_syrk", "output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_linalg_syrk", { syrk_forward<T>(param<SyrkParam>(pa), a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_linalg_syrk", { syrk_backward<T>(param<SyrkParam>(pa), a); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  add_op(r, std::move(d));
}

}  // namespace

void register_blas3_ops(Registry& r) {
  add_gemm(r, "_linalg_gemm", true);
  add_gemm(r, "_linalg_gemm2", false);
  add_triangle_op(r, "_linalg_trmm", false);
  add_triangle_op(r, "_linalg_trsm", true);
  add_syrk(r);
}

}  // namespace braid::op::detail::linalg
