#pragma once
// EXPECT that `f` throws braid::Error whose message contains every one of `parts`.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/base/error.h"

namespace braid::test {

template <class F>
void expect_error(F f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "expected a braid::Error mentioning " << parts.front();
  } catch (const Error& e) {
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

}  // namespace braid::test
