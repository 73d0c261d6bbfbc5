"""mxnet.ndarray.linalg: the operators named `_linalg_<name>`, as `<name>`."""
from ._namespace import operator_getattr

__getattr__ = operator_getattr(globals(), "ndarray.linalg", "_linalg_")
