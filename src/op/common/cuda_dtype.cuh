#pragma once
// The dtypes of the CUDA kernels: the device type of each DType (float16 and bfloat16 as CUDA's
// __half and __nv_bfloat16), and loading and storing values across types as convert_elements
// does on the CPU: 16-bit floats through float (rounded to nearest even), bool as != 0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "braid/base/dtype.h"

namespace braid::op::cuda {

/// A value of storage type T in a type to compute with: 16-bit floats as float, others as is.
template <class T>
__device__ inline auto load_value(T v) {
  if constexpr (std::is_same_v<T, __half>)
    return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __bfloat162float(v);
  else
    return v;
}

/// v stored as D.
template <class D, class S>
__device__ inline D store_value(S v) {
  if constexpr (std::is_same_v<D, bool>)
    return v != S(0);
  else if constexpr (std::is_same_v<D, __half>)
    return __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<D, __nv_bfloat16>)
    return __float2bfloat16_rn(static_cast<float>(v));
  else
    return static_cast<D>(v);
}

/// Calls f(T{}) with the device type T of `t`; throws naming `where` for a dtype without one.
template <class F>
void with_device_type(DType t, const char* where, F&& f) {
  switch (t) {
    case DType::Float32:
      return f(float{});
    case DType::Float64:
      return f(double{});
    case DType::Float16:
      return f(__half{});
    case DType::BFloat16:
      return f(__nv_bfloat16{});
    case DType::UInt8:
      return f(uint8_t{});
    case DType::Int8:
      return f(int8_t{});
    case DType::Int16:
      return f(int16_t{});
    case DType::UInt16:
      return f(uint16_t{});
    case DType::Int32:
      return f(int32_t{});
    case DType::UInt32:
      return f(uint32_t{});
    case DType::Int64:
      return f(int64_t{});
    case DType::UInt64:
      return f(uint64_t{});
    case DType::Bool:
      return f(bool{});
    default:
      throw_unsupported_dtype(t, where);
  }
}

}  // namespace braid::op::cuda
