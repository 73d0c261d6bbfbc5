#pragma once
// The dtypes of the CUDA kernels: the device type of each DType (float16 and bfloat16 as CUDA's
// __half and __nv_bfloat16, which TBlob::ptr then accepts), and loading and storing values across
// types as convert_elements does on the CPU: 16-bit floats through float (rounded to nearest
// even), bool as != 0. Kernels that take 16-bit arrays load them as float, compute in float and
// round once when storing: what the float32 copies of float16_compute.cc give, without the copies.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "braid/base/dtype.h"

namespace braid {
template <>
struct DTypeOf<__half> {
  static constexpr DType value = DType::Float16;
};
template <>
struct DTypeOf<__nv_bfloat16> {
  static constexpr DType value = DType::BFloat16;
};
}  // namespace braid

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

/// The type kernels compute in for storage type T: float for the 16-bit floats, T otherwise.
template <class T>
using compute_t = std::conditional_t<std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, float, T>;

/// Calls f(T{}) with the device type T of a floating dtype (float32, float64, float16, bfloat16);
/// throws naming `where` for the others.
template <class F>
void with_float_type(DType t, const char* where, F&& f) {
  switch (t) {
    case DType::Float32:
      return f(float{});
    case DType::Float64:
      return f(double{});
    case DType::Float16:
      return f(__half{});
    case DType::BFloat16:
      return f(__nv_bfloat16{});
    default:
      throw_unsupported_dtype(t, where);
  }
}

/// Calls f(T{}) for the dtypes of BRAID_TYPE_SWITCH (the floating and common integer types) and
/// the 16-bit floats; throws naming `where` for the others.
template <class F>
void with_compute_type(DType t, const char* where, F&& f) {
  if (t == DType::Float16 || t == DType::BFloat16) return with_float_type(t, where, f);
  BRAID_TYPE_SWITCH(t, T, where, { f(T{}); });
}

/// Calls f(T{}) with the device type T of `t`; throws naming `where` for a dtype without one.
template <class F>
void with_device_type(DType t, const char* where, F&& f) {
  switch (t) {
    case DType::Float32:
    case DType::Float64:
    case DType::Float16:
    case DType::BFloat16:
      return with_float_type(t, where, f);
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
