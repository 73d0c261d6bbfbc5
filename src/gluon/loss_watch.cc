#include "braid/gluon/loss_watch.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "braid/base/error.h"
#include "braid/kvstore/store_types.h"
#include "braid/op/param_reader.h"

namespace braid::gluon {
namespace {

constexpr size_t kFirstBatches = 10;  // the loss the run started from: mean of these

// Four significant digits: a loss in a message.
std::string short_number(double v) {
  std::ostringstream os;
  os << std::setprecision(4) << v;
  return os.str();
}

bool asynchronous_store(const std::string& kvstore) {
  for (const std::string& name : kv::store_type_names())
    if (name == kvstore) return kv::store_type(name).asynchronous;
  return false;
}

}  // namespace

std::string divergence_advice(double learning_rate, const std::string& kvstore, int workers, bool diverged) {
  const std::string lr = op::format_number(learning_rate);
  if (workers > 1 && asynchronous_store(kvstore))
    return cat("With ", kvstore, " each of the ", workers,
               " workers applies its gradients to weights the others have already moved, so their steps add up: "
               "divide the learning rate by the number of workers (try ",
               op::format_number(learning_rate / workers), " = ", lr, " / ", workers, "), or train with dist_sync.");
  if (!diverged)
    return cat("The loss has not moved from where it started: the learning rate (", lr, ") is likely too low: try ",
               op::format_number(learning_rate * 10),
               ". If a higher rate does not help, check the data: labels from 0 to classes - 1 that match the "
               "inputs, inputs scaled (e.g. to [0, 1]).");
  return cat("The learning rate (", lr, ") is likely too high: try ", op::format_number(learning_rate / 10),
             ", or clip the gradients (the optimizer's clip_gradient). If a lower rate does not help, check the "
             "data: labels from 0 to classes - 1, inputs scaled (e.g. to [0, 1]).");
}

LossWatch::LossWatch(Options options) : options_(std::move(options)) {}

std::string LossWatch::advice(bool diverged) const {
  return divergence_advice(options_.learning_rate, options_.kvstore, options_.workers, diverged);
}

void LossWatch::add(const NDArray& summed_loss, int64_t samples) {
  epoch_losses_.emplace_back(summed_loss, samples);
  ++batches_;
}

double LossWatch::mean_loss(size_t batch) const {
  const auto& [sum, samples] = epoch_losses_[batch];
  return sum.scalar<float>() / static_cast<double>(samples);
}

void LossWatch::throw_if_not_finite(double loss, int epoch, int64_t batch) const {
  if (!std::isfinite(loss))
    throw Error(cat("training stopped at epoch ", epoch, ", batch ", batch, ": the training loss is ",
                    std::isnan(loss) ? "NaN" : "infinite", ", the weights have diverged. ", advice(true)));
}

void LossWatch::check_finite(int epoch, int64_t batch) {
  if (!epoch_losses_.empty()) throw_if_not_finite(mean_loss(epoch_losses_.size() - 1), epoch, batch);
}

void LossWatch::end_epoch(int epoch) {
  const size_t batches = epoch_losses_.size(), quarter = (batches + 3) / 4;
  const bool run_starts_here = batches_ == static_cast<int64_t>(batches);
  double sum = 0, first = 0;
  for (size_t i = 0; i < batches; ++i) {
    const double loss = mean_loss(i);
    throw_if_not_finite(loss, epoch, static_cast<int64_t>(i) + 1);
    if (i >= batches - quarter) sum += loss;
    if (run_starts_here && i < kFirstBatches) first += loss;
  }
  if (run_starts_here && batches > 0) first_loss_ = first / static_cast<double>(std::min(batches, kFirstBatches));
  epoch_losses_.clear();
  if (batches == 0 || options_.classes < 2 || batches_ < options_.min_batches) return;
  const double mean = sum / static_cast<double>(quarter), chance = std::log(static_cast<double>(options_.classes));
  const double margin = options_.tolerance * chance;
  if (mean < chance - margin) return;
  const std::string what = cat("the training loss (", short_number(mean), " over the epoch's last ", quarter,
                               " batches) ", mean > chance + margin ? "is above" : "has not left", " chance level for ",
                               options_.classes, " classes (ln ", options_.classes, " = ", short_number(chance), ")");
  const bool diverged = std::abs(mean - first_loss_) > margin;  // it moved, and is back at chance or above
  throw Error(
      cat("training stopped after epoch ", epoch, ": ", what, ": the model is not learning. ", advice(diverged)));
}

}  // namespace braid::gluon
