#include "frame_auth.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstring>
#include <memory>

#include "braid/base/error.h"

namespace braid::kv::ps {
namespace {

template <class T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, decltype([](T* p) { Free(p); })>;

EVP_MAC* poly1305() {
  static EVP_MAC* mac = EVP_MAC_fetch(nullptr, "POLY1305", nullptr);  // kept for the process's life
  BRAID_CHECK(mac, "parameter server: this OpenSSL has no Poly1305");
  return mac;
}

}  // namespace

FrameAuth::FrameAuth(const std::string& secret, const std::string& job_nonce) {
  const std::string label = "braid-ps-frame-key:" + job_nonce;
  unsigned int length = 0;
  BRAID_CHECK(HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
                   reinterpret_cast<const unsigned char*>(label.data()), label.size(), key_, &length) &&
                  length == sizeof key_,
              "parameter server: deriving the job's key failed");
}

// Poly1305-AES: the message's one-time Poly1305 key is AES-256 (the job's key) of its nonce, the
// sender's id and sequence number, which no other message of the job shares.
void FrameAuth::mac(const Header& head, const std::string& body, const void* payload, size_t payload_size,
                    uint8_t tag[16]) const {
  unsigned char nonce_blocks[32] = {};
  std::memcpy(nonce_blocks, &head.sender, 4);
  std::memcpy(nonce_blocks + 4, &head.sequence, 8);
  std::memcpy(nonce_blocks + 16, nonce_blocks, 12);
  nonce_blocks[31] = 1;
  unsigned char one_time_key[32];
  int written = 0;
  Owned<EVP_CIPHER_CTX, EVP_CIPHER_CTX_free> cipher(EVP_CIPHER_CTX_new());
  BRAID_CHECK(cipher && EVP_EncryptInit_ex(cipher.get(), EVP_aes_256_ecb(), nullptr, key_, nullptr) == 1 &&
                  EVP_CIPHER_CTX_set_padding(cipher.get(), 0) == 1 &&
                  EVP_EncryptUpdate(cipher.get(), one_time_key, &written, nonce_blocks, sizeof nonce_blocks) == 1 &&
                  written == sizeof one_time_key,
              "parameter server: deriving a message key failed");

  Header covered = head;
  std::memset(covered.tag, 0, sizeof covered.tag);
  Owned<EVP_MAC_CTX, EVP_MAC_CTX_free> ctx(EVP_MAC_CTX_new(poly1305()));
  size_t length = 0;
  BRAID_CHECK(ctx && EVP_MAC_init(ctx.get(), one_time_key, sizeof one_time_key, nullptr) == 1 &&
                  EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(&covered), sizeof covered) == 1 &&
                  EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(body.data()), body.size()) == 1 &&
                  EVP_MAC_update(ctx.get(), static_cast<const unsigned char*>(payload), payload_size) == 1 &&
                  EVP_MAC_final(ctx.get(), tag, &length, 16) == 1 && length == 16,
              "parameter server: Poly1305 failed");
  OPENSSL_cleanse(one_time_key, sizeof one_time_key);
}

void FrameAuth::seal(Header& head, const std::string& body, const void* payload, size_t payload_size) const {
  mac(head, body, payload, payload_size, head.tag);
}

bool FrameAuth::verify(const Header& head, const std::string& body, const void* payload, size_t payload_size) const {
  uint8_t expected[16];
  mac(head, body, payload, payload_size, expected);
  return CRYPTO_memcmp(expected, head.tag, sizeof expected) == 0;
}

bool ReplayGuard::accept(int sender, uint64_t sequence) {
  auto [it, first] = last_.emplace(sender, sequence);
  if (first) return true;
  if (sequence <= it->second) return false;
  it->second = sequence;
  return true;
}

}  // namespace braid::kv::ps
