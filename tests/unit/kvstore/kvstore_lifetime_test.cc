// What a one-machine KVStore hands out (pulled sums, updated weights) stays valid and correct when
// the store is destroyed with its reductions and updates still queued.
#include <gtest/gtest.h>

#include "braid/kvstore/kvstore.h"
#include "braid/optim/optimizer.h"
#include "common/drop_then_read.h"
#include "common/face_like_net.h"

namespace braid::kv {
namespace {

class KVStoreLifetime : public ::testing::TestWithParam<std::tuple<std::string, int64_t>> {};

// Pushed from cpu(0) and cpu(1), pulled to both; big values are summed in shards over the contexts.
TEST_P(KVStoreLifetime, PulledValuesOutliveTheStore) {
  // Named copies: lambdas capture them (clang 14 cannot capture structured bindings).
  const std::string type = std::get<0>(GetParam());
  const int64_t size = std::get<1>(GetParam());
  for (bool with_optimizer : {false, true}) {
    SCOPED_TRACE(with_optimizer ? "optimizer" : "sum");
    test::expect_results_outlive_producer(
        [type, with_optimizer](const NDArray& grad) {
          auto kv = create(type);
          if (with_optimizer) kv->set_optimizer(optim::create("sgd", {{"learning_rate", "0.5"}, {"momentum", "0.9"}}));
          kv->init(7, test::face_random(grad.shape(), 5, -1, 1));
          std::vector<NDArray> out = {NDArray(grad.shape(), cpu(0)), NDArray(grad.shape(), cpu(1))};
          for (int step = 0; step < 2; ++step) {
            kv->push(7, {grad, grad.copyto(cpu(1))});
            kv->pull(7, out);
          }
          return test::Produced{out, kv};
        },
        [size] { return test::face_random(Shape{size}, 9, -1, 1); });
  }
}

INSTANTIATE_TEST_SUITE_P(SmallAndSharded, KVStoreLifetime,
                         ::testing::Combine(::testing::Values("local", "device"),
                                            ::testing::Values(int64_t{1000}, int64_t{1} << 19)));

}  // namespace
}  // namespace braid::kv
