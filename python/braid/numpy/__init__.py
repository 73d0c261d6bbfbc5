"""mxnet.numpy (``mx.np``): NumPy's interface over Braid's arrays.

``mx.np.ndarray`` (multiarray.py) is Braid's array with NumPy's semantics; the functions create
(_creation.py) and compute (_op.py) such arrays, ``mx.np.random`` samples them. It is a subset of
MXNet's ``mx.np`` (which has hundreds of functions); a function it lacks raises AttributeError
naming it. ``mx.nd.np`` is this module too, so a HybridBlock's ``F.np`` finds it.
"""
import sys as _sys

from .. import ndarray as _nd
from . import random
from . import linalg
from .utils import *  # noqa: F401,F403
from .utils import __all__ as _utils_all
from .multiarray import ndarray
from ._creation import *  # noqa: F401,F403
from ._creation import __all__ as _creation_all
from ._op import *  # noqa: F401,F403
from ._op import __all__ as _op_all
from ._joining import *  # noqa: F401,F403
from ._joining import __all__ as _joining_all
from ._arranging import *  # noqa: F401,F403
from ._arranging import __all__ as _arranging_all
from ._math import *  # noqa: F401,F403
from ._math import __all__ as _math_all
from ._einsum import einsum  # noqa: F401

__all__ = ["ndarray", "random", "linalg"] + _utils_all + _creation_all + _op_all + _joining_all + _arranging_all + _math_all + ["einsum"]

_nd.np = _sys.modules[__name__]  # F.np in a HybridBlock's hybrid_forward (F is mx.nd)
