#include "braid/io/idx.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "braid/base/env.h"
#include "braid/base/error.h"

namespace braid::io {
namespace {

// The whole (decompressed) file; gzopen reads plain files too.
std::vector<uint8_t> read_all(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> f(gzopen(path.c_str(), "rb"), gzclose);
  BRAID_CHECK(f, "cannot open ", path,
              "; install dataset-fashion-mnist (scripts/install-deps.sh) "
              "or set BRAID_FASHION_MNIST_DIR");
  std::vector<uint8_t> data;
  uint8_t buf[1 << 16];
  int n;
  while ((n = gzread(f.get(), buf, sizeof buf)) > 0) data.insert(data.end(), buf, buf + n);
  BRAID_CHECK(n == 0, "error reading ", path, " (corrupt gzip stream?)");
  return data;
}

uint32_t be32(const std::vector<uint8_t>& d, size_t at) {
  return (uint32_t{d[at]} << 24) | (uint32_t{d[at + 1]} << 16) | (uint32_t{d[at + 2]} << 8) | d[at + 3];
}

// Checks the magic (unsigned bytes; `ndim` dimensions, or any rank when ndim < 0) and returns
// the dimensions.
std::vector<int64_t> header(const std::vector<uint8_t>& d, const std::string& path, int ndim) {
  BRAID_CHECK(d.size() >= 4, path, ": too short for an IDX header (", d.size(), " bytes)");
  uint32_t magic = be32(d, 0);
  if (ndim < 0) ndim = static_cast<int>(magic & 0xFFu);
  BRAID_CHECK(magic == 0x800u + static_cast<uint32_t>(ndim), path, ": IDX magic 0x", std::hex, magic,
              " is not unsigned-byte data of rank ", std::dec, ndim);
  size_t need = 4 + 4 * static_cast<size_t>(ndim);
  BRAID_CHECK(d.size() >= need, path, ": too short for an IDX header (", d.size(), " bytes)");
  std::vector<int64_t> dims;
  int64_t total = 1;
  for (int i = 0; i < ndim; ++i) {
    dims.push_back(be32(d, 4 + 4 * static_cast<size_t>(i)));
    total *= dims.back();
  }
  BRAID_CHECK(d.size() - need == static_cast<size_t>(total), path, ": expected ", total,
              " data bytes after the header, found ", d.size() - need);
  return dims;
}

NDArray to_float(const std::vector<uint8_t>& d, size_t offset, const Shape& shape, float scale) {
  NDArray out(shape, cpu(), DType::Float32);
  float* p = out.data<float>();  // a fresh array: no engine operation refers to it yet
  for (int64_t i = 0; i < shape.size(); ++i) p[i] = static_cast<float>(d[offset + static_cast<size_t>(i)]) * scale;
  return out;
}

}  // namespace

NDArray load_idx_images(const std::string& path) {
  auto d = read_all(path);
  auto dims = header(d, path, 3);
  return to_float(d, 16, Shape({dims[0], 1, dims[1], dims[2]}), 1.0f / 255.0f);
}

NDArray load_idx_labels(const std::string& path) {
  auto d = read_all(path);
  auto dims = header(d, path, 1);
  return to_float(d, 8, Shape({dims[0]}), 1.0f);
}

NDArray load_idx(const std::string& path) {
  auto d = read_all(path);
  auto dims = header(d, path, -1);
  NDArray out{Shape(dims), cpu(), DType::UInt8};
  size_t offset = 4 + 4 * dims.size();
  // A fresh array: no engine operation refers to it yet.
  std::copy(d.begin() + static_cast<std::ptrdiff_t>(offset), d.end(), out.data<uint8_t>());
  return out;
}

std::string fashion_mnist_dir() {
  return env_str({"BRAID_FASHION_MNIST_DIR"}).value_or("/usr/share/datasets/fashion-mnist");
}

}  // namespace braid::io
