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

NDArray on(Context ctx, std::vector<float> v) {
  return nd::array<float>(v, Shape{static_cast<int64_t>(v.size())}, ctx);
}

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
  expect_error(
      [&] {
        kv->push("fc_weight", {on(cpu(0), {1, 2, 3})});
      },
      "holds shape (2,) but got an array of shape (3,)");
  expect_error([&] { kv->pull("fc_weight", {on(cpu(0), {1})}); }, "holds shape (2,)");
  expect_error([&] { kv->push("fc_weight", {nd::zeros(Shape{2}, cpu(0), DType::Float64)}); },
               "holds float32 but got a float64 array");
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

// Large values on several CPU contexts are summed in one part per context at once, and pulled
// from the parts: every element must be the sum in the pushed order, whatever part it falls in,
// with values and outputs at unaligned offsets, in float32 and float64; an updater set later
// sees the value the parts hold.
template <typename T>
std::vector<T> pattern(int64_t n, int seed) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = static_cast<T>(((i * 7919 + seed * 104729) % 2003) - 1001) / T(7);
  return v;
}

template <typename T>
void check_large_sums(const std::string& type) {
  const int64_t n = (int64_t{1} << 18) + 37;  // over the size from which sums split, not a multiple of a vector
  const Shape shape{n};
  auto a = pattern<T>(n, 1), b = pattern<T>(n, 2), c = pattern<T>(n, 3);
  auto kv = create(type);
  const DType t = DTypeOf<T>::value;
  kv->init(7, nd::zeros(shape, cpu(0), t));
  NDArray b_unaligned = nd::zeros(Shape{n + 1}, cpu(1), t).slice(1, n + 1);
  nd::array<T>(b, shape, cpu(0), t).copyto(b_unaligned);
  const std::vector<NDArray> pushed = {nd::array<T>(a, shape, cpu(0), t), b_unaligned,
                                       nd::array<T>(c, shape, cpu(2), t)};
  kv->push(7, pushed);
  NDArray out_padded = nd::zeros(Shape{n + 3}, cpu(2), t);
  std::vector<NDArray> outs = {nd::zeros(shape, cpu(1), t), out_padded.slice(3, n + 3)};
  kv->pull(7, outs);
  std::vector<T> want(static_cast<size_t>(n));
  for (size_t i = 0; i < want.size(); ++i) want[i] = (a[i] + b[i]) + c[i];
  for (const auto& out : outs) EXPECT_EQ(out.to_vector<T>(), want);

  kv->set_updater([](const Key&, const NDArray& summed, NDArray& stored) { stored += summed; });
  kv->push(7, pushed);
  kv->pull(7, {outs[0]});
  for (size_t i = 0; i < want.size(); ++i) want[i] += (a[i] + b[i]) + c[i];
  EXPECT_EQ(outs[0].to_vector<T>(), want);
}

TEST_P(KVStoreTypes, LargeValuesOnSeveralContextsSumInPartsPerContext) {
  check_large_sums<float>(GetParam());
  check_large_sums<double>(GetParam());
}

TEST_P(KVStoreTypes, LargePushPullIntoThePushedArraysThemselves) {
  const int64_t n = int64_t{1} << 19;
  auto kv = create(GetParam());
  kv->init(0, nd::zeros(Shape{n}));
  auto a = pattern<float>(n, 4), b = pattern<float>(n, 5);
  std::vector<NDArray> grads = {nd::array<float>(a, Shape{n}, cpu(0)), nd::array<float>(b, Shape{n}, cpu(1))};
  for (int round = 0; round < 2; ++round) kv->pushpull(0, grads, grads);  // the second sums the first's results
  for (const auto& g : grads)
    for (int64_t i = 0; i < n; i += 4099) EXPECT_EQ(g.to_vector<float>()[static_cast<size_t>(i)], 2 * (a[i] + b[i]));
}

// MXNet's list pushpull pushes every key before pulling any: keys whose values are the same
// arrays each get the sum of the values as they were (2 + 2 = 4), not of an earlier key's result.
TEST_P(KVStoreTypes, ListPushPullReadsEveryValueBeforeWritingAnOutput) {
  auto kv = create(GetParam());
  const std::vector<Key> keys{5, 7, 11};
  for (const Key& k : keys) kv->init(k, on(cpu(0), {0, 0}));
  const std::vector<NDArray> shared{on(cpu(0), {2, 2}), on(cpu(1), {2, 2})};
  kv->pushpull(keys, {shared, shared, shared}, {shared, shared, shared});
  for (const NDArray& a : shared) EXPECT_EQ(values(a), (std::vector<float>{4, 4}));
  // Outputs of their own: one pushpull per key.
  std::vector<std::vector<NDArray>> outs(3, {on(cpu(0), {0, 0})});
  kv->pushpull(keys, {{on(cpu(0), {1, 1})}, {on(cpu(0), {2, 2})}, {on(cpu(0), {3, 3})}}, outs);
  EXPECT_EQ(values(outs[2][0]), (std::vector<float>{3, 3}));
  expect_error([&] { kv->pushpull(keys, {shared}, outs); }, "3 keys but 1 value lists");
}

INSTANTIATE_TEST_SUITE_P(OneMachine, KVStoreTypes, ::testing::Values("local", "device"));

TEST(KVStoreCreate, UnknownTypesAreClearErrors) {
  expect_error([] { create("lokal"); }, "unknown type 'lokal'; valid: local, device, local_update_cpu");
}

TEST(KVStoreCreate, DistributedTypesOutsideAJobSayWhatToSet) {
  ASSERT_EQ(std::getenv("DMLC_ROLE"), nullptr);
  expect_error([] { create("dist_sync"); }, "DMLC_ROLE is not set");
}

}  // namespace
}  // namespace braid::kv
