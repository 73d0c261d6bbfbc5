"""mxnet.ndarray (``nd``): the imperative array and every registered operator as a function.

``nd.<Op>(*arrays, **attributes)`` runs operator ``Op`` of the C++ registry (``nd.Convolution``,
``nd.relu``, ``nd.dot``, ...); inputs are arrays given by position or by argument name
(``data=``, ``weight=``), everything else is an attribute in MXNet's spelling, ``out=`` receives
the result. The array class and the functions MXNet writes in Python are in ``.ndarray``."""

from .. import _core
from .utils import save, load, load_frombuffer  # noqa: F401
from ..base import MXNetError
from . import ndarray
from .ndarray import *  # noqa: F401,F403 (MXNet's layout: nd.NDArray is nd.ndarray.NDArray)
from .ndarray import _GRAD_REQ_MAP, _DTYPE_MX_TO_NP, _DTYPE_NP_TO_MX, zeros_like, ones_like  # noqa: F401
from . import random, contrib, linalg, image, utils, _internal, sparse  # noqa: F401
from .cached_op import CachedOp  # noqa: F401
from .. import _signatures

__all__ = ndarray.__all__ + ["save", "load", "load_frombuffer", "CachedOp", "random", "zeros_like", "ones_like"]


def __getattr__(name):
    """Operators are looked up in the registry the first time they are used."""
    # Inputs are arrays, or Parameters (a Python hybrid_forward gets its deferred ones so).
    return _signatures.lookup(globals(), "ndarray", name, (NDArray, _core.gluon.Parameter), _core.invoke)


def __dir__():
    return sorted(set(globals()) | set(_core.list_operators()))
