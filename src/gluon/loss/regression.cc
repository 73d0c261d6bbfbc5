// The regression losses: L2, L1 and Huber, each on label reshaped to pred's shape.
#include "braid/base/error.h"
#include "braid/gluon/loss.h"
#include "braid/ndarray/elemwise.h"

namespace braid::gluon::loss {

L2Loss::L2Loss(LossOptions opt) : Loss("L2Loss", opt.weight, opt.batch_axis, std::move(opt.prefix)) {}

NDArray L2Loss::compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>&) const {
  return nd::square(label_like(label, pred) - pred);
}

L1Loss::L1Loss(LossOptions opt) : Loss("L1Loss", opt.weight, opt.batch_axis, std::move(opt.prefix)) {}

NDArray L1Loss::compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>&) const {
  return nd::abs(label_like(label, pred) - pred);
}

HuberLoss::HuberLoss(double rho, LossOptions opt)
    : Loss("HuberLoss", opt.weight, opt.batch_axis, std::move(opt.prefix)), rho_(rho) {
  BRAID_CHECK(rho > 0, "HuberLoss: rho must be positive, got ", rho);
}

NDArray HuberLoss::compute(const NDArray& pred, const NDArray& label, const std::vector<NDArray>&) const {
  const NDArray err = nd::abs(label_like(label, pred) - pred);
  // The branch taken is a constant to the gradient, as MXNet's comparison has no gradient.
  return nd::where(err.detach() > rho_, err - 0.5 * rho_, (0.5 / rho_) * nd::square(err));
}

}  // namespace braid::gluon::loss
