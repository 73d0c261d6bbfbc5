#pragma once
// Internal: waiting until an array may be written (NDArray::wait_to_write).
#include "braid/engine/engine.h"

namespace braid::engine::detail {

/// Blocks until every operation pushed so far that reads or writes `var` is done, and clears an
/// error stored on `var` (the caller is about to write it). On the threaded engine nothing goes
/// through a worker: the caller goes on at once when nothing is pending, otherwise the thread
/// finishing the last such operation wakes it.
void wait_to_write(VarHandle var);

}  // namespace braid::engine::detail
