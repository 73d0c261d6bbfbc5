#include "message.h"

#include <cstddef>
#include <cstring>
#include <vector>

#include "braid/base/error.h"
#include "braid/base/printable.h"

namespace braid::kv::ps {

const char* command_name(Command c) {
  switch (c) {
    case Command::kRegister:
      return "register";
    case Command::kChallenge:
      return "challenge";
    case Command::kProof:
      return "proof";
    case Command::kRefused:
      return "refused";
    case Command::kNodes:
      return "nodes";
    case Command::kBarrier:
      return "barrier";
    case Command::kBarrierDone:
      return "barrier-done";
    case Command::kHeartbeat:
      return "heartbeat";
    case Command::kFinished:
      return "finished";
    case Command::kExit:
      return "exit";
    case Command::kAbort:
      return "abort";
    case Command::kInit:
      return "init";
    case Command::kPush:
      return "push";
    case Command::kPull:
      return "pull";
    case Command::kReply:
      return "reply";
    case Command::kServerCommand:
      return "server-command";
    case Command::kPushRows:
      return "push-rows";
    case Command::kPullRows:
      return "pull-rows";
    case Command::kBatch:
      return "batch";
    case Command::kLast:
      break;
  }
  return "unknown";
}

namespace {

bool known(uint16_t c) {
  return (c >= static_cast<uint16_t>(Command::kRegister) && c <= static_cast<uint16_t>(Command::kAbort)) ||
         (c >= static_cast<uint16_t>(Command::kInit) && c < static_cast<uint16_t>(Command::kLast));
}

}  // namespace

bool is_handshake(Command c) {
  return c == Command::kRegister || c == Command::kChallenge || c == Command::kProof || c == Command::kRefused;
}

std::string Message::describe() const {
  std::string s = cat(known(head.command) ? command_name(command()) : "command?", " from ", head.sender, " to ",
                      head.recipient, " request ", head.request);
  if (head.command >= static_cast<uint16_t>(Command::kInit))
    s += cat(" key ", head.key, " [", head.offset, ", +", head.payload_bytes, " bytes) of ", head.total);
  if (!body.empty()) s += cat(" body ", printable(body, 80));
  return s;
}

Payload aligned_payload(const void* data, size_t size, std::shared_ptr<const void> owner) {
  if (reinterpret_cast<uintptr_t>(data) % alignof(std::max_align_t) == 0) return {data, size, std::move(owner)};
  // operator new's memory is aligned for any type; the vector of max_align_t keeps that.
  auto copy =
      std::make_shared<std::vector<std::max_align_t>>((size + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
  std::memcpy(copy->data(), data, size);
  return {copy->data(), size, copy};
}

std::string encode_first_frame(const Message& m) {
  Header h = m.head;
  h.body_bytes = static_cast<uint32_t>(m.body.size());
  h.payload_bytes = m.payload.size;
  std::string frame(sizeof(Header) + m.body.size(), '\0');
  std::memcpy(frame.data(), &h, sizeof h);
  std::memcpy(frame.data() + sizeof h, m.body.data(), m.body.size());
  return frame;
}

void decode_first_frame(const void* data, size_t size, size_t payload_size, Message& m) {
  BRAID_CHECK(size >= sizeof(Header), "message of ", size, " bytes, shorter than the ", sizeof(Header), "-byte header");
  std::memcpy(&m.head, data, sizeof(Header));
  const Header& h = m.head;
  BRAID_CHECK(h.magic == Header::kMagic, "message without Braid's magic number (", h.magic, "): not from a Braid node");
  BRAID_CHECK(h.version == Header::kVersion, "message of protocol version ", h.version, ", this node speaks ",
              Header::kVersion, ": run the same Braid on every node");
  BRAID_CHECK(known(h.command), "message with unknown command ", h.command);
  BRAID_CHECK(h.body_bytes <= kMaxBodyBytes, "message body of ", h.body_bytes, " bytes, over the limit of ",
              kMaxBodyBytes);
  BRAID_CHECK(size == sizeof(Header) + h.body_bytes, "message of ", size, " bytes but its header announces ",
              sizeof(Header) + h.body_bytes);
  BRAID_CHECK(h.payload_bytes <= kMaxPayloadBytes && h.payload_bytes == payload_size, "message payload of ",
              payload_size, " bytes but its header announces ", h.payload_bytes);
  BRAID_CHECK(h.offset >= 0 && h.total >= 0 && h.offset <= h.total, "message with offset ", h.offset,
              " outside its value of ", h.total, " elements");
  m.body.assign(static_cast<const char*>(data) + sizeof(Header), h.body_bytes);
}

}  // namespace braid::kv::ps
