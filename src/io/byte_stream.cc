#include "byte_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "braid/base/error.h"
#include "braid/io/file.h"

namespace braid::io::detail {
namespace {

std::string system_reason() { return std::strerror(errno); }

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  void read(void* dst, size_t n) override {
    BRAID_CHECK(n <= bytes_.size() - pos_, "read past the end of an in-memory buffer");
    std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

class FileSource : public ByteSource {
 public:
  explicit FileSource(const std::string& path) : path_(path) {
    ReadableFile file(path, max_array_file_bytes());
    size_ = file.size();
    file_ = ::fdopen(file.fd(), "rb");
    BRAID_CHECK(file_, path, ": cannot open for reading: ", system_reason());
    file.release();
  }
  ~FileSource() override { std::fclose(file_); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  uint64_t size() const override { return size_; }
  void read(void* dst, size_t n) override {
    BRAID_CHECK(std::fread(dst, 1, n, file_) == n, path_, ": read failed (was the file changed while being loaded?): ",
                std::ferror(file_) ? system_reason() : "unexpected end of file");
  }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t size_ = 0;
};

class FileSink : public ByteSink {
 public:
  FileSink(std::FILE* file, const std::string& path) : file_(file), path_(path) {}
  void write(const void* src, size_t n) override {
    BRAID_CHECK(std::fwrite(src, 1, n, file_) == n, path_, ": write failed: ", system_reason());
  }

 private:
  std::FILE* file_;
  const std::string& path_;
};

// Makes a completed rename durable. Best effort: the file itself is already complete and synced.
void sync_directory_of(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

std::unique_ptr<ByteSource> memory_source(std::string_view bytes) { return std::make_unique<MemorySource>(bytes); }

std::unique_ptr<ByteSource> file_source(const std::string& path) { return std::make_unique<FileSource>(path); }

void write_file_atomically(const std::string& path, const std::function<void(ByteSink&)>& fill) {
  const std::string tmp = cat(path, ".tmp.", ::getpid());
  std::FILE* file = std::fopen(tmp.c_str(), "wb");
  BRAID_CHECK(file, path, ": cannot create the temporary file ", tmp, ": ", system_reason());
  try {
    FileSink sink(file, tmp);
    fill(sink);
    BRAID_CHECK(std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0, tmp,
                ": flushing to disk failed: ", system_reason());
  } catch (...) {
    std::fclose(file);
    std::remove(tmp.c_str());
    throw;
  }
  if (std::fclose(file) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string reason = system_reason();
    std::remove(tmp.c_str());
    throw Error(cat(path, ": cannot replace it with ", tmp, ": ", reason));
  }
  sync_directory_of(path);
}

}  // namespace braid::io::detail
