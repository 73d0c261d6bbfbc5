"""Normalization layers written with operators: InstanceNorm and GroupNorm (the other layers
are C++ layers, see nn/__init__.py)."""
from ..block import HybridBlock

__all__ = ["InstanceNorm", "GroupNorm"]


def _normalize(F, x, axes, eps):
    """(x - mean) / sqrt(var + eps) over ``axes`` (the biased variance, as MXNet's operators)."""
    centered = F.broadcast_sub(x, F.mean(x, axis=axes, keepdims=True))
    var = F.mean(F.square(centered), axis=axes, keepdims=True)
    return F.broadcast_div(centered, F.sqrt(var + eps))


def _per_channel(F, v, ndim):
    """A (C,) vector shaped (1, C, 1, ...) to broadcast over axis 1 of an ``ndim`` array."""
    return F.reshape(v, shape=(1, -1) + (1,) * (ndim - 2))


class _Norm(HybridBlock):
    """Completes a deferred gamma and beta from the input before running hybrid_forward."""

    def _channels(self, x):
        raise NotImplementedError

    def forward(self, x, *args):
        for p in (self.gamma, self.beta):
            if p._deferred:
                p._finish_deferred_init((self._channels(x),))
        return super().forward(x, *args)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%r" % kv for kv in self._kwargs.items()))


class InstanceNorm(_Norm):
    """Normalizes each sample's each channel over its other axes ("Instance Normalization"),
    then scales by gamma and shifts by beta per channel (``axis`` is the channel axis)."""

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False, beta_initializer="zeros",
                 gamma_initializer="ones", in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null", shape=(in_channels,),
                                     init=gamma_initializer, allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null", shape=(in_channels,),
                                    init=beta_initializer, allow_deferred_init=True)

    def _channels(self, x):
        return x.shape[self._axis]

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis != 1:
            x = F.swapaxes(x, dim1=1, dim2=self._axis)
        ndim = len(x.shape)
        y = _normalize(F, x, tuple(range(2, ndim)), self._epsilon)
        y = F.broadcast_add(F.broadcast_mul(y, _per_channel(F, gamma, ndim)), _per_channel(F, beta, ndim))
        return y if self._axis == 1 else F.swapaxes(y, dim1=1, dim2=self._axis)


class GroupNorm(_Norm):
    """Splits the channels (axis 1) into ``num_groups`` groups and normalizes each sample's
    each group over its channels and other axes ("Group Normalization"); gamma and beta hold one
    value per group (MXNet 1.x)."""

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "num_groups": num_groups, "center": center, "scale": scale}
        self._num_groups = num_groups
        self._epsilon = epsilon
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null", shape=(num_groups,),
                                     init=gamma_initializer, allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null", shape=(num_groups,),
                                    init=beta_initializer, allow_deferred_init=True)

    def _channels(self, x):
        return self._num_groups

    def hybrid_forward(self, F, x, gamma, beta):
        grouped = F.reshape(x, shape=(0, self._num_groups, -1))
        y = _normalize(F, grouped, (2,), self._epsilon)
        y = F.broadcast_add(F.broadcast_mul(y, _per_channel(F, gamma, 3)), _per_channel(F, beta, 3))
        return F.reshape(y, shape=x.shape)
