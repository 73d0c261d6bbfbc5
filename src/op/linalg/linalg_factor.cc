// linalg.potrf, potri, gelqf and syevd: Cholesky factor and the inverse from it, LQ and symmetric
// eigendecomposition, on OpenBLAS's LAPACK, with their gradients (Murray, "Differentiation of
// the Cholesky decomposition", 2016; Seeger et al., "Auto-differentiating linear algebra", 2017).
#include <cmath>

#include "lapack.h"
#include "linalg_util.h"

namespace braid::op::detail::linalg {
namespace {

struct LowerParam {
  bool lower = true;
};

std::any parse_lower(const AttrMap& attrs, const std::string& op) {
  ParamReader rd(attrs, op);
  LowerParam p;
  p.lower = rd.get<bool>("lower", true);
  rd.finish();
  return p;
}

bool infer_square_same(const std::string& op, std::vector<Shape>& in, std::vector<Shape>& out) {
  const bool known = infer_same_shape(op, in, out);
  if (known) linalg::check_square(op, in[0]);
  return known;
}

// The n×n copy of a triangle's matrix as lower triangular: itself, or the transpose of an upper one.
template <class T>
std::vector<T> as_lower(const T* p, int64_t n, bool lower) {
  std::vector<T> m = load(p, n, n, n);
  return lower ? m : transposed(m, n, n);
}

// Copies the lower triangle of the n×n `m` onto its upper one (MXNet's copyLTU).
template <class T>
void mirror_lower(std::vector<T>& m, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) m[static_cast<size_t>(i * n + j)] = m[static_cast<size_t>(j * n + i)];
}

// ---- potrf: A = L L^T (lower) or U^T U; dA = 0.5 L^-T copyLTU(L^T dL) L^-1 (symmetric).

template <class T>
void potrf_forward(const LowerParam& p, const ForwardArgs& a) {
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t n = A.rows;
  for_each_matrix(A.count, [&](int64_t b) {
    std::vector<T> x = load(a.inputs[0].ptr<T>() + A.offsets[b], n, n, n);
    const int info = lapack::potrf(p.lower, n, x.data(), n);
    BRAID_CHECK(info == 0, "linalg.potrf: matrix ", b, " of the batch is not positive definite (its leading minor of ",
                "order ", info, " is not); potrf factors symmetric positive-definite matrices");
    linalg::keep_triangle(x, n, p.lower);
    store(a.outputs[0].ptr<T>() + A.offsets[b], n, n, n, x, a.req[0]);
  });
}

template <class T>
void potrf_backward(const LowerParam& p, const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t n = A.rows;
  for_each_matrix(A.count, [&](int64_t b) {
    const std::vector<T> l = as_lower(a.outputs[0].ptr<T>() + A.offsets[b], n, p.lower);
    const std::vector<T> dl = as_lower(a.out_grads[0].ptr<T>() + A.offsets[b], n, p.lower);
    std::vector<T> s(static_cast<size_t>(n * n));
    lapack::gemm(true, false, n, n, n, T(1), l.data(), n, dl.data(), n, T(0), s.data(), n);
    mirror_lower(s, n);
    lapack::trsm(false, true, true, n, n, T(0.5), l.data(), n, s.data(), n);
    lapack::trsm(true, true, false, n, n, T(1), l.data(), n, s.data(), n);
    store(a.in_grads[0].ptr<T>() + A.offsets[b], n, n, n, s, a.req[0]);
  });
}

// ---- potri: from the factor L, Y = (L L^T)^-1; dL = -lower(Y (G + G^T) L^-T).

template <class T>
void potri_forward(const LowerParam& p, const ForwardArgs& a) {
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t n = A.rows;
  for_each_matrix(A.count, [&](int64_t b) {
    std::vector<T> x = load(a.inputs[0].ptr<T>() + A.offsets[b], n, n, n);
    const int info = lapack::potri(p.lower, n, x.data(), n);
    BRAID_CHECK(info == 0, "linalg.potri: matrix ", b, " of the batch has a zero on its diagonal (entry ", info,
                "), so the matrix it factors is singular");
    if (!p.lower) x = transposed(x, n, n);
    mirror_lower(x, n);
    store(a.outputs[0].ptr<T>() + A.offsets[b], n, n, n, x, a.req[0]);
  });
}

template <class T>
void potri_backward(const LowerParam& p, const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t n = A.rows;
  for_each_matrix(A.count, [&](int64_t b) {
    const std::vector<T> l = as_lower(a.inputs[0].ptr<T>() + A.offsets[b], n, p.lower);
    const std::vector<T> y = load(a.outputs[0].ptr<T>() + A.offsets[b], n, n, n);
    std::vector<T> g = load(a.out_grads[0].ptr<T>() + A.offsets[b], n, n, n), z(static_cast<size_t>(n * n));
    const std::vector<T> gt = transposed(g, n, n);
    for (size_t i = 0; i < g.size(); ++i) g[i] += gt[i];
    lapack::gemm(false, false, n, n, n, T(-1), y.data(), n, g.data(), n, T(0), z.data(), n);
    lapack::trsm(true, true, true, n, n, T(1), l.data(), n, z.data(), n);
    linalg::keep_triangle(z, n, true);
    if (!p.lower) z = transposed(z, n, n);
    store(a.in_grads[0].ptr<T>() + A.offsets[b], n, n, n, z, a.req[0]);
  });
}

// Potrf and Potri: the kernels of the ops with one `lower` attribute.
struct Potrf {
  template <class T>
  static void forward(const LowerParam& p, const ForwardArgs& a) {
    potrf_forward<T>(p, a);
  }
  template <class T>
  static void backward(const LowerParam& p, const BackwardArgs& a) {
    potrf_backward<T>(p, a);
  }
};
struct Potri {
  template <class T>
  static void forward(const LowerParam& p, const ForwardArgs& a) {
    potri_forward<T>(p, a);
  }
  template <class T>
  static void backward(const LowerParam& p, const BackwardArgs& a) {
    potri_backward<T>(p, a);
  }
};

template <class Op>
void add_lower_op(Registry& r, const std::string& name, const std::string& doc, BackwardReads reads) {
  OpDef d = new_op(name, doc);
  d.parse = [name](const AttrMap& attrs) { return parse_lower(attrs, name); };
  d.infer_shape = [name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_square_same(name, in, out);
  };
  d.cpu.forward = [name](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), { Op::template forward<T>(param<LowerParam>(pa), a); });
  };
  d.cpu.backward = [name](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), { Op::template backward<T>(param<LowerParam>(pa), a); });
  };
  d.backward_reads = [reads](const std::any&) { return reads; };
  add_op(r, std::move(d));
}

