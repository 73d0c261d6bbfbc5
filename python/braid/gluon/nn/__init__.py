"""gluon.nn: layers (most implemented in C++, a few written with operators in Python) and containers."""
import warnings as _warnings

from ... import ndarray as _nd
from ..._core import NDArray as _NDArray
from ..._core.gluon import nn as _n
from ..block import Block, HybridBlock, SymbolBlock

Sequential = _n.Sequential
HybridSequential = _n.HybridSequential
Dense = _n.Dense
Conv1D, Conv2D, Conv3D = _n.Conv1D, _n.Conv2D, _n.Conv3D
Conv1DTranspose, Conv2DTranspose, Conv3DTranspose = _n.Conv1DTranspose, _n.Conv2DTranspose, _n.Conv3DTranspose
MaxPool1D, MaxPool2D, MaxPool3D = _n.MaxPool1D, _n.MaxPool2D, _n.MaxPool3D
AvgPool1D, AvgPool2D, AvgPool3D = _n.AvgPool1D, _n.AvgPool2D, _n.AvgPool3D
GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D = _n.GlobalMaxPool1D, _n.GlobalMaxPool2D, _n.GlobalMaxPool3D
GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D = _n.GlobalAvgPool1D, _n.GlobalAvgPool2D, _n.GlobalAvgPool3D
BatchNorm, LayerNorm, Dropout, Embedding, Flatten = _n.BatchNorm, _n.LayerNorm, _n.Dropout, _n.Embedding, _n.Flatten
Activation, LeakyReLU, ELU, SELU, GELU, PReLU = _n.Activation, _n.LeakyReLU, _n.ELU, _n.SELU, _n.GELU, _n.PReLU
from .activations import Swish  # noqa: E402
from .basic_layers import InstanceNorm, GroupNorm  # noqa: E402
from .padding import ReflectionPad2D  # noqa: E402


def _getitem(self, key):
    """A child by index, or for a slice a container of the same type holding those children."""
    if not isinstance(key, slice):
        return self._child_at(key)
    net = type(self)(prefix=self.prefix)
    with net.name_scope():
        net.add(*[self._child_at(i) for i in range(len(self))[key]])
    return net


def _sequential_hybridize(self, active=True, **kwargs):
    """MXNet warns when a Sequential holds only HybridBlocks (a HybridSequential would run faster)."""
    children = list(self._children.values())
    if children and all(isinstance(c, HybridBlock) for c in children):
        _warnings.warn("All children of this Sequential layer '%s' are HybridBlocks. Consider using "
                       "HybridSequential for the best performance." % self.prefix, stacklevel=2)
    Block.hybridize(self, active, **kwargs)


for _container in (Sequential, HybridSequential):
    _container._child_at = _container.__getitem__
    _container.__getitem__ = _getitem
Sequential.hybridize = _sequential_hybridize


def _outputs(result):
    return [result] if isinstance(result, _NDArray) else list(result)


def Lambda(function, prefix=None):
    """A Block from a function of the inputs, or from an operator's name ("tanh")."""
    if isinstance(function, str):
        return _n._Lambda(function, prefix)
    return _n._Lambda(lambda inputs: _outputs(function(*inputs)), getattr(function, "__name__", "<lambda>"), prefix)


def HybridLambda(function, prefix=None):
    """A HybridBlock from a function ``f(F, x, ...)``, or from an operator's name."""
    if isinstance(function, str):
        return _n._HybridLambda(function, prefix)
    return _n._HybridLambda(lambda inputs: _outputs(function(_nd, *inputs)),
                            getattr(function, "__name__", "<lambda>"), prefix)
