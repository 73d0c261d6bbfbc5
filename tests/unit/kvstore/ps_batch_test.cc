// Batches of small data messages (kvstore/ps/batch.h): what is packed comes back part by part as
// its sender sent it, malformed batches are refused, and a list pushpull of a model's small keys
// goes as one message per server while giving each key its own round's result.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/optim/optimizer.h"
#include "kvstore/ps/batch.h"
#include "ps_job_util.h"

namespace braid {
namespace {

using kv::ps::Command;
using kv::ps::Message;

Message data(Command c, int64_t key, uint64_t request, const std::string& body, std::vector<float> values = {}) {
  Message m;
  m.head.command = static_cast<uint16_t>(c);
  m.head.key = key;
  m.head.request = request;
  m.head.total = static_cast<int64_t>(values.size());
  m.head.sender = 99;  // ignored: the parts are the batch's sender's
  m.body = body;
  if (!values.empty()) {
    auto bytes = std::make_shared<std::vector<float>>(std::move(values));
    m.payload = {bytes->data(), bytes->size() * sizeof(float), bytes};
  }
  return m;
}

std::vector<float> floats(const Message& m) {
  std::vector<float> v(m.payload.size / sizeof(float));
  std::memcpy(v.data(), m.payload.data, m.payload.size);
  return v;
}

TEST(PsBatch, PartsComeBackAsSentAsTheBatchsSenders) {
  std::vector<Message> parts = {data(Command::kPull, 3, 11, ""), data(Command::kPush, 4, 12, "lr=0.1\n", {1, 2, 3}),
                                data(Command::kReply, 5, 13, "", {4.5f})};
  Message batch = kv::ps::pack_batch(parts);
  EXPECT_EQ(batch.command(), Command::kBatch);
  batch.head.sender = 7;
  batch.authenticated = true;
  const std::vector<Message> got = kv::ps::unpack_batch(batch);
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].head.command, parts[i].head.command) << i;
    EXPECT_EQ(got[i].head.key, parts[i].head.key) << i;
    EXPECT_EQ(got[i].head.request, parts[i].head.request) << i;
    EXPECT_EQ(got[i].body, parts[i].body) << i;
    EXPECT_EQ(got[i].head.sender, 7) << i;
    EXPECT_TRUE(got[i].authenticated) << i;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(got[i].payload.data) % 16, 0u) << i;
  }
  EXPECT_EQ(got[0].payload.size, 0u);
  EXPECT_EQ(floats(got[1]), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(floats(got[2]), (std::vector<float>{4.5f}));
}

// The batch's bytes with `edit` applied, unpacked: the error's text, or "" when accepted.
template <class Edit>
std::string refusal(Edit edit) {
  Message batch = kv::ps::pack_batch({data(Command::kPull, 3, 11, ""), data(Command::kPush, 4, 12, "", {1, 2})});
  std::string bytes(static_cast<const char*>(batch.payload.data), batch.payload.size);
  edit(bytes);
  auto owner = std::make_shared<std::string>(bytes);
  batch.payload = {owner->data(), owner->size(), owner};
  try {
    kv::ps::unpack_batch(batch);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PsBatch, MalformedBatchesAreRefusedNamingTheFault) {
  constexpr size_t kCommandAt = 16 + 6;  // the first part's header: after its two sizes, magic and version
  EXPECT_EQ(refusal([](std::string&) {}), "");
  EXPECT_NE(refusal([](std::string& b) { b.resize(b.size() - 1); }), "");                        // cut short
  EXPECT_NE(refusal([](std::string& b) { b.resize(10); }).find("sizes"), std::string::npos);     // inside the sizes
  EXPECT_NE(refusal([](std::string& b) { b[0] = 0x7f; }).find("announces"), std::string::npos);  // a lying size
  const uint16_t batch = static_cast<uint16_t>(Command::kBatch), barrier = static_cast<uint16_t>(Command::kBarrier);
  EXPECT_NE(refusal([&](std::string& b) { std::memcpy(&b[kCommandAt], &batch, 2); }).find("batch"),
            std::string::npos);  // a batch inside a batch
  EXPECT_NE(refusal([&](std::string& b) { std::memcpy(&b[kCommandAt], &barrier, 2); }).find("barrier"),
            std::string::npos);  // control has no place in a batch
  EXPECT_THROW(kv::ps::pack_batch(std::vector<Message>(kv::ps::kMaxBatchParts + 1, data(Command::kPull, 1, 1, ""))),
               Error);
  Message big = data(Command::kPush, 1, 1, "", std::vector<float>(kv::ps::kMaxBatchedPayload / 4 + 1, 0.f));
  EXPECT_FALSE(kv::ps::batchable(big));
  EXPECT_THROW(kv::ps::pack_batch({big}), Error);
}

// 40 small keys over 2 servers (and one big one, which travels alone): one list pushpull is one
// message to each server for the small keys, and every key gets SGD's update of the round's sum.
TEST(PsBatch, AListPushPullOfSmallKeysIsOneMessagePerServer) {
  constexpr int kWorkers = 2, kKeys = 40;
  constexpr int64_t kBig = 100000;  // 400 KB: not batched
  std::vector<std::vector<std::vector<float>>> pulled(kWorkers);
  std::vector<uint64_t> messages(kWorkers);
  const test::JobStatus status = test::run_job("dist_sync", 9123, kWorkers, 2, [&](kv::KVStore& store) {
    const auto rank = static_cast<size_t>(store.rank());
    std::vector<kv::Key> keys;
    std::vector<std::vector<NDArray>> grads, outs;
    std::vector<int> priorities;
    for (int k = 0; k <= kKeys; ++k) {
      const Shape shape = k == kKeys ? Shape{kBig} : Shape{3, k + 1};
      keys.emplace_back(k);
      store.init(k, nd::full(shape, static_cast<double>(k)));
      grads.push_back({nd::full(shape, static_cast<double>(rank + 1))});
      outs.push_back({nd::zeros(shape)});
      priorities.push_back(-k);
    }
    store.set_optimizer(optim::create("sgd", {{"learning_rate", "0.5"}}));
    const uint64_t before = kv::ps::worker_traffic(store).messages_sent;
    store.pushpull(keys, grads, outs, priorities);
    for (const auto& out : outs) pulled[rank].push_back(out[0].to_vector<float>());
    messages[rank] = kv::ps::worker_traffic(store).messages_sent - before;
  });
  EXPECT_EQ(status.scheduler, 0);
  EXPECT_EQ(status.servers, (std::vector<int>{0, 0}));
  for (size_t r = 0; r < kWorkers; ++r) {
    ASSERT_EQ(pulled[r].size(), static_cast<size_t>(kKeys + 1)) << r;
    for (int k = 0; k <= kKeys; ++k) {
      const size_t n = k == kKeys ? kBig : 3 * (k + 1);
      // k - 0.5 * (1 + 2)
      EXPECT_EQ(pulled[r][static_cast<size_t>(k)], std::vector<float>(n, static_cast<float>(k) - 1.5f)) << k;
    }
    // One batch per server for the small keys, one message for the big one.
    EXPECT_EQ(messages[r], 3u) << r;
  }
}

}  // namespace
}  // namespace braid
