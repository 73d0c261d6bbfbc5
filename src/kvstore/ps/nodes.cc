#include "nodes.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <random>
#include <sstream>

#include "braid/base/error.h"

namespace braid::kv::ps {
namespace {

std::string hex(const unsigned char* bytes, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[bytes[i] >> 4];
    s += digits[bytes[i] & 15];
  }
  return s;
}

}  // namespace

int node_id(Role role, int rank) {
  if (role == Role::Scheduler) return kSchedulerId;
  return (role == Role::Server ? 8 : 9) + 2 * rank;
}

std::string describe(const NodeInfo& n) {
  return cat(role_name(n.role), n.role == Role::Scheduler ? "" : cat(" ", n.rank), " (", n.host, ":", n.port, ")");
}

std::string encode_nodes(const std::vector<NodeInfo>& nodes) {
  std::string s;
  for (const auto& n : nodes) s += cat(n.id, " ", role_name(n.role), " ", n.rank, " ", n.host, " ", n.port, "\n");
  return s;
}

std::vector<NodeInfo> decode_nodes(const std::string& text) {
  std::vector<NodeInfo> nodes;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    NodeInfo n;
    std::string role;
    BRAID_CHECK(in >> n.id >> role >> n.rank >> n.host >> n.port, "parameter server: malformed node table line '", line,
                "'");
    const std::optional<Role> parsed = role_from_name(role);
    BRAID_CHECK(parsed, "parameter server: unknown role '", role, "' in the node table");
    n.role = *parsed;
    nodes.push_back(n);
  }
  return nodes;
}

std::string random_nonce() {
  std::random_device device;
  unsigned char bytes[16];
  for (auto& b : bytes) b = static_cast<unsigned char>(device());
  return hex(bytes, sizeof bytes);
}

std::string proof_of_secret(const std::string& secret, const std::string& who, const std::string& nonce) {
  const std::string text = who + ":" + nonce;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  BRAID_CHECK(HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
                   reinterpret_cast<const unsigned char*>(text.data()), text.size(), mac, &length),
              "parameter server: HMAC-SHA256 failed");
  return hex(mac, length);
}

bool same_proof(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace braid::kv::ps
