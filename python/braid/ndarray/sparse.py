"""mxnet.ndarray.sparse: MXNet's compressed sparse row (CSR) and row-sparse arrays.

Braid stores every array densely; the names are here so that programs importing this module
load, and each function raises MXNetError saying so. Keep the data dense (``tostype('default')``
is the identity) or convert with SciPy before creating arrays.
"""
from ..base import MXNetError

__all__ = ["csr_matrix", "row_sparse_array", "zeros", "empty", "array", "CSRNDArray", "RowSparseNDArray",
           "BaseSparseNDArray"]


def _unsupported(what):
    def fail(*args, **kwargs):
        raise MXNetError("mx.nd.sparse.%s: sparse storage (csr, row_sparse) is not supported by Braid; "
                         "use dense arrays (mx.nd.array)" % what)
    fail.__name__ = what
    return fail


csr_matrix = _unsupported("csr_matrix")
row_sparse_array = _unsupported("row_sparse_array")
zeros = _unsupported("zeros")
empty = _unsupported("empty")
array = _unsupported("array")


class BaseSparseNDArray:
    """MXNet's base of the sparse array classes; Braid makes none (isinstance is always False)."""

    def __init__(self, *args, **kwargs):
        _unsupported(type(self).__name__)()


class CSRNDArray(BaseSparseNDArray):
    pass


class RowSparseNDArray(BaseSparseNDArray):
    pass
