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

TEST(ImageResize, AWindowFromPartOfTheSourceEqualsTheWholeResizeCut) {
  std::vector<uint8_t> img(30 * 41 * 3);
  for (size_t i = 0; i < img.size(); ++i) img[i] = uint8_t((i * 53) % 251);
  for (int interp = 0; interp <= 4; ++interp) {
    const auto kind = static_cast<image::Interp>(interp);
    std::vector<uint8_t> whole(17 * 23 * 3);
    image::resize<uint8_t>(img.data(), 30, 41, 3, whole.data(), 17, 23, kind);
    // output rows [4, 13), columns [6, 20), from only the source pixels their taps read
    const image::AxisTaps rows = image::axis_taps(30, 17, kind).slice(4, 9);
    const image::AxisTaps cols = image::axis_taps(41, 23, kind).slice(6, 14);
    const auto [top, bottom] = rows.source_span();
    const auto [left, right] = cols.source_span();
    std::vector<uint8_t> part;
    for (int64_t y = top; y < bottom; ++y)
      part.insert(part.end(), img.begin() + (y * 41 + left) * 3, img.begin() + (y * 41 + right) * 3);
    std::vector<uint8_t> window(9 * 14 * 3);
    image::resample<uint8_t>(part.data(), bottom - top, right - left, 3, top, left, rows, cols, window.data());
    for (int64_t y = 0; y < 9; ++y)
      for (int64_t x = 0; x < 14 * 3; ++x)
        EXPECT_EQ(window[size_t(y * 42 + x)], whole[size_t((y + 4) * 69 + 18 + x)]) << "interp " << interp;
    EXPECT_THROW(image::resample<uint8_t>(part.data(), bottom - top - 1, right - left, 3, top + 1, left, rows, cols,
                                          window.data()),
                 Error);  // a row the taps read is missing
  }
}

}  // namespace
}  // namespace braid
