// Adam (MXNet's adam_update, bias correction folded into the rate) and AdamW (torch semantics,
// Braid's _braid_adamw_update).
#include <cmath>

#include "braid/op/param_reader.h"
#include "braid/optim/optimizers.h"

namespace braid::optim {

AdamBase::AdamBase(std::string name, std::string op, std::string mp_op)
    : Optimizer(std::move(name), 0.001), op_(std::move(op)), mp_op_(std::move(mp_op)) {
  declare("beta1", &beta1_);
  declare("beta2", &beta2_);
  declare("epsilon", &epsilon_);
}

op::AttrMap AdamBase::moment_attrs(const UpdateStep& s) const {
  op::AttrMap a = common_attrs(s);
  a["beta1"] = op::format_number(beta1_);
  a["beta2"] = op::format_number(beta2_);
  a["epsilon"] = op::format_number(epsilon_);
  return a;
}

Adam::Adam() : AdamBase("adam", "adam_update", "_braid_mp_adam_update") { declare("lazy_update", &lazy_update_); }

op::AttrMap Adam::fused_attrs(const UpdateStep& s) const {
  UpdateStep corrected = s;
  corrected.lr *= std::sqrt(1.0 - std::pow(beta2_, s.t)) / (1.0 - std::pow(beta1_, s.t));
  return moment_attrs(corrected);
}

AdamW::AdamW() : AdamBase("adamw", "_braid_adamw_update", "_braid_mp_adamw_update") { wd_ = 0.01; }

op::AttrMap AdamW::fused_attrs(const UpdateStep& s) const {
  op::AttrMap a = moment_attrs(s);
  a["t"] = std::to_string(s.t);
  return a;
}

}  // namespace braid::optim
