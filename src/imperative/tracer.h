#pragma once
// Watching the imperative path. While a Tracer is installed on a thread, every
// operator invoke() runs there is also reported to it, so that a block's forward can be turned
// into a graph (hybridize) by running it once.
#include <string>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"

namespace braid::imperative {

class Tracer {
 public:
  virtual ~Tracer() = default;
  /// `inputs`: arguments then aux states; `outputs`: every output, hidden ones too.
  virtual void record(const op::OpDef& def, const std::string& spelling, const op::AttrMap& attrs,
                      const std::vector<NDArray>& inputs, const std::vector<NDArray>& outputs) = 0;
};

/// The calling thread's tracer (null: none); set_tracer returns the previous one.
Tracer* tracer();
Tracer* set_tracer(Tracer* t);

/// Stops tracing while it lives (parameter initialization inside a traced forward).
class TracerPause {
 public:
  TracerPause() : prev_(set_tracer(nullptr)) {}
  ~TracerPause() { set_tracer(prev_); }
  TracerPause(const TracerPause&) = delete;
  TracerPause& operator=(const TracerPause&) = delete;

 private:
  Tracer* prev_;
};

}  // namespace braid::imperative
