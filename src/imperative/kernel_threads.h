#pragma once
// The OpenMP threads of the kernels of each CPU context (nd::kernel_threads).
#include "braid/base/context.h"

namespace braid::imperative {

/// Notes that `ctx` runs kernels; called for every push.
void note_context(Context ctx);
/// Sets the calling thread's OpenMP thread count for a kernel on `ctx` (cheap when unchanged).
void use_kernel_threads(Context ctx);

}  // namespace braid::imperative
