#include "braid/op/op_def.h"

#include "braid/base/error.h"
#include "braid/device/gpu.h"

namespace braid::op {

const Kernels& OpDef::kernels(Context ctx) const {
  if (ctx.is_cpu_family()) return cpu;
  const std::string no_gpu = gpu_runtime::unavailable_reason();
  BRAID_CHECK(no_gpu.empty(), "operator ", name, " cannot run on ", ctx, ": ", no_gpu, "; use cpu()");
  BRAID_CHECK(gpu.forward, "operator ", name, " has no GPU kernel yet, so it cannot run on ", ctx,
              "; copy the arrays to cpu() (as_in_context) and run it there");
  return gpu;
}

}  // namespace braid::op
