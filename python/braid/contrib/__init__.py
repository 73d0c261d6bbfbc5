"""MXNet's mx.contrib: automatic mixed precision (``mx.contrib.amp``), the first autograd interface
(``mx.contrib.autograd``), and the contrib operators (``mx.contrib.symbol``, ``mx.contrib.ndarray``, also
``mx.contrib.sym`` and ``mx.contrib.nd`` as in MXNet)."""
from . import amp, autograd
from ..symbol import contrib as symbol
from ..ndarray import contrib as ndarray

sym, nd = symbol, ndarray

__all__ = ["amp", "autograd", "symbol", "ndarray", "sym", "nd"]
