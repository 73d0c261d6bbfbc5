// Reading `.params` files. Every count, ndim, dim, dtype and size is checked against the bytes
// that remain BEFORE anything is allocated, so a corrupt file costs at most its own size in
// memory; every error names the file, the byte offset and what was expected.
#include <limits>

#include "braid/base/error.h"
#include "braid/io/params.h"
#include "braid/ndarray/sparse.h"
#include "byte_stream.h"
#include "params_format.h"

namespace braid::io {
namespace {

using namespace detail;

enum class Version { PreV1, V1, V2, V3 };

class Parser {
 public:
  Parser(ByteSource& src, const std::string& name) : src_(src), name_(name), size_(src.size()) {}

  NamedArrays parse() {
    auto magic = read<uint64_t>("the file magic");
    if (magic != kListMagic)
      fail(0, cat("not an MXNet .params file: expected magic 0x112 at byte 0, found 0x", std::hex, magic));
    read<uint64_t>("the reserved field");  // MXNet writes 0 and never checks it
    const uint64_t count_at = offset_;
    auto count = read<uint64_t>("the array count");
    // The shortest record (a pre-V1 None array) is its 4-byte ndim.
    if (count > remaining() / 4)
      fail(count_at, cat("the array count ", count, " cannot fit in the ", remaining(),
                         " bytes left (each array takes at least 4 bytes)"));
    NamedArrays out;
    for (uint64_t i = 0; i < count; ++i) {
      record_ = static_cast<int64_t>(i);
      out.arrays.push_back(read_record());
    }
    out.numpy_shapes = saw_v3_;
    record_ = -1;
    read_names(count, out.names);
    if (remaining() != 0)
      fail(offset_, cat("expected the end of the file after the last name, found ", remaining(), " more bytes"));
    return out;
  }

  /// A lone record (MXNet's raw bytes of one array).
  NDArray parse_record() {
    NDArray a = read_record();
    if (remaining() != 0) fail(offset_, cat("expected the end of the array's bytes, found ", remaining(), " more"));
    return a;
  }

 private:
  uint64_t remaining() const { return size_ - offset_; }

  [[noreturn]] void fail(uint64_t at, const std::string& what) const {
    std::string where = record_ >= 0 ? cat(", array ", record_) : "";
    throw Error(cat(name_, ": at byte ", at, where, ": ", what));
  }

  // Fails unless `n` more bytes exist; `what` names the field being read.
  void need(uint64_t n, const char* what) const {
    if (n <= remaining()) return;
    std::string field = record_ >= 0 ? cat("array ", record_, " ", what) : std::string(what);
    throw Error(cat(name_, ": truncated at byte ", offset_, " reading ", field, " (expected ", n, " bytes, ",
                    remaining(), " left)"));
  }

  void read_bytes(void* dst, uint64_t n, const char* what) {
    need(n, what);
    if (n == 0) return;
    src_.read(dst, static_cast<size_t>(n));
    offset_ += n;
  }

  template <class T>
  T read(const char* what) {
    T v;
    read_bytes(&v, sizeof(T), what);
    return v;
  }

  static Version version_of(uint32_t first) {
    switch (first) {
      case kRecordV1Magic:
        return Version::V1;
      case kRecordV2Magic:
        return Version::V2;
      case kRecordV3Magic:
        return Version::V3;
      default:
        return Version::PreV1;  // `first` is the ndim
    }
  }

  void check_stype(int32_t stype, Version v, uint64_t at) const {
    if (stype == kStypeDefault) return;
    if (stype != kStypeRowSparse && stype != kStypeCSR)
      fail(at, cat("invalid storage type ", stype, " (expected 0 dense, 1 row_sparse or 2 csr)"));
    if (v == Version::V3) fail(at, cat("a compressed array (storage type ", stype, ") in a NumPy-shape (V3) record"));
  }

