#include "training_profile.h"

#include <utility>

#include "braid/ndarray/invoke.h"
#include "braid/profiler/profiler.h"

namespace braid::cli {

TrainingProfile::TrainingProfile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  profiler::Config config;
  config.filename = path_;
  config.profile_memory = false;  // an event per allocation would swamp the trace
  profiler::set_config(config);
  profiler::set_state(true);
}

void TrainingProfile::step() const {
  if (!path_.empty()) profiler::record_marker("braid train", "step", "process");
}

void TrainingProfile::pause(bool paused) const {
  if (path_.empty()) return;
  if (paused) nd::waitall();  // the batches' operators belong to the trace
  profiler::set_paused(paused);
}

std::string TrainingProfile::finish() {
  if (path_.empty()) return "";
  nd::waitall();
  profiler::set_state(false);
  profiler::dump(true);
  return std::exchange(path_, "");
}

}  // namespace braid::cli
