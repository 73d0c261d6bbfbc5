#pragma once
/// DataLoader (MXNet's gluon.data.DataLoader): iterates over a dataset in batches.
///
///   DataLoader loader(train, {.batch_size = 64, .shuffle = true, .num_workers = 2});
///   for (const Batch& b : loader) { NDArray x = b[0], y = b[1]; ... }
///
/// Each begin() starts a new epoch (a new shuffle; rollover leftovers carried). With
/// num_workers = 0 each batch is made in the calling thread when the iterator reaches it; its
/// arrays are computed asynchronously by the engine. With num_workers > 0 that many threads make
/// batches ahead, at most `prefetch` beyond the one the consumer holds, and hand them over in
/// order, computed; an exception raised while making batch k (or computing its arrays) is thrown
/// by the iterator step that reaches batch k. Destroying the iterator mid-epoch stops and joins
/// its threads. Batches are identical for any num_workers, random transforms included, as long
/// as they draw from data::random_u64() (see random.h), as Braid's transforms do; nd::random_*
/// operations draw in push order, which depends on the threads.
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>

#include "braid/gluon/data/batchify.h"
#include "braid/gluon/data/dataset.h"
#include "braid/gluon/data/sampler.h"

namespace braid::gluon::data {

struct DataLoaderOptions {
  /// Required unless batch_sampler is given.
  int64_t batch_size = 0;
  /// Visit samples in a new random order every epoch (RandomSampler); not with `sampler`.
  bool shuffle = false;
  /// Default keep; not with batch_sampler.
  std::optional<LastBatch> last_batch{};
  /// Custom sample order (then batch_size and last_batch group it).
  std::shared_ptr<Sampler> sampler{};
  /// Custom batches; excludes batch_size, shuffle, sampler and last_batch.
  std::shared_ptr<BatchSampler> batch_sampler{};
  /// Joins samples into a batch; empty means default_batchify (which lets the dataset make the
  /// whole batch at once: Dataset::get_batch). Called from the worker threads when there are any.
  BatchifyFn batchify_fn{};
  /// Worker threads making batches ahead; 0 makes them in the consumer's thread.
  int num_workers = 0;
  /// Batches made ahead with workers; default 2 * num_workers (at least 1).
  std::optional<int> prefetch{};
};

class DataLoader {
 public:
  class Iterator;
  struct Epoch;  // internal: one pass, with its worker threads

  DataLoader(DatasetPtr dataset, DataLoaderOptions options);
  DataLoader(DatasetPtr dataset, int64_t batch_size, bool shuffle = false)
      : DataLoader(std::move(dataset), DataLoaderOptions{.batch_size = batch_size, .shuffle = shuffle}) {}

  /// Starts an epoch; makes (or waits for) its first batch.
  Iterator begin();
  std::default_sentinel_t end() const { return {}; }
  /// Batches per epoch (the batch sampler's size()).
  int64_t size() const { return batch_sampler_->size(); }
  const DatasetPtr& dataset() const { return dataset_; }

 private:
  DatasetPtr dataset_;
  std::shared_ptr<BatchSampler> batch_sampler_;
  BatchifyFn batchify_;
  int num_workers_ = 0;
  int prefetch_ = 0;
};

/// An input iterator over the batches of one epoch (move-only: one consumer per epoch).
class DataLoader::Iterator {
 public:
  using value_type = Batch;
  using difference_type = std::ptrdiff_t;

  Iterator() = default;
  Iterator(Iterator&&) noexcept = default;
  Iterator& operator=(Iterator&&) noexcept = default;
  Iterator(const Iterator&) = delete;
  Iterator& operator=(const Iterator&) = delete;
  ~Iterator();
  const Batch& operator*() const { return current_; }
  const Batch* operator->() const { return &current_; }
  /// Moves to the next batch (waiting for it); throws the error of making it.
  Iterator& operator++();
  void operator++(int) { ++*this; }
  bool operator==(std::default_sentinel_t) const;
  /// Index of the current batch in the epoch.
  int64_t index() const { return index_; }

 private:
  friend class DataLoader;
  explicit Iterator(std::shared_ptr<Epoch> epoch);
  void load();

  std::shared_ptr<Epoch> epoch_;
  int64_t index_ = 0;
  Batch current_;
};

}  // namespace braid::gluon::data
