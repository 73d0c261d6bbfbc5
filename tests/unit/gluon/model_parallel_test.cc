// Model parallelism in Gluon: a Sequential whose convolutional stage lives on cpu(0) and whose
// dense stage lives on cpu(1) trains like its twin on one context, gradients flowing back across
// the copy; splitting the batch into micro-batches (which the engine pipelines over the two
// contexts) gives the same update as the whole batch.
#include <gtest/gtest.h>

#include "braid/autograd/autograd.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/nn.h"
#include "braid/gluon/trainer.h"
#include "braid/gluon/utils.h"
#include "braid/init/init.h"
#include "braid/ndarray/random.h"

namespace braid::gluon {
namespace {

struct TwoStages {
  std::shared_ptr<nn::Sequential> net = std::make_shared<nn::Sequential>();
  std::shared_ptr<nn::HybridSequential> features, classifier;

  TwoStages(Context first, Context second) {
    auto scope = net->name_scope();
    features = std::make_shared<nn::HybridSequential>();
    features->add(std::make_shared<nn::Conv2D>(6, 3, nn::ConvOptions{.activation = "relu"}));
    features->add(std::make_shared<nn::MaxPool2D>(2));
    classifier = std::make_shared<nn::HybridSequential>();
    classifier->add(std::make_shared<nn::Dense>(16, "relu"));
    classifier->add(std::make_shared<nn::Dense>(4));
    net->add(features);
    net->add(classifier);
    nd::seed(9);
    features->initialize(std::make_shared<init::Xavier>(), {first});
    classifier->initialize(std::make_shared<init::Xavier>(), {second});
  }
};

// Three SGD steps on fixed data, each batch of 12 run as `micro` micro-batches.
std::vector<float> train(Context first, Context second, int micro) {
  TwoStages m(first, second);
  Trainer trainer(m.net->collect_params(), "sgd", {{"learning_rate", "0.1"}, {"momentum", "0.9"}});
  loss::SoftmaxCrossEntropyLoss loss_fn;
  nd::seed(4);
  for (int step = 0; step < 3; ++step) {
    NDArray x = nd::random_uniform(0, 1, Shape{12, 1, 10, 10}, first);
    NDArray y = nd::random_randint(0, 4, Shape{12}, first).astype(DType::Float32);
    auto xs = utils::split_data(x, micro), ys = utils::split_data(y, micro);
    std::vector<NDArray> losses;
    {
      autograd::RecordScope record;
      for (int k = 0; k < micro; ++k) {
        NDArray out = (*m.net)(xs[static_cast<size_t>(k)]);
        EXPECT_EQ(out.ctx(), second);
        losses.push_back(loss_fn(out, ys[static_cast<size_t>(k)].as_in_context(second)));
      }
    }
    autograd::backward(losses);
    trainer.step(12);
  }
  std::vector<float> weights;
  for (const auto& [name, p] : m.net->collect_params()) {
    auto w = p->data().to_vector<float>();
    weights.insert(weights.end(), w.begin(), w.end());
  }
  EXPECT_EQ(m.classifier->collect_params().begin()->second->list_ctx(), std::vector<Context>{second});
  return weights;
}

TEST(ModelParallel, TwoStagesOnTwoContextsTrainLikeTheirTwin) {
  const auto twin = train(cpu(0), cpu(0), 1);
  for (int micro : {1, 3}) {
    const auto split = train(cpu(0), cpu(1), micro);
    ASSERT_EQ(split.size(), twin.size());
    for (size_t i = 0; i < twin.size(); ++i)
      ASSERT_NEAR(split[i], twin[i], 1e-5) << "micro-batches " << micro << " weight " << i;
  }
}

}  // namespace
}  // namespace braid::gluon
