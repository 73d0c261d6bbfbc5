#pragma once
// What the imperative path reports to autograd. While autograd records on a thread it installs
// its Recorder there (autograd::set_recording); NDArray's operators, views and the cached graph
// report to whatever recorder is installed, so they need not know autograd. The training flag
// (Dropout drops, BatchNorm uses batch statistics) lives here too: every kernel reads it.
#include <any>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"
#include "imperative/tape.h"

namespace braid::imperative {

class Recorder {
 public:
  virtual ~Recorder() = default;
  /// Throws when writing into `out` would corrupt the recorded graph (an array already in it, or
  /// a variable).
  virtual void check_writable(const NDArray& out, const char* op_name) = 0;
  /// After `def` was pushed: records a node when an argument (the first `nargs` of `inputs`)
  /// needs a gradient. `outputs` are all of them, hidden ones too.
  virtual void record_op(const op::OpDef& def, const std::any& param, const op::AttrMap& attrs, bool training,
                         const std::vector<NDArray>& inputs, size_t nargs, const std::vector<NDArray>& outputs,
                         int num_visible) = 0;
  /// For each view (reshape, slice) taken of `src`.
  virtual void record_view(const NDArray& src, const NDArray& view) = 0;
  /// A compiled graph (hybridized block) over `inputs`: the gradients of its inputs come from
  /// `fn`. Returns whether it recorded (some input needs a gradient).
  virtual bool record_function(const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                               BackwardFn fn) = 0;
};

/// The calling thread's recorder (null: not recording); set_recorder returns the previous one.
Recorder* recorder();
Recorder* set_recorder(Recorder* r);

/// Stops recording while it lives (steps that must not be in the graph, such as making a
/// compressed input dense before a recorded step of its own).
class RecorderPause {
 public:
  RecorderPause() : prev_(set_recorder(nullptr)) {}
  ~RecorderPause() { set_recorder(prev_); }
  RecorderPause(const RecorderPause&) = delete;
  RecorderPause& operator=(const RecorderPause&) = delete;

 private:
  Recorder* prev_;
};

/// Whether operators on the calling thread run in training mode; set_training returns the
/// previous value.
bool is_training();
bool set_training(bool training);

}  // namespace braid::imperative
