"""mxnet.symbol.random: the operators named `_random_<name>`, as `<name>`."""
from ._namespace import operator_getattr

__getattr__ = operator_getattr(globals(), "symbol.random", "_random_")
