"""SGD and its relatives: SGD, NAG, Signum, LARS, LBSGD, DCASGD, SGLD (MXNet 1.x's update rules)."""
import math
import os
import warnings

import numpy

from .. import _core
from .. import ndarray as nd
from .optimizer import Optimizer, register

__all__ = ["SGD", "ccSGD", "NAG", "Signum", "LARS", "LBSGD", "DCASGD", "SGLD"]


def _as_lists(indices, weights, grads, states):
    if isinstance(indices, (tuple, list)):
        return list(indices), list(weights), list(grads), list(states)
    return [indices], [weights], [grads], [states]


def _zeros_like(weight, dtype=None):
    return _core.zeros(weight.shape, weight.context, dtype or weight.dtype)


class _MasterCopyFirst(Optimizer):
    """Optimizers whose multi-precision state is (state, float32 master copy), in that order,
    and whose update ops take the master copy themselves (MXNet's mp_* operators)."""

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and weight.dtype == numpy.float16:
            master = weight.astype(numpy.float32)
            return (self.create_state(index, master), master)
        if weight.dtype == numpy.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or slow "
                          "convergence. Consider using multi_precision=True option of the %s optimizer" %
                          type(self).__name__)
        return self.create_state(index, weight)

    def _uses_master_copy(self, weight):
        first = weight[0] if isinstance(weight, (tuple, list)) else weight
        return self.multi_precision and first.dtype == numpy.float16

    def update(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        self._update_impl(index, weight, grad, state, multi_precision=self._uses_master_copy(weight))

    def _op_kwargs(self, momentum):
        kwargs = {"rescale_grad": self.rescale_grad}
        if momentum > 0:
            kwargs["momentum"] = momentum
        if self.clip_gradient:
            kwargs["clip_gradient"] = self.clip_gradient
        return kwargs

    def _sgd_step(self, weight, grad, state, lr, wd, kwargs, multi_precision, mom_op="sgd_mom_update",
                  lazy=None):
        """One (mp_)sgd(_mom)_update, or another momentum op of the same signature."""
        extra = {} if lazy is None else {"lazy_update": lazy}
        if not multi_precision:
            if state is not None:
                getattr(nd, mom_op)(weight, grad, state, out=weight, lr=lr, wd=wd, **extra, **kwargs)
            else:
                nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, **extra, **kwargs)
        elif state[0] is not None:
            getattr(nd, "mp_" + mom_op)(weight, grad, state[0], state[1], out=weight, lr=lr, wd=wd, **kwargs)
        else:
            nd.mp_sgd_update(weight, grad, state[1], out=weight, lr=lr, wd=wd, **kwargs)


@register
class SGD(_MasterCopyFirst):
    """SGD with momentum and weight decay: state = momentum*state + lr*(rescale*clip(grad) + wd*w);
    w -= state (sgd_update / sgd_mom_update). Arrays are dense, so lazy and standard updates agree."""

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super(SGD, self).__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "4"))

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _update_impl(self, indices, weights, grads, states, multi_precision=False):
        indices, weights, grads, states = _as_lists(indices, weights, grads, states)
        self._update_count(indices)
        lrs, wds = self._get_lrs(indices), self._get_wds(indices)
        kwargs = self._op_kwargs(self.momentum)
        for weight, grad, state, lr, wd in zip(weights, grads, states, lrs, wds):
            self._sgd_step(weight, grad, state, lr, wd, kwargs, multi_precision, lazy=self.lazy_update)


@register
class ccSGD(SGD):  # pylint: disable=invalid-name
    """[Deprecated] the same as SGD."""


@register
class NAG(_MasterCopyFirst):
    """Nesterov accelerated gradient (nag_mom_update)."""

    def __init__(self, momentum=0.0, **kwargs):
        super(NAG, self).__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def update_multi_precision(self, index, weight, grad, state):
        mp = self._uses_master_copy(weight) and isinstance(state, (tuple, list))
        self._update_impl(index, weight, grad, state, multi_precision=mp)

    def _update_impl(self, index, weight, grad, state, multi_precision=False):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        self._sgd_step(weight, grad, state, lr, wd, self._op_kwargs(self.momentum), multi_precision,
                       mom_op="nag_mom_update")


@register
class Signum(Optimizer):
    """signSGD (momentum 0) and Signum: mom = momentum*mom - (1-momentum)*(wd*w + clip(rescale*grad));
    w = (1 - lr*wd_lh)*w + lr*sign(mom). signSGD: w = (1 - lr*(wd + wd_lh))*w - lr*sign(grad)."""

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super(Signum, self).__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        g = grad * self.rescale_grad
        if self.clip_gradient:
            g = nd.clip(g, -self.clip_gradient, self.clip_gradient)
        if state is not None and self.momentum > 0:
            state[:] = self.momentum * state - (1 - self.momentum) * (wd * weight + g)
            weight[:] = (1 - lr * self.wd_lh) * weight + lr * nd.sign(state)
        else:
            weight[:] = (1 - lr * (wd + self.wd_lh)) * weight - lr * nd.sign(g)


def _is_bias_like(name):
    return name.endswith("gamma") or name.endswith("beta") or name.endswith("bias")


