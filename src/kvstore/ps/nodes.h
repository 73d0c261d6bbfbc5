#pragma once
// Internal: the table of a job's nodes that the scheduler sends every node once all have
// registered, and the secret handshake of registration.
#include <string>
#include <vector>

#include "config.h"

namespace braid::kv::ps {

struct NodeInfo {
  int id = -1;
  Role role = Role::Worker;
  int rank = -1;
  std::string host;
  int port = 0;
};

/// ps-lite's ids: the scheduler 1, server r 8 + 2r, worker r 9 + 2r.
inline constexpr int kSchedulerId = 1;
int node_id(Role role, int rank);
/// "worker 1 (127.0.0.1:40123)" for messages.
std::string describe(const NodeInfo& n);

/// One node per line: "id role rank host port".
std::string encode_nodes(const std::vector<NodeInfo>& nodes);
/// Throws on a malformed table.
std::vector<NodeInfo> decode_nodes(const std::string& text);

/// A fresh random nonce (hex).
std::string random_nonce();
/// Proof that `who` knows `secret`: hex HMAC-SHA256(secret, who + ":" + nonce).
std::string proof_of_secret(const std::string& secret, const std::string& who, const std::string& nonce);
/// Constant-time comparison of two proofs.
bool same_proof(const std::string& a, const std::string& b);

}  // namespace braid::kv::ps
