#include "braid/gluon/nn/dims.h"

#include "braid/base/error.h"

namespace braid::gluon::nn {

Shape Dims::expand(int nd, const std::string& layer, const std::string& what) const {
  if (values_.size() == 1) return Shape(std::vector<int64_t>(static_cast<size_t>(nd), values_[0]));
  BRAID_CHECK(values_.size() == static_cast<size_t>(nd), layer, ": ", what, "=", Shape(values_), " has ",
              values_.size(), " values but the layer has ", nd, " spatial ", nd == 1 ? "axis" : "axes",
              "; give one number for all of them or exactly ", nd);
  return Shape(values_);
}

}  // namespace braid::gluon::nn
