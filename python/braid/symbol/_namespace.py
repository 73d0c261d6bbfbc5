"""Operator namespaces of mx.sym (``mx.sym.random.uniform`` is operator ``_random_uniform``,
``mx.sym._internal._plus`` operator ``_plus``): functions made on first use."""
from .. import _signatures
from .symbol import Symbol, _create


def operator_getattr(module_globals, module, prefix):
    """A module __getattr__ giving operator ``prefix + name`` as ``name``."""
    def __getattr__(name):
        return _signatures.lookup(module_globals, module, name, Symbol, _create, prefix)
    return __getattr__
