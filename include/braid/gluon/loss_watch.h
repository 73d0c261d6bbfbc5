#pragma once
/// Stopping a training run that has failed, with a message that says what happened, the likely
/// cause and the fix, instead of letting it run to the end at chance accuracy:
///
///   gluon::LossWatch watch({.classes = 10, .learning_rate = 0.05, .kvstore = "dist_async", .workers = 8});
///   each batch:    watch.add(nd::sum(loss), batch_size);   now and then: watch.check_finite(epoch, batch);
///   epoch's end:   watch.end_epoch(epoch);
///
/// Two failures are recognised:
///  - a loss that is NaN or infinite, or far above chance level: the weights have diverged;
///  - a softmax cross-entropy loss that is still at chance level, ln(classes), over the last
///    quarter of an epoch once `min_batches` batches have been trained: the model is not learning
///    (a learning rate too high for the way gradients are combined, as with dist_async and many
///    workers; one so low that the loss never moved; labels that do not match the data).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::gluon {

/// How the learning rate should change after a failed run: `diverged` (the loss blew up or came
/// back to chance) or not (the loss never moved). `kvstore` is the store type ("" for none) and
/// `workers` its workers: with an asynchronous store the rate is divided by the workers.
std::string divergence_advice(double learning_rate, const std::string& kvstore, int workers, bool diverged = true);

class LossWatch {
 public:
  struct Options {
    int64_t classes = 0;       ///< classes of the softmax cross-entropy loss; 0: no chance-level check
    int64_t min_batches = 50;  ///< batches trained before the chance-level check applies
    double tolerance = 0.02;   ///< relative distance from ln(classes) that still counts as chance
    double learning_rate = 0;  ///< the run's, for the advice
    std::string kvstore;       ///< the store type, "" for none
    int workers = 1;
  };
  explicit LossWatch(Options options);
  /// One batch's loss summed over its `samples` samples (kept as it is: nothing waits for it).
  void add(const NDArray& summed_loss, int64_t samples);
  /// Throws braid::Error when the loss of the batch added last is NaN or infinite (waits for it).
  void check_finite(int epoch, int64_t batch);
  /// At an epoch's end: throws braid::Error when a batch's loss was not finite or the mean loss
  /// of the epoch's last quarter is at chance level or far above; then starts the next epoch.
  void end_epoch(int epoch);

 private:
  double mean_loss(size_t batch) const;  // of this epoch's batch
  void throw_if_not_finite(double loss, int epoch, int64_t batch) const;
  std::string advice(bool diverged) const;
  Options options_;
  std::vector<std::pair<NDArray, int64_t>> epoch_losses_;  // each batch's summed loss and samples
  int64_t batches_ = 0;                                    // batches added since the start
  double first_loss_ = 0;                                  // mean over the run's first batches
};

}  // namespace braid::gluon
