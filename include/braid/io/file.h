#pragma once
/// Reading files safely and writing them atomically. Every file Braid reads is opened through
/// ReadableFile: only a regular file is accepted (a FIFO would block, a device such as /dev/zero
/// never ends) and only up to a size its caller names, checked before anything is allocated.
#include <cstdint>
#include <string>
#include <string_view>

namespace braid::io {

/// The most a text file Braid parses may hold: symbol JSON, configs, optimizer and checkpoint
/// JSON, training logs, host lists. MXNet's largest symbol files are a few MiB.
inline constexpr uint64_t kMaxTextFileBytes = uint64_t{256} << 20;

/// The most a file loaded into arrays (.params, optimizer states, .npy, IDX) may hold: this
/// machine's physical memory, since every byte of it ends up in memory.
uint64_t max_array_file_bytes();

/// A regular file of at most `max_bytes` bytes, open for reading; closed when destroyed.
/// Throws braid::Error naming the path when it cannot be opened, is not a regular file or is
/// larger than `max_bytes`. Opening never blocks, not even on a FIFO.
class ReadableFile {
 public:
  ReadableFile(const std::string& path, uint64_t max_bytes);
  ~ReadableFile();
  ReadableFile(const ReadableFile&) = delete;
  ReadableFile& operator=(const ReadableFile&) = delete;

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  /// Hands the descriptor to the caller (for fdopen or gzdopen, which close it from then on).
  int release();

 private:
  int fd_;
  uint64_t size_ = 0;
};

/// Writes `bytes` to a temporary file beside `path`, syncs it and renames it over `path`: the
/// file holds either its old contents or all of the new ones, even after a crash or a full disk.
/// Throws braid::Error naming the path and the reason.
void write_file_atomically(const std::string& path, std::string_view bytes);
/// The contents of `path`, a regular file of at most `max_bytes` bytes (see ReadableFile);
/// throws braid::Error naming it when it cannot be read.
std::string read_file(const std::string& path, uint64_t max_bytes);

}  // namespace braid::io
