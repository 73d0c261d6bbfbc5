// PNG through libpng: decoding with the full API (so that 16-bit files keep their high bytes, as
// OpenCV's), encoding with the simplified one. libpng reports errors by calling a function that
// must not return; ours long-jumps back into small C-style helpers that own no C++ objects.
#include <png.h>

#include <csetjmp>
#include <cstring>
#include <vector>

#include "braid/base/error.h"
#include "image/formats.h"

namespace braid::image::detail {
namespace {

struct PngSource {
  const png_byte* data;
  size_t size, offset;
  char message[256];
};

void png_read_bytes(png_structp png, png_bytep out, png_size_t n) {
  auto* src = static_cast<PngSource*>(png_get_io_ptr(png));
  if (n > src->size - src->offset) png_error(png, "the file ends early");
  std::memcpy(out, src->data + src->offset, n);
  src->offset += n;
}

[[noreturn]] void png_fail(png_structp png, png_const_charp message) {
  auto* src = static_cast<PngSource*>(png_get_error_ptr(png));
  std::snprintf(src->message, sizeof src->message, "%s", message);
  png_longjmp(png, 1);
}
void png_quiet(png_structp, png_const_charp) {}

// Reads the header and sets 8-bit output of the file's channels (palette and low-bit gray
// expanded, transparency as alpha); false (source->message set) where libpng failed.
bool read_header(png_structp png, png_infop info, PngSource* source, png_uint_32* h, png_uint_32* w, int* channels) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_read_fn(png, source, png_read_bytes);
  png_read_info(png, info);
  png_set_strip_16(png);
  png_set_packing(png);
  png_set_expand(png);  // palette to RGB, gray below 8 bits to 8, tRNS to alpha
  png_read_update_info(png, info);
  *h = png_get_image_height(png, info);
  *w = png_get_image_width(png, info);
  *channels = png_get_channels(png, info);
  return true;
}

bool read_pixels(png_structp png, png_infop info, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  png_read_end(png, nullptr);
  return true;
}

struct PngReader {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngReader() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
};

struct PngImage : png_image {
  PngImage() : png_image{} { version = PNG_IMAGE_VERSION; }
  ~PngImage() { png_image_free(this); }
};

}  // namespace

void decode_png(std::string_view bytes, Color color, Image& out) {
  PngSource source{reinterpret_cast<const png_byte*>(bytes.data()), bytes.size(), 0, {}};
  PngReader reader;
  reader.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, png_fail, png_quiet);
  BRAID_CHECK(reader.png && (reader.info = png_create_info_struct(reader.png)), "imdecode: libpng is out of memory");
  png_uint_32 h = 0, w = 0;
  int channels = 0;
  if (!read_header(reader.png, reader.info, &source, &h, &w, &channels))
    throw Error(std::string("imdecode: not a readable PNG file: ") + source.message);
  check_size("PNG", h, w);
  Image im{h, w, channels, std::vector<uint8_t>(size_t(h) * w * size_t(channels))};
  std::vector<png_bytep> rows(h);
  for (png_uint_32 y = 0; y < h; ++y) rows[y] = im.pixels.data() + size_t(y) * w * size_t(channels);
  if (!read_pixels(reader.png, reader.info, rows.data()))
    throw Error(std::string("imdecode: the PNG file is corrupt: ") + source.message);
  out = convert_channels(std::move(im), color);
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
