#pragma once
/// A training progress bar: on a terminal, one line redrawn in place
///   epoch 2/10 [=========>          ]  48% 450/938  loss 0.4123  acc 0.8512  3411 samples/s  ETA 0:13
/// and, when the stream is not a terminal (logs, CI), a plain line every `plain_every` updates
/// and at the end of each epoch, so that logs stay readable.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace braid::util {

class ProgressBar {
 public:
  /// `out`: the stream drawn on (stderr by default); `total`: batches per epoch.
  ProgressBar(int epochs, int64_t total, std::FILE* out = stderr, int64_t plain_every = 100);

  /// Starts epoch `epoch` (1-based).
  void start_epoch(int epoch);
  /// After batch `done` (1-based) of the epoch, with the running figures; `acc` < 0 hides it.
  void update(int64_t done, int64_t samples, double loss, double acc);
  /// Ends the epoch's line with `summary` (e.g. "test acc 0.8912").
  void finish_epoch(const std::string& summary);
  bool interactive() const { return interactive_; }

 private:
  std::string line(int64_t done, int64_t samples, double loss, double acc) const;

  int epochs_;
  int64_t total_;
  std::FILE* out_;
  int64_t plain_every_;
  bool interactive_;
  int epoch_ = 0;
  int64_t last_done_ = 0, last_samples_ = 0;
  double last_loss_ = 0, last_acc_ = -1;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

/// "1:02:03" or "2:03".
std::string format_duration(double seconds);

}  // namespace braid::util
