"""Optimizers with per-element adaptive steps: Adam, Adamax, Nadam, AdaGrad, AdaDelta, RMSProp,
Ftrl, FTML, LAMB (MXNet 1.x's update rules; Adam and RMSProp run one fused operator)."""
import math
import os

import numpy

from .. import _core
from .. import ndarray as nd
from ..ndarray import contrib
from .optimizer import Optimizer, register

__all__ = ["Adam", "Adamax", "Nadam", "AdaGrad", "AdaDelta", "RMSProp", "Ftrl", "FTML", "LAMB", "Test"]


def _zeros(weight, n, dtype=None):
    """n zero arrays shaped like weight (in its dtype unless told)."""
    return tuple(_core.zeros(weight.shape, weight.context, dtype or weight.dtype) for _ in range(n))


def _clipped(opt, grad, extra=None):
    """rescale_grad*grad (+ extra), clipped to [-clip_gradient, clip_gradient] when set."""
    g = grad * opt.rescale_grad
    if extra is not None:
        g = g + extra
    if opt.clip_gradient is not None:
        g = nd.clip(g, -opt.clip_gradient, opt.clip_gradient)
    return g


def _fused_kwargs(opt, **kwargs):
    kwargs["rescale_grad"] = opt.rescale_grad
    if opt.clip_gradient:
        kwargs["clip_gradient"] = opt.clip_gradient
    return kwargs


@register
class Adam(Optimizer):
    """Adam (adam_update) with the bias correction folded into the learning rate."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, lazy_update=True, **kwargs):
        super(Adam, self).__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        return _zeros(weight, 2)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        lr *= math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)
        mean, var = state
        nd.adam_update(weight, grad, mean, var, out=weight, lazy_update=self.lazy_update, lr=lr, wd=wd,
                       **_fused_kwargs(self, beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon))


@register
class Adamax(Optimizer):
    """AdaMax (Adam with the infinity norm): u = max(beta2*u, |g|); w -= lr/(1-beta1^t)*m/u."""

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super(Adamax, self).__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        return _zeros(weight, 2)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        lr /= (1. - self.beta1 ** t)
        grad = _clipped(self, grad, wd * weight)
        m_t, u_t = state
        m_t[:] *= self.beta1
        m_t[:] += (1. - self.beta1) * grad
        u_t[:] = nd.maximum(self.beta2 * u_t, nd.abs(grad))
        weight[:] -= lr * m_t / u_t


@register
class Nadam(Optimizer):
    """Adam with Nesterov momentum and a momentum schedule (schedule_decay)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, schedule_decay=0.004, **kwargs):
        super(Nadam, self).__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.

    def create_state(self, index, weight):
        return _zeros(weight, 2)

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        grad = _clipped(self, grad, wd * weight)
        momentum_t = self.beta1 * (1. - 0.5 * pow(0.96, t * self.schedule_decay))
        momentum_t_1 = self.beta1 * (1. - 0.5 * pow(0.96, (t + 1) * self.schedule_decay))
        self.m_schedule = self.m_schedule * momentum_t
        m_schedule_next = self.m_schedule * momentum_t_1
        m_t, v_t = state
        m_t[:] *= self.beta1
        m_t[:] += (1. - self.beta1) * grad
        v_t[:] *= self.beta2
        v_t[:] += (1. - self.beta2) * grad * grad
        grad_prime = grad / (1. - self.m_schedule)
        m_t_prime = m_t / (1. - m_schedule_next)
        v_t_prime = v_t / (1. - pow(self.beta2, t))
        m_t_bar = (1. - momentum_t) * grad_prime + momentum_t_1 * m_t_prime
        weight[:] -= lr * m_t_bar / (nd.sqrt(v_t_prime) + self.epsilon)


