#include "braid/gluon/data/sampler.h"

#include <numeric>
#include <utility>

#include "braid/base/error.h"
#include "braid/gluon/data/random.h"

namespace braid::gluon::data {

SequentialSampler::SequentialSampler(int64_t length, int64_t start) : length_(length), start_(start) {
  BRAID_CHECK(length >= 0, "SequentialSampler: length must be >= 0, got ", length);
}

std::vector<int64_t> SequentialSampler::next_epoch() {
  std::vector<int64_t> v(static_cast<size_t>(length_));
  std::iota(v.begin(), v.end(), start_);
  return v;
}

RandomSampler::RandomSampler(int64_t length) : length_(length) {
  BRAID_CHECK(length >= 0, "RandomSampler: length must be >= 0, got ", length);
}

std::vector<int64_t> RandomSampler::next_epoch() {
  std::vector<int64_t> v(static_cast<size_t>(length_));
  std::iota(v.begin(), v.end(), int64_t{0});
  // Fisher-Yates with a generator seeded by one draw, so that a pass costs one global draw.
  RandomScope scope(random_u64());
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[random_below(i)]);
  return v;
}

LastBatch last_batch_from_name(const std::string& name) {
  if (name == "keep") return LastBatch::Keep;
  if (name == "discard") return LastBatch::Discard;
  if (name == "rollover") return LastBatch::Rollover;
  throw Error(cat("last_batch must be one of 'keep', 'discard' or 'rollover', got '", name, "'"));
}

const char* last_batch_name(LastBatch l) {
  switch (l) {
    case LastBatch::Keep:
      return "keep";
    case LastBatch::Discard:
      return "discard";
    case LastBatch::Rollover:
      return "rollover";
  }
  return "?";
}

BatchSampler::BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, LastBatch last_batch)
    : sampler_(std::move(sampler)), batch_size_(batch_size), last_batch_(last_batch) {
  BRAID_CHECK(sampler_, "BatchSampler: the sampler is null");
  BRAID_CHECK(batch_size > 0, "BatchSampler: batch_size must be positive, got ", batch_size);
}

std::vector<std::vector<int64_t>> BatchSampler::next_epoch() {
  BRAID_CHECK(sampler_, "BatchSampler: a subclass without a sampler must override next_epoch() and size()");
  std::vector<std::vector<int64_t>> batches;
  std::vector<int64_t> batch = std::exchange(carried_, {});
  for (int64_t i : sampler_->next_epoch()) {
    batch.push_back(i);
    if (static_cast<int64_t>(batch.size()) == batch_size_) batches.push_back(std::exchange(batch, {}));
  }
  if (!batch.empty()) {
    if (last_batch_ == LastBatch::Keep)
      batches.push_back(std::move(batch));
    else if (last_batch_ == LastBatch::Rollover)
      carried_ = std::move(batch);
  }
  return batches;
}

int64_t BatchSampler::size() const {
  BRAID_CHECK(sampler_, "BatchSampler: a subclass without a sampler must override next_epoch() and size()");
  const int64_t n = sampler_->size();
  switch (last_batch_) {
    case LastBatch::Keep:
      return (n + batch_size_ - 1) / batch_size_;
    case LastBatch::Discard:
      return n / batch_size_;
    case LastBatch::Rollover:
      return (static_cast<int64_t>(carried_.size()) + n) / batch_size_;
  }
  return 0;
}

}  // namespace braid::gluon::data
