"""mxnet.ndarray.image: the operators named `_image_<name>`, as `<name>`."""
from ._namespace import operator_getattr

__getattr__ = operator_getattr(globals(), "ndarray.image", "_image_")
