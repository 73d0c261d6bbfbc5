"""mxnet.symbol.contrib: the operators named `_contrib_<name>`, as `<name>`."""
from ._namespace import operator_getattr

__getattr__ = operator_getattr(globals(), "symbol.contrib", "_contrib_")
