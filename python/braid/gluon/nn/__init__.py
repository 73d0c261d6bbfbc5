"""gluon.nn: layers (implemented in C++) and containers."""
from ... import ndarray as _nd
from ..._core import NDArray as _NDArray
from ..._core.gluon import nn as _n
from ..block import Block, HybridBlock, SymbolBlock

Sequential = _n.Sequential
HybridSequential = _n.HybridSequential
Dense = _n.Dense
Conv1D, Conv2D = _n.Conv1D, _n.Conv2D
Conv1DTranspose, Conv2DTranspose = _n.Conv1DTranspose, _n.Conv2DTranspose
MaxPool1D, MaxPool2D, AvgPool1D, AvgPool2D = _n.MaxPool1D, _n.MaxPool2D, _n.AvgPool1D, _n.AvgPool2D
GlobalMaxPool1D, GlobalMaxPool2D = _n.GlobalMaxPool1D, _n.GlobalMaxPool2D
GlobalAvgPool1D, GlobalAvgPool2D = _n.GlobalAvgPool1D, _n.GlobalAvgPool2D
BatchNorm, LayerNorm, Dropout, Embedding, Flatten = _n.BatchNorm, _n.LayerNorm, _n.Dropout, _n.Embedding, _n.Flatten
Activation, LeakyReLU, ELU, SELU, GELU, PReLU = _n.Activation, _n.LeakyReLU, _n.ELU, _n.SELU, _n.GELU, _n.PReLU


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
