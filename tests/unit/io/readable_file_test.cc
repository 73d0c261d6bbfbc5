// Only regular files are read, and only up to the size the caller allows: a FIFO is refused at
// once (it used to block forever), /dev/zero is refused (it used to be read until memory ran
// out), and sizes are checked before anything is allocated.
#include <gtest/gtest.h>

#include <filesystem>

#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/io/idx.h"
#include "braid/io/json_limits.h"
#include "braid/io/npy.h"
#include "braid/io/params.h"
#include "braid/symbol/symbol.h"
#include "common/error_message.h"
#include "fifo_guard.h"
#include "params_test_util.h"

namespace braid::test {
namespace {

std::string refusal(const std::string& path, const char* kind) {
  return path + " is not a regular file (" + kind + "): Braid reads models, arrays and configs from regular files only";
}

TEST(ReadableFile, EveryLoaderRefusesAFifoAtOnce) {
  const std::string fifo = make_fifo(scratch_dir() / "model.fifo");
  const std::vector<std::pair<const char*, std::function<void()>>> loaders = {
      {"read_file", [&] { io::read_file(fifo, 100); }}, {"read_json_file", [&] { io::read_json_file(fifo); }},
      {"params load", [&] { io::load(fifo); }},         {"Symbol::load", [&] { Symbol::load(fifo); }},
      {"load_npy", [&] { io::load_npy(fifo); }},        {"load_idx", [&] { io::load_idx(fifo); }},
  };
  for (const auto& [name, load] : loaders)
    EXPECT_EQ(refused_within_deadline(fifo, load), refusal(fifo, "a FIFO")) << name;
}

TEST(ReadableFile, DevZeroIsRefused) {
  EXPECT_EQ(error_message([] { io::load("/dev/zero"); }), refusal("/dev/zero", "a character device"));
  EXPECT_EQ(error_message([] { Symbol::load("/dev/zero"); }), refusal("/dev/zero", "a character device"));
  EXPECT_EQ(error_message([] { io::load_idx("/dev/zero"); }), refusal("/dev/zero", "a character device"));
}

TEST(ReadableFile, DirectoryIsRefused) {
  const std::string dir = scratch_dir().string();
  EXPECT_EQ(error_message([&] { io::read_file(dir, 100); }), refusal(dir, "a directory"));
}

TEST(ReadableFile, SizeOverTheCallersLimitIsRefused) {
  const std::string path = (scratch_dir() / "eleven").string();
  write_file_bytes(path, "eleven byte");
  EXPECT_EQ(io::read_file(path, 11), "eleven byte");
  EXPECT_EQ(error_message([&] { io::read_file(path, 10); }),
            path + " is 11 bytes, over the limit of 10 bytes for this kind of file");
}

// Sparse files: their size costs no disk, and the check must come before any allocation.
TEST(ReadableFile, ArrayFilesLargerThanMemoryAreRefusedUnread) {
  const std::string path = (scratch_dir() / "huge.params").string();
  write_file_bytes(path, "");
  const uint64_t size = io::max_array_file_bytes() + 1;
  std::filesystem::resize_file(path, size);
  const std::string over = path + " is " + std::to_string(size) + " bytes, over the limit of " +
                           std::to_string(size - 1) + " bytes for this kind of file";
  EXPECT_EQ(error_message([&] { io::load(path); }), over);
  EXPECT_EQ(error_message([&] { io::load_npy(path); }), over);
}

TEST(ReadableFile, TextFilesOverTheLimitAreRefusedUnread) {
  const std::string path = (scratch_dir() / "huge-symbol.json").string();
  write_file_bytes(path, "");
  std::filesystem::resize_file(path, io::kMaxTextFileBytes + 1);
  EXPECT_EQ(error_message([&] { Symbol::load(path); }),
            path + " is 268435457 bytes, over the limit of 268435456 bytes for this kind of file");
}

TEST(ReadableFile, MissingFileNamesTheReason) {
  const std::string path = (scratch_dir() / "absent").string();
  EXPECT_EQ(error_message([&] { io::read_file(path, 100); }),
            path + ": cannot open for reading: No such file or directory");
}

}  // namespace
}  // namespace braid::test
