#include "braid/gluon/nn/dropout.h"

#include "braid/base/error.h"
#include "braid/op/param_reader.h"
#include "gluon/py_repr.h"

namespace braid::gluon::nn {

Dropout::Dropout(double rate, std::vector<int64_t> axes, std::optional<std::string> prefix)
    : HybridBlock("dropout", std::move(prefix)), rate_(rate), axes_(std::move(axes)) {
  BRAID_CHECK(rate_ >= 0 && rate_ <= 1, "Dropout: rate must be in [0, 1], got ", rate_);
}

std::vector<NDArray> Dropout::forward(const std::vector<NDArray>& inputs) {
  const NDArray& x = one_input(inputs);
  if (rate_ == 0) return {call_op1("identity", {x})};  // as MXNet: no operator draws for nothing
  return {call_op1("Dropout", {x}, {{"p", op::format_number(rate_)}, {"axes", Shape(axes_).str()}})};
}

std::string Dropout::describe() const {
  return cat("Dropout(p = ", detail::py_float(rate_), ", axes=", Shape(axes_).str(), ")");
}

}  // namespace braid::gluon::nn
