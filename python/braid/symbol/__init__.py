"""mxnet.symbol (``sym``): declared graphs. ``sym.<Op>(...)`` composes operator ``Op`` of the
registry: inputs are symbols given by position or argument name (``data=``), ``name=`` names the
node, the rest are attributes; missing inputs become variables named ``<node>_<argument>``."""
from .. import _core
from .._core.symbol import Symbol, Variable, Group, load, load_json, Executor
from .. import _signatures

var = Variable

__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json", "Executor"]


def __getattr__(name):
    """Operators are looked up in the registry the first time they are used."""
    return _signatures.lookup(globals(), "symbol", name, Symbol, _core.symbol.make)


def _eval(self, ctx=None, **kwargs):
    """Binds to the given arrays and runs a forward: MXNet's Symbol.eval."""
    from ..context import current_context
    exe = self.bind(ctx or current_context(), kwargs)
    return exe.forward()


Symbol.eval = _eval
