#pragma once
/// Image transforms (MXNet's gluon.data.vision.transforms). Each is a data::Transform: call it on
/// one image, or give it to Dataset::transform_first. Images are (H, W, C) (batches (N, H, W, C));
/// tensors after ToTensor are (C, H, W) (batches (N, C, H, W)). The deterministic ones also work on
/// a batch, which the DataLoader uses to transform a whole batch with one operation.
/// Random transforms draw from data::random_u64() (reproducible under nd::seed; see random.h).
#include <string>
#include <vector>

#include "braid/base/dtype.h"
#include "braid/gluon/data/transform.h"

namespace braid::gluon::data::vision::transforms {

/// Image or batch, any dtype, values in [0, 255] -> float32 tensor, values / 255 (_image_to_tensor).
class ToTensor : public Transform {
 public:
  ToTensor();
};

/// (x - mean[c]) / std[c] for each channel c of a float tensor (C, H, W) or batch (N, C, H, W);
/// one value serves every channel (_image_normalize).
class Normalize : public Transform {
 public:
  Normalize(std::vector<double> mean = {0.0}, std::vector<double> std = {1.0});
};

/// The same values in another dtype (astype).
class Cast : public Transform {
 public:
  explicit Cast(DType dtype = DType::Float32);
};

/// Flips an image (H, W, C) left to right with probability 0.5 (for a batch: all or none of it).
class RandomFlipLeftRight : public Transform {
 public:
  RandomFlipLeftRight();
};

/// A random window of width x height of an image (H, W, C) or batch (one window for all of it),
/// after padding each side with `pad` pixels of `pad_value` (MXNet 2's RandomCrop(size, pad)):
/// the window's corner is uniform over every position inside the padded image. The padded image
/// must be at least the size of the window (MXNet would resize; Braid refuses).
class RandomCrop : public Transform {
 public:
  /// A square window.
  explicit RandomCrop(int64_t size, int64_t pad = 0, double pad_value = 0);
  /// size = (width, height) as MXNet; pad = (top, bottom, left, right).
  RandomCrop(std::pair<int64_t, int64_t> size, std::vector<int64_t> pad, double pad_value = 0);
};

/// The transforms in order (MXNet's Compose).
class Compose : public Transform {
 public:
  explicit Compose(const std::vector<Transform>& transforms);
};

}  // namespace braid::gluon::data::vision::transforms
