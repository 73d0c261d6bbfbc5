"""MXNet's mxnet.base: the error type every failure of the C++ core raises."""
from ._core import MXNetError

__all__ = ["MXNetError"]
