#include "braid/io/recordio.h"

#include <cerrno>
#include <cstring>

#include "braid/base/error.h"

namespace braid::io {
namespace {

constexpr uint32_t kMagic = 0xced7230a;
constexpr uint32_t kMaxPart = (1u << 29) - 1;

uint32_t length_word(uint32_t flag, size_t length) {
  BRAID_CHECK(length <= kMaxPart, "RecordIO: a record part of ", length, " bytes is over the format's limit of ",
              kMaxPart);
  return (flag << 29) | static_cast<uint32_t>(length);
}

size_t padding(size_t n) { return (4 - n % 4) % 4; }

}  // namespace

RecordWriter::RecordWriter(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "wb");
  BRAID_CHECK(file_, "RecordIO: cannot create '", path, "': ", std::strerror(errno));
}

RecordWriter::~RecordWriter() {
  if (file_) std::fclose(file_);
}

void RecordWriter::put(const void* data, size_t n) {
  BRAID_CHECK(file_, "RecordIO: '", path_, "' is closed");
  BRAID_CHECK(n == 0 || std::fwrite(data, 1, n, file_) == n, "RecordIO: writing '", path_,
              "' failed: ", std::strerror(errno));
  offset_ += n;
}

void RecordWriter::write(std::string_view record) {
  // Cut at every 4-aligned occurrence of the magic, which the parts' boundaries then stand for.
  size_t begin = 0;
  bool first = true;
  for (size_t at = 0; at + 4 <= record.size(); at += 4) {
    uint32_t word;
    std::memcpy(&word, record.data() + at, 4);
    if (word != kMagic) continue;
    const uint32_t head[2] = {kMagic, length_word(first ? 1 : 2, at - begin)};
    put(head, sizeof head);
    put(record.data() + begin, at - begin);  // 4-aligned: no padding
    begin = at + 4;
    first = false;
  }
  const uint32_t head[2] = {kMagic, length_word(first ? 0 : 3, record.size() - begin)};
  put(head, sizeof head);
  put(record.data() + begin, record.size() - begin);
  const uint32_t zero = 0;
  put(&zero, padding(record.size() - begin));
}

void RecordWriter::close() {
  if (!file_) return;
  std::FILE* f = file_;
  file_ = nullptr;
  const bool ok = std::fflush(f) == 0;
  const int flush_errno = errno;
  const bool closed = std::fclose(f) == 0;
  BRAID_CHECK(ok && closed, "RecordIO: writing '", path_, "' failed: ", std::strerror(ok ? errno : flush_errno));
}

RecordReader::RecordReader(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "rb");
  BRAID_CHECK(file_, "RecordIO: cannot open '", path, "': ", std::strerror(errno));
}

RecordReader::~RecordReader() {
  if (file_) std::fclose(file_);
}

bool RecordReader::get(void* data, size_t n) {
  const size_t got = n ? std::fread(data, 1, n, file_) : 0;
  offset_ += got;
  if (got == n) return true;
  BRAID_CHECK(got == 0, "RecordIO: '", path_, "' ends inside a record at byte ", offset_);
  return false;
}

std::optional<std::string> RecordReader::read() {
  std::string record;
  for (bool first = true;; first = false) {
    const uint64_t start = offset_;
    uint32_t head[2];
    if (!get(head, sizeof head)) {
      BRAID_CHECK(first, "RecordIO: '", path_, "' ends inside a record at byte ", offset_);
      return std::nullopt;
    }
    BRAID_CHECK(head[0] == kMagic, "RecordIO: '", path_, "' has no record at byte ", start,
                " (not a RecordIO file, or an offset that is not a record's start)");
    const uint32_t flag = head[1] >> 29, length = head[1] & kMaxPart;
    BRAID_CHECK(flag <= 3 && (first ? flag <= 1 : flag >= 2), "RecordIO: '", path_, "': a record part at byte ", start,
                " has flag ", flag, " where a ", first ? "record's start" : "continuation", " belongs");
    if (!first) record.append(reinterpret_cast<const char*>(&kMagic), 4);
    const size_t at = record.size();
    record.resize(at + length);
    BRAID_CHECK(get(record.data() + at, length) || length == 0, "RecordIO: '", path_, "' ends inside a record at byte ",
                offset_);
    if (flag == 0 || flag == 3) {
      char pad[4];
      get(pad, padding(length));
      return record;
    }
  }
}

void RecordReader::seek(uint64_t offset) {
  if (offset == offset_) return;  // reading on: keep stdio's buffer
  BRAID_CHECK(std::fseek(file_, static_cast<long>(offset), SEEK_SET) == 0, "RecordIO: cannot seek '", path_,
              "' to byte ", offset);
  offset_ = offset;
}

}  // namespace braid::io
