// Attribute strings written by Braid read back exactly: whole numbers as integers (an integer
// attribute such as slice_axis's end rejects "6.4e+02"), fractions in their shortest exact form.
#include <gtest/gtest.h>

#include "braid/ndarray/creation.h"
#include "braid/ndarray/matrix.h"
#include "braid/op/param_reader.h"

namespace braid::op {
namespace {

TEST(FormatNumber, WholeNumbersAreIntegersAndFractionsRoundTrip) {
  EXPECT_EQ(format_number(640), "640");
  EXPECT_EQ(format_number(-3), "-3");
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(1e20), "1e+20");
  EXPECT_EQ(format_number(0.05), "0.05");
  for (double v : {0.1, 1.0 / 3.0, 2.5e-7, 123456.789})
    EXPECT_EQ(std::strtod(format_number(v).c_str(), nullptr), v) << format_number(v);
}

TEST(FormatNumber, SliceAxisTakesLargeWholeBounds) {
  NDArray x = nd::zeros(Shape{1024, 2});
  EXPECT_EQ(nd::slice_axis(x, 0, 640, 768).shape(), (Shape{128, 2}));
}

}  // namespace
}  // namespace braid::op
