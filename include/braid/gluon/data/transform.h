#pragma once
/// Transform: a callable NDArray -> NDArray applied to samples (MXNet's transform Blocks), which
/// may also know how to process a whole batch at once. A value handle; copies share the stages.
///
/// A transform is a chain of stages. Each stage has its per-sample function and, when it is
/// elementwise over the batch axis, a batched function with
///   batch_fn(stack(x1..xn)) == stack(fn(x1)..fn(xn)).
/// The DataLoader uses the batched form of the trailing stages (one op per batch instead of one
/// per sample) without changing any result.
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::gluon::data {

class Transform {
 public:
  using Fn = std::function<NDArray(const NDArray&)>;

  /// The identity (no stage).
  Transform() = default;
  /// A per-sample function (no batched form).
  Transform(Fn per_sample);  // NOLINT: implicit, so that lambdas are transforms
  template <class F>
  requires(std::is_invocable_r_v<NDArray, F, const NDArray&> && !std::is_base_of_v<Transform, std::decay_t<F>> &&
           !std::is_same_v<std::decay_t<F>, Fn>) Transform(F f)
      : Transform(Fn(std::move(f))) {}  // NOLINT
  /// A stage with both forms; per_batch must agree with per_sample as described above.
  Transform(Fn per_sample, Fn per_batch);

  /// Applies every stage to one sample field.
  NDArray operator()(const NDArray& x) const;
  /// This transform followed by `next` (MXNet's Compose of the two).
  Transform then(const Transform& next) const;

  bool empty() const { return stages_.empty(); }
  /// The leading stages without a batched form, and the trailing ones that all have it:
  /// t(x) == suffix(prefix(x)), and suffix.batch() processes stacked samples.
  std::pair<Transform, Transform> split_batchable() const;
  /// Whether every stage has a batched form.
  bool batchable() const;
  /// Applies the batched form of every stage to a batch; throws unless batchable().
  NDArray batch(const NDArray& stacked) const;

 private:
  struct Stage {
    Fn sample, batch;  // batch may be empty
  };
  explicit Transform(std::vector<std::shared_ptr<const Stage>> stages) : stages_(std::move(stages)) {}
  std::vector<std::shared_ptr<const Stage>> stages_;
};

}  // namespace braid::gluon::data
