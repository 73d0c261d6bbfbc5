#include "braid/op/shape_inference.h"

#include "braid/base/error.h"
#include "braid/base/np_shape.h"

namespace braid::op {

bool merge_shape(Shape& dst, const Shape& src, const std::string& op, const std::string& what) {
  if (!src.known()) return false;
  if (!dst.known()) {
    dst = src;
    return true;
  }
  BRAID_CHECK(dst.ndim() == src.ndim(), "operator ", op, ": ", what, " has shape ", dst, " but ", src,
              " is required (rank differs)");
  for (int i = 0; i < dst.ndim(); ++i) {
    if (!dim_known(src[i])) continue;
    if (!dim_known(dst[i])) dst[i] = src[i];
    BRAID_CHECK(dst[i] == src[i], "operator ", op, ": ", what, " has shape ", dst, " but ", src, " is required");
  }
  return true;
}

}  // namespace braid::op
