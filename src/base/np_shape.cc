#include "braid/base/np_shape.h"

#include <atomic>

namespace braid {
namespace {

std::atomic<bool> global_np_shape{false};
thread_local bool thread_np_shape = false;
thread_local int scoped_np_shape = -1;  // an NpShapeScope's choice (0 or 1), or -1: none

}  // namespace

void set_np_shape(int mode) {
  global_np_shape = mode == 2;
  thread_np_shape = mode != 0;
}

NpShapeScope::NpShapeScope(bool on) : previous_(scoped_np_shape) { scoped_np_shape = on ? 1 : 0; }

NpShapeScope::~NpShapeScope() { scoped_np_shape = previous_; }

bool np_shape() {
  if (scoped_np_shape >= 0) return scoped_np_shape == 1;
  return thread_np_shape || global_np_shape.load(std::memory_order_relaxed);
}

}  // namespace braid
