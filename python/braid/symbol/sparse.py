"""mxnet.symbol.sparse: the operators named `_sparse_<name>`, as `<name>`."""
from ._namespace import operator_getattr

__getattr__ = operator_getattr(globals(), "symbol.sparse", "_sparse_")
