#include "braid/ndarray/dlpack.h"

#include <utility>
#include <vector>

#include "braid/base/dim_math.h"
#include "braid/base/error.h"

namespace braid::dlpack {
namespace {

// Braid's dtypes as DLPack spells them.
constexpr std::pair<DType, DLDataType> kDTypes[] = {
    {DType::Float32, {kDLFloat, 32, 1}},   {DType::Float64, {kDLFloat, 64, 1}}, {DType::Float16, {kDLFloat, 16, 1}},
    {DType::BFloat16, {kDLBfloat, 16, 1}}, {DType::UInt8, {kDLUInt, 8, 1}},     {DType::UInt16, {kDLUInt, 16, 1}},
    {DType::UInt32, {kDLUInt, 32, 1}},     {DType::UInt64, {kDLUInt, 64, 1}},   {DType::Int8, {kDLInt, 8, 1}},
    {DType::Int16, {kDLInt, 16, 1}},       {DType::Int32, {kDLInt, 32, 1}},     {DType::Int64, {kDLInt, 64, 1}},
    {DType::Bool, {kDLBool, 8, 1}},
};

DLDataType dl_dtype(DType d) {
  for (const auto& [braid, dl] : kDTypes)
    if (braid == d) return dl;
  throw Error(cat("to_dlpack: dtype ", dtype_name(d), " has no DLPack code"));
}

DType braid_dtype(DLDataType t) {
  for (const auto& [braid, dl] : kDTypes)
    if (dl.code == t.code && dl.bits == t.bits && t.lanes == 1) return braid;
  throw Error(cat("from_dlpack: DLPack dtype (code ", int(t.code), ", ", int(t.bits), " bits, ", t.lanes,
                  " lanes) is none of Braid's (float16/32/64, bfloat16, int8/16/32/64, uint8/16/32/64, bool)"));
}

Context braid_context(DLDevice d) {
  if (d.device_type == kDLCPU || d.device_type == kDLCUDAHost) return cpu();
  if (d.device_type == kDLCUDA) return gpu(d.device_id);
  throw Error(cat("from_dlpack: DLPack device type ", d.device_type,
                  " is not supported (only CPU, CUDA and CUDA host memory)"));
}

// What a Braid export keeps alive: the array, and the shape its DLTensor points to.
struct Export {
  DLManagedTensor tensor{};
  NDArray array;
  std::vector<int64_t> shape;
};

void delete_export(DLManagedTensor* t) { delete static_cast<Export*>(t->manager_ctx); }

}  // namespace

DLDevice device_of(Context ctx) {
  if (ctx.dev_type == DeviceType::GPU) return {kDLCUDA, ctx.dev_id};
  return {kDLCPU, 0};
}

DLManagedTensor* to_dlpack(const NDArray& a, bool for_write) {
  BRAID_CHECK(!a.is_none(), "to_dlpack: the array is None");
  auto e = std::make_unique<Export>();
  e->array = a.detach();
  e->shape = a.shape().dims();
  if (for_write)
    a.wait_to_write();
  else
    a.wait_to_read();
  DLTensor& t = e->tensor.dl_tensor;
  t.data = a.raw_data();
  t.device = device_of(a.ctx());
  t.ndim = a.ndim();
  t.dtype = dl_dtype(a.dtype());
  t.shape = e->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  e->tensor.manager_ctx = e.get();
  e->tensor.deleter = delete_export;
  return &e.release()->tensor;
}

NDArray from_dlpack(DLManagedTensor* t, std::function<void(DLManagedTensor*)> release) {
  BRAID_CHECK(t != nullptr, "from_dlpack: the tensor is null");
  const DLTensor& d = t->dl_tensor;
  BRAID_CHECK(d.ndim >= 0 && d.ndim <= 32, "from_dlpack: ", d.ndim, " dimensions (at most 32)");
  const DType dtype = braid_dtype(d.dtype);
  const Context ctx = braid_context(d.device);
  std::vector<int64_t> dims(d.shape, d.shape + d.ndim);
  int64_t bytes = dtype_size(dtype);  // checked here, before the tensor is taken over
  for (int64_t n : dims) {
    BRAID_CHECK(n >= 0, "from_dlpack: negative dimension ", n);
    bytes = mul_dims(bytes, n);
  }
  Shape shape(dims);
  // Compact row-major only: Braid's arrays are contiguous. Strides of dimensions of size 1 do
  // not matter, and a tensor with no elements has no layout to check.
  if (d.strides && shape.size() > 0) {
    int64_t expected = 1;
    for (int i = d.ndim - 1; i >= 0; --i) {
      BRAID_CHECK(dims[static_cast<size_t>(i)] == 1 || d.strides[i] == expected, "from_dlpack: the tensor of shape ",
                  shape, " is not compact row-major (stride ", d.strides[i], " for dimension ", i, ", expected ",
                  expected, "); make it contiguous first (.contiguous() in PyTorch, ascontiguousarray in NumPy)");
      expected *= dims[static_cast<size_t>(i)];
    }
  }
  void* data = static_cast<char*>(d.data) + d.byte_offset;
  if (!release)
    release = [](DLManagedTensor* m) {
      if (m->deleter) m->deleter(m);
    };
  std::shared_ptr<void> owner(t,
                              [release = std::move(release)](void* p) { release(static_cast<DLManagedTensor*>(p)); });
  return NDArray::borrowed(data, shape, dtype, ctx, std::move(owner));
}

}  // namespace braid::dlpack
