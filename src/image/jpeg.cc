// JPEG through libjpeg-turbo. libjpeg reports errors by calling a function that must not return;
// ours long-jumps back into small C-style helpers that own no C++ objects, and the C++ caller
// throws from there.
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <jpeglib.h>

#include "braid/base/error.h"
#include "image/formats.h"

namespace braid::image::detail {
namespace {

struct JpegErrors {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void jpeg_fail(j_common_ptr c) {
  auto* e = reinterpret_cast<JpegErrors*>(c->err);
  c->err->format_message(c, e->message);
  std::longjmp(e->jump, 1);
}
void jpeg_quiet(j_common_ptr, int) {}  // warnings (a truncated file decodes as far as it goes, as OpenCV's)

void install_errors(jpeg_common_struct* c, JpegErrors* e) {
  c->err = jpeg_std_error(&e->mgr);
  e->mgr.error_exit = jpeg_fail;
  e->mgr.emit_message = jpeg_quiet;
  e->message[0] = '\0';
}

J_COLOR_SPACE output_space(const jpeg_decompress_struct& d, Color color) {
  if (d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK) return JCS_CMYK;  // converted below
  switch (color) {
    case Color::Gray:
      return JCS_GRAYSCALE;
    case Color::Bgr:
      return JCS_EXT_BGR;
    case Color::AsStored:
      return d.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    case Color::Rgb:
      break;
  }
  return JCS_RGB;
}

// Reads the header; false (errors->message set) where libjpeg failed.
bool read_header(jpeg_decompress_struct* d, JpegErrors* errors, const unsigned char* data, unsigned long size,
                 Color color) {
  if (setjmp(errors->jump)) return false;
  jpeg_mem_src(d, data, size);
  jpeg_read_header(d, TRUE);
  d->out_color_space = output_space(*d, color);
  return true;
}

// Starts decompression: a progressive file's whole-image buffers are allocated, and its whole
// input read, here.
bool start_decoding(jpeg_decompress_struct* d, JpegErrors* errors) {
  if (setjmp(errors->jump)) return false;
  jpeg_start_decompress(d);
  return true;
}

bool read_rows(jpeg_decompress_struct* d, JpegErrors* errors, unsigned char* out, size_t row_bytes) {
  if (setjmp(errors->jump)) return false;
  while (d->output_scanline < d->output_height) {
    JSAMPROW row = out + size_t(d->output_scanline) * row_bytes;
    jpeg_read_scanlines(d, &row, 1);
  }
  jpeg_finish_decompress(d);
  return true;
}

// Only `r`'s rows and the column blocks it touches (libjpeg-turbo's jpeg_crop_scanline and
// jpeg_skip_scanlines), the region's columns copied out of each decoded row.
bool read_region(jpeg_decompress_struct* d, JpegErrors* errors, const Region* r, unsigned char* row_buffer,
                 unsigned char* out, int channels) {
  if (setjmp(errors->jump)) return false;
  JDIMENSION first = JDIMENSION(r->x0), width = JDIMENSION(r->width);
  jpeg_crop_scanline(d, &first, &width);  // widened to whole blocks: `first` may move left
  if (r->y0 > 0) jpeg_skip_scanlines(d, JDIMENSION(r->y0));
  const size_t skip = (size_t(r->x0) - first) * size_t(channels), row_bytes = size_t(r->width) * size_t(channels);
  for (int64_t y = 0; y < r->height; ++y) {
    JSAMPROW row = row_buffer;
    jpeg_read_scanlines(d, &row, 1);
    std::memcpy(out + size_t(y) * row_bytes, row_buffer + skip, row_bytes);
  }
  jpeg_abort_decompress(d);  // the rows below are not needed
  return true;
}

// CMYK as Adobe writes it (inverted): R = C·K/255, and so on.
Image from_cmyk(Image cmyk, bool inverted) {
  Image rgb{cmyk.height, cmyk.width, 3, std::vector<uint8_t>(size_t(cmyk.height * cmyk.width * 3))};
  for (size_t i = 0; i < size_t(cmyk.height * cmyk.width); ++i) {
    const uint8_t* p = cmyk.pixels.data() + 4 * i;
    const int k = inverted ? p[3] : 255 - p[3];
    for (int ch = 0; ch < 3; ++ch) {
      const int v = inverted ? p[ch] : 255 - p[ch];
      rgb.pixels[3 * i + ch] = static_cast<uint8_t>((v * k + 127) / 255);
    }
  }
  return rgb;
}

bool start_encoding(jpeg_compress_struct* c, JpegErrors* errors, unsigned char** out, unsigned long* size,
                    const Image& im, int quality, bool bgr) {
  if (setjmp(errors->jump)) return false;
  jpeg_mem_dest(c, out, size);
  c->image_width = static_cast<JDIMENSION>(im.width);
  c->image_height = static_cast<JDIMENSION>(im.height);
  c->input_components = static_cast<int>(im.channels);
  c->in_color_space = im.channels == 1 ? JCS_GRAYSCALE : bgr ? JCS_EXT_BGR : JCS_RGB;
  jpeg_set_defaults(c);
  jpeg_set_quality(c, quality, TRUE);
  jpeg_start_compress(c, TRUE);
  return true;
}

bool write_rows(jpeg_compress_struct* c, JpegErrors* errors, const unsigned char* pixels, size_t row_bytes) {
  if (setjmp(errors->jump)) return false;
  while (c->next_scanline < c->image_height) {
    JSAMPROW row = const_cast<unsigned char*>(pixels) + size_t(c->next_scanline) * row_bytes;
    jpeg_write_scanlines(c, &row, 1);
  }
  jpeg_finish_compress(c);
  return true;
}

}  // namespace

void decode_jpeg(std::string_view bytes, Color color, const RegionPicker* pick, Image& im) {
  jpeg_decompress_struct d{};
  JpegErrors errors;
  install_errors(reinterpret_cast<jpeg_common_struct*>(&d), &errors);
  jpeg_create_decompress(&d);
  std::unique_ptr<jpeg_decompress_struct, void (*)(jpeg_decompress_struct*)> guard(&d, jpeg_destroy_decompress);
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  if (!read_header(&d, &errors, data, static_cast<unsigned long>(bytes.size()), color))
    throw Error(std::string("imdecode: not a readable JPEG file: ") + errors.message);
  // The declared size is checked before decompression starts (no scaling: output = image size).
  check_size("JPEG", d.image_height, d.image_width);
  // libjpeg decodes a truncated file to its declared end, so a header of a few hundred bytes could
  // make a 100-megapixel decode. Huffman coding spends at least a bit per 8x8 block and component,
  // arithmetic coding of a uniform image a few hundredths of one: no real file has more pixels
  // per byte than kMaxPixelsPerByte.
  constexpr uint64_t kMaxPixelsPerByte = 65536;
  BRAID_CHECK(uint64_t(d.image_height) * d.image_width <= kMaxPixelsPerByte * bytes.size(),
              "imdecode: the JPEG file declares a ", d.image_height, " x ", d.image_width, " image in only ",
              bytes.size(), " bytes; it is cut short or forged");
  if (!start_decoding(&d, &errors)) throw Error(std::string("imdecode: not a readable JPEG file: ") + errors.message);
  if (pick && d.out_color_space != JCS_CMYK) {
    const Region r = picked_region(*pick, d.output_height, d.output_width);
    im.height = r.height, im.width = r.width, im.channels = d.output_components;
    im.pixels.resize(size_t(im.height * im.width * im.channels));
    std::vector<unsigned char> row(size_t(d.output_width) * size_t(d.output_components));
    if (!read_region(&d, &errors, &r, row.data(), im.pixels.data(), d.output_components))
      throw Error(std::string("imdecode: the JPEG file is corrupt: ") + errors.message);
    return;
  }
  im.height = d.output_height, im.width = d.output_width, im.channels = d.output_components;
  im.pixels.resize(size_t(im.height * im.width * im.channels));  // keeps (and reuses) the memory it had
  if (!read_rows(&d, &errors, im.pixels.data(), size_t(im.width * im.channels)))
    throw Error(std::string("imdecode: the JPEG file is corrupt: ") + errors.message);
  if (d.out_color_space == JCS_CMYK) im = convert_channels(from_cmyk(std::move(im), d.saw_Adobe_marker), color);
  if (pick) {
    Image whole = std::move(im);
    cut(whole, picked_region(*pick, whole.height, whole.width), im);
  }
}

std::string encode_jpeg(const Image& im, int quality, bool bgr) {
  BRAID_CHECK(im.channels == 1 || im.channels == 3, "imencode: a JPEG holds 1 or 3 channels; the image has ",
              im.channels);
  BRAID_CHECK(quality >= 1 && quality <= 100, "imencode: JPEG quality must be 1..100; got ", quality);
  BRAID_CHECK(im.height <= JPEG_MAX_DIMENSION && im.width <= JPEG_MAX_DIMENSION, "imencode: a JPEG is at most ",
              JPEG_MAX_DIMENSION, " pixels a side; the image is ", im.height, " x ", im.width);
  jpeg_compress_struct c{};
  JpegErrors errors;
  install_errors(reinterpret_cast<jpeg_common_struct*>(&c), &errors);
  jpeg_create_compress(&c);
  std::unique_ptr<jpeg_compress_struct, void (*)(jpeg_compress_struct*)> guard(&c, jpeg_destroy_compress);
  unsigned char* out = nullptr;
  unsigned long size = 0;
  std::unique_ptr<unsigned char*, void (*)(unsigned char**)> release(&out, [](unsigned char** p) { std::free(*p); });
  if (!start_encoding(&c, &errors, &out, &size, im, quality, bgr) ||
      !write_rows(&c, &errors, im.pixels.data(), size_t(im.width * im.channels)))
    throw Error(std::string("imencode: libjpeg failed: ") + errors.message);
  return std::string(reinterpret_cast<const char*>(out), size);
}

}  // namespace braid::image::detail