@register
class AdaGrad(Optimizer):
    """AdaGrad: history += g^2; w -= lr*(g/sqrt(history + eps) + wd*w)."""

    def __init__(self, eps=1e-7, **kwargs):
        super(AdaGrad, self).__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return _core.zeros(weight.shape, weight.context, "float32")

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        grad = _clipped(self, grad)
        history = state
        history[:] += nd.square(grad)
        div = grad / nd.sqrt(history + self.float_stable_eps)
        weight[:] += (div + weight * wd) * -lr


@register
class RMSProp(Optimizer):
    """RMSProp (rmsprop_update), or the centered version of Graves (rmspropalex_update)."""

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8, centered=False,
                 clip_weights=None, **kwargs):
        super(RMSProp, self).__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        return _zeros(weight, 3 if self.centered else 1, dtype="float32")

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kwargs = _fused_kwargs(self, gamma1=self.gamma1, epsilon=self.epsilon)
        if self.clip_weights:
            kwargs["clip_weights"] = self.clip_weights
        if self.centered:
            nd.rmspropalex_update(weight, grad, *state, out=weight, lr=lr, wd=wd, gamma2=self.gamma2, **kwargs)
        else:
            nd.rmsprop_update(weight, grad, state[0], out=weight, lr=lr, wd=wd, **kwargs)


@register
class AdaDelta(Optimizer):
    """AdaDelta (no learning rate): delta = sqrt(acc_delta + eps)/sqrt(acc_g + eps)*g; w -= delta + wd*w."""

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super(AdaDelta, self).__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return _zeros(weight, 2, dtype="float32")

    def update(self, index, weight, grad, state):
        wd = self._get_wd(index)
        self._update_count(index)
        grad = _clipped(self, grad)
        acc_g, acc_delta = state
        acc_g[:] *= self.rho
        acc_g[:] += (1. - self.rho) * grad * grad
        current_delta = nd.sqrt(acc_delta + self.epsilon) / nd.sqrt(acc_g + self.epsilon) * grad
        acc_delta[:] *= self.rho
        acc_delta[:] += (1. - self.rho) * current_delta * current_delta
        weight[:] -= current_delta + wd * weight


@register
class Ftrl(Optimizer):
    """FTRL-Proximal: z += g - (sqrt(n + g^2) - sqrt(n))*w/lr; n += g^2;
    w = (sign(z)*lamda1 - z) / ((beta + sqrt(n))/lr + wd) where |z| > lamda1, else 0."""

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super(Ftrl, self).__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return _zeros(weight, 2, dtype="float32")

    def update(self, index, weight, grad, state):
        """One ftrl_update; with a row_sparse gradient only its rows change (as MXNet's)."""
        self._update_count(index)
        wd, lr = self._get_wd(index), self._get_lr(index)
        z, n = state
        clip = {"clip_gradient": self.clip_gradient} if self.clip_gradient else {}
        nd.ftrl_update(weight, grad, z, n, out=weight, lr=lr, wd=wd, lamda1=self.lamda1, beta=self.beta,
                       rescale_grad=self.rescale_grad, **clip)


@register
class FTML(Optimizer):
    """Follow the Moving Leader: d_t = (1-beta1^t)/lr*(sqrt(v/(1-beta2^t)) + eps);
    z = beta1*z + (1-beta1)*g - (d_t - beta1*d)*w; w = -z/d_t."""

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super(FTML, self).__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return _zeros(weight, 3)  # d, v, z

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        grad = grad * self.rescale_grad + wd * weight
        if self.clip_gradient:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)
        prev_d, prev_v, prev_z = state
        prev_v[:] = self.beta2 * prev_v + (1 - self.beta2) * nd.square(grad)
        d_t = (1 - self.beta1 ** t) / lr * (nd.sqrt(prev_v / (1 - self.beta2 ** t)) + self.epsilon)
        prev_z[:] = self.beta1 * prev_z + (1 - self.beta1) * grad - (d_t - self.beta1 * prev_d) * weight
        prev_d[:] = d_t
        weight[:] = -prev_z / d_t