@register
class LARS(_MasterCopyFirst):
    """SGD with layer-wise adaptive rate scaling: each weight's lr is scaled by
    eta*|w| / (|rescale*g| + wd*|w| + eps) (not for gamma/beta/bias)."""

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0, momentum_correction=True, **kwargs):
        super(LARS, self).__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "4"))
        self.eta = eta
        self.eps = eps
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None

    def _get_lrs(self, indices):
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self._scheduled_lr()
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        return super(LARS, self)._get_lrs(indices)

    def _decays_by_default(self, name):
        return name.endswith("_weight")

    def create_state(self, index, weight):
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _l2norm(self, v, rescale=False):
        v = v.astype("float32")
        if rescale:
            v = v * self.rescale_grad
        return float(nd.norm(v).asscalar())

    def _get_lars(self, i, weight, g, lr, wd):
        name = self.idx2name.get(i, str(i))
        if _is_bias_like(name):
            return lr
        w_norm, g_norm = self._l2norm(weight), self._l2norm(g, rescale=True)
        lars = self.eta * w_norm / (g_norm + wd * w_norm + self.eps) if w_norm > 0.0 and g_norm > 0.0 else 1.0
        return lars * lr

    def _update_impl(self, indices, weights, grads, states, multi_precision=False):
        indices, weights, grads, states = _as_lists(indices, weights, grads, states)
        self._update_count(indices)
        lrs, wds = self._get_lrs(indices), self._get_wds(indices)
        momentum = self.momentum
        if momentum > 0 and self.momentum_correction and self.last_lr != 0:
            momentum = self.momentum * (self.cur_lr / self.last_lr)
        kwargs = self._op_kwargs(momentum)
        for i, weight, grad, state, lr, wd in zip(indices, weights, grads, states, lrs, wds):
            lr = self._get_lars(i, weight, grad, lr, wd)
            self._sgd_step(weight, grad, state, lr, wd, kwargs, multi_precision, lazy=self.lazy_update)


@register
class LBSGD(Optimizer):
    """Large-batch SGD: gradients accumulated over batch_scale steps, the lr warmed up by a
    strategy ('linear', 'power2', 'sqrt') or scaled by LARS ('lars')."""

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy="linear", warmup_epochs=5,
                 batch_scale=1, updates_per_epoch=32, begin_epoch=0, num_epochs=60, **kwargs):
        super(LBSGD, self).__init__(**kwargs)
        self.momentum = momentum
        self.multi_precision = multi_precision
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        if self.multi_precision and weight.dtype == numpy.float16:
            master = weight.astype(numpy.float32)
            mom = _zeros_like(weight, numpy.float32) if self.momentum != 0.0 else None
            return (mom, master)
        return _zeros_like(weight) if self.momentum != 0.0 else None

    def _get_lbmult(self, nup):
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        ramps = {"linear": lambda: 1.0 + (maxmult - 1) * nup / nwup,
                 "power2": lambda: 1.0 + (maxmult - 1) * (nup * nup) / (nwup * nwup),
                 "sqrt": lambda: 1.0 + (maxmult - 1) * math.sqrt(float(nup) / nwup)}
        return ramps[self.warmup_strategy]() if self.warmup_strategy in ramps else 1.0

    def _l2norm(self, v):
        return float((v * v).asnumpy().sum())

    def _get_lars(self, weight, g, wd):
        weight2, grad2 = self._l2norm(weight), self._l2norm(g)
        lars = math.sqrt(weight2 / (grad2 + wd * weight2 + 1e-18))
        return min(max(lars, 0.01), 100)

    def _cumulate_gradient(self, grad, index):
        cgrad = self.cumgrads.get(index, {})
        if cgrad and cgrad["num_cums"] > 0:
            cgrad = {"cum_grad": cgrad["cum_grad"] + grad, "num_cums": cgrad["num_cums"] + 1}
        else:
            cgrad = {"cum_grad": grad, "num_cums": self.init_updates + 1}
        self.cumgrads[index] = cgrad
        return cgrad

    def update(self, index, weight, grad, state):
        lr, wd = self._get_lr(index), self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if cgrad["num_cums"] % self.batch_scale != 0:
            nd.sgd_update(weight, grad, out=weight, lr=0.0, wd=wd)
            return
        grad = cgrad["cum_grad"] / self.batch_scale
        if self.warmup_strategy == "lars":
            lr = lr * self._get_lars(weight, grad, wd)
        else:
            lr = lr * self._get_lbmult(cgrad["num_cums"])
        kwargs = {"rescale_grad": self.rescale_grad}
        if self.momentum > 0:
            kwargs["momentum"] = self.momentum
        if self.clip_gradient:
            kwargs["clip_gradient"] = self.clip_gradient
        _MasterCopyFirst._sgd_step(self, weight, grad, state, lr, wd, kwargs, isinstance(state, (list, tuple)))
        self.cumgrads[index]["cum_grad"] = 0


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD: the step adds lamda*g*g*(w - w_previous)."""

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super(DCASGD, self).__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        return (None if self.momentum == 0.0 else _zeros_like(weight), weight.copy())

    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        grad = grad * self.rescale_grad
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)
        mom, previous_weight = state
        step = -lr * (grad + wd * weight + self.lamda * grad * grad * (weight - previous_weight))
        if mom is not None:
            mom[:] *= self.momentum
            mom[:] += step
        else:
            mom = step
        previous_weight[:] = weight
        weight[:] += mom


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: w += -lr/2*(g + wd*w) + N(0, sqrt(lr))."""

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        from .. import random as _random
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        grad = grad * self.rescale_grad
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)
        weight[:] += -lr / 2 * (grad + wd * weight)
        weight[:] += _random.normal(0, math.sqrt(lr), shape=weight.shape, dtype=weight.dtype, ctx=weight.context)
