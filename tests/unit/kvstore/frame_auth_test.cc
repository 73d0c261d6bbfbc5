// The parameter server's message authentication (kvstore/ps/frame_auth.h): a sealed message
// verifies under its job's key only, any changed byte of header, body or payload fails, and a van
// that requires authentication drops unsealed, forged and replayed messages.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

#include "kvstore/ps/frame_auth.h"
#include "kvstore/ps/inproc_van.h"

namespace braid::kv::ps {
namespace {

struct Sealed {
  Header head;
  std::string body = "lr=0.1";
  std::vector<float> payload = {1, 2, 3, 4};
};

Sealed sealed(const FrameAuth& auth, uint64_t sequence = 1) {
  Sealed s;
  s.head.command = static_cast<uint16_t>(Command::kPush);
  s.head.sender = 9;
  s.head.recipient = 8;
  s.head.key = 3;
  s.head.total = 4;
  s.head.sequence = sequence;
  s.head.body_bytes = static_cast<uint32_t>(s.body.size());
  s.head.payload_bytes = s.payload.size() * sizeof(float);
  auth.seal(s.head, s.body, s.payload.data(), s.head.payload_bytes);
  return s;
}

bool verifies(const FrameAuth& auth, const Sealed& s) {
  return auth.verify(s.head, s.body, s.payload.data(), s.payload.size() * sizeof(float));
}

TEST(FrameAuth, ASealedMessageVerifiesUnderItsJobsKeyOnly) {
  const FrameAuth auth("s3cret", "job-1");
  const Sealed s = sealed(auth);
  EXPECT_TRUE(verifies(auth, s));
  EXPECT_TRUE(verifies(FrameAuth("s3cret", "job-1"), s));
  EXPECT_FALSE(verifies(FrameAuth("s3cret", "job-2"), s)) << "another job's message (a replay across jobs)";
  EXPECT_FALSE(verifies(FrameAuth("guess", "job-1"), s)) << "a key without the secret";
}

TEST(FrameAuth, AnyChangedByteFailsTheCheck) {
  const FrameAuth auth("s3cret", "job-1");
  const Sealed original = sealed(auth);
  for (size_t byte = 0; byte < sizeof(Header); ++byte) {
    Sealed s = original;
    reinterpret_cast<unsigned char*>(&s.head)[byte] ^= 1;
    EXPECT_FALSE(verifies(auth, s)) << "header byte " << byte;
  }
  Sealed body = original;
  body.body[2] = '+';
  EXPECT_FALSE(verifies(auth, body));
  Sealed payload = original;
  payload.payload[3] = 5;
  EXPECT_FALSE(verifies(auth, payload));
}

TEST(FrameAuth, AReplayGuardWantsIncreasingSequenceNumbersPerSender) {
  ReplayGuard guard;
  EXPECT_TRUE(guard.accept(9, 5));
  EXPECT_FALSE(guard.accept(9, 5));
  EXPECT_FALSE(guard.accept(9, 4));
  EXPECT_TRUE(guard.accept(11, 1)) << "each sender counts on its own";
  EXPECT_TRUE(guard.accept(9, 6));
}

// What a van that requires authentication hands its node.
struct Received {
  std::mutex mu;
  std::condition_variable arrived;
  std::vector<uint64_t> sequences;

  bool wait_for(size_t count) {
    std::unique_lock<std::mutex> lock(mu);
    return arrived.wait_for(lock, std::chrono::seconds(10), [&] { return sequences.size() >= count; });
  }
};

InProcessVan::Frames frames_of(const Sealed& s) {
  Message m;
  m.head = s.head;
  m.body = s.body;
  m.payload = {s.payload.data(), s.payload.size() * sizeof(float), nullptr};
  std::string first = encode_first_frame(m);
  std::memcpy(first.data(), &s.head, sizeof s.head);  // the sealed header, tag included
  return {first, std::string(reinterpret_cast<const char*>(s.payload.data()), s.payload.size() * sizeof(float))};
}

TEST(FrameAuth, AVanDropsUnsealedForgedAndReplayedMessages) {
  auto auth = std::make_shared<FrameAuth>("s3cret", "job-1");
  Received received;
  InProcessVan van("test", 0);
  van.bind("frame-auth-test", 0);
  van.require_auth();
  van.start([&](Message&& m) {
    EXPECT_EQ(m.authenticated, !is_handshake(m.command()));
    std::lock_guard<std::mutex> lock(received.mu);
    received.sequences.push_back(m.head.sequence);
    received.arrived.notify_all();
  });
  van.deliver(frames_of(sealed(*auth, 1)));  // before the key: dropped
  Sealed handshake = sealed(*auth, 0);       // handshakes pass unsealed: they carry their own proofs
  handshake.head.command = static_cast<uint16_t>(Command::kRefused);
  van.deliver(frames_of(handshake));
  ASSERT_TRUE(received.wait_for(1));  // so the first message was looked at before the key came
  van.set_auth(auth);
  van.deliver(frames_of(sealed(*auth, 2)));
  van.deliver(frames_of(sealed(*auth, 2)));                        // a replay
  van.deliver(frames_of(sealed(FrameAuth("guess", "job-1"), 3)));  // forged
  Sealed unsealed = sealed(*auth, 4);
  std::memset(unsealed.head.tag, 0, sizeof unsealed.head.tag);
  van.deliver(frames_of(unsealed));
  van.deliver(frames_of(sealed(*auth, 5)));
  ASSERT_TRUE(received.wait_for(3));
  van.stop();
  EXPECT_EQ(received.sequences, (std::vector<uint64_t>{0, 2, 5}));
}

}  // namespace
}  // namespace braid::kv::ps
