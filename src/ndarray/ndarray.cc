#include "braid/ndarray/ndarray.h"

#include "braid/autograd/autograd.h"

#include "braid/base/convert.h"
#include "braid/base/dim_math.h"
#include "braid/base/error.h"
#include "braid/base/reshape.h"
#include "braid/device/gpu.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/sparse.h"
#include "braid/op/param_reader.h"
#include "chunk.h"
#include "engine/wait.h"
#include "imperative/recorder.h"
#include "sparse_ops.h"
#include "sparse_parts.h"

namespace braid {

namespace {

// The bytes of an array of `shape` and `dtype`, checked; `what` says what was being made.
size_t checked_bytes(const Shape& shape, DType dtype, const char* what) {
  BRAID_CHECK(shape.known(), "cannot ", what, " of unknown shape");
  for (int i = 0; i < shape.ndim(); ++i)
    BRAID_CHECK(shape[i] >= 0, "cannot ", what, " of shape ", shape, " (negative dimension)");
  try {
    return static_cast<size_t>(mul_dims(shape.size(), static_cast<int64_t>(dtype_size(dtype))));
  } catch (const Error& e) {
    throw Error(cat("cannot ", what, " of shape ", shape, " of ", dtype_name(dtype), ": ", e.what()));
  }
}

// A compressed array has no single buffer; `what` is the member asked for.
void require_dense(const NDArray& a, const char* what) {
  BRAID_CHECK(!a.is_sparse(), what, ": the array is ", storage_type_name(a.stype()),
              ", whose elements are not stored densely; convert it with tostype('default') (sparse::cast_storage), "
              "or use its parts (braid/ndarray/sparse.h)");
}

}  // namespace

NDArray::NDArray(const Shape& shape, Context ctx, DType dtype)
    : slot_(std::make_shared<imperative::Slot>()), shape_(shape), dtype_(dtype) {
  chunk_ = std::make_shared<detail::Chunk>(checked_bytes(shape, dtype, "create an array"), ctx);
}

NDArray NDArray::borrowed(void* data, const Shape& shape, DType dtype, Context ctx, std::shared_ptr<void> owner) {
  BRAID_CHECK(owner, "NDArray::borrowed: give the owner that keeps the memory alive");
  const size_t bytes = checked_bytes(shape, dtype, "borrow memory for an array");
  NDArray a;
  a.slot_ = std::make_shared<imperative::Slot>();
  a.shape_ = shape;
  a.dtype_ = dtype;
  a.chunk_ = std::make_shared<detail::Chunk>(StorageHandle{data, bytes, ctx}, std::move(owner));
  return a;
}

Context NDArray::ctx() const {
  if (sparse_) return sparse_->data.ctx();
  BRAID_CHECK(chunk_, "the array is None (default-constructed)");
  return chunk_->storage.ctx;
}

StorageType NDArray::stype() const { return sparse_ ? sparse_->stype : StorageType::Default; }

engine::VarHandle NDArray::var() const {
  require_dense(*this, "var");
  BRAID_CHECK(chunk_, "the array is None (default-constructed)");
  return chunk_->var;
}

void* NDArray::raw_data() const {
  require_dense(*this, "raw_data");
  BRAID_CHECK(chunk_, "the array is None (default-constructed)");
  return static_cast<char*>(chunk_->storage.ptr) + offset_ * static_cast<int64_t>(dtype_size(dtype_));
}

op::TBlob NDArray::blob() const { return {raw_data(), shape_, dtype_}; }

void NDArray::wait_to_read() const {
  if (sparse_) {
    sparse_->data.wait_to_read();
    for (const auto& a : sparse_->aux) a.wait_to_read();
    return;
  }
  engine::Engine::get().wait_for_var(var());
  if (!ctx().is_cpu_family()) gpu_runtime::synchronize(ctx().dev_id);  // its kernels may still run
}

void NDArray::wait_to_write() const {
  if (sparse_) {
    sparse_->data.wait_to_write();
    for (const auto& a : sparse_->aux) a.wait_to_write();
    return;
  }
  engine::detail::wait_to_write(var());
}

template <class T>
std::vector<T> NDArray::to_vector() const {
  if (sparse_) return sparse::cast_storage(*this, StorageType::Default).to_vector<T>();
  if (!ctx().is_cpu_family()) return copyto(cpu()).to_vector<T>();
  wait_to_read();
  std::vector<T> out(static_cast<size_t>(size()));
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> tmp(out.size());
    convert_elements(raw_data(), dtype_, tmp.data(), DType::Bool, size());
    for (size_t i = 0; i < tmp.size(); ++i) out[i] = tmp[i] != 0;
  } else {
    convert_elements(raw_data(), dtype_, out.data(), DTypeOf<T>::value, size());
  }
  return out;
}

