#pragma once
// Helpers of the gluon/data tests: small arrays from values, and comparing batches.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "braid/gluon/data/batchify.h"
#include "braid/ndarray/creation.h"

namespace braid::test::gluon_data {

/// A uint8 array of `shape` holding `values`.
inline NDArray u8(const std::vector<int32_t>& values, const Shape& shape) {
  return nd::array(values, shape, cpu(), DType::UInt8);
}

/// a and b have the same shape, dtype and elements.
inline void expect_same(const NDArray& a, const NDArray& b, const std::string& what = "") {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  ASSERT_EQ(a.dtype(), b.dtype()) << what;
  EXPECT_EQ(a.to_vector<double>(), b.to_vector<double>()) << what;
}

inline void expect_same(const gluon::data::Batch& a, const gluon::data::Batch& b, const std::string& what = "") {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t k = 0; k < a.size(); ++k) expect_same(a[k], b[k], what + " field " + std::to_string(k));
}

}  // namespace braid::test::gluon_data
