// Batches a DataLoader handed out stay valid and correct when the iterator and the loader are
// dropped mid-epoch, with worker threads still making the batches after them.
#include <gtest/gtest.h>

#include <memory>

#include "braid/gluon/data/dataloader.h"
#include "braid/gluon/data/vision/transforms.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/random.h"
#include "common/drop_then_read.h"
#include "data_test_util.h"

namespace braid::test::gluon_data {
namespace {

using namespace gluon::data;
namespace tf = vision::transforms;

// The first `take` batches of a shuffled, randomly augmented epoch, the loader dropped after them.
std::vector<Batch> first_batches(int workers, int take) {
  NDArray x = nd::arange(0, 64 * 3 * 8 * 8).reshape({64, 8, 8, 3}) * 0.5;
  auto data = std::make_shared<ArrayDataset>(x.astype(DType::Int32).astype(DType::UInt8), nd::arange(0, 64));
  auto ds = data->transform_first(tf::Compose({tf::RandomFlipLeftRight(), tf::ToTensor()}));
  nd::seed(11);
  auto loader = std::make_unique<DataLoader>(
      ds, DataLoaderOptions{.batch_size = 4, .shuffle = true, .num_workers = workers, .prefetch = 8});
  std::vector<Batch> out;
  auto it = std::make_unique<DataLoader::Iterator>(loader->begin());
  for (int k = 0; k < take; ++k, ++*it) out.push_back(**it);
  it.reset();  // workers are still making the batches after these
  loader.reset();
  return out;
}

TEST(DataLoaderLifetime, BatchesOutliveTheLoaderAndItsWorkers) {
  const std::vector<Batch> want = first_batches(0, 3);
  for (int run = 0; run < drop_runs(); ++run) {
    const std::vector<Batch> got = first_batches(2, 3);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) expect_same(got[k], want[k], "run " + std::to_string(run));
  }
}

}  // namespace
}  // namespace braid::test::gluon_data