  // Reads the shape; returns false for MXNet's None array (nothing follows it in the record).
  bool read_shape(Version v, uint32_t first, std::vector<int64_t>& dims) {
    int64_t ndim;
    const uint64_t ndim_at = v == Version::PreV1 ? offset_ - 4 : offset_;
    if (v == Version::PreV1) {
      ndim = first;
      if (ndim > static_cast<int64_t>(remaining() / 4))
        fail(ndim_at, cat("unknown record magic 0x", std::hex, first, std::dec,
                          ": expected 0xf993fac8/9/a (V1/V2/V3) or a pre-V1 ndim of at most ", remaining() / 4));
    } else {
      ndim = read<int32_t>("ndim");
    }
    // None is ndim 0, except in V3 (numpy semantics) where it is -1 and 0 is a scalar.
    if (v == Version::V3 ? ndim == -1 : ndim == 0) return false;
    if (ndim < 0) fail(ndim_at, cat("invalid ndim ", ndim));
    const uint64_t dim_bytes = v == Version::PreV1 ? 4 : 8;
    need(static_cast<uint64_t>(ndim) * dim_bytes, "dims");
    dims.resize(static_cast<size_t>(ndim));
    bool unknown = false;
    for (auto& d : dims) {
      const uint64_t at = offset_;
      d = v == Version::PreV1 ? read<uint32_t>("dims") : read<int64_t>("dims");
      if (v == Version::V3 && d == -1)
        unknown = true;  // an unknown dim: a None array
      else if (d < 0)
        fail(at, cat("invalid dimension ", d, " (expected >= 0)"));
    }
    return !unknown;
  }

  void check_context(int32_t dev_type, int32_t dev_id, uint64_t at) const {
    bool known = dev_type == kDevCPU || dev_type == kDevGPU || dev_type == kDevCPUPinned || dev_type == kDevCPUShared;
    if (!known)
      fail(at, cat("invalid device type ", dev_type, " (expected 1 cpu, 2 gpu, 3 cpu_pinned or 5 cpu_shared)"));
    if (dev_id < 0) fail(at + 4, cat("invalid device id ", dev_id, " (expected >= 0)"));
  }

  // Bytes of data for `dims` x `dtype`, or a failure when that exceeds what is left. Checked so that
  // no product of the dims can overflow int64 (Shape::size() multiplies them in order).
  uint64_t data_bytes(const std::vector<int64_t>& dims, DType dtype, uint64_t at) const {
    const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    uint64_t nonzero = 1;
    bool empty = false;
    for (auto d : dims) {
      if (d == 0) {
        empty = true;
      } else if (nonzero > limit / static_cast<uint64_t>(d)) {
        fail(at, cat("shape ", Shape(dims), " has more elements than fit in int64"));
      } else {
        nonzero *= static_cast<uint64_t>(d);
      }
    }
    const uint64_t elems = empty ? 0 : nonzero;
    if (elems > remaining() / dtype_size(dtype))
      throw Error(cat(name_, ": truncated at byte ", offset_, " reading array ", record_, " data (shape ", Shape(dims),
                      " of ", dtype_name(dtype), " needs ", elems, " x ", dtype_size(dtype), " bytes, ", remaining(),
                      " left)"));
    return elems * dtype_size(dtype);
  }

  DType read_dtype() {
    const uint64_t at = offset_;
    auto code = read<int32_t>("dtype");
    if (code < 0 || code > static_cast<int32_t>(DType::BFloat16))
      fail(at, cat("invalid dtype code ", code, " (expected 0 float32 ... 12 bfloat16)"));
    return static_cast<DType>(code);
  }

  NDArray read_elements(const std::vector<int64_t>& dims, DType dtype, uint64_t shape_at, const char* what) {
    const uint64_t bytes = data_bytes(dims, dtype, shape_at);
    // Arrays saved from a gpu context are loaded to the cpu, like MXNet without CUDA.
    NDArray arr(Shape(dims), cpu(), dtype);
    read_bytes(arr.raw_data(), bytes, what);
    return arr;
  }

