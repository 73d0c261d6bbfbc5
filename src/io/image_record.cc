// Image-record headers, laid out as MXNet's IRHeader (struct "IfQQ", native little-endian).
#include "braid/io/image_record.h"

#include <cstring>

#include "braid/base/error.h"

namespace braid::io {
namespace {

constexpr size_t kHeaderBytes = 24;

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <class T>
T get(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

std::string pack_image_record(const ImageRecord& r) {
  BRAID_CHECK(!r.labels.empty(), "an image record needs at least one label");
  std::string out;
  const bool many = r.labels.size() > 1;
  out.reserve(kHeaderBytes + (many ? 4 * r.labels.size() : 0) + r.image.size());
  put<uint32_t>(out, many ? static_cast<uint32_t>(r.labels.size()) : 0);
  put<float>(out, many ? 0.f : r.labels[0]);
  put<uint64_t>(out, r.id);
  put<uint64_t>(out, r.id2);
  if (many)
    for (float l : r.labels) put<float>(out, l);
  out.append(r.image);
  return out;
}

ImageRecord unpack_image_record(std::string_view record) {
  BRAID_CHECK(record.size() >= kHeaderBytes, "an image record of ", record.size(),
              " bytes is shorter than the 24-byte image record header");
  ImageRecord r;
  const uint32_t flag = get<uint32_t>(record.data());
  r.labels = {get<float>(record.data() + 4)};
  r.id = get<uint64_t>(record.data() + 8);
  r.id2 = get<uint64_t>(record.data() + 16);
  size_t at = kHeaderBytes;
  if (flag > 0) {
    BRAID_CHECK((record.size() - at) / 4 >= flag, "an image record announces ", flag, " labels but holds ",
                record.size() - at, " bytes after its header");
    r.labels.resize(flag);
    std::memcpy(r.labels.data(), record.data() + at, 4 * size_t(flag));
    at += 4 * size_t(flag);
  }
  r.image = record.substr(at);
  return r;
}

}  // namespace braid::io
