#include "update_param.h"

#include "braid/base/error.h"
#include "braid/op/param_reader.h"

namespace braid::op::detail {
namespace {

double& field(UpdateParam& p, const std::string& name) {
  if (name == "momentum") return p.momentum;
  if (name == "beta1") return p.beta1;
  if (name == "beta2") return p.beta2;
  if (name == "epsilon") return p.epsilon;
  if (name == "gamma1") return p.gamma1;
  if (name == "gamma2") return p.gamma2;
  if (name == "clip_weights") return p.clip_weights;
  if (name == "rho") return p.rho;
  if (name == "wd_lh") return p.wd_lh;
  if (name == "lamda1") return p.lamda1;
  if (name == "beta") return p.beta;
  throw Error(cat("internal: no update attribute '", name, "'"));
}

}  // namespace

UpdateParam parse_update_param(const AttrMap& attrs, const std::string& op, const UpdateAttrs& accepted) {
  ParamReader rd(attrs, op);
  UpdateParam p;
  if (accepted.has_lr) p.lr = rd.get<double>("lr");
  p.wd = rd.get<double>("wd", 0.0);
  p.rescale_grad = rd.get<double>("rescale_grad", 1.0);
  p.clip_gradient = rd.get<double>(accepted.clip_attr, -1.0);
  if (accepted.lazy_update) rd.get<bool>("lazy_update", true);
  for (const auto& [name, fallback] : accepted.extra) field(p, name) = rd.get<double>(name, fallback);
  if (accepted.has_t) {
    p.t = rd.get<int64_t>("t");
    BRAID_CHECK(p.t >= 1, op, ": attribute t (the update step, counted from 1) is ", p.t,
                "; pass the number of updates applied so far including this one");
  }
  rd.finish();
  return p;
}

}  // namespace braid::op::detail
