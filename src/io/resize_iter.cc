#include "braid/io/resize_iter.h"

#include "braid/base/error.h"

namespace braid::io {

ResizeIter::ResizeIter(std::shared_ptr<DataIter> inner, int64_t size, bool reset_internal)
    : inner_(std::move(inner)), size_(size), reset_internal_(reset_internal) {
  BRAID_CHECK(inner_, "ResizeIter: the inner iterator is null");
  BRAID_CHECK(size_ >= 0, "ResizeIter: size (batches per epoch) must not be negative, got ", size_);
}

std::optional<DataBatch> ResizeIter::next() {
  if (taken_ >= size_) return std::nullopt;
  auto batch = inner_->next();
  if (!batch) {
    inner_->reset();
    batch = inner_->next();
    BRAID_CHECK(batch,
                "ResizeIter: the inner iterator yields no batch even right after reset(), so it cannot "
                "fill an epoch of ",
                size_, " batches; check its data and batch_size");
  }
  ++taken_;
  return batch;
}

void ResizeIter::reset() {
  taken_ = 0;
  if (reset_internal_) inner_->reset();
}

}  // namespace braid::io