template <class T>
T NDArray::scalar() const {
  BRAID_CHECK(size() == 1, "scalar() needs an array of size 1, got shape ", shape_);
  return to_vector<T>()[0];
}

#define BRAID_INSTANTIATE(T)                             \
  template std::vector<T> NDArray::to_vector<T>() const; \
  template T NDArray::scalar<T>() const;
BRAID_INSTANTIATE(float)
BRAID_INSTANTIATE(double)
BRAID_INSTANTIATE(int32_t)
BRAID_INSTANTIATE(int64_t)
BRAID_INSTANTIATE(uint8_t)
BRAID_INSTANTIATE(int8_t)
BRAID_INSTANTIATE(bool)
#undef BRAID_INSTANTIATE

NDArray NDArray::view(int64_t offset, const Shape& shape) const {
  require_dense(*this, "a view (reshape, slice, at, expand_dims, squeeze)");
  NDArray v = *this;
  v.offset_ = offset;
  v.shape_ = shape;
  v.slot_ = std::make_shared<imperative::Slot>();  // a new array to autograd
  if (imperative::Recorder* r = imperative::recorder()) r->record_view(*this, v);
  return v;
}

NDArray NDArray::reshape(const std::vector<int64_t>& spec) const { return view(offset_, infer_reshape(shape_, spec)); }

NDArray NDArray::slice(int64_t begin, int64_t end) const {
  BRAID_CHECK(ndim() >= 1, "slice needs at least one dimension, got shape ", shape_);
  BRAID_CHECK(0 <= begin && begin <= end && end <= shape_[0], "slice [", begin, ", ", end,
              ") is out of range for shape ", shape_);
  if (stype() == StorageType::CSR) return detail::csr_rows(*this, begin, end);
  Shape s = shape_;
  s[0] = end - begin;
  return view(offset_ + begin * shape_.prod(1, ndim()), s);
}

NDArray NDArray::at(int64_t i) const {
  BRAID_CHECK(ndim() >= 1, "at needs at least one dimension, got shape ", shape_);
  BRAID_CHECK(0 <= i && i < shape_[0], "index ", i, " is out of range for shape ", shape_);
  std::vector<int64_t> dims(shape_.dims().begin() + 1, shape_.dims().end());
  return view(offset_ + i * shape_.prod(1, ndim()), Shape(dims));
}

NDArray NDArray::expand_dims(int axis) const {
  int n = ndim() + 1;
  BRAID_CHECK(axis >= -n && axis < n, "expand_dims axis ", axis, " is out of range for shape ", shape_);
  if (axis < 0) axis += n;
  std::vector<int64_t> dims = shape_.dims();
  dims.insert(dims.begin() + axis, 1);
  return view(offset_, Shape(dims));
}

NDArray NDArray::squeeze(std::optional<int> axis) const {
  std::vector<int64_t> dims;
  if (axis) {
    int a = shape_.axis(*axis, "squeeze axis");
    BRAID_CHECK(shape_[a] == 1, "cannot squeeze axis ", *axis, " of shape ", shape_, ": size is not 1");
    dims = shape_.dims();
    dims.erase(dims.begin() + a);
  } else {
    for (auto d : shape_.dims())
      if (d != 1) dims.push_back(d);
  }
  return view(offset_, Shape(dims));
}

