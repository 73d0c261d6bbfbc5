#pragma once
// braid train --profile: the profiler records the training batches (operators, the KVStore's
// exchanges with the servers and their own timings, one "step" marker per batch), paused while
// the model is tested; the trace is written when training ends. `braid profile steps` reads it.
#include <string>

namespace braid::cli {

class TrainingProfile {
 public:
  /// Nothing is recorded when `path` is empty.
  explicit TrainingProfile(std::string path);
  /// Marks one batch pushed.
  void step() const;
  /// Stops recording while the model is tested (true) and starts again (false).
  void pause(bool paused) const;
  /// Waits for the work pushed so far and writes the trace; returns its path ("" with none).
  std::string finish();

 private:
  std::string path_;
};

}  // namespace braid::cli
