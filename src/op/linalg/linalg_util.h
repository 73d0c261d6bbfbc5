#pragma once
// Internal: what the linalg operators share: registration entry points, the batch of matrices an
// operand holds, per-matrix copies in and out, the loop over a batch and the triangles.
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "braid/op/tensor.h"
#include "op/common/openblas.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {

namespace linalg {

void register_blas3_ops(Registry& r);     // linalg_blas3.cc: gemm, gemm2, trmm, trsm, syrk
void register_factor_ops(Registry& r);    // linalg_factor.cc: potrf, potri, gelqf, syevd
void register_inverse_ops(Registry& r);   // linalg_inverse.cc: inverse, det, slogdet
void register_triangle_ops(Registry& r);  // linalg_triangle.cc: *diag, *trian, sumlogdiag

/// What every linalg operator's definition starts from: its name (`_linalg_<name>`), doc,
/// arguments, and no attributes (ops with some replace `parse`).
OpDef new_op(const std::string& name, const std::string& doc, std::vector<std::string> arguments = {"A"});
/// Registers `d` under its name and MXNet's alias `linalg_<name>` (when `alias`).
void add_op(Registry& r, OpDef d, bool alias = true);

/// The matrices of an operand: `count` matrices of rows×cols, matrix b starting at offsets[b],
/// its rows `ld` elements apart and its columns contiguous. Rows run along `row_axis` (the
/// second-to-last by default), columns along the last axis, the batch over the other axes.
struct MatrixBatch {
  int64_t count = 0, rows = 0, cols = 0, ld = 0;
  std::vector<int64_t> offsets;
};
MatrixBatch matrices(const Shape& s, int row_axis = -2);

/// The shape without its last `drop` axes; (1,) where nothing would be left (MXNet's reductions
/// of single matrices).
Shape batch_shape(const Shape& s, int drop);

/// Throws unless `s` has at least two axes and square trailing matrices.
void check_square(const std::string& op, const Shape& s);

/// A copy of one rows×cols matrix, contiguous.
template <class T>
std::vector<T> load(const T* p, int64_t rows, int64_t cols, int64_t ld) {
  std::vector<T> m(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) m[static_cast<size_t>(i * cols + j)] = p[i * ld + j];
  return m;
}

/// Writes the contiguous rows×cols `m` to `p` as `req` says.
template <class T>
void store(T* p, int64_t rows, int64_t cols, int64_t ld, const std::vector<T>& m, OpReq req) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) assign(p[i * ld + j], req, m[static_cast<size_t>(i * cols + j)]);
}

/// Calls f(b) for b in [0, count), the matrices spread over OpenMP threads (one after the other
/// where OpenBLAS has threads of its own, which each call then uses); the first exception thrown
/// by any call is rethrown once every call ended.
template <class F>
void for_each_matrix(int64_t count, F&& f) {
  std::exception_ptr failure;
  std::mutex lock;
#pragma omp parallel for schedule(dynamic) if (count > 1 && openblas_single_threaded())
  for (int64_t b = 0; b < count; ++b) {
    try {
      f(b);
    } catch (...) {
      std::lock_guard<std::mutex> hold(lock);
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

/// Sets the triangle that `lower` does not name (the diagonal excluded) of the n×n `m` to zero.
template <class T>
void keep_triangle(std::vector<T>& m, int64_t n, bool lower) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (lower ? j > i : j < i) m[static_cast<size_t>(i * n + j)] = T(0);
}

/// The transpose of the rows×cols `m`.
template <class T>
std::vector<T> transposed(const std::vector<T>& m, int64_t rows, int64_t cols) {
  std::vector<T> t(m.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) t[static_cast<size_t>(j * rows + i)] = m[static_cast<size_t>(i * cols + j)];
  return t;
}

}  // namespace linalg
}  // namespace braid::op::detail
