#include "imperative/recorder.h"

namespace braid::imperative {
namespace {

thread_local Recorder* t_recorder = nullptr;
thread_local bool t_training = false;

}  // namespace

Recorder* recorder() { return t_recorder; }

Recorder* set_recorder(Recorder* r) {
  Recorder* prev = t_recorder;
  t_recorder = r;
  return prev;
}

bool is_training() { return t_training; }

bool set_training(bool training) {
  bool prev = t_training;
  t_training = training;
  return prev;
}

}  // namespace braid::imperative
