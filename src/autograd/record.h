#pragma once
// Internal to autograd: the recorder it installs on a thread while recording.
#include "imperative/recorder.h"

namespace braid::autograd::detail {

imperative::Recorder& tape_recorder();

}  // namespace braid::autograd::detail