// ---- gelqf: A (m×n, m <= n) = L Q; with M = L^T dL - dQ Q^T, dA = L^-T (dQ + copyLTU(M) Q).

bool infer_gelqf(std::vector<Shape>& in, std::vector<Shape>& out) {
  if (!in[0].fully_known()) {
    if (out[0].fully_known()) merge_shape(in[0], out[0], "_linalg_gelqf", "A");
    if (!in[0].fully_known()) return false;
  }
  const Shape& a = in[0];
  const int nd = a.ndim();
  BRAID_CHECK(nd >= 2 && a[nd - 2] <= a[nd - 1], "operator _linalg_gelqf: A must hold matrices with no more rows ",
              "than columns; got shape ", a);
  Shape l = a;
  l[nd - 1] = a[nd - 2];
  merge_shape(out[0], a, "_linalg_gelqf", "Q");
  merge_shape(out[1], l, "_linalg_gelqf", "L");
  return true;
}

template <class T>
void gelqf_forward(const ForwardArgs& a) {
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t m = A.rows, n = A.cols;
  for_each_matrix(A.count, [&](int64_t b) {
    std::vector<T> q = load(a.inputs[0].ptr<T>() + A.offsets[b], m, n, n), l(static_cast<size_t>(m * m));
    lapack::gelqf(m, n, q.data(), l.data());
    store(a.outputs[0].ptr<T>() + A.offsets[b], m, n, n, q, a.req[0]);
    store(a.outputs[1].ptr<T>() + b * m * m, m, m, m, l, a.req[1]);
  });
}

template <class T>
void gelqf_backward(const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t m = A.rows, n = A.cols;
  for_each_matrix(A.count, [&](int64_t b) {
    const std::vector<T> q = load(a.outputs[0].ptr<T>() + A.offsets[b], m, n, n);
    const std::vector<T> l = load(a.outputs[1].ptr<T>() + b * m * m, m, m, m);
    std::vector<T> dq = load(a.out_grads[0].ptr<T>() + A.offsets[b], m, n, n);
    const std::vector<T> dl = load(a.out_grads[1].ptr<T>() + b * m * m, m, m, m);
    std::vector<T> mm(static_cast<size_t>(m * m));
    lapack::gemm(true, false, m, m, m, T(1), l.data(), m, dl.data(), m, T(0), mm.data(), m);
    lapack::gemm(false, true, m, m, n, T(-1), dq.data(), n, q.data(), n, T(1), mm.data(), m);
    mirror_lower(mm, m);
    lapack::gemm(false, false, m, n, m, T(1), mm.data(), m, q.data(), n, T(1), dq.data(), n);
    lapack::trsm(false, true, true, m, n, T(1), l.data(), m, dq.data(), n);
    store(a.in_grads[0].ptr<T>() + A.offsets[b], m, n, n, dq, a.req[0]);
  });
}

