#pragma once
// Shared helpers of the .params tests: fixture paths, whole-file reads, and a little-endian byte
// builder for hand-made files (independent of the writer under test).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/io/params.h"

namespace braid::test {

inline std::string fixture(const std::string& name) { return std::string(BRAID_FIXTURES_DIR) + "/" + name; }

inline std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_file_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// A fresh empty directory under the test temp dir, named after the running test.
inline std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  auto dir = std::filesystem::path(::testing::TempDir()) /
             (std::string("braid_io_") + info->test_suite_name() + "_" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// Appends little-endian fields.
class Bytes {
 public:
  template <class T>
  Bytes& put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    s_.append(b, sizeof(T));
    return *this;
  }
  Bytes& u32(uint32_t v) { return put(v); }
  Bytes& i32(int32_t v) { return put(v); }
  Bytes& u64(uint64_t v) { return put(v); }
  Bytes& i64(int64_t v) { return put(v); }
  Bytes& raw(const std::string& b) {
    s_ += b;
    return *this;
  }
  template <class T>
  Bytes& values(const std::vector<T>& v) {
    for (const T& x : v) put(x);
    return *this;
  }
  /// The list header: magic 0x112, reserved 0, the array count.
  Bytes& header(uint64_t count) { return u64(0x112).u64(0).u64(count); }
  /// A name: its u64 length and bytes.
  Bytes& name(const std::string& n) { return u64(n.size()).raw(n); }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

/// The first u32 of V1, V2 and V3 records.
inline constexpr uint32_t kV1 = 0xF993FAC8, kV2 = 0xF993FAC9, kV3 = 0xF993FACA;

/// Expects load_from_bytes(bytes, "bad.params") to throw an Error that starts with the file name
/// and contains every piece.
inline void expect_error(const std::string& bytes, const std::vector<std::string>& pieces) {
  try {
    io::load_from_bytes(bytes, "bad.params");
    ADD_FAILURE() << "expected braid::Error";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("bad.params: ", 0), 0u) << msg;
    for (const auto& p : pieces) EXPECT_NE(msg.find(p), std::string::npos) << "missing '" << p << "' in: " << msg;
  }
}

}  // namespace braid::test
