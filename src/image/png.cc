// PNG through libpng's simplified API (png_image), which reports errors in the struct instead of
// jumping.
#include <png.h>

#include <memory>

#include "braid/base/error.h"
#include "image/formats.h"

namespace braid::image::detail {
namespace {

struct PngImage : png_image {
  PngImage() : png_image{} { version = PNG_IMAGE_VERSION; }
  ~PngImage() { png_image_free(this); }
};

int channels_of(png_uint_32 format) { return PNG_IMAGE_SAMPLE_CHANNELS(format); }

}  // namespace

Image decode_png(std::string_view bytes, Color color) {
  PngImage png;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()))
    throw Error(std::string("imdecode: not a readable PNG file: ") + png.message);
  check_size("PNG", png.height, png.width);
  // The file's channels, 8 bits each; 16-bit files are read as 16 bits and their high bytes kept
  // (libpng would otherwise gamma-encode them).
  const bool wide = png.format & PNG_FORMAT_FLAG_LINEAR;
  png.format &= PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA | PNG_FORMAT_FLAG_LINEAR;
  Image im{png.height, png.width, channels_of(png.format), {}};
  const size_t samples = size_t(im.height * im.width * im.channels);
  std::vector<uint16_t> wide_samples(wide ? samples : 0);
  im.pixels.resize(samples);
  void* target = wide ? static_cast<void*>(wide_samples.data()) : im.pixels.data();
  if (!png_image_finish_read(&png, nullptr, target, 0, nullptr))
    throw Error(std::string("imdecode: the PNG file is corrupt: ") + png.message);
  for (size_t i = 0; i < wide_samples.size(); ++i) im.pixels[i] = static_cast<uint8_t>(wide_samples[i] >> 8);
  return convert_channels(std::move(im), color);
}

std::string encode_png(const Image& im, int level, bool bgr) {
  BRAID_CHECK(im.channels >= 1 && im.channels <= 4, "imencode: a PNG holds 1 to 4 channels; the image has ",
              im.channels);
  BRAID_CHECK(level >= 0, "imencode: the PNG compression level must be 0..9; got ", level);
  PngImage png;
  png.width = static_cast<png_uint_32>(im.width);
  png.height = static_cast<png_uint_32>(im.height);
  png.format = (im.channels >= 3 ? PNG_FORMAT_FLAG_COLOR : 0) | (im.channels % 2 == 0 ? PNG_FORMAT_FLAG_ALPHA : 0) |
               (bgr && im.channels >= 3 ? PNG_FORMAT_FLAG_BGR : 0);
  png.flags = level <= 3 ? PNG_IMAGE_FLAG_FAST : 0;  // libpng's simplified writer has two speeds
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&png, nullptr, &size, 0, im.pixels.data(), 0, nullptr))
    throw Error(std::string("imencode: libpng failed: ") + png.message);
  std::string out(size, '\0');
  if (!png_image_write_to_memory(&png, out.data(), &size, 0, im.pixels.data(), 0, nullptr))
    throw Error(std::string("imencode: libpng failed: ") + png.message);
  out.resize(size);
  return out;
}

}  // namespace braid::image::detail