void add_gelqf(Registry& r) {
  OpDef d = new_op("_linalg_gelqf", "LQ factorization A = L Q of matrices with no more rows than columns: Q, L.");
  d.num_outputs = [](const std::any&) { return 2; };
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_gelqf(in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_linalg_gelqf", { gelqf_forward<T>(a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_linalg_gelqf", { gelqf_backward<T>(a); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, true}; };
  add_op(r, std::move(d));
}

// ---- syevd: A = U^T diag(w) U, eigenvectors the rows of U, each with its largest entry (the
// first of equals) positive, as MXNet. dA = U^T (sym(K) + diag(dw)) U with
// K_ij = (dU U^T)_ij / (w_i - w_j) off the diagonal (0 for equal eigenvalues, where the
// gradient is not defined).

template <class T>
void syevd_forward(const ForwardArgs& a) {
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t n = A.rows;
  for_each_matrix(A.count, [&](int64_t b) {
    std::vector<T> u = load(a.inputs[0].ptr<T>() + A.offsets[b], n, n, n), w(static_cast<size_t>(n));
    const int info = lapack::syevd(n, u.data(), w.data());
    BRAID_CHECK(info == 0, "linalg.syevd: the eigendecomposition of matrix ", b, " of the batch did not converge (",
                "LAPACK info ", info, ")");
    for (int64_t i = 0; i < n; ++i) {
      T* row = u.data() + i * n;
      int64_t k = 0;
      for (int64_t j = 1; j < n; ++j)
        if (std::abs(row[j]) > std::abs(row[k])) k = j;
      if (row[k] < T(0))
        for (int64_t j = 0; j < n; ++j) row[j] = -row[j];
    }
    store(a.outputs[0].ptr<T>() + A.offsets[b], n, n, n, u, a.req[0]);
    store(a.outputs[1].ptr<T>() + b * n, 1, n, n, w, a.req[1]);
  });
}

template <class T>
void syevd_backward(const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t n = A.rows;
  for_each_matrix(A.count, [&](int64_t b) {
    const std::vector<T> u = load(a.outputs[0].ptr<T>() + A.offsets[b], n, n, n);
    const T* w = a.outputs[1].ptr<T>() + b * n;
    const T* dw = a.out_grads[1].ptr<T>() + b * n;
    const std::vector<T> du = load(a.out_grads[0].ptr<T>() + A.offsets[b], n, n, n);
    std::vector<T> k(static_cast<size_t>(n * n)), t(static_cast<size_t>(n * n)), da(static_cast<size_t>(n * n));
    lapack::gemm(false, true, n, n, n, T(1), du.data(), n, u.data(), n, T(0), k.data(), n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const T gap = w[i] - w[j];
        k[static_cast<size_t>(i * n + j)] = i == j || gap == T(0) ? T(0) : k[static_cast<size_t>(i * n + j)] / gap;
      }
    const std::vector<T> kt = transposed(k, n, n);
    for (size_t i = 0; i < k.size(); ++i) k[i] = T(0.5) * (k[i] + kt[i]);
    for (int64_t i = 0; i < n; ++i) k[static_cast<size_t>(i * n + i)] = dw[i];
    lapack::gemm(true, false, n, n, n, T(1), u.data(), n, k.data(), n, T(0), t.data(), n);
    lapack::gemm(false, false, n, n, n, T(1), t.data(), n, u.data(), n, T(0), da.data(), n);
    store(a.in_grads[0].ptr<T>() + A.offsets[b], n, n, n, da, a.req[0]);
  });
}

void add_syevd(Registry& r) {
  OpDef d = new_op("_linalg_syevd",
                   "Eigendecomposition of symmetric matrices: U (eigenvectors as rows) and ascending eigenvalues L.");
  d.num_outputs = [](const std::any&) { return 2; };
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known() && out[0].fully_known()) merge_shape(in[0], out[0], "_linalg_syevd", "A");
    if (!in[0].fully_known()) return false;
    linalg::check_square("_linalg_syevd", in[0]);
    merge_shape(out[0], in[0], "_linalg_syevd", "U");
    merge_shape(out[1], Shape(in[0].dims().begin(), in[0].dims().end() - 1), "_linalg_syevd", "L");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_linalg_syevd", { syevd_forward<T>(a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_linalg_syevd", { syevd_backward<T>(a); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, true}; };
  add_op(r, std::move(d), false);
}

}  // namespace

void register_factor_ops(Registry& r) {
  add_lower_op<Potrf>(r, "_linalg_potrf", "Cholesky factor of symmetric positive-definite matrices (linalg.potrf).",
                      BackwardReads{false, true});
  add_lower_op<Potri>(r, "_linalg_potri", "Inverse of L L^T from the Cholesky factor L (linalg.potri).",
                      BackwardReads{true, true});
  add_gelqf(r);
  add_syevd(r);
}

}  // namespace braid::op::detail::linalg
