#pragma once
// Internal: the attributes of the fused optimizer updates (sgd_update, adam_update, ...), parsed
// once for every op of the family. Each op accepts MXNet's common four (lr, wd, rescale_grad,
// clip_gradient) plus its own list with MXNet's defaults; anything else is an error.
#include <string>
#include <utility>
#include <vector>

#include "braid/op/op_def.h"

namespace braid::op::detail {

/// Every hyper-parameter any update op reads. clip_gradient and clip_weights < 0 mean "off"
/// (MXNet clips whenever the bound is >= 0).
struct UpdateParam {
  double lr = 0, wd = 0, rescale_grad = 1, clip_gradient = -1;
  double momentum = 0, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  double gamma1 = 0.95, gamma2 = 0.9, clip_weights = -1, rho = 0.9;
  double wd_lh = 0;                // Signum's decoupled weight decay
  double lamda1 = 0.01, beta = 1;  // FTRL's
  int64_t t = 0;                   // the step, for updates that correct the moment bias themselves
};

/// Which attributes one op accepts.
struct UpdateAttrs {
  bool has_lr = true;                       // AdaDelta has no learning rate
  bool lazy_update = false;                 // accepts MXNet's lazy_update (no effect: arrays are dense)
  bool has_t = false;                       // requires the step `t` (>= 1)
  const char* clip_attr = "clip_gradient";  // FTML spells it clip_grad
  /// Op-specific attributes and their defaults: "momentum", "beta1", "beta2", "epsilon",
  /// "gamma1", "gamma2", "clip_weights", "rho", "wd_lh", "lamda1", "beta".
  std::vector<std::pair<std::string, double>> extra;
};

/// One update op and its multi-precision twin.
struct UpdateOpSpec {
  std::string name;                 // "sgd_mom_update"
  std::string mp_name;              // "mp_sgd_mom_update"; empty: none
  std::vector<std::string> states;  // {"mom"}, in argument order
  UpdateAttrs attrs;
  std::string doc;
};

UpdateParam parse_update_param(const AttrMap& attrs, const std::string& op, const UpdateAttrs& accepted);

}  // namespace braid::op::detail
