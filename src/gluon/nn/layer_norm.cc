#include "braid/gluon/nn/layer_norm.h"

#include "braid/base/error.h"
#include "braid/op/param_reader.h"
#include "gluon/py_repr.h"
#include "layer_util.h"

namespace braid::gluon::nn {

LayerNorm::LayerNorm(LayerNormOptions opt) : HybridBlock("layernorm", opt.prefix), opt_(std::move(opt)) {
  BRAID_CHECK(opt_.in_channels >= 0, "LayerNorm: in_channels must be non-negative (0: inferred), got ",
              opt_.in_channels);
  attrs_ = {{"axis", cat(opt_.axis)}, {"eps", op::format_number(opt_.epsilon)}};
  detail::check_op_attrs("LayerNorm", "LayerNorm", attrs_);
  const Shape c({opt_.in_channels});
  gamma_ = register_parameter("gamma", c, opt_.scale ? GradReq::Write : GradReq::Null, opt_.gamma_initializer);
  beta_ = register_parameter("beta", c, opt_.center ? GradReq::Write : GradReq::Null, opt_.beta_initializer);
}

std::vector<NDArray> LayerNorm::forward(const std::vector<NDArray>& inputs) {
  return {call_op1("LayerNorm", {one_input(inputs), gamma_, beta_}, attrs_)};
}

std::string LayerNorm::describe() const {
  // MXNet prints in_channels as the number, 0 while unknown (unlike BatchNorm's None).
  return cat("LayerNorm(eps=", detail::py_float(opt_.epsilon), ", axis=", opt_.axis,
             ", center=", detail::py_bool(opt_.center), ", scale=", detail::py_bool(opt_.scale),
             ", in_channels=", gamma_->shape()[0], ")");
}

}  // namespace braid::gluon::nn
