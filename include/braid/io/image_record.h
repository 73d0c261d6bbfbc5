#pragma once
/// Image records: the payload MXNet's im2rec, recordio.pack/pack_img and ImageRecordIter put in
/// each RecordIO record. A 24-byte header (uint32 flag, float32 label, uint64 id, uint64 id2,
/// little-endian), then `flag` float32 labels when flag > 0 (and the header's label unused), then
/// the encoded image.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace braid::io {

struct ImageRecord {
  /// One label (stored in the header) or several (stored after it); never empty.
  std::vector<float> labels{0.f};
  uint64_t id = 0, id2 = 0;
  /// The encoded image (a view into the record for unpack_image_record's result).
  std::string_view image;
};

/// The record bytes of `r`: a single label goes in the header (flag 0), several after it.
std::string pack_image_record(const ImageRecord& r);

/// Reads a record made by pack_image_record (or MXNet); `r.image` points into `record`. Throws
/// braid::Error for a record shorter than its header or its labels.
ImageRecord unpack_image_record(std::string_view record);

}  // namespace braid::io