@register
class LAMB(Optimizer):
    """LAMB: Adam's direction g = mean_hat/(sqrt(var_hat) + eps) + wd*w, scaled per weight by the
    trust ratio |w|/|g| (|w| bounded by lower_bound/upper_bound when set)."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6, lower_bound=None,
                 upper_bound=None, bias_correction=True, **kwargs):
        super(LAMB, self).__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = max(1, min(45, int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "45"))))

    def create_state(self, index, weight):
        return _zeros(weight, 2)

    def _step(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        mean, var = state
        grad = _clipped(self, grad)
        mean[:] = self.beta1 * mean + (1. - self.beta1) * grad
        var[:] = self.beta2 * var + (1. - self.beta2) * nd.square(grad)
        mean_hat, var_hat = mean, var
        if self.bias_correction:
            mean_hat = mean / (1. - self.beta1 ** t)
            var_hat = var / (1. - self.beta2 ** t)
        g = mean_hat / (nd.sqrt(var_hat) + self.epsilon) + wd * weight
        r1 = float(weight.norm().asscalar())
        if self.lower_bound:
            r1 = max(r1, self.lower_bound)
        if self.upper_bound:
            r1 = min(r1, self.upper_bound)
        r2 = float(g.norm().asscalar())
        ratio = 1. if r1 == 0. or r2 == 0. else r1 / r2
        weight[:] -= lr * ratio * g

    def update(self, index, weight, grad, state):
        self._update(index, weight, grad, state, False)

    def update_multi_precision(self, index, weight, grad, state):
        first = weight[0] if isinstance(weight, (tuple, list)) else weight
        self._update(index, weight, grad, state, self.multi_precision and first.dtype == numpy.float16)

    def _update(self, index, weight, grad, state, master_copies):
        if not isinstance(index, (tuple, list)):
            index, weight, grad, state = [index], [weight], [grad], [state]
        if master_copies or all(w.dtype == numpy.float32 for w in weight):
            return self._fused(index, weight, grad, state, master_copies)
        for i, w, g, s in zip(index, weight, grad, state):  # float64 and float16 without master copies
            self._step(i, w, g, s)

    def _fused(self, index, weight, grad, state, master_copies):
        """MXNet's path: the multi-tensor operators, both phases in one pass per tensor,
        aggregate_num tensors a call (with master copies, the float32 masters are updated and
        the weights rounded from them)."""
        steps, lrs, wds = [], [], []
        for i in index:
            self._update_count(i)
            steps.append(self._index_update_count[i])
            lrs.append(self._get_lr(i))
            wds.append(self._get_wd(i))
        kwargs = dict(beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon, bias_correction=self.bias_correction,
                      rescale_grad=self.rescale_grad)
        for name in ("clip_gradient", "lower_bound", "upper_bound"):
            if getattr(self, name):
                kwargs[name] = getattr(self, name)
        for start in range(0, len(index), self.aggregate_num):
            part = slice(start, start + self.aggregate_num)
            ws, gs, states = weight[part], grad[part], state[part]
            numbers = dict(kwargs, out=ws, step_count=steps[part], lrs=lrs[part], wds=wds[part])
            if master_copies:
                masters, moments = [s[0] for s in states], [s[1] for s in states]
                contrib.multi_mp_lamb_update(ws, gs, [m for m, _ in moments], [v for _, v in moments], masters,
                                             **numbers)
            else:
                contrib.multi_lamb_update(ws, gs, [m for m, _ in states], [v for _, v in states], **numbers)


@register
class Test(Optimizer):
    """For tests: w += rescale_grad*grad; the state holds the weight."""

    def create_state(self, index, weight):
        return _core.zeros(weight.shape, weight.context, "float32")

    def update(self, index, weight, grad, state):
        weight[:] += grad * self.rescale_grad
        state[:] = weight
