"""mxnet.symbol._internal: the operators named `<name>`, as `<name>`."""
from ._namespace import operator_getattr

__getattr__ = operator_getattr(globals(), "symbol._internal", "")
