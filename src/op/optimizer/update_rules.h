// Internal: the per-element math of each fused optimizer update, MXNet 1.x's kernels
// (src/operator/optimizer_op-inl.h) written as plain functions of one weight element `w`, its
// gradient `g` and its states, in the compute type C. They return the new weight and update the
// states through their references. Formulas: docs/optim.md. The rules are __host__ __device__
// (op/math/host_device.h): the CUDA kernels (optimizer_ops.cu) run them too.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>

#include "op/math/host_device.h"
#include "update_param.h"

namespace braid::op::detail {

/// The hyper-parameters in the compute type, copied by value into each kernel loop so that they
/// stay in registers (no aliasing with the arrays being written).
template <class C>
struct Hyper {
  C lr, wd, rescale, clip, momentum, beta1, beta2, eps, gamma1, gamma2, clip_weights, rho, wd_lh, lamda1, beta;
  C bias1 = 1, bias2 = 1;  // 1/(1-beta1^t) and 1/sqrt(1-beta2^t) when t is given

  /// MXNet clips whenever a bound is >= 0; a negative bound (off) becomes infinity.
  static C bound(double b) { return b >= 0 ? C(b) : std::numeric_limits<C>::infinity(); }

  explicit Hyper(const UpdateParam& p)
      : lr(C(p.lr)),
        wd(C(p.wd)),
        rescale(C(p.rescale_grad)),
        clip(bound(p.clip_gradient)),
        momentum(C(p.momentum)),
        beta1(C(p.beta1)),
        beta2(C(p.beta2)),
        eps(C(p.epsilon)),
        gamma1(C(p.gamma1)),
        gamma2(C(p.gamma2)),
        clip_weights(bound(p.clip_weights)),
        rho(C(p.rho)),
        wd_lh(C(p.wd_lh)),
        lamda1(C(p.lamda1)),
        beta(C(p.beta)) {
    if (p.t > 0) {
      bias1 = C(1.0 / (1.0 - std::pow(p.beta1, static_cast<double>(p.t))));
      bias2 = C(1.0 / std::sqrt(1.0 - std::pow(p.beta2, static_cast<double>(p.t))));
    }
  }
};

/// Clips x into [-bound, bound]; a bound of infinity leaves it alone, without a branch.
template <class C>
BRAID_HOST_DEVICE C clip_to(C x, C bound) {
  return std::min(std::max(x, -bound), bound);
}

// w = (1 - lr*wd) * w - lr * clip(rescale*g)
struct SgdRule {
  static constexpr int kStates = 0;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g) {
    return (C(1) - h.lr * h.wd) * w - h.lr * clip_to(h.rescale * g, h.clip);
  }
};

/// -1, 0 or 1.
template <class C>
BRAID_HOST_DEVICE C sign_of(C x) {
  return C((x > C(0)) - (x < C(0)));
}

// signSGD: w = (1 - lr*wd)*w - lr*sign(g) (rescale_grad and clip_gradient cannot change a sign).
struct SignSgdRule {
  static constexpr int kStates = 0;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g) {
    return (C(1) - h.lr * h.wd) * w - h.lr * sign_of(g);
  }
};

// Signum: mom = momentum*mom - (1-momentum)*(wd*w + clip(rescale*g)); w = (1 - lr*wd_lh)*w + lr*sign(mom)
struct SignumRule {
  static constexpr int kStates = 1;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g, C& mom) {
    mom = h.momentum * mom - (C(1) - h.momentum) * (h.wd * w + clip_to(h.rescale * g, h.clip));
    return (C(1) - h.lr * h.wd_lh) * w + h.lr * sign_of(mom);
  }
};

// mom = momentum*mom - lr*wd*w - lr*clip(rescale*g); w += mom
struct SgdMomRule {
  static constexpr int kStates = 1;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g, C& mom) {
    mom = h.momentum * mom - h.lr * h.wd * w - h.lr * clip_to(h.rescale * g, h.clip);
    return w + mom;
  }
};

// d = clip(rescale*g) + wd*w; mom = momentum*mom - lr*d; w += momentum*mom - lr*d
// (MXNet's nag_mom_update kernel, its momentum holding -lr times the textbook one).
struct NagMomRule {
  static constexpr int kStates = 1;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g, C& mom) {
    const C d = clip_to(h.rescale * g, h.clip) + h.wd * w;
    mom = h.momentum * mom - h.lr * d;
    return w + h.momentum * mom - h.lr * d;
  }
};

// d = clip(rescale*g + wd*w); mean, var moving averages of d and d^2;
// w -= lr * mean / (sqrt(var) + epsilon)   (the bias correction is folded into lr by the caller)
struct AdamRule {
  static constexpr int kStates = 2;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g, C& mean, C& var) {
    const C d = clip_to(h.rescale * g + h.wd * w, h.clip);
    mean = h.beta1 * mean + (C(1) - h.beta1) * d;
    var = h.beta2 * var + (C(1) - h.beta2) * d * d;
    return w - h.lr * mean / (std::sqrt(var) + h.eps);
  }
};

