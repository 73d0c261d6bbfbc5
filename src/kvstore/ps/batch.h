#pragma once
// Internal: several small data messages to one peer sent as one (Command::kBatch), so that a
// model's many small keys cost one message per server instead of one each. The batch is sealed
// and checked as one frame (frame_auth.h); its parts are data messages of the batch's sender:
// a part's own sender, recipient, sequence and tag are ignored. Parts keep their request ids, so
// the receiver handles each as if it had come alone. Layout of the batch's payload, per part:
// u64 first-frame bytes, u64 payload bytes, the first frame (encode_first_frame), then the
// payload, each of the two padded to 16 bytes so that parts' payloads stay aligned.
#include <cstddef>
#include <vector>

#include "message.h"

namespace braid::kv::ps {

/// The most parts a batch holds, and the largest payload a part may have (bigger ones travel
/// alone, without the copy a batch makes).
inline constexpr size_t kMaxBatchParts = 4096;
inline constexpr size_t kMaxBatchedPayload = 64u << 10;

/// Whether `m` may travel in a batch: a data message with a small payload.
bool batchable(const Message& m);
/// One kBatch message holding `parts` (batchable, at most kMaxBatchParts; their payloads copied).
Message pack_batch(const std::vector<Message>& parts);
/// The parts of a received batch, as received from its sender (payloads point into the batch's);
/// throws braid::Error naming what is malformed.
std::vector<Message> unpack_batch(const Message& batch);

}  // namespace braid::kv::ps
