"""Operator namespaces of mx.sym (``mx.sym.random.uniform`` is operator ``_random_uniform``,
``mx.sym._internal._plus`` operator ``_plus``): functions made on first use."""
from .. import _core, _signatures
from .symbol import Symbol, _create


def operator_getattr(module_globals, module, prefix):
    """A module __getattr__ giving operator ``prefix + name`` as ``name``."""
    def __getattr__(name):
        op = prefix + name
        if name.startswith("__") or not _core.operator_exists(op):
            raise AttributeError("module 'braid.%s' has no attribute or operator '%s'" % (module, name))
        fn = _signatures.operator_function(op, Symbol, _create, module)
        fn.__name__ = name
        module_globals[name] = fn
        return fn
    return __getattr__
