#include "braid/io/ndarray_iter.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "braid/base/error.h"
#include "gather_rows.h"

namespace braid::io {
namespace {

// Checks the arrays of one kind ("data" or "label") and returns their common sample count, or
// `n` when there are none.
int64_t check_inputs(const NamedInputs& arrays, const char* kind, int64_t n, const std::string& first_name) {
  for (const auto& [name, a] : arrays) {
    BRAID_CHECK(!a.is_none(), "NDArrayIter: ", kind, " array '", name, "' is None; pass an array or leave it out");
    BRAID_CHECK(a.ndim() >= 1, "NDArrayIter: ", kind, " array '", name,
                "' is a scalar; the samples must lie along axis 0 (reshape it to (N, ...))");
    if (n < 0) {
      n = a.shape()[0];
    } else {
      BRAID_CHECK(a.shape()[0] == n, "NDArrayIter: ", kind, " array '", name, "' has ", a.shape()[0],
                  " samples (axis 0 of ", a.shape(), ") but '", first_name, "' has ", n,
                  "; every data and label array must hold the same number of samples");
    }
  }
  return n;
}

}  // namespace

LastBatchHandle parse_last_batch_handle(const std::string& name) {
  if (name == "pad") return LastBatchHandle::Pad;
  if (name == "discard") return LastBatchHandle::Discard;
  if (name == "roll_over") return LastBatchHandle::RollOver;
  throw Error(cat("last_batch_handle '", name, "' is not one of 'pad', 'discard', 'roll_over'"));
}

NDArrayIter::NDArrayIter(NamedInputs data, NamedInputs label, int64_t batch_size, bool shuffle,
                         LastBatchHandle last_batch_handle, uint64_t seed)
    : data_(std::move(data)),
      label_(std::move(label)),
      batch_size_(batch_size),
      shuffle_(shuffle),
      last_batch_handle_(last_batch_handle),
      rng_(seed) {
  BRAID_CHECK(!data_.empty(), "NDArrayIter: no data arrays given; pass at least one (name, array) pair");
  BRAID_CHECK(batch_size_ > 0, "NDArrayIter: batch_size must be positive, got ", batch_size_);
  std::set<std::string> names;
  for (const auto* list : {&data_, &label_})
    for (const auto& entry : *list)
      BRAID_CHECK(names.insert(entry.first).second, "NDArrayIter: the name '", entry.first,
                  "' is given twice; data and label names must be distinct");
  num_data_ = check_inputs(data_, "data", -1, data_.front().first);
  check_inputs(label_, "label", num_data_, data_.front().first);
  BRAID_CHECK(num_data_ > 0, "NDArrayIter: the arrays hold no samples (axis 0 of '", data_.front().first, "' is 0)");
  BRAID_CHECK(last_batch_handle_ != LastBatchHandle::Discard || batch_size_ <= num_data_, "NDArrayIter: batch_size ",
              batch_size_, " exceeds the ", num_data_,
              " samples, so last_batch_handle='discard' would never yield a batch; use a batch_size of at most ",
              num_data_, " or 'pad'");
  new_order();
}

NDArrayIter::NDArrayIter(NDArray data, NDArray label, int64_t batch_size, bool shuffle,
                         LastBatchHandle last_batch_handle, uint64_t seed, const std::string& data_name,
                         const std::string& label_name)
    : NDArrayIter(NamedInputs{{data_name, std::move(data)}},
                  label.is_none() ? NamedInputs{} : NamedInputs{{label_name, std::move(label)}}, batch_size, shuffle,
                  last_batch_handle, seed) {}

void NDArrayIter::new_order() {
  order_ = std::move(carried_);
  carried_.clear();
  const size_t start = order_.size();
  order_.resize(start + static_cast<size_t>(num_data_));
  std::iota(order_.begin() + static_cast<std::ptrdiff_t>(start), order_.end(), int64_t{0});
  if (shuffle_) std::shuffle(order_.begin() + static_cast<std::ptrdiff_t>(start), order_.end(), rng_);
  cursor_ = 0;
}

void NDArrayIter::reset() { new_order(); }

std::optional<DataBatch> NDArrayIter::next() {
  if (cursor_ >= order_.size()) return std::nullopt;
  const size_t bs = static_cast<size_t>(batch_size_);
  const size_t left = order_.size() - cursor_;
  DataBatch batch;
  auto first = order_.begin() + static_cast<std::ptrdiff_t>(cursor_);
  if (left >= bs) {
    batch.index.assign(first, first + static_cast<std::ptrdiff_t>(bs));
    cursor_ += bs;
  } else {
    cursor_ = order_.size();
    switch (last_batch_handle_) {
      case LastBatchHandle::Discard:
        return std::nullopt;
      case LastBatchHandle::RollOver:
        carried_.assign(first, order_.end());
        return std::nullopt;
      case LastBatchHandle::Pad:
        batch.index.assign(first, order_.end());
        for (size_t k = 0; batch.index.size() < bs; ++k) batch.index.push_back(order_[k % order_.size()]);
        batch.pad = static_cast<int>(bs - left);
        break;
    }
  }
  for (const auto& entry : data_) batch.data.push_back(detail::gather_rows(entry.second, batch.index));
  for (const auto& entry : label_) batch.label.push_back(detail::gather_rows(entry.second, batch.index));
  return batch;
}

std::vector<DataDesc> NDArrayIter::describe(const NamedInputs& arrays) const {
  std::vector<DataDesc> out;
  for (const auto& [name, a] : arrays) {
    std::vector<int64_t> dims = a.shape().dims();
    dims[0] = batch_size_;
    out.push_back(DataDesc{name, Shape(std::move(dims)), a.dtype()});
  }
  return out;
}

}  // namespace braid::io
