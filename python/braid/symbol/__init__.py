"""mxnet.symbol (``sym``): declared graphs. ``sym.<Op>(...)`` composes operator ``Op`` of the
registry: inputs are symbols given by position or argument name (``data=``), ``name=`` names the
node, the rest are attributes; missing inputs become variables named ``<node>_<argument>``."""
from .. import _signatures
from . import symbol
from .symbol import Symbol, Variable, var, Group, load, load_json, Executor, _create
from . import methods
from .methods import zeros, ones, full, eye, arange, linspace, maximum, minimum, pow, power, hypot, split_v2, histogram
from . import _internal, random, linalg, contrib, image, sparse

__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json", "Executor", "zeros", "ones", "full",
           "arange", "maximum", "minimum", "pow", "power", "hypot", "split_v2"]


def __getattr__(name):
    """Operators are looked up in the registry the first time they are used."""
    return _signatures.lookup(globals(), "symbol", name, Symbol, _create)
