#pragma once
// Internal: one file per image format (jpeg.cc, png.cc) behind image::decode and image::encode.
#include <string>
#include <string_view>

#include "braid/image/codec.h"

namespace braid::image::detail {

using RegionPicker = std::function<Region(int64_t height, int64_t width)>;

/// Decode into `out`, reusing its memory; only pick's region when `pick` is given.
void decode_jpeg(std::string_view bytes, Color color, const RegionPicker* pick, Image& out);
std::string encode_jpeg(const Image& im, int quality, bool bgr);

void decode_png(std::string_view bytes, Color color, Image& out);
std::string encode_png(const Image& im, int level, bool bgr);

/// `im` (1, 2, 3 or 4 channels; colour ones in RGB order) as `color` asks: alpha dropped, gray
/// from colour by OpenCV's weights (0.299 R + 0.587 G + 0.114 B, 14-bit fixed point), colour from
/// gray by copying. AsStored returns it unchanged.
Image convert_channels(Image im, Color color);

/// Throws if `height` × `width` is not a sensible image size (empty, or above kMaxPixels).
void check_size(const char* format, int64_t height, int64_t width);

/// pick(height, width), checked to lie inside the image.
Region picked_region(const RegionPicker& pick, int64_t height, int64_t width);

/// The region `r` of `im`, into `out`.
void cut(const Image& im, const Region& r, Image& out);

}  // namespace braid::image::detail
