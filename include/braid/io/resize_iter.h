#pragma once
/// ResizeIter (MXNet's mx.io.ResizeIter): makes an epoch exactly `size` batches of an inner
/// iterator, resetting the inner one whenever it runs out mid-epoch (so an epoch may span
/// several inner epochs, or stop inside one).
///
///   auto it = std::make_shared<io::ResizeIter>(std::make_shared<io::NDArrayIter>(x, y, 32), 100);
///
/// Shares ownership of the inner iterator, which nobody else should advance meanwhile.
#include <cstdint>
#include <memory>

#include "braid/io/data_iter.h"

namespace braid::io {

class ResizeIter : public DataIter {
 public:
  /// With reset_internal, reset() also resets the inner iterator; without, the next epoch goes
  /// on where the inner iterator stands.
  ResizeIter(std::shared_ptr<DataIter> inner, int64_t size, bool reset_internal = true);

  /// The inner iterator's next batch; throws braid::Error if it has none even right after its
  /// reset() (an inner iterator that never yields cannot fill an epoch).
  std::optional<DataBatch> next() override;
  void reset() override;
  std::vector<DataDesc> provide_data() const override { return inner_->provide_data(); }
  std::vector<DataDesc> provide_label() const override { return inner_->provide_label(); }
  int64_t batch_size() const override { return inner_->batch_size(); }
  /// Batches per epoch.
  int64_t size() const { return size_; }

 private:
  std::shared_ptr<DataIter> inner_;
  int64_t size_ = 0;
  bool reset_internal_ = true;
  int64_t taken_ = 0;  // batches yielded in this epoch
};

}  // namespace braid::io
