// image::resize: OpenCV's taps worked out by hand on small rows, identity at the same size for
// every interpolation, box averages when shrinking by area, and flat images staying flat.
#include <gtest/gtest.h>

#include <vector>

#include "braid/base/error.h"
#include "braid/image/resize.h"

namespace braid {
namespace {

std::vector<float> resized_row(const std::vector<float>& row, int64_t out, image::Interp interp) {
  std::vector<float> dst(static_cast<size_t>(out));
  image::resize<float>(row.data(), 1, int64_t(row.size()), 1, dst.data(), 1, out, interp);
  return dst;
}

TEST(ImageResize, SmallRowsMatchOpenCVsTaps) {
  const std::vector<float> row{0, 10, 20, 30};
  // nearest: source floor(x · 4/2) = 0, 2
  EXPECT_EQ(resized_row(row, 2, image::Interp::Nearest), (std::vector<float>{0, 20}));
  // bilinear to 8: centres (x + 0.5)/2 - 0.5 = -0.25 (clamped to 0), 0.25, 0.75, ...
  EXPECT_EQ(resized_row(row, 8, image::Interp::Linear), (std::vector<float>{0, 2.5, 7.5, 12.5, 17.5, 22.5, 27.5, 30}));
  // area to 2: means of pairs
  EXPECT_EQ(resized_row(row, 2, image::Interp::Area), (std::vector<float>{5, 25}));
}

TEST(ImageResize, SameSizeIsIdentityAndFlatStaysFlat) {
  std::vector<float> img(5 * 6 * 3);
  for (size_t i = 0; i < img.size(); ++i) img[i] = float((i * 37) % 101);
  for (int interp = 0; interp <= 4; ++interp) {
    std::vector<float> out(img.size());
    image::resize<float>(img.data(), 5, 6, 3, out.data(), 5, 6, static_cast<image::Interp>(interp));
    for (size_t i = 0; i < img.size(); ++i) EXPECT_NEAR(out[i], img[i], 1e-4) << "interp " << interp;
    std::vector<uint8_t> flat(8 * 8, 77), grown(13 * 3);
    image::resize<uint8_t>(flat.data(), 8, 8, 1, grown.data(), 13, 3, static_cast<image::Interp>(interp));
    for (uint8_t v : grown) EXPECT_EQ(v, 77) << "interp " << interp;
  }
  EXPECT_THROW(image::interp_from_int(5, "test"), Error);
}

}  // namespace
}  // namespace braid
