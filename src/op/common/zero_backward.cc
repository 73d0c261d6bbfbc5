#include "zero_backward.h"

#include <algorithm>

#include "braid/base/dtype.h"

namespace braid::op::detail {

void zero_backward(const OpContext&, const std::any&, const BackwardArgs& a) {
  for (size_t k = 0; k < a.in_grads.size(); ++k) {
    if (a.req[k] != OpReq::Write) continue;
    const TBlob& d = a.in_grads[k];
    BRAID_TYPE_SWITCH(d.dtype, T, "zero gradient", { std::fill(d.ptr<T>(), d.ptr<T>() + d.size(), T(0)); });
  }
}

}  // namespace braid::op::detail
