// Data parallelism in Gluon, as MXNet's tutorials write it: LeNet with its parameters on cpu(0)
// and cpu(1), each batch of 2B split by split_and_load, the Trainer summing over a KVStore,
// trains like the same LeNet on cpu(0) with the whole batch (1e-5 after a few steps).
#include <gtest/gtest.h>

#include "braid/autograd/autograd.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/model_zoo/simple.h"
#include "braid/gluon/trainer.h"
#include "braid/gluon/utils.h"
#include "braid/init/init.h"
#include "braid/ndarray/random.h"

namespace braid::gluon {
namespace {

std::vector<float> train_lenet(const std::vector<Context>& contexts, const std::string& kvstore) {
  nd::seed(5);
  auto net = model_zoo::get_simple_model("lenet");
  net->initialize(std::make_shared<init::Xavier>(), contexts);
  Trainer trainer(net->collect_params(), "sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}}, kvstore);
  loss::SoftmaxCrossEntropyLoss loss_fn;
  for (int step = 0; step < 3; ++step) {
    NDArray x = nd::random_uniform(0, 1, Shape{16, 1, 28, 28});
    NDArray y = nd::random_randint(0, 10, Shape{16}).astype(DType::Float32);
    auto xs = utils::split_and_load(x, contexts), ys = utils::split_and_load(y, contexts);
    std::vector<NDArray> losses;
    {
      autograd::RecordScope record;
      for (size_t c = 0; c < contexts.size(); ++c) losses.push_back(loss_fn((*net)(xs[c]), ys[c]));
    }
    autograd::backward(losses);
    trainer.step(16);
  }
  std::vector<float> weights;
  for (const auto& [name, p] : net->collect_params())
    for (Context c : contexts) {
      auto w = p->data(c).to_vector<float>();
      if (c == contexts[0])
        weights.insert(weights.end(), w.begin(), w.end());
      else
        EXPECT_EQ(w, p->data(contexts[0]).to_vector<float>()) << name << " differs on " << c;
    }
  return weights;
}

TEST(DataParallel, LenetOnTwoContextsTrainsLikeOne) {
  const auto one = train_lenet({cpu(0)}, "device");
  for (const std::string kvstore : {"device", "local"}) {
    const auto two = train_lenet({cpu(0), cpu(1)}, kvstore);
    ASSERT_EQ(two.size(), one.size());
    for (size_t i = 0; i < one.size(); ++i) ASSERT_NEAR(two[i], one[i], 1e-5) << kvstore << " weight " << i;
  }
}

}  // namespace
}  // namespace braid::gluon
