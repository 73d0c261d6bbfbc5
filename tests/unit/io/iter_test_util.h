#pragma once
// Shared helpers of the data iterator tests: draining an epoch, and the expected contents of
// batches drawn from arange data.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/io/data_iter.h"
#include "braid/ndarray/creation.h"

namespace braid::test {

/// Every remaining batch of the current epoch.
inline std::vector<io::DataBatch> drain(io::DataIter& it) {
  std::vector<io::DataBatch> out;
  while (auto b = it.next()) out.push_back(std::move(*b));
  return out;
}

/// n samples of `width` values each: sample i holds i*width .. i*width + width-1, shape (n, width).
inline NDArray arange_rows(int64_t n, int64_t width) {
  return nd::arange(0, static_cast<double>(n * width)).reshape({n, width});
}

/// What arange_rows(., width) yields for the samples `index`, flattened.
inline std::vector<float> expected_rows(const std::vector<int64_t>& index, int64_t width) {
  std::vector<float> out;
  for (int64_t i : index)
    for (int64_t j = 0; j < width; ++j) out.push_back(static_cast<float>(i * width + j));
  return out;
}

/// The first index of every batch.
inline std::vector<int64_t> first_indices(const std::vector<io::DataBatch>& batches) {
  std::vector<int64_t> out;
  for (const auto& b : batches) out.push_back(b.index.at(0));
  return out;
}

/// Success when `f` throws a braid::Error whose message contains `text`.
template <class F>
::testing::AssertionResult throws_mentioning(F f, const std::string& text) {
  try {
    f();
  } catch (const Error& e) {
    if (std::string(e.what()).find(text) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "the error does not mention '" << text << "': " << e.what();
  }
  return ::testing::AssertionFailure() << "no braid::Error thrown (expected one mentioning '" << text << "')";
}

}  // namespace braid::test
