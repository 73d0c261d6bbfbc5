"""Containers that run their children side by side and join the outputs, the identity layer,
and SyncBatchNorm (MXNet's gluon.contrib.nn)."""
from ... import nn
from ...._core.gluon import nn as _n

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "SyncBatchNorm"]


class Concurrent(nn.Block):
    """Feeds the input to every child and concatenates their outputs along ``axis``.
    ``add(*blocks)`` appends children; ``len()`` and indexing work as on a Sequential."""

    # A plain Block (not a subclass of the C++ Sequential), so that the call runs this forward
    # rather than Sequential's, which would chain the children one after the other.
    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def add(self, *blocks):
        for block in blocks:
            self.register_child(block)

    def __len__(self):
        return len(self._children)

    def __getitem__(self, key):
        return list(self._children.values())[key]

    def forward(self, x):
        from .... import ndarray as nd
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


# C++ layers (braid/gluon/nn/concurrent.h): HybridConcurrent is a HybridSequential whose children
# run side by side on the same input, outputs concatenated along ``axis``.
HybridConcurrent, Identity = _n.HybridConcurrent, _n.Identity


class SyncBatchNorm(nn.BatchNorm):
    """Batch normalization with statistics over the whole batch across devices. Braid runs a
    batch on one device per call, so this is BatchNorm over channel axis 1 (``num_devices`` is
    accepted for MXNet compatibility)."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer="zeros", gamma_initializer="ones",
                 running_mean_initializer="zeros", running_variance_initializer="ones", **kwargs):
        nn.BatchNorm.__init__(self, axis=1, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                              use_global_stats=use_global_stats, beta_initializer=beta_initializer,
                              gamma_initializer=gamma_initializer, running_mean_initializer=running_mean_initializer,
                              running_variance_initializer=running_variance_initializer, in_channels=in_channels,
                              **kwargs)
