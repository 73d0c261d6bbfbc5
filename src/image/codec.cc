// image::decode and image::encode: the format chosen by signature or extension, and the channel
// conversions both formats share.
#include "braid/image/codec.h"

#include <algorithm>

#include "braid/base/ascii.h"
#include "braid/base/error.h"
#include "image/formats.h"

namespace braid::image {
namespace {

bool starts_with(std::string_view bytes, std::string_view prefix) { return bytes.substr(0, prefix.size()) == prefix; }
bool is_jpeg(std::string_view b) { return starts_with(b, "\xff\xd8\xff"); }
bool is_png(std::string_view b) { return starts_with(b, "\x89PNG\r\n\x1a\n"); }

}  // namespace

bool is_image(std::string_view bytes) { return is_jpeg(bytes) || is_png(bytes); }

[[noreturn]] void throw_not_an_image(std::string_view bytes);

Image decode(std::string_view bytes, Color color) {
  Image im;
  decode(bytes, color, im);
  return im;
}

void decode(std::string_view bytes, Color color, Image& into) {
  BRAID_CHECK(!bytes.empty(), "imdecode: the buffer is empty; pass the bytes of a JPEG or PNG file");
  if (is_jpeg(bytes)) return detail::decode_jpeg(bytes, color, nullptr, into);
  if (is_png(bytes)) return detail::decode_png(bytes, color, into);
  throw_not_an_image(bytes);
}

void decode_region(std::string_view bytes, Color color, const std::function<Region(int64_t, int64_t)>& pick,
                   Image& into) {
  BRAID_CHECK(!bytes.empty(), "imdecode: the buffer is empty; pass the bytes of a JPEG or PNG file");
  if (is_jpeg(bytes)) return detail::decode_jpeg(bytes, color, &pick, into);
  Image whole;
  decode(bytes, color, whole);
  detail::cut(whole, detail::picked_region(pick, whole.height, whole.width), into);
}

[[noreturn]] void throw_not_an_image(std::string_view bytes) {
  throw Error("imdecode: the " + std::to_string(bytes.size()) +
              " bytes given are not a JPEG or PNG file (no JPEG or PNG signature at their start); Braid decodes "
              "these two formats");
}

std::string encode(const Image& im, std::string_view format, int quality, bool bgr) {
  BRAID_CHECK(im.height > 0 && im.width > 0 && im.pixels.size() == size_t(im.height * im.width * im.channels),
              "imencode: the image is empty or its pixels do not fill ", im.height, " x ", im.width, " x ",
              im.channels);
  const std::string f = to_lower(std::string(format));
  if (f == ".jpg" || f == ".jpeg") return detail::encode_jpeg(im, quality, bgr);
  if (f == ".png") return detail::encode_png(im, quality, bgr);
  throw Error("imencode: unknown image format '" + std::string(format) + "'; use '.jpg' or '.png'");
}

namespace detail {

void check_size(const char* format, int64_t height, int64_t width) {
  BRAID_CHECK(height > 0 && width > 0, "imdecode: the ", format, " file declares an empty image (", height, " x ",
              width, ")");
  BRAID_CHECK(height * width <= kMaxPixels, "imdecode: the ", format, " file declares a ", height, " x ", width,
              " image, more than the ", kMaxPixels, " pixels Braid decodes");
}

Region picked_region(const RegionPicker& pick, int64_t height, int64_t width) {
  const Region r = pick(height, width);
  BRAID_CHECK(
      r.y0 >= 0 && r.x0 >= 0 && r.height > 0 && r.width > 0 && r.y0 + r.height <= height && r.x0 + r.width <= width,
      "imdecode: the region ", r.height, " x ", r.width, " at (", r.y0, ", ", r.x0, ") is not inside the ", height,
      " x ", width, " image");
  return r;
}

void cut(const Image& im, const Region& r, Image& out) {
  out.height = r.height, out.width = r.width, out.channels = im.channels;
  out.pixels.resize(size_t(r.height * r.width * im.channels));
  for (int64_t y = 0; y < r.height; ++y)
    std::copy_n(im.pixels.data() + ((r.y0 + y) * im.width + r.x0) * im.channels, r.width * im.channels,
                out.pixels.data() + y * r.width * im.channels);
}

Image convert_channels(Image im, Color color) {
  if (color == Color::AsStored) return im;
  const int64_t n = im.height * im.width, c = im.channels;
  const bool has_color = c >= 3;
  const int out_c = color == Color::Gray ? 1 : 3;
  if (c == out_c && (out_c == 1 || color == Color::Rgb)) return im;
  std::vector<uint8_t> out(static_cast<size_t>(n * out_c));
  const uint8_t* p = im.pixels.data();
  for (int64_t i = 0; i < n; ++i, p += c) {
    uint8_t* o = out.data() + i * out_c;
    if (out_c == 1) {
      // OpenCV's cvtColor RGB2GRAY: (4899 R + 9617 G + 1868 B + 2^13) >> 14.
      o[0] = has_color ? static_cast<uint8_t>((4899 * p[0] + 9617 * p[1] + 1868 * p[2] + (1 << 13)) >> 14) : p[0];
    } else {
      const uint8_t r = p[0], g = has_color ? p[1] : p[0], b = has_color ? p[2] : p[0];
      o[0] = color == Color::Bgr ? b : r;
      o[1] = g;
      o[2] = color == Color::Bgr ? r : b;
    }
  }
  im.pixels = std::move(out);
  im.channels = out_c;
  return im;
}

}  // namespace detail
}  // namespace braid::image
