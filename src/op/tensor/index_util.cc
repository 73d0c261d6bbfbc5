#include "index_util.h"

#include <cmath>
#include <cstring>

#include "braid/base/convert.h"

namespace braid::op::detail {

IndexMode read_index_mode(ParamReader& r, const std::vector<std::string>& choices) {
  const std::string m = r.get_enum("mode", choices, "clip");
  return m == "clip" ? IndexMode::Clip : (m == "wrap" ? IndexMode::Wrap : IndexMode::Raise);
}

namespace {

// Floats are clamped first so the cast stays defined (no axis is that long).
template <class T>
int64_t to_index(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    constexpr T kLimit = T(4.0e18);
    return static_cast<int64_t>(std::fmax(-kLimit, std::fmin(kLimit, v)));
  } else {
    return static_cast<int64_t>(v);
  }
}

}  // namespace

std::vector<int64_t> read_indices(const TBlob& b, const std::string& op) {
  std::vector<int64_t> out(static_cast<size_t>(b.size()));
  BRAID_TYPE_SWITCH(b.dtype, T, op.c_str(), {
    const T* p = b.ptr<T>();
    for (size_t i = 0; i < out.size(); ++i) {
      BRAID_CHECK(p[i] == p[i], "operator ", op, ": index ", i, " is NaN");
      out[i] = to_index(p[i]);
    }
  });
  return out;
}

void store_indices(const std::vector<int64_t>& pos, const TBlob& out, OpReq req) {
  if (req == OpReq::Write) {
    convert_elements(pos.data(), DType::Int64, out.dptr, out.dtype, out.size());
    return;
  }
  if (req == OpReq::Null) return;
  BRAID_TYPE_SWITCH(out.dtype, T, "store_indices", {
    T* o = out.ptr<T>();
    for (size_t i = 0; i < pos.size(); ++i) o[i] += static_cast<T>(pos[i]);
  });
}

void check_index_dtype(const std::string& op, DType dtype, int64_t len) {
  int64_t max_exact = 0;
  switch (dtype) {
    case DType::UInt8:
      max_exact = 255;
      break;
    case DType::Int8:
      max_exact = 127;
      break;
    case DType::Float16:
      max_exact = 2048;
      break;
    case DType::BFloat16:
      max_exact = 256;
      break;
    case DType::Int16:
      max_exact = 32767;
      break;
    case DType::UInt16:
      max_exact = 65535;
      break;
    case DType::Float32:
      max_exact = int64_t{1} << 24;
      break;
    case DType::Int32:
      max_exact = 2147483647;
      break;
    default:
      max_exact = int64_t{1} << 53;
      break;
  }
  BRAID_CHECK(len - 1 <= max_exact, "operator ", op, ": dtype ", dtype_name(dtype),
              " cannot represent the indices of an axis of ", len, " elements; choose a wider dtype");
}

void infer_data_index_type(const std::string& op, std::vector<DType>& in, std::vector<DType>& out) {
  if (in[0] == kDTypeUnknown) in[0] = out[0];
  if (out[0] == kDTypeUnknown) out[0] = in[0];
  if (in[1] == kDTypeUnknown) in[1] = DType::Float32;
  BRAID_CHECK(in[0] == out[0], "operator ", op, ": the output dtype ", dtype_name(out[0]),
              " differs from the data dtype ", dtype_name(in[0]));
}

void zero_index_grad(const TBlob& grad, OpReq req) {
  if (req == OpReq::Write) std::memset(grad.dptr, 0, static_cast<size_t>(grad.size()) * dtype_size(grad.dtype));
}

}  // namespace braid::op::detail
