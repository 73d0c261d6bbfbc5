// Converting between storage types, and what NDArray's own members do with compressed arrays
// (copies, row slices of csr, fills).
#include <algorithm>

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/sparse.h"
#include "sparse_host.h"
#include "sparse_ops.h"
#include "sparse_parts.h"

namespace braid {
namespace {

using detail::SparseAccess;
using detail::SparseParts;

NDArray to_dense(const NDArray& a) {
  const SparseParts& p = SparseAccess::parts(a);
  std::vector<NDArray> inputs{p.data};
  inputs.insert(inputs.end(), p.aux.begin(), p.aux.end());
  const char* op = p.stype == StorageType::CSR ? "_sparse_csr_to_dense" : "_sparse_rsp_to_dense";
  return nd::invoke1(op, inputs, {{"shape", a.shape().str()}});
}

// The element values of dense `a` that are not zero, row by row: calls keep(flat index) for each,
// in order. Waits for `a`; 16-bit floats are read through a float32 copy.
template <class F>
void each_nonzero(const NDArray& a, F keep) {
  NDArray host = a.ctx().is_cpu_family() ? a : a.copyto(cpu());
  if (host.dtype() == DType::Float16 || host.dtype() == DType::BFloat16) host = host.astype(DType::Float32);
  host.wait_to_read();
  BRAID_TYPE_SWITCH(host.dtype(), T, "tostype", {
    const T* v = host.data<T>();
    for (int64_t i = 0; i < host.size(); ++i)
      if (v[i] != T(0)) keep(i);
  });
}

NDArray dense_to_row_sparse(const NDArray& a) {
  BRAID_CHECK(a.ndim() >= 1, "tostype('row_sparse'): the array needs an axis, got shape ", a.shape());
  const int64_t row = a.ndim() > 1 ? a.shape().prod(1, a.ndim()) : 1;
  std::vector<int64_t> rows;
  each_nonzero(a, [&](int64_t i) {
    if (rows.empty() || rows.back() != i / row) rows.push_back(i / row);
  });
  NDArray ids = detail::int64_array(rows, a.ctx());
  Shape stored = a.shape();
  stored[0] = static_cast<int64_t>(rows.size());
  NDArray values = rows.empty() ? NDArray(stored, a.ctx(), a.dtype()) : nd::invoke1("_sparse_gather_rows", {a, ids});
  return sparse::row_sparse_array(values, ids, a.shape());
}

NDArray dense_to_csr(const NDArray& a) {
  BRAID_CHECK(a.ndim() == 2, "tostype('csr'): a csr array is 2-d, got shape ", a.shape());
  const int64_t cols = a.shape()[1];
  std::vector<int64_t> ptr(static_cast<size_t>(a.shape()[0] + 1), 0), col, flat;
  each_nonzero(a, [&](int64_t i) {
    ++ptr[static_cast<size_t>(i / cols + 1)];
    col.push_back(i % cols);
    flat.push_back(i);
  });
  for (size_t r = 1; r < ptr.size(); ++r) ptr[r] += ptr[r - 1];
  NDArray values = flat.empty()
                       ? NDArray(Shape{0}, a.ctx(), a.dtype())
                       : nd::invoke1("_sparse_gather_rows", {a.reshape({-1}), detail::int64_array(flat, a.ctx())});
  return sparse::csr_matrix(values, detail::int64_array(ptr, a.ctx()), detail::int64_array(col, a.ctx()), a.shape());
}

}  // namespace

namespace sparse {

NDArray cast_storage(const NDArray& a, StorageType to) {
  BRAID_CHECK(!a.is_none(), "tostype: the array is None");
  if (a.stype() == to) return a.copy();
  if (to == StorageType::Default) return to_dense(a);
  const NDArray dense = a.is_sparse() ? to_dense(a) : a;
  return to == StorageType::CSR ? dense_to_csr(dense) : dense_to_row_sparse(dense);
}

NDArray retain(const NDArray& a, const NDArray& row_ids) {
  BRAID_CHECK(a.stype() != StorageType::CSR, "retain: expected a row_sparse or dense array, got a csr array");
  std::vector<int64_t> wanted = detail::host_int64(row_ids);
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  for (int64_t r : wanted)
    BRAID_CHECK(r >= 0 && r < a.shape()[0], "retain: row id ", r, " is out of range [0, ", a.shape()[0], ")");
  // A dense array stores every row: the positions are the rows themselves.
  const bool dense = !a.is_sparse();
  const std::vector<int64_t> positions =
      dense ? wanted : detail::positions_in(wanted, detail::host_int64(SparseAccess::parts(a).aux[0]));
  Shape rows = a.shape();
  rows[0] = static_cast<int64_t>(wanted.size());
  const NDArray& values_of = dense ? a : SparseAccess::parts(a).data;
  NDArray values = wanted.empty()
                       ? NDArray(rows, a.ctx(), a.dtype())
                       : nd::invoke1("_sparse_gather_rows", {values_of, detail::int64_array(positions, a.ctx())});
  return row_sparse_array(values, detail::int64_array(wanted, a.ctx()), a.shape());
}

}  // namespace sparse

namespace detail {

NDArray csr_rows(const NDArray& a, int64_t begin, int64_t end) {
  BRAID_CHECK(a.stype() == StorageType::CSR, "slice: a ", storage_type_name(a.stype()),
              " array cannot be sliced; convert it with tostype('default')");
  const SparseParts& p = SparseAccess::parts(a);
  std::vector<int64_t> ptr = host_int64(p.aux[0].slice(begin, end + 1));
  const int64_t first = ptr.front(), last = ptr.back();
  for (auto& x : ptr) x -= first;
  return sparse::csr_matrix(p.data.slice(first, last), int64_array(ptr, a.ctx()), p.aux[1].slice(first, last),
                            Shape{end - begin, a.shape()[1]});
}

NDArray csr_take_rows(const NDArray& a, const NDArray& rows, bool wrap) {
  const SparseParts& p = SparseAccess::parts(a);
  const int64_t n = a.shape()[0];
  const std::vector<int64_t> ptr = host_int64(p.aux[0]);
  std::vector<int64_t> taken_ptr{0}, positions;
  for (int64_t r : host_int64(rows)) {
    r = wrap ? ((r % n) + n) % n : std::clamp<int64_t>(r, 0, n - 1);
    for (int64_t k = ptr[static_cast<size_t>(r)]; k < ptr[static_cast<size_t>(r) + 1]; ++k) positions.push_back(k);
    taken_ptr.push_back(static_cast<int64_t>(positions.size()));
  }
  const NDArray where = int64_array(positions, a.ctx());
  auto gather = [&](const NDArray& x) {
    return positions.empty() ? NDArray(Shape{0}, a.ctx(), x.dtype()) : nd::invoke1("_sparse_gather_rows", {x, where});
  };
  return sparse::csr_matrix(gather(p.data), int64_array(taken_ptr, a.ctx()), gather(p.aux[1]),
                            Shape{static_cast<int64_t>(taken_ptr.size()) - 1, a.shape()[1]});
}

NDArray sparse_copy_to(const NDArray& a, Context ctx) {
  const SparseParts& p = SparseAccess::parts(a);
  SparseParts copy{p.stype, p.data.copyto(ctx), {}};
  for (const auto& x : p.aux) copy.aux.push_back(x.copyto(ctx));
  return SparseAccess::make(a.shape(), std::move(copy));
}

void copy_into(const NDArray& src, const NDArray& dst) {
  BRAID_CHECK(src.shape() == dst.shape(), "copyto: destination shape ", dst.shape(), " differs from ", src.shape());
  if (!dst.is_sparse()) {
    sparse::cast_storage(src, StorageType::Default).copyto(dst);
    return;
  }
  NDArray converted = sparse::cast_storage(src, dst.stype());
  if (converted.dtype() != dst.dtype()) converted = converted.astype(dst.dtype());
  NDArray placed = converted.ctx() == dst.ctx() ? converted : sparse_copy_to(converted, dst.ctx());
  SparseAccess::replace(dst, SparseAccess::parts(placed));
}

void sparse_fill(const NDArray& a, double value) {
  if (value == 0) {
    const NDArray empty = sparse::zeros(a.stype(), a.shape(), a.ctx(), a.dtype());
    SparseAccess::replace(a, SparseAccess::parts(empty));
    return;
  }
  BRAID_CHECK(a.stype() == StorageType::RowSparse, "fill: a csr array can only be set to 0 (", value,
              " would store every element); convert it with tostype('default')");
  const NDArray full = nd::full(a.shape(), value, a.ctx(), a.dtype());
  std::vector<int64_t> all(static_cast<size_t>(a.shape()[0]));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  SparseAccess::replace(a, {StorageType::RowSparse, full, {int64_array(all, a.ctx())}});
}

}  // namespace detail
}  // namespace braid
