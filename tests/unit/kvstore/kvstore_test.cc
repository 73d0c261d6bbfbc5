// The KVStore semantics of MXNet for the one-machine types "local" and "device": init, push of
// lists (summed), updaters and optimizers, pull to every output, string keys, optimizer states,
// and the errors, with values on several CPU contexts.
#include <gtest/gtest.h>

#include <filesystem>

#include "braid/base/error.h"
#include "braid/kvstore/kvstore.h"
#include "braid/ndarray/creation.h"
#include "braid/optim/optimizer.h"

namespace braid::kv {
namespace {

std::vector<float> values(const NDArray& a) { return a.to_vector<float>(); }

NDArray on(Context ctx, std::vector<float> v) { return nd::array<float>(v, Shape{static_cast<int64_t>(v.size())}, ctx); }

void expect_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    FAIL() << "no error; expected one containing: " << part;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

class KVStoreTypes : public ::testing::TestWithParam<std::string> {};

TEST_P(KVStoreTypes, PushSumsTheListAndPullCopiesToEveryOutput) {
  auto kv = create(GetParam());
  EXPECT_EQ(kv->type(), GetParam());
  EXPECT_EQ(kv->rank(), 0);
  EXPECT_EQ(kv->num_workers(), 1);
  kv->init(3, on(cpu(0), {1, 2, 3}));
  NDArray a = on(cpu(0), {0, 0, 0}), b = on(cpu(1), {0, 0, 0});
  kv->pull(3, {a, b});
  EXPECT_EQ(values(a), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(values(b), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(b.ctx(), cpu(1));
  // Three devices: an odd tree. Without an updater the sum replaces the stored value.
  kv->push(3, {on(cpu(0), {1, 1, 1}), on(cpu(1), {10, 20, 30}), on(cpu(2), {100, 200, 300})});
  kv->pull(3, {a, b});
  EXPECT_EQ(values(a), (std::vector<float>{111, 221, 331}));
  EXPECT_EQ(values(b), (std::vector<float>{111, 221, 331}));
  // pushpull into the pushed arrays themselves.
  NDArray g0 = on(cpu(0), {1, 2, 3}), g1 = on(cpu(1), {4, 5, 6});
  kv->pushpull(3, {g0, g1}, {g0, g1});
  EXPECT_EQ(values(g0), (std::vector<float>{5, 7, 9}));
  EXPECT_EQ(values(g1), (std::vector<float>{5, 7, 9}));
}

TEST_P(KVStoreTypes, UpdaterAndOptimizerApplyTheSumToTheStoredValue) {
  auto kv = create(GetParam());
  kv->init({0, 1}, {on(cpu(0), {1, 1}), on(cpu(1), {5, 5})});
  std::vector<std::string> seen;
  kv->set_updater([&](const Key& key, const NDArray& summed, NDArray& stored) {
    seen.push_back(key_str(key));
    stored += summed;
    stored += summed;  // stored + 2 * sum
  });
  kv->push({0, 1}, {{on(cpu(0), {1, 2}), on(cpu(1), {3, 4})}, {on(cpu(1), {1, 1})}});
  NDArray w0 = on(cpu(1), {0, 0}), w1 = on(cpu(0), {0, 0});
  kv->pull({0, 1}, {{w0}, {w1}});
  EXPECT_EQ(values(w0), (std::vector<float>{9, 13}));
  EXPECT_EQ(values(w1), (std::vector<float>{7, 7}));
  EXPECT_EQ(seen, (std::vector<std::string>{"0", "1"}));

  kv->set_optimizer(optim::create("sgd", {{"learning_rate", "0.5"}}));
  ASSERT_TRUE(kv->is_capable("optimizer"));
  kv->push(0, {on(cpu(0), {1, 1}), on(cpu(1), {1, 3})});  // w -= 0.5 * (2, 4)
  kv->pull(0, {w0});
  EXPECT_EQ(values(w0), (std::vector<float>{8, 11}));
}

TEST_P(KVStoreTypes, StringKeysBroadcastAndErrors) {
  auto kv = create(GetParam());
  NDArray out0 = on(cpu(0), {0, 0}), out1 = on(cpu(1), {0, 0});
  kv->broadcast("fc_weight", on(cpu(1), {7, 8}), {out0, out1});
  EXPECT_EQ(values(out0), (std::vector<float>{7, 8}));
  EXPECT_EQ(values(out1), (std::vector<float>{7, 8}));
  kv->push("fc_weight", {on(cpu(0), {1, 1}), on(cpu(1), {2, 2})});
  kv->pull("fc_weight", {out0});
  EXPECT_EQ(values(out0), (std::vector<float>{3, 3}));

  expect_error([&] { kv->pull("nope", {out0}); }, "key 'nope' has not been initialized");
  expect_error([&] { kv->init("fc_weight", out0); }, "already initialized");
  expect_error([&] { kv->init(4, out0); }, "use one kind of key per store");
  expect_error([&] { kv->push("fc_weight", {on(cpu(0), {1, 2, 3})}); }, "holds shape (2,) but got an array of shape (3,)");
  expect_error([&] { kv->pull("fc_weight", {on(cpu(0), {1})}); }, "holds shape (2,)");
  expect_error([&] { kv->set_gradient_compression({{"type", "2bit"}, {"threshold", "0.5"}}); }, "does not compress");
  expect_error([&] { kv->set_gradient_compression({{"type", "1bit"}}); }, "unknown type '1bit'");
  expect_error([&] { kv->save_optimizer_states("/tmp/never"); }, "no optimizer is set");
}

TEST_P(KVStoreTypes, OptimizerStatesSaveAndLoadContinueTheSameRun) {
  const auto dir = std::filesystem::temp_directory_path() / ("braid_kv_states_" + GetParam());
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "states").string();
  auto sgd = [] { return optim::create("sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}}); };
  auto grads = [](int step) { return std::vector<NDArray>{on(cpu(0), {1.f * step, 1}), on(cpu(1), {2, -1.f * step})}; };

  auto whole = create(GetParam());
  whole->set_optimizer(sgd());
  whole->init(0, on(cpu(0), {1, 2}));
  for (int step = 1; step <= 3; ++step) whole->push(0, grads(step));

  auto first = create(GetParam());
  first->set_optimizer(sgd());
  first->init(0, on(cpu(0), {1, 2}));
  for (int step = 1; step <= 2; ++step) first->push(0, grads(step));
  first->save_optimizer_states(path, true);
  NDArray w = on(cpu(0), {0, 0});
  first->pull(0, {w});

  auto second = create(GetParam());
  second->set_optimizer(optim::create("adam"));  // replaced by the dumped optimizer
  second->init(0, w);
  second->load_optimizer_states(path);
  EXPECT_EQ(second->optimizer()->name(), "sgd");
  second->push(0, grads(3));

  NDArray got = on(cpu(0), {0, 0}), want = on(cpu(0), {0, 0});
  second->pull(0, {got});
  whole->pull(0, {want});
  EXPECT_EQ(values(got), values(want));
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(OneMachine, KVStoreTypes, ::testing::Values("local", "device"));

TEST(KVStoreCreate, UnknownTypesAreClearErrors) {
  expect_error([] { create("dist_sync"); }, "valid: local, device");
  expect_error([] { create("lokal"); }, "unknown type 'lokal'");
}

}  // namespace
}  // namespace braid::kv
