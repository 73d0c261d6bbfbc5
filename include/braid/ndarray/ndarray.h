#pragma once
/// NDArray: MXNet's imperative tensor. A cheap value handle: copies share the same storage chunk
/// (memory + engine variable); views (reshape, slice, at) share it too with their own offset and
/// shape. Every operation is pushed to the engine and returns at once; wait_to_read() or
/// to_vector() synchronize. Arrays are always contiguous.
///
/// Like an MXNet Python NDArray object, copies of a handle also share its autograd state: after
/// `a.attach_grad()`, every copy of `a` is the same variable with the same grad(). Views and
/// detach() are new arrays to autograd.
///
/// An array may also be compressed (row_sparse or csr, see braid/ndarray/sparse.h): it then has no
/// dense buffer, and raw_data(), blob() and var() refuse it.
#include <memory>
#include <optional>
#include <vector>

#include "braid/base/context.h"
#include "braid/base/dtype.h"
#include "braid/base/grad_req.h"
#include "braid/base/shape.h"
#include "braid/base/storage_type.h"
#include "braid/engine/engine.h"
#include "braid/op/tensor.h"

namespace braid {

namespace detail {
struct Chunk;
struct SparseParts;
struct SparseAccess;
}  // namespace detail
namespace imperative {
struct Slot;
struct Access;
}  // namespace imperative

class NDArray {
 public:
  /// The null handle (MXNet's None); most operations reject it.
  NDArray() = default;
  /// Uninitialized array (MXNet's nd.empty).
  explicit NDArray(const Shape& shape, Context ctx = cpu(), DType dtype = DType::Float32);
  /// An array over memory Braid does not own (DLPack, NumPy without a copy): `data` holds the
  /// elements, contiguous, on `ctx`; `owner` keeps them alive and is released once this array,
  /// its copies and views are gone and the operations on them done.
  static NDArray borrowed(void* data, const Shape& shape, DType dtype, Context ctx, std::shared_ptr<void> owner);

  bool is_none() const { return chunk_ == nullptr && sparse_ == nullptr; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  Context ctx() const;
  int64_t size() const { return shape_.size(); }
  int ndim() const { return shape_.ndim(); }
  engine::VarHandle var() const;
  /// Default for dense arrays; RowSparse or CSR for compressed ones.
  StorageType stype() const;
  bool is_sparse() const { return sparse_ != nullptr; }

  /// Pointer to the first element. Only valid to touch inside an engine operation that lists
  /// var(), or after wait_to_read()/wait_to_write().
  void* raw_data() const;
  template <class T>
  T* data() const {
    return static_cast<T*>(raw_data());
  }
  /// The kernel view of this array.
  op::TBlob blob() const;

  /// Waits for pending writes (re-throws their error); of every part of a compressed array.
  void wait_to_read() const;
  /// Waits for pending reads and writes.
  void wait_to_write() const;
  /// Waits, then copies out the elements converted to T (MXNet's asnumpy).
  template <class T>
  std::vector<T> to_vector() const;
  /// The single element of a size-1 array (asscalar).
  template <class T>
  T scalar() const;

  /// Views share this array's memory; compressed arrays have none (they refuse, except that
  /// slice() of a csr array is a csr array of those rows).
  /// View with a new shape, MXNet spelling (0 copy, -1 infer, -2, -3, -4).
  NDArray reshape(const std::vector<int64_t>& spec) const;
  /// View of rows [begin, end) along axis 0.
  NDArray slice(int64_t begin, int64_t end) const;
  /// View of row i along axis 0, without that axis.
  NDArray at(int64_t i) const;
  NDArray expand_dims(int axis) const;
  /// Drops `axis` (which must be 1) or every dimension of size 1.
  NDArray squeeze(std::optional<int> axis = std::nullopt) const;

  /// A new array with the same contents (and storage type) on `ctx`.
  NDArray copyto(Context ctx) const;
  /// Copies into `dst` (same shape; dtype and storage type converted to dst's) and returns it.
  NDArray copyto(const NDArray& dst) const;
  NDArray copy() const { return copyto(ctx()); }
  /// This array if already on `ctx`, else a copy there.
  NDArray as_in_context(Context ctx) const;
  NDArray astype(DType dtype) const;

  /// Sets every element (MXNet's a[:] = v); a row_sparse array then stores every row, a csr
  /// array takes only 0.
  NDArray& fill(double value);
  /// Copies `src`'s contents in place (a[:] = src; shapes must match or broadcast).
  NDArray& assign(const NDArray& src);
  NDArray& operator+=(const NDArray& o);
  NDArray& operator-=(const NDArray& o);
  NDArray& operator*=(const NDArray& o);
  NDArray& operator/=(const NDArray& o);
  NDArray& operator+=(double s);
  NDArray& operator-=(double s);
  NDArray& operator*=(double s);
  NDArray& operator/=(double s);

  /// Autograd (include/braid/autograd/autograd.h). attach_grad makes this array a variable whose
  /// gradient goes into grad() (zeros until the first backward, stored as `grad_stype`); with
  /// GradReq::Null it stops being one.
  void attach_grad(GradReq req = GradReq::Write, StorageType grad_stype = StorageType::Default);
  /// The gradient buffer of a variable; None for arrays without attach_grad.
  NDArray grad() const;
  /// The grad_req of a variable (Null for other arrays).
  GradReq grad_req() const;
  /// Back-propagates from this array (autograd::backward({*this}, {head_grad}, ...)); a None
  /// head_grad means ones.
  void backward() const;
  void backward(const NDArray& head_grad, bool retain_graph = false, bool train_mode = true) const;
  /// The same data, cut off from the recorded graph.
  NDArray detach() const;

  /// True when both handles view the same chunk, offset and shape.
  bool same_as(const NDArray& o) const {
    return chunk_ == o.chunk_ && sparse_ == o.sparse_ && offset_ == o.offset_ && shape_ == o.shape_;
  }

 private:
  NDArray view(int64_t offset, const Shape& shape) const;

  friend struct imperative::Access;
  friend struct detail::SparseAccess;

  std::shared_ptr<detail::Chunk> chunk_;
  // A compressed array's parts (null for dense arrays, whose chunk_ is set instead); shared by
  // copies of the handle, replaced when the array is written.
  std::shared_ptr<detail::SparseParts> sparse_;
  // Shared by copies of this handle: where this array sits in the recorded graph.
  std::shared_ptr<imperative::Slot> slot_;
  int64_t offset_ = 0;  // in elements
  Shape shape_;
  DType dtype_ = DType::Float32;
};

}  // namespace braid
