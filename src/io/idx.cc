#include "braid/io/idx.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "braid/io/file.h"

namespace braid::io {
namespace {

// Deflate expands data at most about 1032 times; a header promising more than that per
// compressed byte is lying, and is refused before anything is allocated.
constexpr uint64_t kMaxDeflateRatio = 1032;

using GzFile = std::unique_ptr<gzFile_s, int (*)(gzFile)>;

GzFile open_gz(const std::string& path, uint64_t* file_size) {
  const bool default_dataset = path.rfind(fashion_mnist_dir() + "/", 0) == 0;
  BRAID_CHECK(std::filesystem::exists(path), "cannot open ", path,
              default_dataset ? "; install dataset-fashion-mnist (scripts/install-deps.sh) or set BRAID_FASHION_MNIST_DIR"
                              : ": no such file");
  ReadableFile file(path, max_array_file_bytes());
  *file_size = file.size();
  GzFile f(gzdopen(file.fd(), "rb"), gzclose);  // gzdopen reads plain files too
  BRAID_CHECK(f, path, ": cannot open for reading");
  file.release();
  return f;
}

// Reads up to `n` bytes (gzread takes an unsigned int at a time); returns how many there were.
uint64_t read_up_to(gzFile f, uint8_t* dst, uint64_t n, const std::string& path) {
  uint64_t done = 0;
  while (done < n) {
    int got = gzread(f, dst + done, static_cast<unsigned>(std::min<uint64_t>(n - done, 1u << 30)));
    BRAID_CHECK(got >= 0, "error reading ", path, " (corrupt gzip stream?)");
    if (got == 0) break;
    done += static_cast<uint64_t>(got);
  }
  return done;
}

uint32_t be32(const uint8_t* d) {
  return (uint32_t{d[0]} << 24) | (uint32_t{d[1]} << 16) | (uint32_t{d[2]} << 8) | d[3];
}

struct IdxContents {
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};

// Reads the header (unsigned bytes; `ndim` dimensions, or any rank when ndim < 0), checks the
// data size it gives against the file before allocating, then reads exactly that much data.
IdxContents read_idx(const std::string& path, int ndim) {
  uint64_t file_size = 0;
  GzFile f = open_gz(path, &file_size);
  uint8_t word[4];
  auto short_header = [&] { return Error(cat(path, ": too short for an IDX header")); };
  if (read_up_to(f.get(), word, 4, path) != 4) throw short_header();
  const uint32_t magic = be32(word);
  if (ndim < 0) ndim = static_cast<int>(magic & 0xFFu);
  BRAID_CHECK(magic == 0x800u + static_cast<uint32_t>(ndim), path, ": IDX magic 0x", std::hex, magic,
              " is not unsigned-byte data of rank ", std::dec, ndim);
  IdxContents c;
  int64_t total = 1;
  for (int i = 0; i < ndim; ++i) {
    if (read_up_to(f.get(), word, 4, path) != 4) throw short_header();
    c.dims.push_back(be32(word));
    BRAID_CHECK(!__builtin_mul_overflow(total, c.dims.back(), &total), path, ": the IDX header's dimensions ",
                Shape(c.dims), " already hold more elements than int64 can count");
  }
  const uint64_t header = 4 + 4 * static_cast<uint64_t>(ndim), want = static_cast<uint64_t>(total);
  if (gzdirect(f.get()))
    BRAID_CHECK(want == file_size - header, path, ": expected ", want, " data bytes after the header, found ",
                file_size - header);
  else
    BRAID_CHECK(want / kMaxDeflateRatio <= file_size && want <= max_array_file_bytes(), path, ": the IDX header ",
                "gives ", want, " data bytes, more than the ", file_size, "-byte compressed file can hold");
  c.data.resize(want);
  const uint64_t got = read_up_to(f.get(), c.data.data(), want, path);
  uint8_t extra;
  BRAID_CHECK(got == want && read_up_to(f.get(), &extra, 1, path) == 0, path, ": expected ", want,
              " data bytes after the header, found ", got == want ? "more" : std::to_string(got));
  return c;
}

NDArray to_float(const std::vector<uint8_t>& d, const Shape& shape, float scale) {
  NDArray out(shape, cpu(), DType::Float32);
  float* p = out.data<float>();  // a fresh array: no engine operation refers to it yet
  for (int64_t i = 0; i < shape.size(); ++i) p[i] = static_cast<float>(d[static_cast<size_t>(i)]) * scale;
  return out;
}

}  // namespace

NDArray load_idx_images(const std::string& path) {
  auto c = read_idx(path, 3);
  return to_float(c.data, Shape({c.dims[0], 1, c.dims[1], c.dims[2]}), 1.0f / 255.0f);
}

NDArray load_idx_labels(const std::string& path) {
  auto c = read_idx(path, 1);
  return to_float(c.data, Shape({c.dims[0]}), 1.0f);
}

NDArray load_idx(const std::string& path) {
  auto c = read_idx(path, -1);
  NDArray out{Shape(c.dims), cpu(), DType::UInt8};
  // A fresh array: no engine operation refers to it yet.
  std::copy(c.data.begin(), c.data.end(), out.data<uint8_t>());
  return out;
}

std::string fashion_mnist_dir() {
  return env_str({"BRAID_FASHION_MNIST_DIR"}).value_or("/usr/share/datasets/fashion-mnist");
}

}  // namespace braid::io
