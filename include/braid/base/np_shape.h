#pragma once
/// MXNet's NumPy shape semantics (`mx.np_shape()`, `npx.set_np()`). Off (MXNet 1.x's legacy
/// semantics): a dimension of 0 is one shape inference does not know yet, and a 0-d shape cannot
/// be written. On: 0 is a real, empty extent, and an unknown dimension is -1.
#include <cstdint>

namespace braid {

/// 0: off, for this thread and as every thread's default; 1: on for the calling thread; 2: on
/// for every thread (MXNet's MXSetIsNumpyShape).
void set_np_shape(int mode);

/// Whether NumPy shape semantics are on for the calling thread.
bool np_shape();

/// Whether shape inference knows dimension `d`: d > 0 without NumPy semantics, d >= 0 with them.
inline bool dim_known(int64_t d) { return np_shape() ? d >= 0 : d > 0; }

/// NumPy shape semantics on (or, with `on` false, off) on the calling thread for this object's
/// lifetime, whatever set_np_shape chose, then as before. An imperative call infers with them on: every input shape is
/// an array's, exact, so a 0 in it is an empty extent (as in MXNet since 1.6, whose legacy
/// semantics only change how shapes given from Python are read).
class NpShapeScope {
 public:
  explicit NpShapeScope(bool on);
  ~NpShapeScope();
  NpShapeScope(const NpShapeScope&) = delete;
  NpShapeScope& operator=(const NpShapeScope&) = delete;

 private:
  int previous_;
};

/// The dimension that stands for "not known yet": 0, or -1 under NumPy semantics.
inline int64_t unknown_dim() { return np_shape() ? -1 : 0; }

}  // namespace braid
