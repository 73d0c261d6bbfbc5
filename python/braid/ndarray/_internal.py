"""mxnet.ndarray._internal: every operator under its own name (``_plus_scalar``, ``_crop_assign``)."""
from ._namespace import operator_getattr

__getattr__ = operator_getattr(globals(), "ndarray._internal", "")
