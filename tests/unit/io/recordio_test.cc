// RecordIO files as MXNet (dmlc-core) lays them out, checked byte by byte against the format's
// description: magic, length word with the continuation flag, bytes, zeros to a multiple of 4; a
// record holding the magic at an aligned offset is cut there; bad files are refused by offset.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/io/recordio.h"

namespace braid {
namespace {

constexpr uint32_t kMagic = 0xced7230a;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))).string();
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string word(uint32_t w) { return std::string(reinterpret_cast<const char*>(&w), 4); }

TEST(RecordIO, RecordsAreLaidOutAsMXNetWritesThem) {
  const std::string path = temp_path("records");
  std::vector<uint64_t> starts;
  {
    io::RecordWriter w(path);
    for (const std::string& r : {std::string("abc"), std::string(), std::string("abcdefgh")}) {
      starts.push_back(w.tell());
      w.write(r);
    }
    w.close();
  }
  const std::string expected = word(kMagic) + word(3) + "abc" + std::string(1, '\0') + word(kMagic) + word(0) +
                               word(kMagic) + word(8) + "abcdefgh";
  EXPECT_EQ(bytes_of(path), expected);
  EXPECT_EQ(starts, (std::vector<uint64_t>{0, 12, 20}));
  io::RecordReader r(path);
  EXPECT_EQ(r.read(), "abc");
  EXPECT_EQ(r.read(), "");
  EXPECT_EQ(r.read(), "abcdefgh");
  EXPECT_EQ(r.read(), std::nullopt);
  r.seek(starts[2]);
  EXPECT_EQ(r.read(), "abcdefgh");
  std::filesystem::remove(path);
}

TEST(RecordIO, TheMagicInsideARecordSplitsItIntoParts) {
  const std::string path = temp_path("split");
  const std::string record = "1234" + word(kMagic) + "5678" + word(kMagic) + "9";
  {
    io::RecordWriter w(path);
    w.write(record);
  }
  // first part (flag 1) "1234", middle (flag 2) "5678", last (flag 3) "9" and its padding
  const std::string expected = word(kMagic) + word((1u << 29) | 4) + "1234" + word(kMagic) + word((2u << 29) | 4) +
                               "5678" + word(kMagic) + word((3u << 29) | 1) + "9" + std::string(3, '\0');
  EXPECT_EQ(bytes_of(path), expected);
  io::RecordReader r(path);
  EXPECT_EQ(r.read(), record);
  EXPECT_EQ(r.read(), std::nullopt);
  std::filesystem::remove(path);
}

TEST(RecordIO, FilesThatAreNotRecordIOAreRefusedByOffset) {
  const std::string path = temp_path("bad");
  auto error_reading = [&](const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
    try {
      io::RecordReader r(path);
      while (r.read()) {
      }
      return std::string("no error");
    } catch (const Error& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(error_reading("not a record file").find("has no record at byte 0"), std::string::npos);
  EXPECT_NE(error_reading(word(kMagic) + word(8) + "abc").find("ends inside a record"), std::string::npos);
  EXPECT_NE(error_reading(word(kMagic) + word((2u << 29) | 0)).find("has flag 2 where a record's start belongs"),
            std::string::npos);
  EXPECT_NE(error_reading(word(kMagic) + word((1u << 29) | 0)).find("ends inside a record"), std::string::npos);
  std::filesystem::remove(path);
  try {
    io::RecordReader missing(path);
    FAIL() << "a missing file opened";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace braid
