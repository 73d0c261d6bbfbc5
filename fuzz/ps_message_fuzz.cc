// Fuzz target: a parameter-server message as a node receives it. The input's first byte says how
// many payload bytes follow the first frame (0-255); the rest is the first frame (header and
// body). A frame that decodes is checked as an authenticated node checks it (MAC, replay), its
// body parsed as a node table when it claims to be one, a batch's payload unpacked into its
// parts, and described for the log. Errors are
// braid::Error; anything else (a crash, a sanitizer report) is a finding.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "braid/base/error.h"
#include "kvstore/ps/batch.h"
#include "kvstore/ps/frame_auth.h"
#include "kvstore/ps/message.h"
#include "kvstore/ps/nodes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace braid::kv::ps;
  if (size < 1) return 0;
  const size_t payload = std::min<size_t>(data[0], size - 1);
  const size_t first = size - 1 - payload;
  Message m;
  try {
    decode_first_frame(data + 1, first, payload, m);
  } catch (const braid::Error&) {
    return 0;
  }
  static const FrameAuth auth("fuzz-secret", "fuzz-job");
  static ReplayGuard replays;
  if (auth.verify(m.head, m.body, data + 1 + first, payload)) replays.accept(m.head.sender, m.head.sequence);
  (void)m.describe();
  if (m.command() == Command::kBatch) {
    m.payload = {data + 1 + first, payload, nullptr};
    try {
      for (const Message& part : unpack_batch(m)) (void)part.describe();
    } catch (const braid::Error&) {
    }
  }
  if (m.command() == Command::kNodes) {
    try {
      for (const NodeInfo& n : decode_nodes(m.body)) (void)describe(n);
    } catch (const braid::Error&) {
    }
  }
  return 0;
}
