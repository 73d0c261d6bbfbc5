"""gluon.Parameter and gluon.ParameterDict (implemented in C++)."""
from .._core import gluon as _g

Parameter = _g.Parameter
ParameterDict = _g.ParameterDict