  // A compressed record after its storage type: the stored values' shape, the shape, the context,
  // the dtype, the aux arrays' dtypes and shapes, then the values and the aux arrays' elements.
  // The parts are checked as a whole (indices in range and ascending) before the array is made.
  NDArray read_sparse_record(int32_t stype, uint64_t record_at) {
    const uint64_t storage_at = offset_;
    std::vector<int64_t> storage_dims, dims;
    const bool has_storage = read_shape(Version::V2, 0, storage_dims);
    if (!read_shape(Version::V2, 0, dims)) return NDArray();
    if (!has_storage) fail(storage_at, "a compressed array without the shape of its stored values");
    const uint64_t ctx_at = offset_;
    auto dev_type = read<int32_t>("device type");
    auto dev_id = read<int32_t>("device id");
    check_context(dev_type, dev_id, ctx_at);
    const DType dtype = read_dtype();
    struct AuxHeader {
      DType dtype;
      std::vector<int64_t> dims;
      uint64_t shape_at;
    };
    std::vector<AuxHeader> headers(stype == kStypeCSR ? 2 : 1);
    for (size_t i = 0; i < headers.size(); ++i) {
      const uint64_t type_at = offset_;
      headers[i].dtype = read_dtype();
      if (headers[i].dtype != DType::Int64 && headers[i].dtype != DType::Int32)
        fail(type_at, cat("aux array ", i, " has dtype ", dtype_name(headers[i].dtype), " (expected int64 or int32)"));
      headers[i].shape_at = offset_;
      if (!read_shape(Version::V2, 0, headers[i].dims))
        fail(headers[i].shape_at, cat("aux array ", i, " has no shape"));
    }
    NDArray values = read_elements(storage_dims, dtype, storage_at, "the stored values");
    std::vector<NDArray> aux;
    for (const auto& h : headers) {
      NDArray x = read_elements(h.dims, h.dtype, h.shape_at, "an aux array");
      aux.push_back(h.dtype == DType::Int64 ? x : x.astype(DType::Int64));
    }
    try {
      NDArray a = stype == kStypeCSR ? sparse::csr_matrix(values, aux[0], aux[1], Shape(dims))
                                     : sparse::row_sparse_array(values, aux[0], Shape(dims));
      sparse::check_format(a);
      return a;
    } catch (const Error& e) {
      fail(record_at, e.what());
    }
  }

  NDArray read_record() {
    const uint64_t record_at = offset_;
    const auto first = read<uint32_t>("record magic");
    const Version v = version_of(first);
    saw_v3_ = saw_v3_ || v == Version::V3;
    if (v == Version::V2 || v == Version::V3) {
      const uint64_t stype_at = offset_;
      const auto stype = read<int32_t>("storage type");
      check_stype(stype, v, stype_at);
      if (stype != kStypeDefault) return read_sparse_record(stype, record_at);
    }
    const uint64_t shape_at = offset_;
    std::vector<int64_t> dims;
    if (!read_shape(v, first, dims)) return NDArray();
    const uint64_t ctx_at = offset_;
    auto dev_type = read<int32_t>("device type");
    auto dev_id = read<int32_t>("device id");
    check_context(dev_type, dev_id, ctx_at);
    return read_elements(dims, read_dtype(), shape_at, "data");
  }

  void read_names(uint64_t count, std::vector<std::string>& names) {
    const uint64_t at = offset_;
    auto n = read<uint64_t>("the name count");
    if (n != 0 && n != count)
      fail(at, cat("the name count ", n, " does not match the array count ", count, " (expected 0 or ", count, ")"));
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t len_at = offset_;
      auto len = read<uint64_t>("a name length");
      if (len > remaining())
        fail(len_at, cat("name ", i, " length ", len, " exceeds the ", remaining(), " bytes left"));
      std::string name(static_cast<size_t>(len), '\0');
      read_bytes(name.data(), len, "a name");
      names.push_back(std::move(name));
    }
  }

  ByteSource& src_;
  const std::string& name_;
  const uint64_t size_;
  uint64_t offset_ = 0;
  int64_t record_ = -1;  // the array being read, for messages; -1 outside records
  bool saw_v3_ = false;
};

}  // namespace

NamedArrays load(const std::string& path) {
  auto src = file_source(path);
  return Parser(*src, path).parse();
}

NamedArrays load_from_bytes(std::string_view bytes, const std::string& source_name) {
  auto src = memory_source(bytes);
  return Parser(*src, source_name).parse();
}

NDArray load_array_from_raw_bytes(std::string_view bytes, const std::string& source_name) {
  auto src = memory_source(bytes);
  return Parser(*src, source_name).parse_record();
}

}  // namespace braid::io
