"""mxnet.symbol (``sym``): declared graphs. ``sym.<Op>(...)`` composes operator ``Op`` of the
registry: inputs are symbols given by position or argument name (``data=``), ``name=`` names the
node, the rest are attributes; missing inputs become variables named ``<node>_<argument>``."""
from .. import _core
from .._core.symbol import Symbol, Variable, Group, load, load_json, Executor
from .._signatures import positional_attributes
from ..base import MXNetError

var = Variable

__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json", "Executor"]


def _make_op(name):
    attr_names = positional_attributes(name)

    def op(*args, **kwargs):
        symbols, extra = [], []
        for a in args:
            if isinstance(a, Symbol):
                symbols.append(a)
            elif isinstance(a, (list, tuple)) and a and all(isinstance(x, Symbol) for x in a):
                symbols.extend(a)
            else:
                extra.append(a)
        if len(extra) > len(attr_names):
            raise MXNetError("sym.%s: %d positional values that are not symbols (%r); give attributes by keyword"
                             % (name, len(extra), extra))
        kwargs.update(zip(attr_names, extra))
        return _core.symbol.make(name, symbols, kwargs)

    op.__name__ = name
    op.__doc__ = _core.operator_doc(name)
    return op


def __getattr__(name):
    if not name.startswith("__") and _core.operator_exists(name):
        fn = _make_op(name)
        globals()[name] = fn
        return fn
    raise AttributeError("module 'braid.symbol' has no attribute or operator '%s'" % name)



def _eval(self, ctx=None, **kwargs):
    """Binds to the given arrays and runs a forward: MXNet's Symbol.eval."""
    from ..context import current_context
    exe = self.bind(ctx or current_context(), kwargs)
    return exe.forward()


Symbol.eval = _eval
