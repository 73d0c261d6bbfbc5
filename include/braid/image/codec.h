#pragma once
/// Image files in memory: JPEG (libjpeg-turbo) and PNG (libpng) decoded to and encoded from 8-bit
/// pixels in height × width × channels order, as mx.image.imdecode and recordio.pack_img use them.
///
///   image::Image im = image::decode(bytes, image::Color::Rgb);   // (h, w, 3), RGB
///   std::string jpg = image::encode(im, ".jpg", 95);
///
/// Bad input (empty, truncated beyond repair, not an image, too big) throws braid::Error naming
/// what was wrong; nothing is read past the buffer given.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace braid::image {

/// 8-bit pixels, row after row, channel values of a pixel side by side (HWC).
struct Image {
  int64_t height = 0, width = 0, channels = 0;
  std::vector<uint8_t> pixels;
};

/// What decode returns: MXNet's imdecode flag (1 colour, 0 grayscale, -1 as stored) and to_rgb
/// (colour in RGB order, else OpenCV's BGR).
enum class Color { Rgb, Bgr, Gray, AsStored };

/// The largest image decode accepts, in pixels (a 16k × 16k image), so that a forged header cannot
/// make it allocate without bound.
constexpr int64_t kMaxPixels = int64_t(1) << 28;

/// Decodes a JPEG or PNG file held in `bytes` (the format is told by its signature). AsStored keeps
/// the file's channels (1 or 3 for JPEG; 1, 2, 3 or 4 for PNG, colour as RGB(A)); 16-bit PNGs come
/// back as 8 bits per channel.
Image decode(std::string_view bytes, Color color);
/// The same into `into`, reusing its memory (a loop decoding many images allocates once).
void decode(std::string_view bytes, Color color, Image& into);

/// A rectangle of an image: rows [y0, y0 + height), columns [x0, x0 + width).
struct Region {
  int64_t y0 = 0, x0 = 0, height = 0, width = 0;
};

/// Decodes only the region that `pick(height, width)` chooses once the file's size is known, into
/// `into`: a JPEG skips the rows above and below it and decodes only the column blocks it touches
/// (libjpeg-turbo's partial decoding), a PNG is decoded whole and cut. `pick` may throw; a region
/// outside the image is an error.
void decode_region(std::string_view bytes, Color color, const std::function<Region(int64_t, int64_t)>& pick,
                   Image& into);

/// Encodes `im` (1 or 3 channels; 4 for PNG) as ".jpg"/".jpeg" with `quality` 1..100, or ".png"
/// with `quality` read as the zlib level 0..9 (larger values clamp to 9, as OpenCV does).
/// `bgr`: the 3-channel pixels are in BGR order (OpenCV's, which pack_img takes).
std::string encode(const Image& im, std::string_view format, int quality, bool bgr = false);

/// True when `bytes` starts with a JPEG or PNG signature.
bool is_image(std::string_view bytes);

}  // namespace braid::image
