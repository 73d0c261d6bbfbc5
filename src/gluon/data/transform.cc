#include "braid/gluon/data/transform.h"

#include "braid/base/error.h"

namespace braid::gluon::data {

Transform::Transform(Fn per_sample) {
  BRAID_CHECK(per_sample, "Transform: the function is empty; pass a callable NDArray -> NDArray");
  stages_.push_back(std::make_shared<const Stage>(Stage{std::move(per_sample), nullptr}));
}

Transform::Transform(Fn per_sample, Fn per_batch) : Transform(std::move(per_sample)) {
  stages_.back() = std::make_shared<const Stage>(Stage{stages_.back()->sample, std::move(per_batch)});
}

NDArray Transform::operator()(const NDArray& x) const {
  NDArray y = x;
  for (const auto& s : stages_) y = s->sample(y);
  return y;
}

Transform Transform::then(const Transform& next) const {
  auto stages = stages_;
  stages.insert(stages.end(), next.stages_.begin(), next.stages_.end());
  return Transform(std::move(stages));
}

std::pair<Transform, Transform> Transform::split_batchable() const {
  auto first_batched = stages_.end();
  while (first_batched != stages_.begin() && (*std::prev(first_batched))->batch) --first_batched;
  return {Transform(std::vector(stages_.begin(), first_batched)), Transform(std::vector(first_batched, stages_.end()))};
}

bool Transform::batchable() const { return split_batchable().first.empty(); }

NDArray Transform::batch(const NDArray& stacked) const {
  BRAID_CHECK(batchable(),
              "Transform::batch: a stage of this transform has no batched form; "
              "apply it to each sample instead (check batchable() first)");
  NDArray y = stacked;
  for (const auto& s : stages_) y = s->batch(y);
  return y;
}

}  // namespace braid::gluon::data
