#pragma once
// What braid train reads: Fashion-MNIST or MNIST (the idx files, through a DataLoader), or images
// (an image folder or a .rec file made by braid im2rec, through ImageRecordIter's threads), as
// batches of (N, C, H, W) float32 data and (N,) labels.
#include <memory>
#include <optional>
#include <string>

#include "braid/ndarray/ndarray.h"
#include "commands.h"

namespace braid::cli {

struct LabeledBatch {
  NDArray data, label;
};

class TrainData {
 public:
  virtual ~TrainData() = default;
  /// Images per epoch (a distributed worker's share when training).
  virtual int64_t images() const = 0;
  virtual int64_t batches() const = 0;
  /// Starts epoch `epoch` (1, 2, ...): its order, when shuffling, depends only on the seed and
  /// the epoch, so that a resumed run sees the batches the first run would have.
  virtual void start_epoch(int epoch) = 0;
  /// The epoch's next batch; nullopt after batches() of them.
  virtual std::optional<LabeledBatch> next() = 0;
  /// One image's shape (C, H, W).
  virtual Shape image_shape() const = 0;
  virtual int64_t classes() const = 0;
  /// What is read, for the first line of the output ("fashion-mnist", "images in /data/train").
  virtual std::string describe() const = 0;
};

/// The training data (`train`: shuffled, each of `workers` distributed workers on its own equal
/// share, the last partial batch dropped; with images, random crops and mirrors) or the test data
/// (every image, in order, for every worker).
std::unique_ptr<TrainData> open_train_data(const TrainOptions& o, bool train, int rank = 0, int workers = 1);

/// (C, H, W) for --image-shape's "C,H,W", or for "" the default of `model` (3 x 224 x 224, 3 x 299
/// x 299 for inceptionv3; 1 x 28 x 28 for the small models).
Shape parse_image_shape(const std::string& text, const std::string& model);

}  // namespace braid::cli
