#pragma once
// Internal: what parameter-server nodes send each other. A message is one ZeroMQ multipart
// message: a fixed binary header followed by a text body (control: node tables, optimizer
// settings, errors), then optionally the payload (array bytes, sent without a copy).
#include <cstdint>
#include <memory>
#include <string>

namespace braid::kv::ps {

enum class Command : uint16_t {
  // Control: nodes and the scheduler.
  kRegister = 1,  // node -> scheduler: "role host port rank_hint nonce"
  kChallenge,     // scheduler -> node: "nonce proof" (with a secret)
  kProof,         // node -> scheduler: "proof"
  kRefused,       // scheduler -> node: why
  kNodes,         // scheduler -> every node: the node table, once all have registered
  kBarrier,       // worker -> scheduler; flags: the group
  kBarrierDone,   // scheduler -> the group
  kHeartbeat,     // both ways
  kFinished,      // worker -> scheduler: its work is done
  kExit,          // scheduler -> every node: the job is over
  kAbort,         // scheduler -> every node: the job failed, body says why
  // Data: workers and servers.
  kInit = 32,      // the key's first value (from worker 0)
  kPush,           // values to add
  kPull,           // asks for the value
  kReply,          // answers a request (with the value for a pull)
  kServerCommand,  // a setting for the servers (key: which), body: its value
  kPushRows,       // some rows of the key's value to add (key_value.h: row messages)
  kPullRows,       // asks for some rows of the value
  kBatch,          // several of the data messages above to one peer (batch.h)
  kLast
};
const char* command_name(Command c);

/// The commands of the registration handshake: accepted before a node holds the job's key, so they
/// carry their own proofs of the secret (nodes.h) instead of a frame MAC.
bool is_handshake(Command c);

/// The fixed part, sent as raw little-endian bytes (x86 only).
struct Header {
  uint32_t magic = kMagic;
  uint16_t version = kVersion;
  uint16_t command = 0;
  int32_t sender = -1;  // node id; -1 before registration
  int32_t recipient = -1;
  uint64_t request = 0;  // the requester's id for the exchange, echoed by the reply
  int64_t key = 0;
  int64_t offset = 0;  // first element of the key's value in this message
  int64_t total = 0;   // elements in the key's whole value
  int32_t dtype = 0;
  int32_t flags = 0;
  uint32_t body_bytes = 0;
  uint32_t row_width = 0;  // elements per row of the key's value (init and row messages)
  uint64_t payload_bytes = 0;
  uint64_t sequence = 0;  // per sender, increasing: a replayed message is refused (frame_auth.h)
  uint8_t tag[16] = {};   // the frame's MAC when the job has a secret, else zeros

  static constexpr uint32_t kMagic = 0x50445242;  // "BRDP"
  static constexpr uint16_t kVersion = 3;
};
static_assert(sizeof(Header) == 96, "the header's wire size");

/// Bytes shared with whatever keeps them alive (an array being sent, a received ZeroMQ frame).
struct Payload {
  const void* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> owner;
};

/// A received payload at `data` as arrays may read it: kept where it is when aligned for any
/// element type, else copied to memory that is (ZeroMQ hands small messages out at any offset).
Payload aligned_payload(const void* data, size_t size, std::shared_ptr<const void> owner);

struct Message {
  Header head;
  std::string body;
  Payload payload;
  bool authenticated = false;  // set by the receiving van: the frame's MAC was checked

  Command command() const { return static_cast<Command>(head.command); }
  /// A one-line description for logs (PS_VERBOSE=2 and rejections).
  std::string describe() const;
};

/// Limits on what a node accepts: a bigger or malformed message is rejected, never trusted.
inline constexpr size_t kMaxBodyBytes = 16u << 20;
inline constexpr uint64_t kMaxPayloadBytes = uint64_t{16} << 30;

/// The header and body as the first frame's bytes.
std::string encode_first_frame(const Message& m);
/// Parses a received first frame (and the size of the payload frame, 0 if none) into `m`
/// (payload left to the caller); throws braid::Error saying what is wrong.
void decode_first_frame(const void* data, size_t size, size_t payload_size, Message& m);

}  // namespace braid::kv::ps
