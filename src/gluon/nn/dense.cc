#include "braid/gluon/nn/dense.h"

#include "layer_util.h"

#include "braid/base/error.h"

namespace braid::gluon::nn {

Dense::Dense(int64_t units, DenseOptions opt) : HybridBlock("dense", opt.prefix), units_(units), opt_(std::move(opt)) {
  BRAID_CHECK(units >= 0, "Dense: units must not be negative, got ", units);
  weight_ =
      register_parameter("weight", Shape({units, opt_.in_units}), GradReq::Write, opt_.weight_initializer, opt_.dtype);
  if (opt_.use_bias)
    bias_ = register_parameter("bias", Shape({units}), GradReq::Write, opt_.bias_initializer, opt_.dtype);
}

std::vector<NDArray> Dense::forward(const std::vector<NDArray>& inputs) {
  std::vector<OpArg> args{one_input(inputs), weight_};
  if (bias_) args.emplace_back(bias_);
  NDArray y = call_op1("FullyConnected", args,
                       {{"num_hidden", std::to_string(units_)},
                        {"no_bias", bias_ ? "False" : "True"},
                        {"flatten", opt_.flatten ? "True" : "False"}});
  if (!opt_.activation.empty()) {
    detail::ActivationScope scope(prefix(), opt_.activation);
    y = call_op1("Activation", {y}, {{"act_type", opt_.activation}});
  }
  return {y};
}

std::string Dense::describe() const {
  const int64_t in = weight_->shape().ndim() == 2 ? weight_->shape()[1] : 0;
  return cat("Dense(", in ? std::to_string(in) : "None", " -> ", units_, ", ",
             opt_.activation.empty() ? "linear" : "Activation(" + opt_.activation + ")", ")");
}

}  // namespace braid::gluon::nn