NDArray NDArray::copyto(Context ctx) const {
  if (sparse_) return detail::sparse_copy_to(*this, ctx);
  NDArray dst(shape_, ctx, dtype_);
  return copyto(dst);
}

NDArray NDArray::copyto(const NDArray& dst) const {
  BRAID_CHECK(dst.shape() == shape_, "copyto: destination shape ", dst.shape(), " differs from ", shape_);
  if (sparse_ || dst.is_sparse()) {
    detail::copy_into(*this, dst);
    return dst;
  }
  if ((ctx().is_cpu_family() && dst.ctx().is_cpu_family()) || ctx() == dst.ctx()) {
    nd::invoke("_copyto", {*this}, {}, {dst});  // on one GPU too: converts dtypes, recorded by autograd
    return dst;
  }
  if (dst.dtype() != dtype_) return astype(dst.dtype()).copyto(dst);  // converted where the data is
  // To or from a GPU: the runtime's copy, pushed on the GPU's context. Recorded, its gradient is
  // the output's copied back to this array's device.
  if (imperative::recorder())
    autograd::record_custom_function({*this}, {dst}, [from = ctx()](const std::vector<NDArray>& out_grads) {
      return std::vector<NDArray>{out_grads[0].is_none() ? NDArray() : out_grads[0].copyto(from)};
    });
  const Context gpu_side = ctx().is_cpu_family() ? dst.ctx() : ctx();
  const engine::VarHandle reads[] = {var()}, writes[] = {dst.var()};
  engine::Engine::get().push(
      [src = *this, dst] {
        gpu_runtime::copy(dst.raw_data(), dst.ctx(), src.raw_data(), src.ctx(),
                          static_cast<size_t>(src.size()) * dtype_size(src.dtype()));
      },
      gpu_side, reads, writes, 0, "copyto (GPU)", engine::FnProperty::Copy);
  return dst;
}

NDArray NDArray::as_in_context(Context ctx) const { return ctx == this->ctx() ? *this : copyto(ctx); }

NDArray NDArray::astype(DType dtype) const { return nd::invoke1("Cast", {*this}, {{"dtype", dtype_name(dtype)}}); }

NDArray& NDArray::fill(double value) {
  if (sparse_) {
    detail::sparse_fill(*this, value);
    return *this;
  }
  nd::invoke("_full", {},
             {{"shape", shape_.str()},
              {"value", op::format_number(value)},
              {"dtype", dtype_name(dtype_)},
              {"ctx", ctx().str()}},
             {*this});
  return *this;
}

NDArray& NDArray::assign(const NDArray& src) {
  if (src.shape() == shape_ || sparse_ || src.is_sparse()) {
    src.copyto(*this);
  } else {
    nd::invoke("broadcast_to", {src}, {{"shape", shape_.str()}}, {*this});
  }
  return *this;
}

#define BRAID_INPLACE(OP, SAME_SHAPE_OP, BROADCAST_OP, SCALAR_OP)                            \
  NDArray& NDArray::operator OP(const NDArray& o) {                                          \
    nd::invoke(o.shape() == shape_ ? SAME_SHAPE_OP : BROADCAST_OP, {*this, o}, {}, {*this}); \
    return *this;                                                                            \
  }                                                                                          \
  NDArray& NDArray::operator OP(double s) {                                                  \
    nd::invoke(SCALAR_OP, {*this}, {{"scalar", op::format_number(s)}}, {*this});             \
    return *this;                                                                            \
  }
BRAID_INPLACE(+=, "elemwise_add", "broadcast_add", "_plus_scalar")
BRAID_INPLACE(-=, "elemwise_sub", "broadcast_sub", "_minus_scalar")
BRAID_INPLACE(*=, "elemwise_mul", "broadcast_mul", "_mul_scalar")
BRAID_INPLACE(/=, "elemwise_div", "broadcast_div", "_div_scalar")
#undef BRAID_INPLACE

}  // namespace braid
