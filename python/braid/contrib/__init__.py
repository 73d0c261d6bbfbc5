"""MXNet's mx.contrib: automatic mixed precision (``mx.contrib.amp``), the first autograd interface
(``mx.contrib.autograd``), a DataLoader as a DataIter (``mx.contrib.io``), text vocabularies and token embeddings
(``mx.contrib.text``), SVRG training for modules (``mx.contrib.svrg_optimization``), ONNX import and export (``mx.contrib.onnx``, also ``mx.onnx``), and the contrib operators (``mx.contrib.symbol``, ``mx.contrib.ndarray``, also
``mx.contrib.sym`` and ``mx.contrib.nd`` as in MXNet)."""
from . import amp, autograd, io
from . import text
from . import svrg_optimization
from .. import onnx
from ..symbol import contrib as symbol
from ..ndarray import contrib as ndarray

sym, nd = symbol, ndarray

__all__ = ["amp", "autograd", "io", "text", "svrg_optimization", "onnx", "symbol", "ndarray", "sym", "nd"]
