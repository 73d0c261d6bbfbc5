#include "braid/gluon/nn/batch_norm.h"

#include "braid/base/error.h"
#include "braid/op/param_reader.h"
#include "gluon/py_repr.h"
#include "layer_util.h"

namespace braid::gluon::nn {

BatchNorm::BatchNorm(BatchNormOptions opt) : HybridBlock("batchnorm", opt.prefix), opt_(std::move(opt)) {
  BRAID_CHECK(opt_.in_channels >= 0, "BatchNorm: in_channels must be non-negative (0: inferred), got ",
              opt_.in_channels);
  attrs_ = {{"axis", cat(opt_.axis)},
            {"eps", op::format_number(opt_.epsilon)},
            {"momentum", op::format_number(opt_.momentum)},
            {"fix_gamma", detail::py_bool(!opt_.scale)},
            {"use_global_stats", detail::py_bool(opt_.use_global_stats)}};
  detail::check_op_attrs("BatchNorm", "BatchNorm", attrs_);
  const Shape c({opt_.in_channels});
  gamma_ = register_parameter("gamma", c, opt_.scale ? GradReq::Write : GradReq::Null, opt_.gamma_initializer);
  beta_ = register_parameter("beta", c, opt_.center ? GradReq::Write : GradReq::Null, opt_.beta_initializer);
  running_mean_ = register_parameter("running_mean", c, GradReq::Null, opt_.running_mean_initializer);
  running_var_ = register_parameter("running_var", c, GradReq::Null, opt_.running_variance_initializer);
}

std::vector<NDArray> BatchNorm::forward(const std::vector<NDArray>& inputs) {
  return {call_op1("BatchNorm", {one_input(inputs), gamma_, beta_, running_mean_, running_var_}, attrs_)};
}

std::string BatchNorm::describe() const {
  const int64_t in = gamma_->shape()[0];
  return cat("BatchNorm(axis=", opt_.axis, ", eps=", detail::py_float(opt_.epsilon),
             ", momentum=", detail::py_float(opt_.momentum), ", fix_gamma=", detail::py_bool(!opt_.scale),
             ", use_global_stats=", detail::py_bool(opt_.use_global_stats), ", in_channels=", in ? cat(in) : "None",
             ")");
}

}  // namespace braid::gluon::nn
