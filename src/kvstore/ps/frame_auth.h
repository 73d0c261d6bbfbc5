#pragma once
// Internal: the authentication of a parameter-server job's messages. When the job has a secret,
// the scheduler draws a job nonce and hands it to each node in the registration handshake; every
// later message carries a MAC (Poly1305-AES) under a key derived from the secret and that nonce,
// over its header, body and payload, with the sender's id and sequence number as its nonce.
// A receiver checks the MAC before it looks at anything else, and refuses a sequence number that
// does not increase (a replay). Nothing is encrypted: see docs/security.md.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "message.h"

namespace braid::kv::ps {

class FrameAuth {
 public:
  /// The key of the job whose secret is `secret` and whose scheduler drew `job_nonce`.
  FrameAuth(const std::string& secret, const std::string& job_nonce);

  /// Writes the MAC of the message (header with sender and sequence set, body, payload) into
  /// head.tag.
  void seal(Header& head, const std::string& body, const void* payload, size_t payload_size) const;
  /// Whether head.tag is the MAC of the message under this job's key (constant-time comparison).
  bool verify(const Header& head, const std::string& body, const void* payload, size_t payload_size) const;

 private:
  void mac(const Header& head, const std::string& body, const void* payload, size_t payload_size,
           uint8_t tag[16]) const;
  unsigned char key_[32];
};

/// Refuses replayed messages: each sender's sequence numbers must increase. Holds one entry per
/// sender whose message was authenticated, so its size is bounded by the job's nodes.
class ReplayGuard {
 public:
  /// Whether `sequence` from `sender` is new (then remembered).
  bool accept(int sender, uint64_t sequence);

 private:
  std::map<int, uint64_t> last_;
};

}  // namespace braid::kv::ps
