#include "braid/io/npy.h"

#include <cstring>
#include <limits>

#include "braid/base/error.h"
#include "braid/io/file.h"

namespace braid::io {
namespace {

// The largest header read: NumPy's own writers stay far below it.
constexpr size_t kMaxHeader = 1 << 20;
constexpr int kMaxRank = 32;

const char* descr(DType t) {
  switch (t) {
    case DType::Float32:
      return "<f4";
    case DType::Float64:
      return "<f8";
    case DType::Float16:
      return "<f2";
    case DType::UInt8:
      return "|u1";
    case DType::Int8:
      return "|i1";
    case DType::Int32:
      return "<i4";
    case DType::Int64:
      return "<i8";
    case DType::Bool:
      return "|b1";
    case DType::Int16:
      return "<i2";
    case DType::UInt16:
      return "<u2";
    case DType::UInt32:
      return "<u4";
    case DType::UInt64:
      return "<u8";
    default:
      throw Error(cat("save_npy: NumPy has no dtype for ", dtype_name(t), "; convert with astype first"));
  }
}

DType dtype_of_descr(const std::string& d, const std::string& where) {
  BRAID_CHECK(d.size() == 3 && d[0] != '>', where, ": dtype '", d, "' is not supported; save little-endian data ",
              "(numpy: a.astype(a.dtype.newbyteorder('<')))");
  const std::string kind = d.substr(1);
  for (DType t : {DType::Float32, DType::Float64, DType::Float16, DType::UInt8, DType::Int8, DType::Int32, DType::Int64,
                  DType::Bool, DType::Int16, DType::UInt16, DType::UInt32, DType::UInt64})
    if (std::string(descr(t)).substr(1) == kind) return t;
  throw Error(cat(where, ": dtype '", d, "' is not supported; use a numeric or bool dtype"));
}

// The text after `key` in the header dictionary, or throws.
size_t value_at(const std::string& header, const std::string& key, const std::string& where) {
  const size_t at = header.find("'" + key + "'");
  BRAID_CHECK(at != std::string::npos, where, ": the header has no '", key, "': ", header);
  const size_t colon = header.find(':', at);
  BRAID_CHECK(colon != std::string::npos, where, ": malformed header: ", header);
  return header.find_first_not_of(' ', colon + 1);
}

std::vector<int64_t> shape_of(const std::string& header, const std::string& where) {
  size_t at = value_at(header, "shape", where);
  BRAID_CHECK(at < header.size() && header[at] == '(', where, ": malformed shape in header: ", header);
  const size_t end = header.find(')', at);
  BRAID_CHECK(end != std::string::npos, where, ": malformed shape in header: ", header);
  std::vector<int64_t> dims;
  for (size_t i = at + 1; i < end;) {
    if (header[i] == ' ' || header[i] == ',') {
      ++i;
      continue;
    }
    size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(header.substr(i, end - i), &used);
    } catch (const std::exception&) {
    }
    BRAID_CHECK(v >= 0 && used > 0, where, ": malformed shape in header: ", header);
    dims.push_back(v);
    BRAID_CHECK(dims.size() <= kMaxRank, where, ": more than ", kMaxRank, " dimensions");
    i += used;
  }
  return dims;
}

}  // namespace

NDArray npy_array(std::string_view bytes, const std::string& where) {
  BRAID_CHECK(bytes.size() >= 10 && bytes.substr(0, 6) == "\x93NUMPY", where, ": not a NumPy .npy file");
  const int major = static_cast<unsigned char>(bytes[6]);
  BRAID_CHECK(major >= 1 && major <= 3, where, ": .npy format version ", major, " is not supported (1 to 3 are)");
  size_t header_len = 0, start = major == 1 ? 10 : 12;
  BRAID_CHECK(bytes.size() >= start, where, ": truncated header");
  for (size_t i = start; i-- > 8;) header_len = header_len << 8 | static_cast<unsigned char>(bytes[i]);
  BRAID_CHECK(header_len <= kMaxHeader && bytes.size() - start >= header_len, where, ": header of ", header_len,
              " bytes does not fit the file (", bytes.size(), " bytes)");
  const std::string header(bytes.substr(start, header_len));
  const size_t d = value_at(header, "descr", where);
  const size_t q = d < header.size() ? header.find(header[d], d + 1) : std::string::npos;
  BRAID_CHECK(q != std::string::npos, where, ": malformed descr in header: ", header);
  const DType dtype = dtype_of_descr(header.substr(d + 1, q - d - 1), where);
  const size_t f = value_at(header, "fortran_order", where);
  BRAID_CHECK(header.compare(f, 5, "False") == 0, where, ": Fortran-ordered data is not supported; save a C-ordered ",
              "array (numpy.ascontiguousarray)");
  const std::vector<int64_t> dims = shape_of(header, where);
  size_t count = 1;
  for (int64_t n : dims) {
    BRAID_CHECK(n == 0 || count <= std::numeric_limits<size_t>::max() / static_cast<size_t>(n), where,
                ": the shape's element count overflows");
    count *= static_cast<size_t>(n);
  }
  const size_t data = bytes.size() - start - header_len;
  BRAID_CHECK(count <= data / dtype_size(dtype) && count * dtype_size(dtype) == data, where, ": shape ",
              Shape(dims).str(), " of ", dtype_name(dtype), " needs ", count, " elements, the file holds ", data,
              " data bytes");
  NDArray out(Shape(dims), cpu(), dtype);
  // A fresh array: no engine operation refers to it yet.
  if (data > 0) std::memcpy(out.raw_data(), bytes.data() + start + header_len, data);
  return out;
}

NDArray load_npy(const std::string& path) { return npy_array(read_file(path, max_array_file_bytes()), path); }

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
