#pragma once
/// Samplers (MXNet's gluon.data.sampler): the order in which a DataLoader visits samples.
/// Each call of next_epoch() is one pass.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace braid::gluon::data {

class Sampler {
 public:
  virtual ~Sampler() = default;
  /// The sample indices of one pass.
  virtual std::vector<int64_t> next_epoch() = 0;
  /// How many indices a pass gives.
  virtual int64_t size() const = 0;
};

/// start, start + 1, ..., start + length - 1.
class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(int64_t length, int64_t start = 0);
  std::vector<int64_t> next_epoch() override;
  int64_t size() const override { return length_; }

 private:
  int64_t length_, start_;
};

/// A new random permutation of 0 .. length - 1 at every pass, drawn from data::random_u64()
/// (reproducible under nd::seed; see random.h).
class RandomSampler : public Sampler {
 public:
  explicit RandomSampler(int64_t length);
  std::vector<int64_t> next_epoch() override;
  int64_t size() const override { return length_; }

 private:
  int64_t length_;
};

/// What to do with the last, incomplete batch: return it (keep), drop it (discard), or carry its
/// samples over to the front of the next pass (rollover).
enum class LastBatch { Keep, Discard, Rollover };
/// "keep", "discard" or "rollover"; throws naming the valid names.
LastBatch last_batch_from_name(const std::string& name);
const char* last_batch_name(LastBatch l);

/// Groups the indices of a sampler into batches (MXNet's BatchSampler). With rollover, the
/// leftover indices of a pass start the first batch of the next pass.
class BatchSampler {
 public:
  BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, LastBatch last_batch = LastBatch::Keep);
  virtual ~BatchSampler() = default;
  /// The batches of one pass.
  virtual std::vector<std::vector<int64_t>> next_epoch();
  /// How many batches the next pass gives.
  virtual int64_t size() const;

 protected:
  BatchSampler() = default;  // for subclasses that make their own batches

 private:
  std::shared_ptr<Sampler> sampler_;
  int64_t batch_size_ = 1;
  LastBatch last_batch_ = LastBatch::Keep;
  std::vector<int64_t> carried_;  // rollover leftovers
};

}  // namespace braid::gluon::data
