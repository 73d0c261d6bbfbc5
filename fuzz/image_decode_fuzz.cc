// Fuzz target for image decoding (braid/image/codec.h), which mx.image.imdecode, ImageRecordIter
// and braid im2rec run on files from outside: the bytes decoded as colour, gray and as stored,
// and their centre region alone (the partial JPEG decoding ImageRecordIter uses). A malformed file
// is refused with braid::Error; any other exception, a crash, a leak or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "braid/base/error.h"
#include "braid/image/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace braid::image;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (Color color : {Color::Rgb, Color::Gray, Color::AsStored}) {
    try {
      decode(bytes, color);
    } catch (const braid::Error&) {
    }
  }
  try {
    Image region;
    decode_region(
        bytes, Color::Bgr,
        [](int64_t h, int64_t w) {
          return Region{h / 4, w / 4, h / 2 > 0 ? h / 2 : 1, w / 2 > 0 ? w / 2 : 1};
        },
        region);
  } catch (const braid::Error&) {
  }
  return 0;
}
