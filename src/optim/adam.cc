// Adam (MXNet's adam_update, bias correction folded into the rate) and AdamW (torch semantics,
// Braid's _braid_adamw_update).
#include <cmath>

#include "braid/op/param_reader.h"
#include "braid/optim/optimizers.h"

namespace braid::optim {
namespace {

op::AttrMap with_moments(op::AttrMap a, double beta1, double beta2, double epsilon) {
  a["beta1"] = op::format_number(beta1);
  a["beta2"] = op::format_number(beta2);
  a["epsilon"] = op::format_number(epsilon);
  return a;
}

}  // namespace

Adam::Adam() : Optimizer("adam", 0.001) {
  declare("beta1", &beta1_);
  declare("beta2", &beta2_);
  declare("epsilon", &epsilon_);
  declare("lazy_update", &lazy_update_);
}

std::string Adam::fused_op(bool mp) const { return mp ? "_braid_mp_adam_update" : "adam_update"; }

op::AttrMap Adam::fused_attrs(const UpdateStep& s) const {
  UpdateStep corrected = s;
  corrected.lr *= std::sqrt(1.0 - std::pow(beta2_, s.t)) / (1.0 - std::pow(beta1_, s.t));
  return with_moments(common_attrs(corrected), beta1_, beta2_, epsilon_);
}

AdamW::AdamW() : Optimizer("adamw", 0.001) {
  wd_ = 0.01;
  declare("beta1", &beta1_);
  declare("beta2", &beta2_);
  declare("epsilon", &epsilon_);
}

std::string AdamW::fused_op(bool mp) const { return mp ? "_braid_mp_adamw_update" : "_braid_adamw_update"; }

op::AttrMap AdamW::fused_attrs(const UpdateStep& s) const {
  op::AttrMap a = with_moments(common_attrs(s), beta1_, beta2_, epsilon_);
  a["t"] = std::to_string(s.t);
  return a;
}

}  // namespace braid::optim
