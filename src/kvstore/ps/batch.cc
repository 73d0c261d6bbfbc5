#include "batch.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "braid/base/error.h"

namespace braid::kv::ps {
namespace {

constexpr size_t kAlign = 16;
size_t padded(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

bool is_data(uint16_t command) {
  return command >= static_cast<uint16_t>(Command::kInit) && command < static_cast<uint16_t>(Command::kBatch) &&
         command != static_cast<uint16_t>(Command::kServerCommand);
}

}  // namespace

bool batchable(const Message& m) { return is_data(m.head.command) && m.payload.size <= kMaxBatchedPayload; }

Message pack_batch(const std::vector<Message>& parts) {
  BRAID_CHECK(!parts.empty() && parts.size() <= kMaxBatchParts, "a batch of ", parts.size(), " messages");
  std::vector<std::string> frames;
  size_t bytes = 0;
  for (const Message& m : parts) {
    BRAID_CHECK(batchable(m), "a ", m.describe(), " cannot travel in a batch");
    frames.push_back(encode_first_frame(m));
    bytes += 2 * sizeof(uint64_t) + padded(frames.back().size()) + padded(m.payload.size);
  }
  auto buffer = std::make_shared<std::string>(bytes, '\0');
  char* at = buffer->data();
  for (size_t i = 0; i < parts.size(); ++i) {
    const uint64_t sizes[2] = {frames[i].size(), parts[i].payload.size};
    std::memcpy(at, sizes, sizeof sizes);
    at += sizeof sizes;
    std::memcpy(at, frames[i].data(), frames[i].size());
    at += padded(frames[i].size());
    if (parts[i].payload.size > 0) std::memcpy(at, parts[i].payload.data, parts[i].payload.size);
    at += padded(parts[i].payload.size);
  }
  Message batch;
  batch.head.command = static_cast<uint16_t>(Command::kBatch);
  batch.payload = {buffer->data(), buffer->size(), buffer};
  return batch;
}

std::vector<Message> unpack_batch(const Message& batch) {
  const char* at = static_cast<const char*>(batch.payload.data);
  size_t left = batch.payload.size;
  std::vector<Message> parts;
  while (left > 0) {
    BRAID_CHECK(parts.size() < kMaxBatchParts, "a batch of more than ", kMaxBatchParts, " messages");
    uint64_t sizes[2];
    BRAID_CHECK(left >= sizeof sizes, "a batch cut inside a part's sizes");
    std::memcpy(sizes, at, sizeof sizes);
    at += sizeof sizes;
    left -= sizeof sizes;
    BRAID_CHECK(sizes[0] <= left && sizes[1] <= kMaxBatchedPayload && padded(sizes[0]) <= left &&
                    padded(sizes[1]) <= left - padded(sizes[0]),
                "a batch whose part announces ", sizes[0], " + ", sizes[1], " bytes with ", left, " left");
    Message m;
    decode_first_frame(at, sizes[0], sizes[1], m);
    BRAID_CHECK(is_data(m.head.command), "a batch holding a ", command_name(m.command()), " message");
    at += padded(sizes[0]);
    left -= padded(sizes[0]);
    m.payload = sizes[1] > 0 ? aligned_payload(at, sizes[1], batch.payload.owner) : Payload{};
    at += padded(sizes[1]);
    left -= padded(sizes[1]);
    m.head.sender = batch.head.sender;
    m.head.recipient = batch.head.recipient;
    m.authenticated = batch.authenticated;
    parts.push_back(std::move(m));
  }
  return parts;
}

}  // namespace braid::kv::ps
