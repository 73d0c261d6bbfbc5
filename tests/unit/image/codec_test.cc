// image::decode/encode: PNG files written here from the format's description (zlib and CRC by
// hand) decode exactly; encode and decode round-trip; bad, truncated, forged and mutated files
// give braid::Error, never a crash.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/image/codec.h"

namespace braid {
namespace {

std::string be32(uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }

std::string chunk(const std::string& type, const std::string& data) {
  const std::string body = type + data;
  const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(body.data()), uInt(body.size()));
  return be32(uint32_t(data.size())) + body + be32(uint32_t(crc));
}

// An 8-bit PNG of colour type 2 (RGB) or 0 (gray), filter 0 on every row.
std::string handmade_png(int64_t h, int64_t w, int channels, const std::vector<uint8_t>& pixels) {
  std::string raw;
  for (int64_t y = 0; y < h; ++y) {
    raw.push_back('\0');
    raw.append(reinterpret_cast<const char*>(pixels.data() + y * w * channels), size_t(w * channels));
  }
  uLongf size = compressBound(uLong(raw.size()));
  std::string packed(size, '\0');
  compress(reinterpret_cast<Bytef*>(packed.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
           uLong(raw.size()));
  packed.resize(size);
  const std::string ihdr = be32(uint32_t(w)) + be32(uint32_t(h)) + std::string{8, char(channels == 3 ? 2 : 0), 0, 0, 0};
  return std::string("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", ihdr) + chunk("IDAT", packed) + chunk("IEND", "");
}

image::Image gradient(int64_t h, int64_t w, int channels) {
  image::Image im{h, w, channels, std::vector<uint8_t>(size_t(h * w * channels))};
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (int c = 0; c < channels; ++c)
        im.pixels[size_t((y * w + x) * channels + c)] = uint8_t(2 * x + 2 * y + 30 * c);
  return im;
}

TEST(ImageCodec, HandmadePngsDecodeExactly) {
  const image::Image rgb = gradient(7, 9, 3);
  const image::Image back = image::decode(handmade_png(7, 9, 3, rgb.pixels), image::Color::Rgb);
  EXPECT_EQ(back.height, 7);
  EXPECT_EQ(back.width, 9);
  EXPECT_EQ(back.channels, 3);
  EXPECT_EQ(back.pixels, rgb.pixels);
  const image::Image bgr = image::decode(handmade_png(7, 9, 3, rgb.pixels), image::Color::Bgr);
  EXPECT_EQ(bgr.pixels[0], rgb.pixels[2]);
  EXPECT_EQ(bgr.pixels[2], rgb.pixels[0]);
  const image::Image gray = gradient(5, 4, 1);
  const image::Image gray_as_rgb = image::decode(handmade_png(5, 4, 1, gray.pixels), image::Color::Rgb);
  ASSERT_EQ(gray_as_rgb.channels, 3);
  for (size_t i = 0; i < gray.pixels.size(); ++i) EXPECT_EQ(gray_as_rgb.pixels[3 * i + 1], gray.pixels[i]);
}

TEST(ImageCodec, EncodedImagesComeBack) {
  for (int channels : {1, 3, 4}) {
    const image::Image im = gradient(12, 17, channels);
    const image::Image back = image::decode(image::encode(im, ".png", 6), image::Color::AsStored);
    EXPECT_EQ(back.channels, channels);
    EXPECT_EQ(back.pixels, im.pixels);
  }
  const image::Image im = gradient(32, 48, 3);
  const image::Image back = image::decode(image::encode(im, ".JPG", 95), image::Color::Rgb);
  ASSERT_EQ(back.pixels.size(), im.pixels.size());
  double error = 0;
  for (size_t i = 0; i < im.pixels.size(); ++i) error += std::abs(int(back.pixels[i]) - int(im.pixels[i]));
  EXPECT_LT(error / double(im.pixels.size()), 3.0);  // JPEG is lossy; a smooth image comes back close
  EXPECT_EQ(image::decode(image::encode(im, ".jpeg", 90), image::Color::Gray).channels, 1);
  EXPECT_THROW(image::encode(im, ".gif", 90), Error);
  EXPECT_THROW(image::encode(im, ".jpg", 0), Error);
  EXPECT_THROW(image::encode(gradient(4, 4, 4), ".jpg", 90), Error);
}

TEST(ImageCodec, BadFilesAreRefusedByName) {
  auto message = [](const std::string& bytes) {
    try {
      image::decode(bytes, image::Color::Rgb);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("").find("empty"), std::string::npos);
  EXPECT_NE(message("GIF89a....").find("not a JPEG or PNG"), std::string::npos);
  EXPECT_NE(message(std::string("\xff\xd8\xff\xe0", 4)).find("JPEG"), std::string::npos);
  const std::string png = handmade_png(3, 3, 3, gradient(3, 3, 3).pixels);
  EXPECT_NE(message(png.substr(0, 40)).find("PNG"), std::string::npos);
  // A header that declares 100000 x 100000 pixels is refused before anything is allocated.
  std::string forged = std::string("\x89PNG\r\n\x1a\n", 8) +
                       chunk("IHDR", be32(100000) + be32(100000) + std::string{8, 2, 0, 0, 0}) + chunk("IDAT", "") +
                       chunk("IEND", "");
  EXPECT_NE(message(forged).find("more than"), std::string::npos) << message(forged);
  // A JPEG whose frame header claims 1804 x 63288 pixels (114 megapixels, under that limit) in a
  // few hundred bytes is refused instead of decoded, filled in, to the declared end.
  std::string jpeg = image::encode(gradient(8, 8, 3), ".jpg", 90, false);
  const size_t sof = jpeg.find("\xff\xc0");
  ASSERT_NE(sof, std::string::npos);
  jpeg.replace(sof + 5, 4, std::string{char(0x07), char(0x0c), char(0xf7), char(0x38)});
  EXPECT_NE(message(jpeg).find("declares a 1804 x 63288 image in only"), std::string::npos) << message(jpeg);
  // A progressive JPEG of 160 bytes (a fuzzer's find) declaring 65496 x 65297 pixels: refused from
  // its header, before libjpeg allocates and fills the whole image's coefficients.
  std::ifstream in(std::string(BRAID_SOURCE_DIR) +
                       "/fuzz/corpus/image_decode/progressive_jpeg_declaring_4_gigapixels_in_160_bytes.jpg",
                   std::ios::binary);
  const std::string progressive((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(progressive.size(), 160u);
  EXPECT_NE(message(progressive).find("declares a 65496 x 65297 image, more than"), std::string::npos)
      << message(progressive);
}

TEST(ImageCodec, MutatedFilesNeverCrash) {
  const image::Image im = gradient(24, 24, 3);
  std::mt19937 rng(7);
  for (const std::string& good : {image::encode(im, ".jpg", 90), image::encode(im, ".png", 6)}) {
    int decoded = 0, refused = 0;
    for (int trial = 0; trial < 300; ++trial) {
      std::string bad = good;
      for (int k = 0; k < 3; ++k) bad[rng() % bad.size()] = char(rng());
      if (trial % 3 == 0) bad.resize(rng() % bad.size());
      try {
        const image::Image out = image::decode(bad, image::Color::Rgb);
        EXPECT_EQ(out.pixels.size(), size_t(out.height * out.width * 3));
        ++decoded;
      } catch (const Error&) {
        ++refused;
      }
    }
    EXPECT_EQ(decoded + refused, 300);
    EXPECT_GT(refused, 0);
  }
}

}  // namespace
}  // namespace braid
