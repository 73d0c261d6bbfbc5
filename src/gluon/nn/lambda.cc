#include "braid/gluon/nn/lambda.h"

#include "braid/base/error.h"
#include "braid/ndarray/invoke.h"
#include "braid/op/registry.h"

namespace braid::gluon::nn {

NamedFunction NamedFunction::from_op(const std::string& op) {
  try {
    op::Registry::get().find(op);
  } catch (const Error& e) {
    throw Error(cat("Lambda: function name '", op, "' is not a registered operator: ", e.what()));
  }
  return {[op](const std::vector<NDArray>& in) { return nd::invoke(op, in); }, op};
}

}  // namespace braid::gluon::nn
