#include "braid/gluon/trainer.h"

#include <gtest/gtest.h>

#include <optional>

#include <filesystem>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/gluon/nn/dense.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/reduce.h"

namespace braid::gluon {
namespace {

using V = std::vector<float>;

/// y = sum(x W^T + b) over a batch of two rows; dL/dW = column sums of x, dL/db = 2.
NDArray loss_of(nn::Dense& d, const NDArray& x) {
  autograd::RecordScope rec;
  return nd::sum(d(x));
}

std::shared_ptr<nn::Dense> unit_dense(std::vector<Context> ctx = {cpu()}) {
  auto d = std::make_shared<nn::Dense>(1, nn::DenseOptions{.in_units = 2});
  d->initialize(nullptr, ctx);
  d->weight()->set_data(nd::array({1, 1}, Shape({1, 2})));
  return d;
}

TEST(Trainer, SgdStepDividesByTheBatchSize) {
  auto d = unit_dense();
  Trainer trainer(d->collect_params(), "sgd", {{"learning_rate", "0.1"}});
  NDArray x = nd::array({1, 2, 3, 4}, Shape({2, 2}));
  loss_of(*d, x).backward();
  trainer.step(2);
  // w -= 0.1 * [4, 6] / 2 ; b -= 0.1 * 2 / 2
  auto w = d->weight()->data().to_vector<float>();
  EXPECT_NEAR(w[0], 0.8f, 1e-6);
  EXPECT_NEAR(w[1], 0.7f, 1e-6);
  EXPECT_NEAR(d->bias()->data().to_vector<float>()[0], -0.1f, 1e-6);
  EXPECT_DOUBLE_EQ(trainer.learning_rate(), 0.1);
  trainer.set_learning_rate(0.5);
  EXPECT_DOUBLE_EQ(trainer.learning_rate(), 0.5);
}

TEST(Trainer, RescaleGradAndLrMultApply) {
  auto d = unit_dense();
  d->weight()->lr_mult = 2.0;
  Trainer trainer(d->collect_params(), "sgd", {{"learning_rate", "0.1"}, {"rescale_grad", "0.5"}});
  loss_of(*d, nd::array({1, 2, 3, 4}, Shape({2, 2}))).backward();
  trainer.step(1);
  // w -= (0.1 * 2) * 0.5 * [4, 6]
  auto w = d->weight()->data().to_vector<float>();
  EXPECT_NEAR(w[0], 1 - 0.4f, 1e-6);
  EXPECT_NEAR(w[1], 1 - 0.6f, 1e-6);
}

TEST(Trainer, StaleGradientIsAnErrorUnlessIgnored) {
  auto used = unit_dense(), unused = unit_dense();
  ParameterDict all;
  all.update(used->collect_params());
  all.update(unused->collect_params());
  Trainer trainer(all, "sgd", {{"learning_rate", "0.1"}});
  loss_of(*used, nd::ones(Shape({2, 2}))).backward();
  try {
    trainer.step(1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(unused->weight()->name()), std::string::npos) << e.what();
  }
  loss_of(*used, nd::ones(Shape({2, 2}))).backward();
  trainer.step(1, /*ignore_stale_grad=*/true);
  EXPECT_EQ(unused->weight()->data().to_vector<float>(), (V{1, 1}));
}

// Every way to sum over contexts: through a "device" or "local" store (updating on the store or
// on the contexts), a store object, or no store (a local sum).
TEST(Trainer, ContextsGetTheSummedGradientAndStayEqual) {
  struct Way {
    KVStoreChoice kvstore;
    std::optional<bool> update_on_kvstore;
    std::string store_type;  // "" for none
    bool updates_on_store;
  };
  const std::vector<Way> ways = {{"device", std::nullopt, "device", true},   {"device", false, "device", false},
                                 {"local", std::nullopt, "local", true},     {"local", false, "local", false},
                                 {kv::create("local"), true, "local", true}, {"None", std::nullopt, "", false}};
  for (const auto& way : ways) {
    auto d = unit_dense({cpu(0), cpu(1)});
    Trainer trainer(d->collect_params(), "sgd", {{"learning_rate", "0.1"}}, way.kvstore, way.update_on_kvstore);
    const std::string what = way.store_type + (way.updates_on_store ? " updating" : "");
    ASSERT_EQ(trainer.kvstore() ? trainer.kvstore()->type() : "", way.store_type) << what;
    EXPECT_EQ(trainer.update_on_kvstore(), way.updates_on_store) << what;
    for (int step = 0; step < 2; ++step) {
      NDArray x0 = nd::array({1, 2}, Shape({1, 2}), cpu(0)), x1 = nd::array({3, 4}, Shape({1, 2}), cpu(1));
      NDArray l0, l1;
      {
        autograd::RecordScope rec;
        l0 = nd::sum((*d)(x0));
        l1 = nd::sum((*d)(x1));
      }
      l0.backward();
      l1.backward();
      trainer.step(2);
    }
    // Each step: w -= 0.1 * (x0 + x1) / 2 = (0.2, 0.3).
    for (Context c : {cpu(0), cpu(1)}) {
      auto w = d->weight()->data(c).to_vector<float>();
      EXPECT_NEAR(w[0], 0.6f, 1e-6) << what << " " << c;
      EXPECT_NEAR(w[1], 0.4f, 1e-6) << what << " " << c;
    }
    if (way.updates_on_store) {
      EXPECT_THROW(trainer.allreduce_grads(), Error) << what;
      EXPECT_THROW(trainer.update(2), Error) << what;
    }
  }
  // One context: no store, whatever the name.
  auto single = unit_dense();
  Trainer trainer(single->collect_params(), "sgd", {{"learning_rate", "0.1"}}, "device");
  EXPECT_EQ(trainer.kvstore(), nullptr);
  EXPECT_FALSE(trainer.update_on_kvstore());
}

TEST(Trainer, SavedStatesResumeIdentically) {
  auto path = std::filesystem::temp_directory_path() / "braid_trainer_states.bin";
  auto run = [&](bool reload) {
    auto d = unit_dense();
    Trainer t(d->collect_params(), "adam", {{"learning_rate", "0.01"}});
    for (int i = 0; i < 3; ++i) {
      if (i == 2 && reload) {
        t.save_states(path.string());
        Trainer t2(d->collect_params(), "adam", {{"learning_rate", "0.01"}});
        t2.load_states(path.string());
        loss_of(*d, nd::ones(Shape({2, 2}))).backward();
        t2.step(2);
        return d->weight()->data().to_vector<float>();
      }
      loss_of(*d, nd::ones(Shape({2, 2}))).backward();
      t.step(2);
    }
    return d->weight()->data().to_vector<float>();
  };
  EXPECT_EQ(run(false), run(true));
  std::filesystem::remove(path);
}

TEST(Trainer, UnknownOptimizerNamesTheValidOnes) {
  auto d = unit_dense();
  try {
    Trainer t(d->collect_params(), "sgdd");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sgd"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace braid::gluon
