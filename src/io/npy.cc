#include "braid/io/npy.h"

#include "braid/base/error.h"
#include "braid/io/file.h"

namespace braid::io {
namespace {

const char* descr(DType t) {
  switch (t) {
    case DType::Float32: return "<f4";
    case DType::Float64: return "<f8";
    case DType::Float16: return "<f2";
    case DType::UInt8: return "|u1";
    case DType::Int8: return "|i1";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::Bool: return "|b1";
    case DType::Int16: return "<i2";
    case DType::UInt16: return "<u2";
    case DType::UInt32: return "<u4";
    case DType::UInt64: return "<u8";
    default: throw Error(cat("save_npy: NumPy has no dtype for ", dtype_name(t), "; convert with astype first"));
  }
}

}  // namespace

std::string npy_bytes(const NDArray& array) {
  BRAID_CHECK(!array.is_none(), "save_npy: the array is None");
  std::string shape = "(";
  for (int i = 0; i < array.ndim(); ++i) shape += cat(i ? ", " : "", array.shape()[i]);
  shape += array.ndim() == 1 ? ",)" : ")";
  std::string header = cat("{'descr': '", descr(array.dtype()), "', 'fortran_order': False, 'shape': ", shape, ", }");
  const size_t preamble = 10;  // magic (6), version (2), header length (2)
  header.append((64 - (preamble + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  NDArray cpu_copy = array.as_in_context(cpu());
  cpu_copy.wait_to_read();
  out.append(static_cast<const char*>(cpu_copy.raw_data()),
             static_cast<size_t>(cpu_copy.size()) * dtype_size(cpu_copy.dtype()));
  return out;
}

void save_npy(const std::string& path, const NDArray& array) { write_file_atomically(path, npy_bytes(array)); }

}  // namespace braid::io
