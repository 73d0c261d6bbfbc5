#pragma once
/// Datasets (MXNet's gluon.data.Dataset, SimpleDataset, ArrayDataset): random access to samples.
/// Datasets are immutable and shared through std::shared_ptr<const Dataset>; get() may be called
/// from several threads at once (the DataLoader's workers), so a user transform must be safe to
/// call concurrently.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "braid/gluon/data/batchify.h"
#include "braid/gluon/data/transform.h"

namespace braid::gluon::data {

class Dataset;
using DatasetPtr = std::shared_ptr<const Dataset>;
/// Transforms a whole sample (MXNet's fn(*sample) of Dataset.transform).
using SampleFn = std::function<Sample(const Sample&)>;

class Dataset : public std::enable_shared_from_this<Dataset> {
 public:
  virtual ~Dataset() = default;

  virtual int64_t size() const = 0;
  /// Sample i, 0 <= i < size(); throws braid::Error naming the index otherwise.
  virtual Sample get(int64_t i) const = 0;
  /// The samples at `indices` as one batch: the same arrays as default_batchify of get(i) for
  /// each index, which is what this does; datasets override it with a faster equivalent.
  virtual Batch get_batch(const std::vector<int64_t>& indices) const;

  /// Each sample replaced by fn(sample): computed on access when lazy, else now, once.
  DatasetPtr transform(SampleFn fn, bool lazy = true) const;
  /// Only the first field of each sample replaced by fn(field) (e.g. the image, not the label).
  DatasetPtr transform_first(Transform fn, bool lazy = true) const;
  /// Part `index` of `num_shards` contiguous parts (MXNet's Dataset.shard): sizes differ by at
  /// most one, the first size() % num_shards parts having one sample more. For distributed
  /// training: shard before shuffling so that each worker reads its own samples.
  DatasetPtr shard(int64_t num_shards, int64_t index) const;
  /// The same as shard (the name the distributed examples use).
  DatasetPtr split(int64_t num_parts, int64_t part_index) const { return shard(num_parts, part_index); }
  /// The first min(count, size()) samples (MXNet's Dataset.take).
  DatasetPtr take(int64_t count) const;
  /// The samples for which keep(sample) is true, in order (MXNet's Dataset.filter); evaluates
  /// keep on every sample now.
  DatasetPtr filter(const std::function<bool(const Sample&)>& keep) const;

 protected:
  /// Throws unless 0 <= i < size().
  void check_index(int64_t i) const;
  /// shared_from_this(), with a clear error when the dataset is not owned by a shared_ptr.
  DatasetPtr self() const;
};

/// A dataset over a list of samples held in memory.
class SimpleDataset : public Dataset {
 public:
  explicit SimpleDataset(std::vector<Sample> samples) : samples_(std::move(samples)) {}
  int64_t size() const override { return static_cast<int64_t>(samples_.size()); }
  Sample get(int64_t i) const override;

 private:
  std::vector<Sample> samples_;
};

/// Sample i is {arrays[0].at(i), arrays[1].at(i), ...}: views sharing the arrays' memory (a 1-D
/// array gives 0-d fields). All arrays must have the same length along axis 0. A batch is one
/// gather per array.
class ArrayDataset : public Dataset {
 public:
  explicit ArrayDataset(std::vector<NDArray> arrays);
  template <class... A>
  explicit ArrayDataset(const NDArray& first, const A&... rest) : ArrayDataset(std::vector<NDArray>{first, rest...}) {}

  int64_t size() const override { return length_; }
  Sample get(int64_t i) const override;
  Batch get_batch(const std::vector<int64_t>& indices) const override;
  const std::vector<NDArray>& arrays() const { return arrays_; }

 private:
  std::vector<NDArray> arrays_;
  int64_t length_ = 0;
};

}  // namespace braid::gluon::data
