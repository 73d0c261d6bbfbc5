"""mxnet.numpy_extension.random (``mx.npx.random``): ``seed``, as ``mx.random.seed``."""
from ..random import seed

__all__ = ["seed"]