// Tieleman & Hinton: d = clip(rescale*g + wd*w); n = (1-gamma1)*d^2 + gamma1*n;
// w = clip_weights(w - lr * d / sqrt(n + epsilon))
struct RmsPropRule {
  static constexpr int kStates = 1;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g, C& n) {
    const C d = clip_to(h.rescale * g + h.wd * w, h.clip);
    n = (C(1) - h.gamma1) * d * d + h.gamma1 * n;
    return clip_to(w - h.lr * (d / std::sqrt(n + h.eps)), h.clip_weights);
  }
};

// Graves (centered): n and gm are moving averages of d^2 and d;
// delta = gamma2*delta - lr * d / sqrt(n - gm^2 + epsilon); w = clip_weights(w + delta)
struct RmsPropAlexRule {
  static constexpr int kStates = 3;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g, C& n, C& gm, C& delta) {
    const C d = clip_to(h.rescale * g + h.wd * w, h.clip);
    n = (C(1) - h.gamma1) * d * d + h.gamma1 * n;
    gm = (C(1) - h.gamma1) * d + h.gamma1 * gm;
    delta = h.gamma2 * delta - h.lr * (d / std::sqrt(n - gm * gm + h.eps));
    return clip_to(w + delta, h.clip_weights);
  }
};

// d = clip(rescale*g); history += d^2; w -= lr * (d / sqrt(history + epsilon) + wd*w)
struct AdaGradRule {
  static constexpr int kStates = 1;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g, C& history) {
    const C d = clip_to(h.rescale * g, h.clip);
    history += d * d;
    return w - h.lr * (d / std::sqrt(history + h.eps) + h.wd * w);
  }
};

// d = clip(rescale*g); acc_g = rho*acc_g + (1-rho)*d^2;
// delta = sqrt(acc_delta + eps) / sqrt(acc_g + eps) * d; acc_delta = rho*acc_delta + (1-rho)*delta^2;
// w -= delta + wd*w   (MXNet's AdaDelta: no learning rate)
struct AdaDeltaRule {
  static constexpr int kStates = 2;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g, C& acc_g, C& acc_delta) {
    const C d = clip_to(h.rescale * g, h.clip);
    acc_g = h.rho * acc_g + (C(1) - h.rho) * d * d;
    const C delta = std::sqrt(acc_delta + h.eps) / std::sqrt(acc_g + h.eps) * d;
    acc_delta = h.rho * acc_delta + (C(1) - h.rho) * delta * delta;
    return w - (delta + h.wd * w);
  }
};

// AdamW as in the paper and torch.optim.AdamW: d = clip(rescale*g); w *= 1 - lr*wd (decoupled);
// mean, var moving averages; w -= lr/(1-beta1^t) * mean / (sqrt(var)/sqrt(1-beta2^t) + epsilon)
struct AdamWRule {
  static constexpr int kStates = 2;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g, C& mean, C& var) {
    const C d = clip_to(h.rescale * g, h.clip);
    w = w * (C(1) - h.lr * h.wd);
    mean = h.beta1 * mean + (C(1) - h.beta1) * d;
    var = h.beta2 * var + (C(1) - h.beta2) * d * d;
    return w - h.lr * h.bias1 * mean / (std::sqrt(var) * h.bias2 + h.eps);
  }
};

// FTML (Zheng & Kwok 2017), at step t: d = clip(rescale*g + wd*w); v = beta2*v + (1-beta2)*d^2;
// dt = (1-beta1^t)/lr*(sqrt(v/(1-beta2^t)) + epsilon); z = beta1*z + (1-beta1)*d - (dt - beta1*dp)*w;
// dp = dt; w = -z/dt
struct FtmlRule {
  static constexpr int kStates = 3;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g, C& dp, C& v, C& z) {
    const C d = clip_to(h.rescale * g + h.wd * w, h.clip);
    v = h.beta2 * v + (C(1) - h.beta2) * d * d;
    const C dt = (C(1) / h.bias1) / h.lr * (std::sqrt(v) * h.bias2 + h.eps);
    z = h.beta1 * z + (C(1) - h.beta1) * d - (dt - h.beta1 * dp) * w;
    dp = dt;
    return -z / dt;
  }
};

// FTRL-Proximal (McMahan et al. 2013): d = clip(rescale*g); z += d - (sqrt(n + d^2) - sqrt(n))*w/lr;
// n += d^2; w = (sign(z)*lamda1 - z) / ((beta + sqrt(n))/lr + wd) where |z| > lamda1, else 0
struct FtrlRule {
  static constexpr int kStates = 2;
  template <class C>
  BRAID_HOST_DEVICE static C step(const Hyper<C>& h, C w, C g, C& z, C& n) {
    const C d = clip_to(h.rescale * g, h.clip);
    z += d - (std::sqrt(n + d * d) - std::sqrt(n)) * w / h.lr;
    n += d * d;
    if (!(std::abs(z) > h.lamda1)) return C(0);
    return (sign_of(z) * h.lamda1 - z) / ((h.beta + std::sqrt(n)) / h.lr + h.wd);
  }
};

}  // namespace braid::op::detail
