#pragma once
/// Element types with MXNet's numeric codes (the `dtype` field of `.params` records) and names.
#include <cstddef>
#include <cstdint>
#include <string>

#include "braid/base/error.h"
#include "braid/base/half.h"

namespace braid {

enum class DType : int32_t {
  Float32 = 0,
  Float64 = 1,
  Float16 = 2,
  UInt8 = 3,
  Int32 = 4,
  Int8 = 5,
  Int64 = 6,
  Bool = 7,
  Int16 = 8,
  UInt16 = 9,
  UInt32 = 10,
  UInt64 = 11,
  BFloat16 = 12,
};

/// Marks a dtype not yet known to type inference.
inline constexpr DType kDTypeUnknown = static_cast<DType>(-1);

/// Bytes per element.
size_t dtype_size(DType t);
/// MXNet's name: "float32", "float64", "float16", "uint8", "int32", ..., "bfloat16".
const char* dtype_name(DType t);
/// Inverse of dtype_name; throws naming the valid names.
DType dtype_from_name(const std::string& name);
/// Validates an MXNet dtype code read from a file or attribute.
DType dtype_from_code(int32_t code);
bool is_floating(DType t);

template <class T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::Float32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::Float64;
};
template <>
struct DTypeOf<half_t> {
  static constexpr DType value = DType::Float16;
};
template <>
struct DTypeOf<bfloat16_t> {
  static constexpr DType value = DType::BFloat16;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::UInt8;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::Int32;
};
template <>
struct DTypeOf<int8_t> {
  static constexpr DType value = DType::Int8;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::Int64;
};
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::Bool;
};
template <>
struct DTypeOf<int16_t> {
  static constexpr DType value = DType::Int16;
};
template <>
struct DTypeOf<uint16_t> {
  static constexpr DType value = DType::UInt16;
};
template <>
struct DTypeOf<uint32_t> {
  static constexpr DType value = DType::UInt32;
};
template <>
struct DTypeOf<uint64_t> {
  static constexpr DType value = DType::UInt64;
};

[[noreturn]] void throw_unsupported_dtype(DType t, const char* where);

}  // namespace braid

/// Runs the block with `T` bound to the C++ type of `dtype`, for the types kernels compute in:
/// float32, float64 and the integer types. Float16/bfloat16 are storage types (use astype).
#define BRAID_TYPE_SWITCH(dtype, T, where, ...)       \
  switch (dtype) {                                    \
    case ::braid::DType::Float32: {                   \
      using T = float;                                \
      __VA_ARGS__                                     \
    } break;                                          \
    case ::braid::DType::Float64: {                   \
      using T = double;                               \
      __VA_ARGS__                                     \
    } break;                                          \
    case ::braid::DType::UInt8: {                     \
      using T = uint8_t;                              \
      __VA_ARGS__                                     \
    } break;                                          \
    case ::braid::DType::Int8: {                      \
      using T = int8_t;                               \
      __VA_ARGS__                                     \
    } break;                                          \
    case ::braid::DType::Int32: {                     \
      using T = int32_t;                              \
      __VA_ARGS__                                     \
    } break;                                          \
    case ::braid::DType::Int64: {                     \
      using T = int64_t;                              \
      __VA_ARGS__                                     \
    } break;                                          \
    default:                                          \
      ::braid::throw_unsupported_dtype(dtype, where); \
  }

/// Like BRAID_TYPE_SWITCH, and bool (`T` = bool), for kernels that only copy, fill or select
/// values.
#define BRAID_VALUE_TYPE_SWITCH(dtype, T, where, ...) \
  if ((dtype) == ::braid::DType::Bool) {              \
    using T = bool;                                   \
    __VA_ARGS__                                       \
  } else                                              \
    BRAID_TYPE_SWITCH(dtype, T, where, __VA_ARGS__)

/// Like BRAID_TYPE_SWITCH for the floating types only (float32, float64).
#define BRAID_REAL_TYPE_SWITCH(dtype, T, where, ...)  \
  switch (dtype) {                                    \
    case ::braid::DType::Float32: {                   \
      using T = float;                                \
      __VA_ARGS__                                     \
    } break;                                          \
    case ::braid::DType::Float64: {                   \
      using T = double;                               \
      __VA_ARGS__                                     \
    } break;                                          \
    default:                                          \
      ::braid::throw_unsupported_dtype(dtype, where); \
  }
