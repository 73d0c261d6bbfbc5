#pragma once
/// DLPack: handing arrays to and from other frameworks (PyTorch, NumPy, CuPy...) without a copy.
/// The structs follow the DLPack ABI (version 0.x, the "dltensor" capsules of MXNet's
/// to_dlpack_for_read/write and PyTorch's torch.utils.dlpack); they live in braid::dlpack so that
/// they do not clash with a dlpack.h of the program's own.
///
///   DLManagedTensor* t = dlpack::to_dlpack(a, false);  // another framework takes t and calls its deleter
///   NDArray b = dlpack::from_dlpack(t);                 // b owns t: t's deleter runs when b is gone
#include <cstdint>
#include <functional>

#include "braid/ndarray/ndarray.h"

namespace braid::dlpack {

enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3 };
enum DLDataTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null for a compact row-major array
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

/// A DLPack view of `a`'s memory, keeping `a` alive until its deleter is called. Waits first for
/// the operations pending on `a`: those that write it (`for_write` false, MXNet's
/// to_dlpack_for_read), or every one (`for_write` true, to_dlpack_for_write), since the other
/// framework works on the memory outside Braid's engine.
DLManagedTensor* to_dlpack(const NDArray& a, bool for_write);

/// An array over `t`'s memory, taking ownership of `t`: once the array, its copies and views are
/// gone and their operations done, `release(t)` runs, by default `t`'s deleter, on the thread
/// that lets the memory go (often an engine worker; the Python module defers it to Python's main
/// thread). Compact row-major tensors of Braid's dtypes only: anything else is an Error, and then
/// `t` still belongs to the caller.
NDArray from_dlpack(DLManagedTensor* t, std::function<void(DLManagedTensor*)> release = {});

/// The DLPack device of a context: (kDLCPU, 0) or (kDLCUDA, id).
DLDevice device_of(Context ctx);

}  // namespace braid::dlpack
