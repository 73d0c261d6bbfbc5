#pragma once
/// RecordIO: MXNet's record files (`.rec`, dmlc-core's format), written and read byte for byte as
/// MXNet does. Each record is a 4-byte magic (0xced7230a), a 4-byte word holding the part's length
/// (low 29 bits) and a continuation flag (high 3 bits), the bytes, and zeros up to a multiple of 4.
/// A record whose bytes contain the magic at a 4-aligned offset is cut there into parts (flag 1
/// first, 2 middle, 3 last; the magic itself is not stored and comes back on reading), so that a
/// reader can find record starts by scanning for the magic.
///
///   io::RecordWriter w("data.rec");
///   uint64_t at = w.tell();      // where the next record starts (an .idx file keeps these)
///   w.write("bytes of one record");
///   io::RecordReader r("data.rec");
///   while (auto rec = r.read()) use(*rec);
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace braid::io {

class RecordWriter {
 public:
  /// Creates (or truncates) `path`; throws braid::Error naming it if it cannot.
  explicit RecordWriter(const std::string& path);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  /// Appends one record (at most 2^29 - 1 bytes per part); throws on a write error (a full disk).
  void write(std::string_view record);
  /// The offset of the next record.
  uint64_t tell() const { return offset_; }
  /// Flushes and closes (the destructor does too, without throwing); throws on a write error.
  void close();

 private:
  void put(const void* data, size_t n);
  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t offset_ = 0;
};

class RecordReader {
 public:
  /// Opens `path`; throws braid::Error naming it if it cannot.
  explicit RecordReader(const std::string& path);
  ~RecordReader();
  RecordReader(const RecordReader&) = delete;
  RecordReader& operator=(const RecordReader&) = delete;

  /// The next record, or nullopt at the end of the file; throws naming the offset for a file
  /// that is not RecordIO there (a wrong magic, a truncated record, an impossible flag).
  std::optional<std::string> read();
  /// Moves to the record starting at `offset` (a tell() of the writer: an .idx entry).
  void seek(uint64_t offset);
  uint64_t tell() const { return offset_; }

 private:
  bool get(void* data, size_t n);  // false at a clean end of file before any byte
  std::string path_;
  std::FILE* file_ = nullptr;
  uint64_t offset_ = 0;
};

}  // namespace braid::io
