"""mxnet.symbol.sparse: MXNet's sparse operator `_sparse_<name>` as `<name>` when there is one,
else the operator `<name>` itself (mx.sym.sparse.elemwise_add is elemwise_add)."""
from .. import _core, _signatures
from .symbol import Symbol, _create


def __getattr__(name):
    prefix = "_sparse_" if _core.operator_exists("_sparse_" + name) else ""
    return _signatures.lookup(globals(), "symbol.sparse", name, Symbol, _create, prefix)
