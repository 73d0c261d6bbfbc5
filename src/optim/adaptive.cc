// RMSProp (plain and centered), AdaGrad and AdaDelta.
#include "braid/op/param_reader.h"
#include "braid/optim/optimizers.h"

namespace braid::optim {

RMSProp::RMSProp() : Optimizer("rmsprop", 0.001) {
  declare("gamma1", &gamma1_);
  declare("gamma2", &gamma2_);
  declare("epsilon", &epsilon_);
  declare("centered", &centered_);
  declare("clip_weights", &clip_weights_);
}

std::vector<std::string> RMSProp::state_names() const {
  return centered_ ? std::vector<std::string>{"n", "g", "delta"} : std::vector<std::string>{"n"};
}

std::string RMSProp::fused_op(bool mp) const {
  std::string op = centered_ ? "rmspropalex_update" : "rmsprop_update";
  return mp ? "_braid_mp_" + op : op;
}

op::AttrMap RMSProp::fused_attrs(const UpdateStep& s) const {
  op::AttrMap a = common_attrs(s);
  a["gamma1"] = op::format_number(gamma1_);
  a["epsilon"] = op::format_number(epsilon_);
  if (centered_) a["gamma2"] = op::format_number(gamma2_);
  if (clip_weights_ && *clip_weights_ != 0) a["clip_weights"] = op::format_number(*clip_weights_);
  return a;
}

AdaGrad::AdaGrad() : Optimizer("adagrad", 0.01) { declare("eps", &eps_); }

std::string AdaGrad::fused_op(bool mp) const { return mp ? "_braid_mp_adagrad_update" : "_braid_adagrad_update"; }

op::AttrMap AdaGrad::fused_attrs(const UpdateStep& s) const {
  op::AttrMap a = common_attrs(s);
  a["epsilon"] = op::format_number(eps_);
  return a;
}

AdaDelta::AdaDelta() : Optimizer("adadelta", 0.01) {
  declare("rho", &rho_);
  declare("epsilon", &epsilon_);
}

std::string AdaDelta::fused_op(bool mp) const { return mp ? "_braid_mp_adadelta_update" : "_braid_adadelta_update"; }

op::AttrMap AdaDelta::fused_attrs(const UpdateStep& s) const {
  op::AttrMap a = common_attrs(s);
  a.erase("lr");  // MXNet's AdaDelta has no learning rate
  a["rho"] = op::format_number(rho_);
  a["epsilon"] = op::format_number(epsilon_);
  return a;
}

}  // namespace braid::optim
