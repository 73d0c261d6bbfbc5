#include "braid/io/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "braid/base/error.h"
#include "byte_stream.h"

namespace braid::io {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

}  // namespace

uint64_t max_array_file_bytes() {
  return static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

ReadableFile::ReadableFile(const std::string& path, uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one forever.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  BRAID_CHECK(fd_ >= 0, path, ": cannot open for reading: ", std::strerror(errno));
  struct stat st {};
  std::string problem;
  if (::fstat(fd_, &st) != 0)
    problem = cat(path, ": cannot read its status: ", std::strerror(errno));
  else if (!S_ISREG(st.st_mode))
    problem = cat(path, " is not a regular file (", kind_of(st.st_mode), "): Braid reads models, arrays and ",
                  "configs from regular files only");
  else if (static_cast<uint64_t>(st.st_size) > max_bytes)
    problem = cat(path, " is ", st.st_size, " bytes, over the limit of ", max_bytes, " bytes for this kind of file");
  else if (::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK) != 0)
    problem = cat(path, ": cannot make reads blocking: ", std::strerror(errno));
  if (!problem.empty()) {
    ::close(fd_);
    throw Error(problem);
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

ReadableFile::~ReadableFile() {
  if (fd_ >= 0) ::close(fd_);
}

int ReadableFile::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  detail::write_file_atomically(path, [&](detail::ByteSink& out) { out.write(bytes.data(), bytes.size()); });
}

std::string read_file(const std::string& path, uint64_t max_bytes) {
  ReadableFile file(path, max_bytes);
  std::string bytes(file.size(), '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(file.fd(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    BRAID_CHECK(n > 0, path, ": read failed (was the file changed while being read?): ",
                n < 0 ? std::strerror(errno) : "unexpected end of file");
    done += static_cast<size_t>(n);
  }
  return bytes;
}

}  // namespace braid::io
