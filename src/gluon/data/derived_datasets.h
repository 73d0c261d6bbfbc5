#pragma once
// Internal: datasets made from another one by Dataset::transform, transform_first, shard, take and
// filter. Each forwards get_batch to its source where the result is the same, so that batches
// stay one gather (plus one batched transform) when they can.
#include <vector>

#include "braid/gluon/data/dataset.h"

namespace braid::gluon::data::detail {

/// fn(sample) of each source sample.
class TransformedDataset : public Dataset {
 public:
  TransformedDataset(DatasetPtr source, SampleFn fn) : source_(std::move(source)), fn_(std::move(fn)) {}
  int64_t size() const override { return source_->size(); }
  Sample get(int64_t i) const override { return fn_(source_->get(i)); }

 private:
  DatasetPtr source_;
  SampleFn fn_;
};

/// Each source sample with its first field transformed. A batch is made as the source's batch
/// with the batched form of the transform's trailing stages (see Transform::split_batchable).
class FirstTransformedDataset : public Dataset {
 public:
  FirstTransformedDataset(DatasetPtr source, Transform fn);
  int64_t size() const override { return source_->size(); }
  Sample get(int64_t i) const override;
  Batch get_batch(const std::vector<int64_t>& indices) const override;

 private:
  DatasetPtr source_;
  Transform fn_, per_sample_, per_batch_;  // fn_ == per_batch_ after per_sample_
};

/// Source samples indices[0], indices[1], ...
class IndexedDataset : public Dataset {
 public:
  IndexedDataset(DatasetPtr source, std::vector<int64_t> indices)
      : source_(std::move(source)), indices_(std::move(indices)) {}
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  Sample get(int64_t i) const override;
  Batch get_batch(const std::vector<int64_t>& indices) const override;

 private:
  DatasetPtr source_;
  std::vector<int64_t> indices_;
};

/// start, start + 1, ..., start + count - 1.
std::vector<int64_t> iota(int64_t start, int64_t count);
/// Every sample of `d`, computed now (transform with lazy = false).
DatasetPtr materialize(const Dataset& d);

}  // namespace braid::gluon::data::detail
