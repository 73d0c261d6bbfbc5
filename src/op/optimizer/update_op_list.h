#pragma once
// Internal: the list of fused optimizer updates, MXNet 1.x's sgd_update, sgd_mom_update,
// nag_mom_update, signsgd_update, signum_update, ftml_update, ftrl_update, adam_update, rmsprop_update,
// rmspropalex_update and their mp_ twins, plus the updates MXNet runs as chains of small ops or lacks, under Braid's
// own names (prefix _braid_): AdaGrad, AdaDelta, AdamW and the mp_ twins MXNet lacks. Their CPU (optimizer_ops.cc) and
// GPU (optimizer_ops.cu) kernels are registered from it.
#include <string>
#include <utility>
#include <vector>

#include "update_param.h"
#include "update_rules.h"

namespace braid::op::detail {

/// Calls visit(Rule{}, spec) for every fused update (update_rules.h) with its names and attributes.
template <class Visit>
void for_each_update_op(Visit&& visit) {
  using E = std::vector<std::pair<std::string, double>>;
  const UpdateAttrs sgd{.lazy_update = true, .extra = {}};
  const UpdateAttrs sgd_mom{.lazy_update = true, .extra = E{{"momentum", 0.0}}};
  visit(SgdRule{},
        UpdateOpSpec{"sgd_update", "mp_sgd_update", {}, sgd, "SGD: w = (1 - lr*wd)*w - lr*clip(rescale_grad*grad)."});
  visit(SgdMomRule{}, UpdateOpSpec{"sgd_mom_update",
                                   "mp_sgd_mom_update",
                                   {"mom"},
                                   sgd_mom,
                                   "SGD with momentum: mom = momentum*mom - lr*(wd*w + "
                                   "clip(rescale_grad*grad)); w += mom."});
  visit(NagMomRule{}, UpdateOpSpec{"nag_mom_update",
                                   "mp_nag_mom_update",
                                   {"mom"},
                                   {.extra = E{{"momentum", 0.0}}},
                                   "Nesterov momentum: d = clip(rescale_grad*grad) + wd*w; "
                                   "mom = momentum*mom - lr*d; w += momentum*mom - lr*d."});
  visit(SignSgdRule{}, UpdateOpSpec{"signsgd_update", "", {}, {}, "signSGD: w = (1 - lr*wd)*w - lr*sign(grad)."});
  visit(SignumRule{}, UpdateOpSpec{"signum_update",
                                   "",
                                   {"mom"},
                                   {.extra = E{{"momentum", 0.0}, {"wd_lh", 0.0}}},
                                   "Signum: mom = momentum*mom - (1-momentum)*(wd*w + clip(rescale_grad*grad)); "
                                   "w = (1 - lr*wd_lh)*w + lr*sign(mom)."});
  visit(FtmlRule{},
        UpdateOpSpec{
            "ftml_update",
            "",
            {"d", "v", "z"},
            {.has_t = true, .clip_attr = "clip_grad", .extra = E{{"beta1", 0.6}, {"beta2", 0.999}, {"epsilon", 1e-8}}},
            "FTML at step t: w = -z/d_t (see docs/optim.md)."});
  visit(FtrlRule{}, UpdateOpSpec{"ftrl_update",
                                 "",
                                 {"z", "n"},
                                 {.extra = E{{"lamda1", 0.01}, {"beta", 1.0}}},
                                 "FTRL-Proximal: w = (sign(z)*lamda1 - z)/((beta + sqrt(n))/lr + wd) where "
                                 "|z| > lamda1, else 0."});
  visit(AdamRule{}, UpdateOpSpec{"adam_update",
                                 "_braid_mp_adam_update",
                                 {"mean", "var"},
                                 {.lazy_update = true, .extra = E{{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-8}}},
                                 "Adam without bias correction (fold it into lr): "
                                 "w -= lr*mean/(sqrt(var) + epsilon)."});
  visit(RmsPropRule{}, UpdateOpSpec{"rmsprop_update",
                                    "_braid_mp_rmsprop_update",
                                    {"n"},
                                    {.extra = E{{"gamma1", 0.95}, {"epsilon", 1e-8}, {"clip_weights", -1.0}}},
                                    "RMSProp (Tieleman & Hinton): w -= lr*d/sqrt(n + epsilon)."});
  visit(RmsPropAlexRule{},
        UpdateOpSpec{"rmspropalex_update",
                     "_braid_mp_rmspropalex_update",
                     {"n", "g", "delta"},
                     {.extra = E{{"gamma1", 0.95}, {"gamma2", 0.9}, {"epsilon", 1e-8}, {"clip_weights", -1.0}}},
                     "Centered RMSProp (Graves): delta = gamma2*delta - lr*d/sqrt(n - g^2 + epsilon); w += delta."});
  visit(AdaGradRule{}, UpdateOpSpec{"_braid_adagrad_update",
                                    "_braid_mp_adagrad_update",
                                    {"history"},
                                    {.extra = E{{"epsilon", 1e-7}}},
                                    "AdaGrad: history += d^2; w -= lr*(d/sqrt(history + epsilon) + wd*w)."});
  visit(AdaDeltaRule{}, UpdateOpSpec{"_braid_adadelta_update",
                                     "_braid_mp_adadelta_update",
                                     {"acc_g", "acc_delta"},
                                     {.has_lr = false, .extra = E{{"rho", 0.9}, {"epsilon", 1e-5}}},
                                     "AdaDelta (MXNet's, no learning rate): w -= delta + wd*w."});
  visit(AdamWRule{}, UpdateOpSpec{"_braid_adamw_update",
                                  "_braid_mp_adamw_update",
                                  {"mean", "var"},
                                  {.has_t = true, .extra = E{{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-8}}},
                                  "AdamW (decoupled weight decay, bias-corrected at step t, as "
                                  "torch.optim.AdamW): w *= 1 - lr*wd; w -= lr/(1-beta1^t)*mean/"
                                  "(sqrt(var)/sqrt(1-beta2^t) + epsilon)."});
}

}  // namespace braid::op::detail
