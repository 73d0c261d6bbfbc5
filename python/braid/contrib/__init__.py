"""MXNet's mx.contrib: automatic mixed precision (``mx.contrib.amp``), the first autograd interface
(``mx.contrib.autograd``), and the contrib operators (``mx.contrib.symbol``, ``mx.contrib.ndarray``)."""
from . import amp, autograd
from ..symbol import contrib as symbol
from ..ndarray import contrib as ndarray

__all__ = ["amp", "autograd", "symbol", "ndarray"]
