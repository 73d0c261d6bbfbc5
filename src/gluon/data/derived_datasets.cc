#include "derived_datasets.h"

#include <numeric>

#include "braid/base/error.h"

namespace braid::gluon::data::detail {

FirstTransformedDataset::FirstTransformedDataset(DatasetPtr source, Transform fn)
    : source_(std::move(source)), fn_(std::move(fn)) {
  std::tie(per_sample_, per_batch_) = fn_.split_batchable();
}

Sample FirstTransformedDataset::get(int64_t i) const {
  Sample s = source_->get(i);
  BRAID_CHECK(!s.empty(), "transform_first: sample ", i, " has no fields");
  s[0] = fn_(s[0]);
  return s;
}

Batch FirstTransformedDataset::get_batch(const std::vector<int64_t>& indices) const {
  if (per_batch_.empty() && !per_sample_.empty()) return Dataset::get_batch(indices);
  Batch b;
  if (per_sample_.empty()) {
    b = source_->get_batch(indices);
  } else {
    std::vector<Sample> samples;
    samples.reserve(indices.size());
    for (int64_t i : indices) {
      samples.push_back(source_->get(i));
      BRAID_CHECK(!samples.back().empty(), "transform_first: sample ", i, " has no fields");
      samples.back()[0] = per_sample_(samples.back()[0]);
    }
    b = default_batchify(samples);
  }
  b[0] = per_batch_.batch(b[0]);
  return b;
}

Sample IndexedDataset::get(int64_t i) const {
  check_index(i);
  return source_->get(indices_[static_cast<size_t>(i)]);
}

Batch IndexedDataset::get_batch(const std::vector<int64_t>& indices) const {
  std::vector<int64_t> mapped;
  mapped.reserve(indices.size());
  for (int64_t i : indices) {
    check_index(i);
    mapped.push_back(indices_[static_cast<size_t>(i)]);
  }
  return source_->get_batch(mapped);
}

std::vector<int64_t> iota(int64_t start, int64_t count) {
  std::vector<int64_t> v(static_cast<size_t>(count));
  std::iota(v.begin(), v.end(), start);
  return v;
}

DatasetPtr materialize(const Dataset& d) {
  std::vector<Sample> samples;
  samples.reserve(static_cast<size_t>(d.size()));
  for (int64_t i = 0; i < d.size(); ++i) samples.push_back(d.get(i));
  return std::make_shared<SimpleDataset>(std::move(samples));
}

}  // namespace braid::gluon::data::detail
