// linalg.inverse, det and slogdet, from LAPACK's LU factorization (getrf/getri), with their
// gradients: dA = -Y^T G Y^T for Y = A^-1, and Jacobi's formula dA = G det(A) A^-T (none where A
// is singular, as MXNet).
#include <cmath>

#include "lapack.h"
#include "linalg_util.h"

namespace braid::op::detail::linalg {
namespace {

// The LU factors of one matrix: sign(det) and log|det| from U's diagonal and the pivots' parity.
template <class T>
struct Lu {
  std::vector<T> lu;
  std::vector<int> pivots;
  bool singular = false;

  Lu(const T* a, int64_t n) : lu(load(a, n, n, n)), pivots(static_cast<size_t>(std::max<int64_t>(n, 1))) {
    singular = lapack::getrf(n, lu.data(), pivots.data()) > 0;
  }
  T sign(int64_t n) const {
    if (singular) return T(0);
    T s = T(1);
    for (int64_t i = 0; i < n; ++i) {
      if (pivots[static_cast<size_t>(i)] != i + 1) s = -s;
      if (lu[static_cast<size_t>(i * n + i)] < T(0)) s = -s;
    }
    return s;
  }
  T log_abs_det(int64_t n) const {
    if (singular) return -INFINITY;
    T sum = T(0);
    for (int64_t i = 0; i < n; ++i) sum += std::log(std::abs(lu[static_cast<size_t>(i * n + i)]));
    return sum;
  }
  // A^-1, transposed when `transpose` (the factors are spent).
  std::vector<T> inverse(int64_t n, bool transpose) {
    lapack::getri(n, lu.data(), pivots.data());
    return transpose ? linalg::transposed(lu, n, n) : std::move(lu);
  }
};

bool infer_square_reduction(const std::string& op, std::vector<Shape>& in, std::vector<Shape>& out) {
  if (!in[0].fully_known()) return false;
  linalg::check_square(op, in[0]);
  for (Shape& o : out) merge_shape(o, linalg::batch_shape(in[0], 2), op, "output");
  return true;
}

// ---- inverse

template <class T>
void inverse_forward(const ForwardArgs& a) {
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t n = A.rows;
  for_each_matrix(A.count, [&](int64_t b) {
    Lu<T> lu(a.inputs[0].ptr<T>() + A.offsets[b], n);
    BRAID_CHECK(!lu.singular, "linalg.inverse: matrix ", b, " of the batch is singular");
    store(a.outputs[0].ptr<T>() + A.offsets[b], n, n, n, lu.inverse(n, false), a.req[0]);
  });
}

template <class T>
void inverse_backward(const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t n = A.rows;
  for_each_matrix(A.count, [&](int64_t b) {
    const T* y = a.outputs[0].ptr<T>() + A.offsets[b];
    const T* g = a.out_grads[0].ptr<T>() + A.offsets[b];
    std::vector<T> t(static_cast<size_t>(n * n)), d(static_cast<size_t>(n * n));
    lapack::gemm(true, false, n, n, n, T(-1), y, n, g, n, T(0), t.data(), n);
    lapack::gemm(false, true, n, n, n, T(1), t.data(), n, y, n, T(0), d.data(), n);
    store(a.in_grads[0].ptr<T>() + A.offsets[b], n, n, n, d, a.req[0]);
  });
}

// ---- det (one output) and slogdet (sign, logabsdet)

template <class T>
void det_forward(bool log, const ForwardArgs& a) {
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t n = A.rows;
  for_each_matrix(A.count, [&](int64_t b) {
    const Lu<T> lu(a.inputs[0].ptr<T>() + A.offsets[b], n);
    const T sign = lu.sign(n), logdet = lu.log_abs_det(n);
    if (log) {
      assign(a.outputs[0].ptr<T>()[b], a.req[0], sign);
      assign(a.outputs[1].ptr<T>()[b], a.req[1], logdet);
    } else {
      assign(a.outputs[0].ptr<T>()[b], a.req[0], lu.singular ? T(0) : sign * std::exp(logdet));
    }
  });
}

// det: dA = G det A^-T; slogdet: dA = G_logabsdet A^-T (sign has no gradient).
template <class T>
void det_backward(bool log, const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const MatrixBatch A = matrices(a.inputs[0].shape);
  const int64_t n = A.rows;
  for_each_matrix(A.count, [&](int64_t b) {
    Lu<T> lu(a.inputs[0].ptr<T>() + A.offsets[b], n);
    std::vector<T> d(static_cast<size_t>(n * n), T(0));
    if (!lu.singular) {
      const T scale = log ? a.out_grads[1].ptr<T>()[b] : a.out_grads[0].ptr<T>()[b] * a.outputs[0].ptr<T>()[b];
      d = lu.inverse(n, true);
      for (T& v : d) v *= scale;
    }
    store(a.in_grads[0].ptr<T>() + A.offsets[b], n, n, n, d, a.req[0]);
  });
}

void add_inverse(Registry& r) {
  OpDef d = new_op("_linalg_inverse", "Inverse of square matrices (linalg.inverse).");
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const bool known = infer_same_shape("_linalg_inverse", in, out);
    if (known) linalg::check_square("_linalg_inverse", in[0]);
    return known;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_linalg_inverse", { inverse_forward<T>(a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "_linalg_inverse", { inverse_backward<T>(a); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, true}; };
  add_op(r, std::move(d));
}

void add_det(Registry& r, const std::string& name, bool log) {
  OpDef d = new_op(name, log ? "Sign and log of the absolute determinant of square matrices (linalg.slogdet)."
                             : "Determinant of square matrices (linalg.det).");
  d.num_outputs = [log](const std::any&) { return log ? 2 : 1; };
  d.infer_shape = [name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_square_reduction(name, in, out);
  };
  d.cpu.forward = [name, log](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), { det_forward<T>(log, a); });
  };
  d.cpu.backward = [name, log](const OpContext&, const std::any&, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), { det_backward<T>(log, a); });
  };
  add_op(r, std::move(d));
}

}  // namespace

void register_inverse_ops(Registry& r) {
  add_inverse(r);
  add_det(r, "_linalg_det", false);
  add_det(r, "_linalg_slogdet", true);
}

}  // namespace braid::op::detail::linalg
