"""Operator namespaces of mx.nd (``mx.nd.contrib.foo`` is operator ``_contrib_foo``,
``mx.nd._internal._plus_scalar`` operator ``_plus_scalar``): functions made on first use."""
from .. import _core, _signatures
from .ndarray import NDArray


def operator_getattr(module_globals, module, prefix):
    """A module __getattr__ giving operator ``prefix + name`` as ``name``."""
    def __getattr__(name):
        return _signatures.lookup(module_globals, module, name, (NDArray, _core.gluon.Parameter), _core.invoke,
                                  prefix)
    return __getattr__
