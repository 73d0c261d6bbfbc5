#include "braid/base/convert.h"

#include <cstring>
#include <type_traits>

namespace braid {
namespace {

// Storage types that compute through another type.
template <class T>
struct Compute {
  using type = T;
};
template <>
struct Compute<half_t> {
  using type = float;
};
template <>
struct Compute<bfloat16_t> {
  using type = float;
};

template <class T>
typename Compute<T>::type load(const T& v) {
  return v;
}
template <>
float load<half_t>(const half_t& v) {
  return half_to_float(v);
}
template <>
float load<bfloat16_t>(const bfloat16_t& v) {
  return bfloat16_to_float(v);
}

template <class T, class S>
T store(S v) {
  return static_cast<T>(v);
}
template <>
half_t store<half_t, float>(float v) {
  return float_to_half(v);
}
template <>
bfloat16_t store<bfloat16_t, float>(float v) {
  return float_to_bfloat16(v);
}
template <class S>
bool store_bool(S v) {
  return v != S(0);
}

template <class T, class F>
void with_type(DType t, F&& f) {
  switch (t) {
    case DType::Float32:
      f(float{});
      break;
    case DType::Float64:
      f(double{});
      break;
    case DType::Float16:
      f(half_t{});
      break;
    case DType::BFloat16:
      f(bfloat16_t{});
      break;
    case DType::UInt8:
      f(uint8_t{});
      break;
    case DType::Int8:
      f(int8_t{});
      break;
    case DType::Int16:
      f(int16_t{});
      break;
    case DType::UInt16:
      f(uint16_t{});
      break;
    case DType::Int32:
      f(int32_t{});
      break;
    case DType::UInt32:
      f(uint32_t{});
      break;
    case DType::Int64:
      f(int64_t{});
      break;
    case DType::UInt64:
      f(uint64_t{});
      break;
    case DType::Bool:
      f(bool{});
      break;
    default:
      throw_unsupported_dtype(t, "convert_elements");
  }
}

}  // namespace

void convert_elements(const void* src, DType from, void* dst, DType to, int64_t n) {
  if (n == 0) return;  // zero-size arrays may have no memory at all
  if (from == to) {
    std::memcpy(dst, src, static_cast<size_t>(n) * dtype_size(from));
    return;
  }
  if (from == DType::Float16 && to == DType::Float32)
    return halves_to_floats(static_cast<const half_t*>(src), static_cast<float*>(dst), n);
  if (from == DType::Float32 && to == DType::Float16)
    return floats_to_halves(static_cast<const float*>(src), static_cast<half_t*>(dst), n);
  with_type<void>(from, [&](auto s) {
    using S = decltype(s);
    with_type<void>(to, [&](auto d) {
      using D = decltype(d);
      const S* in = static_cast<const S*>(src);
      D* out = static_cast<D*>(dst);
      for (int64_t i = 0; i < n; ++i) {
        auto v = load<S>(in[i]);
        if constexpr (std::is_same_v<D, bool>) {
          out[i] = store_bool(v);
        } else if constexpr (std::is_same_v<D, half_t> || std::is_same_v<D, bfloat16_t>) {
          out[i] = store<D, float>(static_cast<float>(v));
        } else {
          out[i] = store<D>(v);
        }
      }
    });
  });
}

}  // namespace braid
