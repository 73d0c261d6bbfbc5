#pragma once
// CUDA kernels over the rows of a row-major (rows × cols) matrix that several GPU operators
// share: adding one row to every row (a bias), and summing the rows (a bias gradient). 16-bit
// values are added in float.
#include "op/common/cuda_launch.cuh"

namespace braid::op::cuda {

/// y[i, j] = row[j], or y[i, j] += row[j] when `add`.
template <class T>
__global__ void broadcast_row(const T* row, T* y, int64_t rows, int64_t cols, bool add) {
  BRAID_GRID_STRIDE_LOOP(i, rows * cols) { store(y[i], add, load_value(row[i % cols])); }
}

/// sums[j] = Σ_i x[i, j] (+= when `add`), one thread per column, summing the rows in order as the
/// CPU kernels do; neighbouring threads read neighbouring columns.
template <class T>
__global__ void column_sums(const T* x, T* sums, int64_t rows, int64_t cols, bool add) {
  BRAID_GRID_STRIDE_LOOP(j, cols) {
    compute_t<T> s = 0;
    for (int64_t i = 0; i < rows; ++i) s += load_value(x[i * cols + j]);
    store(sums[j], add, s);
  }
}

}  // namespace braid::op::cuda
