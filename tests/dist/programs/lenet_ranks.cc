// A rank of the allreduce training tests (tests/dist/collective_test.cc), under mpirun: LeNet
// trained for a few steps with batch B per rank, through gluon::DistributedTrainer or through a
// Trainer on kv::create("horovod"), must end within 1e-5 of LeNet trained here, alone, with
// batch size() * B on the same rows. Usage: braid_dist_lenet_ranks distributed_trainer|kvstore.
#include <cmath>
#include <cstdio>
#include <string>

#include "braid/autograd/autograd.h"
#include "braid/gluon/distributed_trainer.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/model_zoo/simple.h"
#include "braid/kvstore/collective.h"
#include "braid/kvstore/kvstore.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/random.h"

using namespace braid;

namespace {

constexpr int64_t kBatch = 8;
constexpr int kSteps = 5;

gluon::BlockPtr lenet(uint64_t seed, const NDArray& sample) {
  nd::seed(seed);
  auto net = gluon::model_zoo::get_simple_model("lenet");
  net->initialize(std::make_shared<init::Xavier>());
  (*net)(sample);  // shapes known, weights drawn
  return net;
}

// `steps` SGD steps; step k reads rows [k * rows_per_step + first, + batch) and steps over
// `step_batch` samples.
void train(gluon::Block& net, gluon::Trainer& trainer, const NDArray& x, const NDArray& y, int64_t rows_per_step,
           int64_t first, int64_t batch, int64_t step_batch) {
  gluon::loss::SoftmaxCrossEntropyLoss loss_fn;
  for (int k = 0; k < kSteps; ++k) {
    const int64_t begin = k * rows_per_step + first;
    NDArray xb = x.slice(begin, begin + batch), yb = y.slice(begin, begin + batch);
    NDArray loss;
    {
      autograd::RecordScope record;
      loss = loss_fn(net(xb), yb);
    }
    loss.backward();
    trainer.step(step_batch);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  collective::init();
  const int rank = collective::rank(), size = collective::size();
  nd::seed(99);  // the same data on every rank
  const int64_t rows = kSteps * kBatch * size;
  NDArray x = nd::random_uniform(0, 1, Shape{rows, 1, 28, 28});
  NDArray y = nd::random_uniform(0, 10, Shape{rows}).astype(DType::Int32).astype(DType::Float32);
  const std::map<std::string, std::string> sgd = {{"learning_rate", "0.1"}, {"momentum", "0.9"}};

  // Every rank draws other weights: rank 0's must reach them all.
  auto net = lenet(5 + static_cast<uint64_t>(rank), x.slice(0, 1));
  if (mode == "distributed_trainer") {
    gluon::broadcast_parameters(net->collect_params(), 0);
    gluon::DistributedTrainer trainer(net->collect_params(), "sgd", sgd, 2.0);
    train(*net, trainer, x, y, kBatch * size, kBatch * rank, kBatch, kBatch);  // it averages over the ranks
  } else if (mode == "kvstore") {
    gluon::Trainer trainer(net->collect_params(), "sgd", sgd, kv::create("horovod"));
    trainer.kvstore();  // sets the store up now: its init broadcasts rank 0's weights before the first step
    // The store sums the ranks' gradients: the step covers every rank's batch (as with dist_sync).
    train(*net, trainer, x, y, kBatch * size, kBatch * rank, kBatch, kBatch * size);
  } else {
    std::printf("usage: %s distributed_trainer|kvstore\n", argv[0]);
    return 2;
  }
  auto alone = lenet(5, x.slice(0, 1));
  gluon::Trainer trainer(alone->collect_params(), "sgd", sgd, "None");
  train(*alone, trainer, x, y, kBatch * size, 0, kBatch * size, kBatch * size);

  int failures = 0;
  auto mine = net->collect_params(), want = alone->collect_params();
  auto a = mine.begin(), b = want.begin();
  for (; a != mine.end() && b != want.end(); ++a, ++b) {
    const std::vector<float> got = a->second->data().to_vector<float>(),
                             expected = b->second->data().to_vector<float>();
    for (size_t i = 0; i < got.size(); ++i)
      if (std::abs(got[i] - expected[i]) > 1e-5f * std::max(1.f, std::abs(expected[i]))) {
        std::printf("FAIL rank %d: %s element %zu is %.8g, alone %.8g\n", rank, a->first.c_str(), i, got[i],
                    expected[i]);
        ++failures;
        break;
      }
  }
  std::printf("rank %d of %d (%s): %s\n", rank, size, mode.c_str(), failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
