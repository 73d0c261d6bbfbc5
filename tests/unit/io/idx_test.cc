// IDX headers are checked before allocation: a dimension product that overflows, or one larger
// than the data the file holds (plain or gzipped), is an error naming the file.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>

#include "braid/base/error.h"
#include "braid/io/idx.h"
#include "common/error_message.h"
#include "params_test_util.h"

namespace braid::test {
namespace {

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

std::string idx_header(const std::vector<uint32_t>& dims) {
  std::string h = be32(0x800u + static_cast<uint32_t>(dims.size()));
  for (uint32_t d : dims) h += be32(d);
  return h;
}

void write_gzipped(const std::string& path, const std::string& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())), static_cast<int>(bytes.size()));
  gzclose(f);
}

std::string error_of(const std::string& path) {
  return error_message([&] { io::load_idx(path); });
}

TEST(Idx, ReadsPlainAndGzippedFiles) {
  const auto dir = scratch_dir();
  const std::string bytes = idx_header({2, 3}) + std::string("\x01\x02\x03\x04\x05\xff", 6);
  write_file_bytes((dir / "plain").string(), bytes);
  write_gzipped((dir / "packed.gz").string(), bytes);
  for (const char* name : {"plain", "packed.gz"}) {
    NDArray a = io::load_idx((dir / name).string());
    EXPECT_EQ(a.shape(), Shape({2, 3})) << name;
    EXPECT_EQ(a.to_vector<uint8_t>(), (std::vector<uint8_t>{1, 2, 3, 4, 5, 255})) << name;
  }
}

TEST(Idx, DimensionProductOverflowIsRefused) {
  const std::string path = (scratch_dir() / "overflow").string();
  write_file_bytes(path, idx_header({0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}));
  EXPECT_EQ(error_of(path), path +
                                ": the IDX header's dimensions (4294967295, 4294967295) already hold more elements "
                                "than int64 can count");
}

TEST(Idx, HeaderAskingForMoreThanThePlainFileHoldsIsRefused) {
  const std::string path = (scratch_dir() / "lying").string();
  write_file_bytes(path, idx_header({65536, 65536, 65536}) + "abc");
  EXPECT_EQ(error_of(path), path + ": expected 281474976710656 data bytes after the header, found 3");
}

TEST(Idx, HeaderAskingForMoreThanTheGzippedFileCanHoldIsRefused) {
  const std::string path = (scratch_dir() / "lying.gz").string();
  write_gzipped(path, idx_header({65536, 65536, 65536}));
  EXPECT_EQ(error_of(path), path + ": the IDX header gives 281474976710656 data bytes, more than the " +
                                std::to_string(std::filesystem::file_size(path)) + "-byte compressed file can hold");
}

TEST(Idx, DataBeyondTheHeadersSizeIsRefused) {
  const auto dir = scratch_dir();
  const std::string bytes = idx_header({2}) + "abc";
  write_file_bytes((dir / "plain").string(), bytes);
  write_gzipped((dir / "packed.gz").string(), bytes);
  EXPECT_EQ(error_of((dir / "plain").string()),
            (dir / "plain").string() + ": expected 2 data bytes after the header, found 3");
  EXPECT_EQ(error_of((dir / "packed.gz").string()),
            (dir / "packed.gz").string() + ": expected 2 data bytes after the header, found more");
}

}  // namespace
}  // namespace braid::test
