#pragma once
// A FIFO for tests of loaders that must refuse it at once (test helper). A loader that opened it
// as a file would block until a writer appears; `refused_within_deadline` waits for the loader with a
// deadline and, when it is still blocked, plays the writer so that the test fails instead of
// hanging.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <string>

#include "common/error_message.h"

namespace braid::test {

/// Makes a FIFO at `path`.
inline std::string make_fifo(const std::filesystem::path& path) {
  std::filesystem::remove(path);
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
  return path.string();
}

/// Runs `load` (which reads the FIFO at `fifo`) and returns the message of the braid::Error it
/// throws; fails the test when it throws nothing or is still blocked after 30 seconds.
inline std::string refused_within_deadline(const std::string& fifo, const std::function<void()>& load) {
  auto result = std::async(std::launch::async, [&] { return error_message(load); });
  if (result.wait_for(std::chrono::seconds(30)) == std::future_status::timeout) {
    ADD_FAILURE() << "still blocked on the FIFO " << fifo << " after 30 seconds";
    int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // lets the blocked open return
    if (writer >= 0) ::close(writer);
  }
  return result.get();
}

}  // namespace braid::test
