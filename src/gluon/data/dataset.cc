// Dataset's shared methods, SimpleDataset and ArrayDataset. The datasets that transform or
// select another dataset's samples are in derived_datasets.cc.
#include "braid/gluon/data/dataset.h"

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/indexing.h"
#include "derived_datasets.h"

namespace braid::gluon::data {

void Dataset::check_index(int64_t i) const {
  BRAID_CHECK(i >= 0 && i < size(), "dataset index ", i, " is out of range for a dataset of ", size(),
              " samples (valid: 0 to ", size() - 1, ")");
}

Batch Dataset::get_batch(const std::vector<int64_t>& indices) const {
  std::vector<Sample> samples;
  samples.reserve(indices.size());
  for (int64_t i : indices) samples.push_back(get(i));
  return default_batchify(samples);
}

DatasetPtr Dataset::self() const {
  try {
    return shared_from_this();
  } catch (const std::bad_weak_ptr&) {
    throw Error(
        "a dataset's transform, shard, take or filter needs the dataset to be owned by a "
        "std::shared_ptr; create it with std::make_shared<...>(...)");
  }
}

DatasetPtr Dataset::transform(SampleFn fn, bool lazy) const {
  BRAID_CHECK(fn, "Dataset::transform: the function is empty");
  auto t = std::make_shared<detail::TransformedDataset>(self(), std::move(fn));
  return lazy ? DatasetPtr(t) : detail::materialize(*t);
}

DatasetPtr Dataset::transform_first(Transform fn, bool lazy) const {
  auto t = std::make_shared<detail::FirstTransformedDataset>(self(), std::move(fn));
  return lazy ? DatasetPtr(t) : detail::materialize(*t);
}

DatasetPtr Dataset::shard(int64_t num_shards, int64_t index) const {
  BRAID_CHECK(num_shards > 0, "Dataset::shard: num_shards must be positive, got ", num_shards);
  BRAID_CHECK(index >= 0 && index < num_shards, "Dataset::shard: index ", index, " is out of range for ", num_shards,
              " shards (valid: 0 to ", num_shards - 1, ")");
  const int64_t length = size(), base = length / num_shards, rest = length % num_shards;
  const int64_t start = base * index + std::min(index, rest);
  const int64_t count = base + (index < rest ? 1 : 0);
  return std::make_shared<detail::IndexedDataset>(self(), detail::iota(start, count));
}

DatasetPtr Dataset::take(int64_t count) const {
  BRAID_CHECK(count >= 0, "Dataset::take: count must be >= 0, got ", count);
  return std::make_shared<detail::IndexedDataset>(self(), detail::iota(0, std::min(count, size())));
}

DatasetPtr Dataset::filter(const std::function<bool(const Sample&)>& keep) const {
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < size(); ++i)
    if (keep(get(i))) kept.push_back(i);
  return std::make_shared<detail::IndexedDataset>(self(), std::move(kept));
}

Sample SimpleDataset::get(int64_t i) const {
  check_index(i);
  return samples_[static_cast<size_t>(i)];
}

ArrayDataset::ArrayDataset(std::vector<NDArray> arrays) : arrays_(std::move(arrays)) {
  BRAID_CHECK(!arrays_.empty(), "ArrayDataset needs at least one array");
  for (size_t k = 0; k < arrays_.size(); ++k) {
    const NDArray& a = arrays_[k];
    BRAID_CHECK(!a.is_none() && a.ndim() >= 1, "ArrayDataset: array ", k, " has shape ",
                a.is_none() ? Shape() : a.shape(), "; every array needs an axis 0 to index samples along");
    if (k == 0) length_ = a.shape()[0];
    BRAID_CHECK(a.shape()[0] == length_, "ArrayDataset: all arrays must have the same length; array 0 has ", length_,
                " samples while array ", k, " (shape ", a.shape(), ") has ", a.shape()[0]);
  }
}

Sample ArrayDataset::get(int64_t i) const {
  check_index(i);
  Sample s;
  s.reserve(arrays_.size());
  for (const auto& a : arrays_) s.push_back(a.at(i));
  return s;
}

Batch ArrayDataset::get_batch(const std::vector<int64_t>& indices) const {
  BRAID_CHECK(!indices.empty(), "ArrayDataset::get_batch: no indices");
  for (int64_t i : indices) check_index(i);
  NDArray idx = nd::array(indices, Shape({static_cast<int64_t>(indices.size())}), cpu(), DType::Int64);
  Batch b;
  b.reserve(arrays_.size());
  for (const auto& a : arrays_) b.push_back(nd::take(a, idx.as_in_context(a.ctx()), 0));
  return b;
}

}  // namespace braid::gluon::data
