// Truncates and flips bytes of every fixture: each damaged file must either load or throw
// braid::Error naming the file and a byte offset; never crash, throw anything else, or ask for
// more array memory than the file itself holds.
#include <gtest/gtest.h>

#include "braid/engine/engine.h"
#include "braid/io/params.h"
#include "braid/storage/storage.h"
#include "params_test_util.h"

namespace braid::test {
namespace {

const std::vector<std::string> kFixtures = {"sagemaker-linreg-model-0000.params", "legacy_ndarray.v0",
                                            "mnist-0035.params"};

// Files up to this size get every offset; bigger ones a sample plus the metadata-rich edges.
constexpr size_t kExhaustiveSize = 4096;

std::vector<size_t> offsets(size_t size) {
  std::vector<size_t> out;
  for (size_t i = 0; i < size; ++i)
    if (size <= kExhaustiveSize || i < 512 || i + 512 >= size || i % 61 == 0) out.push_back(i);
  return out;
}

struct Outcome {
  int loaded = 0, rejected = 0;
};

// Array memory may round each block up, hence the slack; a corrupt count would ask for far more.
size_t memory_bound(size_t file_size) { return 2 * file_size + (1 << 20); }

void try_load(const std::string& bytes, const std::string& name, const std::string& what, Outcome& o) {
  engine::Engine::get().wait_for_all();  // earlier arrays are freed by the engine
  Storage::get().reset_peak(cpu());
  const size_t in_use = Storage::get().stats(cpu()).bytes_in_use;
  try {
    auto got = io::load_from_bytes(bytes, name);
    ++o.loaded;
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find(name), std::string::npos) << what << ": " << msg;
    EXPECT_NE(msg.find("byte"), std::string::npos) << what << ": " << msg;
    ++o.rejected;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": not a braid::Error: " << e.what();
  }
  const size_t peak = Storage::get().stats(cpu()).peak_bytes_in_use;
  EXPECT_LE(peak - in_use, memory_bound(bytes.size())) << what << ": allocated more than the file holds";
}

TEST(ParamsCorruption, TruncatedFilesAreRejected) {
  for (const auto& f : kFixtures) {
    const std::string bytes = read_file_bytes(fixture(f));
    ASSERT_FALSE(bytes.empty()) << f;
    Outcome o;
    for (size_t n : offsets(bytes.size())) try_load(bytes.substr(0, n), f, cat(f, " cut at ", n), o);
    // Every proper prefix is incomplete: the names (or the name count) come last.
    EXPECT_EQ(o.loaded, 0) << f;
    EXPECT_GT(o.rejected, 0) << f;
  }
}

TEST(ParamsCorruption, FlippedBytesLoadOrFailCleanly) {
  for (const auto& f : kFixtures) {
    const std::string bytes = read_file_bytes(fixture(f));
    Outcome o;
    for (size_t i : offsets(bytes.size())) {
      for (unsigned char mask : {0x01, 0x80, 0xFF}) {
        std::string damaged = bytes;
        damaged[i] = static_cast<char>(damaged[i] ^ mask);
        try_load(damaged, f, cat(f, " byte ", i, " ^ ", static_cast<int>(mask)), o);
      }
    }
    EXPECT_GT(o.loaded, 0) << f;    // flips inside the data are harmless
    EXPECT_GT(o.rejected, 0) << f;  // flips in the structure are caught
  }
}

TEST(ParamsCorruption, AppendedBytesAreRejected) {
  for (const auto& f : kFixtures) {
    Outcome o;
    try_load(read_file_bytes(fixture(f)) + std::string(3, '\0'), f, f, o);
    EXPECT_EQ(o.rejected, 1) << f;
  }
}

}  // namespace
}  // namespace braid::test
