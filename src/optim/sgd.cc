// SGD and NAG: MXNet's sgd_update, sgd_mom_update, nag_mom_update and their mp_ twins.
#include "braid/op/param_reader.h"
#include "braid/optim/optimizers.h"

namespace braid::optim {

MomentumSGD::MomentumSGD(std::string name, std::string momentum_op)
    : Optimizer(std::move(name), 0.01), momentum_op_(std::move(momentum_op)) {
  declare("momentum", &momentum_);
}

std::vector<std::string> MomentumSGD::state_names() const {
  return momentum_ != 0 ? std::vector<std::string>{"mom"} : std::vector<std::string>{};
}

std::string MomentumSGD::fused_op(bool mp) const {
  return (mp ? "mp_" : "") + (momentum_ != 0 ? momentum_op_ : std::string("sgd_update"));
}

op::AttrMap MomentumSGD::fused_attrs(const UpdateStep& s) const {
  op::AttrMap a = common_attrs(s);
  if (momentum_ != 0) a["momentum"] = op::format_number(momentum_);
  return a;
}

SGD::SGD() : MomentumSGD("sgd", "sgd_mom_update") { declare("lazy_update", &lazy_update_); }

NAG::NAG() : MomentumSGD("nag", "nag_mom_update") {}

}  // namespace braid::optim
