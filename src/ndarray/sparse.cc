// Compressed arrays: making them from their parts, reading the parts, checking them.
#include "braid/ndarray/sparse.h"

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "imperative/tape.h"
#include "sparse_host.h"
#include "sparse_parts.h"

namespace braid {
namespace detail {

NDArray SparseAccess::make(const Shape& shape, SparseParts parts) {
  NDArray a;
  a.shape_ = shape;
  a.dtype_ = parts.data.dtype();
  a.slot_ = std::make_shared<imperative::Slot>();
  a.sparse_ = std::make_shared<SparseParts>(std::move(parts));
  return a;
}

const SparseParts& SparseAccess::parts(const NDArray& a) {
  BRAID_CHECK(a.sparse_, "expected a row_sparse or csr array, got a ", a.is_none() ? "None" : "dense", " array");
  return *a.sparse_;
}

void SparseAccess::replace(const NDArray& dst, SparseParts from) {
  const SparseParts& now = parts(dst);
  BRAID_CHECK(from.stype == now.stype && from.data.dtype() == dst.dtype(), "internal: replacing the parts of a ",
              storage_type_name(now.stype), " ", dtype_name(dst.dtype()), " array with ", storage_type_name(from.stype),
              " ", dtype_name(from.data.dtype()), " parts");
  *dst.sparse_ = std::move(from);
}

}  // namespace detail

namespace sparse {
namespace {

using detail::SparseAccess;
using detail::SparseParts;

void check_index_array(const NDArray& a, const char* what, const char* fn) {
  BRAID_CHECK(!a.is_none() && !a.is_sparse(), fn, ": ", what, " must be a dense array");
  BRAID_CHECK(a.ndim() == 1, fn, ": ", what, " must be 1-d, got shape ", a.shape());
  BRAID_CHECK(a.dtype() == DType::Int64, fn, ": ", what, " must be int64, got ", dtype_name(a.dtype()),
              "; convert it with astype('int64')");
}

void check_same_context(const NDArray& data, const NDArray& other, const char* fn) {
  BRAID_CHECK(data.ctx() == other.ctx(), fn, ": the parts are on different contexts (", data.ctx(), " and ",
              other.ctx(), ")");
}

}  // namespace

NDArray csr_matrix(const NDArray& data, const NDArray& indptr, const NDArray& indices, const Shape& shape) {
  const char* fn = "csr_matrix";
  BRAID_CHECK(shape.ndim() == 2 && shape.fully_known(), fn, ": the shape must be 2-d and known, got ", shape);
  BRAID_CHECK(!data.is_none() && !data.is_sparse() && data.ndim() == 1, fn,
              ": data must be a dense 1-d array, got shape ", data.shape());
  check_index_array(indptr, "indptr", fn);
  check_index_array(indices, "indices", fn);
  BRAID_CHECK(indptr.shape()[0] == shape[0] + 1, fn, ": indptr has ", indptr.shape()[0], " entries; a matrix of ",
              shape[0], " rows needs ", shape[0] + 1);
  BRAID_CHECK(indices.shape()[0] == data.shape()[0], fn, ": ", indices.shape()[0], " indices for ", data.shape()[0],
              " values; give one column index per value");
  check_same_context(data, indptr, fn);
  check_same_context(data, indices, fn);
  return SparseAccess::make(shape, {StorageType::CSR, data, {indptr, indices}});
}

NDArray row_sparse_array(const NDArray& data, const NDArray& indices, const Shape& shape) {
  const char* fn = "row_sparse_array";
  BRAID_CHECK(shape.ndim() >= 1 && shape.fully_known(), fn, ": the shape must have an axis and be known, got ", shape);
  BRAID_CHECK(!data.is_none() && !data.is_sparse(), fn, ": data must be a dense array");
  check_index_array(indices, "indices", fn);
  Shape rows = shape;
  rows[0] = indices.shape()[0];
  BRAID_CHECK(data.shape() == rows, fn, ": data has shape ", data.shape(), " but ", indices.shape()[0],
              " stored rows of an array of shape ", shape, " need ", rows);
  check_same_context(data, indices, fn);
  return SparseAccess::make(shape, {StorageType::RowSparse, data, {indices}});
}

NDArray zeros(StorageType stype, const Shape& shape, Context ctx, DType dtype) {
  if (stype == StorageType::Default) return nd::zeros(shape, ctx, dtype);
  NDArray none(Shape{0}, ctx, DType::Int64);
  if (stype == StorageType::CSR) {
    BRAID_CHECK(shape.ndim() == 2, "sparse zeros: a csr array is 2-d, got shape ", shape);
    return csr_matrix(NDArray(Shape{0}, ctx, dtype), nd::zeros(Shape{shape[0] + 1}, ctx, DType::Int64), none, shape);
  }
  Shape rows = shape;
  BRAID_CHECK(rows.ndim() >= 1, "sparse zeros: a row_sparse array needs an axis, got shape ", shape);
  rows[0] = 0;
  return row_sparse_array(NDArray(rows, ctx, dtype), none, shape);
}

NDArray data(const NDArray& a) { return SparseAccess::parts(a).data.detach(); }

std::vector<NDArray> aux(const NDArray& a) {
  std::vector<NDArray> out;
  for (const auto& x : SparseAccess::parts(a).aux) out.push_back(x.detach());
  return out;
}

NDArray indices(const NDArray& a) { return aux(a).back(); }

NDArray indptr(const NDArray& a) {
  BRAID_CHECK(a.stype() == StorageType::CSR, "indptr: only csr arrays have one, got a ", storage_type_name(a.stype()),
              " array");
  return aux(a)[0];
}

void check_format(const NDArray& a, bool full_check) {
  const SparseParts& p = SparseAccess::parts(a);
  const std::string what = cat(storage_type_name(p.stype), " array of shape ", a.shape());
  if (p.stype == StorageType::CSR) {
    csr_matrix(p.data, p.aux[0], p.aux[1], a.shape());  // the shapes
    if (!full_check) return;
    const std::vector<int64_t> ptr = detail::host_int64(p.aux[0]), col = detail::host_int64(p.aux[1]);
    BRAID_CHECK(ptr.front() == 0, what, ": indptr must start at 0, starts at ", ptr.front());
    BRAID_CHECK(ptr.back() == static_cast<int64_t>(col.size()), what, ": indptr must end at the number of values (",
                col.size(), "), ends at ", ptr.back());
    for (size_t r = 0; r + 1 < ptr.size(); ++r)
      BRAID_CHECK(ptr[r] <= ptr[r + 1], what, ": indptr decreases at row ", r, " (", ptr[r], " then ", ptr[r + 1], ")");
    for (size_t r = 0; r + 1 < ptr.size(); ++r) {
      for (int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
        BRAID_CHECK(col[k] >= 0 && col[k] < a.shape()[1], what, ": column index ", col[k], " of row ", r,
                    " is out of range [0, ", a.shape()[1], ")");
        BRAID_CHECK(k == ptr[r] || col[k - 1] < col[k], what, ": the column indices of row ", r,
                    " are not strictly ascending (", col[k - 1], " then ", col[k], ")");
      }
    }
    return;
  }
  row_sparse_array(p.data, p.aux[0], a.shape());
  if (!full_check) return;
  const std::vector<int64_t> rows = detail::host_int64(p.aux[0]);
  for (size_t i = 0; i < rows.size(); ++i) {
    BRAID_CHECK(rows[i] >= 0 && rows[i] < a.shape()[0], what, ": row index ", rows[i], " is out of range [0, ",
                a.shape()[0], ")");
    BRAID_CHECK(i == 0 || rows[i - 1] < rows[i], what, ": the row indices are not strictly ascending (", rows[i - 1],
                " then ", rows[i], ")");
  }
}

}  // namespace sparse
}  // namespace braid
