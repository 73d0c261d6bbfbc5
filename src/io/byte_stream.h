#pragma once
// Internal: where `.params` bytes come from and go to (memory or a file), so that the reader and
// the writer are written once. Files are streamed, never held in memory whole.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace braid::io::detail {

/// Sequential input of known total size. Callers check sizes against size() before reading;
/// read() throws braid::Error only on an I/O failure (a file that shrank while being read).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  virtual void read(void* dst, size_t n) = 0;
};

std::unique_ptr<ByteSource> memory_source(std::string_view bytes);
/// Opens `path`, a regular file no larger than this machine's memory, for reading (see
/// ReadableFile in braid/io/file.h); throws braid::Error naming the path and the reason.
std::unique_ptr<ByteSource> file_source(const std::string& path);

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(const void* src, size_t n) = 0;
};

class StringSink : public ByteSink {
 public:
  void write(const void* src, size_t n) override { bytes_.append(static_cast<const char*>(src), n); }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

/// Runs `fill` on a sink writing `path.tmp.<pid>`, flushes and fsyncs it, renames it over `path`
/// and fsyncs the directory. On any failure (including an exception from `fill`) the temporary
/// is removed, `path` is left untouched and braid::Error names the path.
void write_file_atomically(const std::string& path, const std::function<void(ByteSink&)>& fill);

}  // namespace braid::io::detail
