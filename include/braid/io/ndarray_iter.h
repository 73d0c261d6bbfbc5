#pragma once
/// NDArrayIter (MXNet's mx.io.NDArrayIter): batches over arrays held in memory. Every data and
/// label array has the samples along axis 0, all with the same count N; a batch holds rows
/// (batch_size, rest...) of each, in the order given.
///
///   io::NDArrayIter it(x, y, /*batch_size=*/32, /*shuffle=*/true);   // names "data", "softmax_label"
///   while (auto b = it.next()) { ... b->data[0], b->label[0], b->pad, b->index ... }
///   it.reset();
///
/// The iterator keeps handles to the arrays (not copies). A batch of consecutive samples is a
/// view of the inputs, any other a new array: treat batches as read-only. `index` lists the
/// sample of every row (0-based positions along axis 0).
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "braid/io/data_iter.h"

namespace braid::io {

/// What happens to the last N mod batch_size samples of an epoch (MXNet's last_batch_handle).
enum class LastBatchHandle {
  /// A full batch anyway: filled up by wrapping around to the start of the epoch's order;
  /// DataBatch::pad counts the filler rows.
  Pad,
  /// Dropped.
  Discard,
  /// Not yielded in this epoch; after reset() they open the first batch of the next one.
  RollOver,
};

/// "pad", "discard" or "roll_over" (MXNet's spelling); anything else is an error.
LastBatchHandle parse_last_batch_handle(const std::string& name);

/// (name, array) pairs in provide_data / provide_label order.
using NamedInputs = std::vector<std::pair<std::string, NDArray>>;

class NDArrayIter : public DataIter {
 public:
  /// The shuffle seed used when none is given: shuffled runs are reproducible by default.
  static constexpr uint64_t kDefaultSeed = 0;

  /// `label` may be empty (no labels). With shuffle, the samples are put in a new random order at
  /// construction and at every reset() (a generator seeded once with `seed`). batch_size may
  /// exceed N except with Discard (which would never yield a batch).
  NDArrayIter(NamedInputs data, NamedInputs label, int64_t batch_size, bool shuffle = false,
              LastBatchHandle last_batch_handle = LastBatchHandle::Pad, uint64_t seed = kDefaultSeed);
  /// One data array named `data_name` and, unless `label` is None, one label array.
  explicit NDArrayIter(NDArray data, NDArray label = NDArray(), int64_t batch_size = 1, bool shuffle = false,
                       LastBatchHandle last_batch_handle = LastBatchHandle::Pad, uint64_t seed = kDefaultSeed,
                       const std::string& data_name = "data", const std::string& label_name = "softmax_label");

  std::optional<DataBatch> next() override;
  void reset() override;
  std::vector<DataDesc> provide_data() const override { return describe(data_); }
  std::vector<DataDesc> provide_label() const override { return describe(label_); }
  int64_t batch_size() const override { return batch_size_; }
  /// Samples per epoch (N).
  int64_t num_data() const { return num_data_; }
  /// This epoch's pass over the N samples (shuffled or not; MXNet's NDArrayIter.idx).
  std::vector<int64_t> idx() const {
    return std::vector<int64_t>(order_.end() - static_cast<std::ptrdiff_t>(num_data_), order_.end());
  }

 private:
  std::vector<DataDesc> describe(const NamedInputs& arrays) const;
  void new_order();

  NamedInputs data_, label_;
  int64_t num_data_ = 0;
  int64_t batch_size_ = 0;
  bool shuffle_ = false;
  LastBatchHandle last_batch_handle_ = LastBatchHandle::Pad;
  std::mt19937_64 rng_;
  std::vector<int64_t> order_;    // this epoch's samples: those rolled over, then a pass over all N
  size_t cursor_ = 0;             // the next position in order_
  std::vector<int64_t> carried_;  // RollOver: the leftovers of the epoch that just ended
};

}  // namespace braid::io
