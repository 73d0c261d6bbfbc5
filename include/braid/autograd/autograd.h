#pragma once
/// Automatic differentiation (MXNet's mx.autograd). Inside a `RecordScope`, every operator whose
/// inputs lead back to an array with `attach_grad()` is recorded on a tape kept alive by the
/// arrays it produced; `backward` walks it from the heads, pushing each op's gradient to the
/// engine, and writes (or adds) the results into the variables' `grad()` arrays.
///
///   x.attach_grad();
///   { autograd::RecordScope rec; y = nd::sum(x * x); }
///   y.backward();          // x.grad() == 2 * x
#include <functional>
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::autograd {

/// Whether the calling thread records operations; returns the previous value.
bool set_recording(bool recording);
bool is_recording();
/// Whether operators run in training mode (Dropout drops, BatchNorm uses batch statistics);
/// returns the previous value.
bool set_training(bool training);
bool is_training();

/// `with autograd.record(train_mode)`: records, in training mode by default.
class RecordScope {
 public:
  explicit RecordScope(bool train_mode = true);
  ~RecordScope();
  RecordScope(const RecordScope&) = delete;
  RecordScope& operator=(const RecordScope&) = delete;

 private:
  bool prev_recording_, prev_training_;
};

/// `with autograd.pause(train_mode)`: stops recording, in predict mode by default.
class PauseScope {
 public:
  explicit PauseScope(bool train_mode = false);
  ~PauseScope();
  PauseScope(const PauseScope&) = delete;
  PauseScope& operator=(const PauseScope&) = delete;

 private:
  bool prev_recording_, prev_training_;
};

/// `train_mode()` / `predict_mode()`: set the mode only, recording unchanged.
class ModeScope {
 public:
  explicit ModeScope(bool train_mode);
  ~ModeScope();
  ModeScope(const ModeScope&) = delete;
  ModeScope& operator=(const ModeScope&) = delete;

 private:
  bool prev_training_;
};
inline ModeScope train_mode() { return ModeScope(true); }
inline ModeScope predict_mode() { return ModeScope(false); }

/// Marks `variables` as leaves whose gradients go into `gradients` (same shapes), with `req`.
/// Same as calling attach_grad on each, but with caller-provided gradient buffers.
void mark_variables(const std::vector<NDArray>& variables, const std::vector<NDArray>& gradients,
                    GradReq req = GradReq::Write);

/// Back-propagates from `heads` (their gradients `head_grads`, ones where omitted or None) into
/// every variable they depend on, honouring each variable's grad_req. Unless `retain_graph`, the
/// tape behind the heads is released and a second backward through it is an error.
void backward(const std::vector<NDArray>& heads, const std::vector<NDArray>& head_grads = {}, bool retain_graph = false,
              bool train_mode = true);

/// The gradients of `heads` with respect to `variables` (arrays with attach_grad, recorded into
/// the heads' graph), returned instead of written into their grad() arrays. A variable the heads
/// do not depend on gets zeros. With `create_graph` the gradients are computed by recorded
/// operators, so they can be differentiated again (higher-order gradients; ops with a gradient
/// written as operators, src/autograd/grad_graph.cc).
std::vector<NDArray> grad(const std::vector<NDArray>& heads, const std::vector<NDArray>& variables,
                          const std::vector<NDArray>& head_grads = {}, bool retain_graph = false,
                          bool train_mode = true, bool create_graph = false);

/// A differentiable function of your own (MXNet's autograd.Function): `outputs` were computed from
/// `inputs` without recording; while recording, this makes them one node of the graph whose
/// backward is `backward(out_grads)` (zeros for outputs no gradient reached), returning one
/// gradient per input, shaped like it (None: no gradient). Returns whether a node was recorded
/// (not when not recording, or when no input needs a gradient).
using CustomBackward = std::function<std::vector<NDArray>(const std::vector<NDArray>& out_grads)>;
bool record_custom_function(const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs,
                            CustomBackward backward);

/// Whether a backward wrote (or added to) the gradient of variable `var` since the flag was last
/// cleared: Trainer's check for parameters a model did not use in an iteration.
bool fresh_grad(const NDArray& var);
void set_fresh_grad(const NDArray& var, bool fresh);

}  // namespace braid::autograd
