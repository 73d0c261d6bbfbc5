#pragma once
/// TBlob: a non-owning view of contiguous memory with shape and dtype, what kernels see.
#include <cstddef>

#include "braid/base/dtype.h"
#include "braid/base/shape.h"

namespace braid::op {

struct TBlob {
  void* dptr = nullptr;
  Shape shape;
  DType dtype = DType::Float32;

  int64_t size() const { return shape.size(); }
  int ndim() const { return shape.ndim(); }
  template <class T>
  T* ptr() const {
    BRAID_CHECK(DTypeOf<T>::value == dtype, "kernel expected ", dtype_name(DTypeOf<T>::value), " data but got ",
                dtype_name(dtype));
    return static_cast<T*>(dptr);
  }
};

/// How an output is to be written (MXNet's OpReqType): not at all, overwritten, or added to.
enum class OpReq { Null, Write, Add };

/// Stores `v` into `out` according to `req`.
template <class T>
inline void assign(T& out, OpReq req, T v) {
  if (req == OpReq::Write)
    out = v;
  else if (req == OpReq::Add)
    out += v;
}

}  // namespace braid::op
