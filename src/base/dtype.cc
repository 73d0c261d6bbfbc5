#include "braid/base/dtype.h"

#include <array>

namespace braid {
namespace {

struct DTypeInfo {
  DType type;
  const char* name;
  size_t size;
  bool floating;
};

constexpr std::array<DTypeInfo, 13> kTypes = {{
    {DType::Float32, "float32", 4, true},
    {DType::Float64, "float64", 8, true},
    {DType::Float16, "float16", 2, true},
    {DType::UInt8, "uint8", 1, false},
    {DType::Int32, "int32", 4, false},
    {DType::Int8, "int8", 1, false},
    {DType::Int64, "int64", 8, false},
    {DType::Bool, "bool", 1, false},
    {DType::Int16, "int16", 2, false},
    {DType::UInt16, "uint16", 2, false},
    {DType::UInt32, "uint32", 4, false},
    {DType::UInt64, "uint64", 8, false},
    {DType::BFloat16, "bfloat16", 2, true},
}};

const DTypeInfo& info(DType t) {
  auto code = static_cast<int32_t>(t);
  BRAID_CHECK(code >= 0 && code < static_cast<int32_t>(kTypes.size()), "invalid dtype code ", code);
  return kTypes[static_cast<size_t>(code)];
}

}  // namespace

size_t dtype_size(DType t) { return info(t).size; }
const char* dtype_name(DType t) { return info(t).name; }
bool is_floating(DType t) { return info(t).floating; }

DType dtype_from_name(const std::string& name) {
  for (const auto& t : kTypes)
    if (name == t.name) return t.type;
  if (name == "float") return DType::Float32;
  if (name == "double") return DType::Float64;
  if (name == "half") return DType::Float16;
  std::string valid;
  for (const auto& t : kTypes) valid += cat(valid.empty() ? "" : ", ", t.name);
  throw Error(cat("unknown dtype '", name, "'; valid names are ", valid));
}

DType dtype_from_code(int32_t code) {
  BRAID_CHECK(code >= 0 && code < static_cast<int32_t>(kTypes.size()), "invalid dtype code ", code,
              " (MXNet codes are 0 float32 ... 12 bfloat16)");
  return kTypes[static_cast<size_t>(code)].type;
}

void throw_unsupported_dtype(DType t, const char* where) {
  throw Error(
      cat(where, ": dtype ", dtype_name(t), " is not supported here; convert with astype to float32 or float64 first"));
}

}  // namespace braid
