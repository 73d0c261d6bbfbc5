"""SparseEmbedding of MXNet's gluon.contrib.nn: an embedding whose weight and weight gradient are
row_sparse, for vocabularies too large to update densely. Only the rows a batch looks up get a
gradient, and a Trainer updates only those rows."""
from .... import ndarray as _nd
from ...block import Block

__all__ = ["SparseEmbedding"]


class SparseEmbedding(Block):
    """Maps integer indices to dense vectors: input (x1, ..., xk) -> (x1, ..., xk, output_dim).

    ``input_dim``: vocabulary size (largest index + 1); ``output_dim``: vector size; ``dtype``
    of the vectors; ``weight_initializer`` for the (input_dim, output_dim) table. The parameter
    ``weight`` is row_sparse: create a Trainer with it before the first forward, which reads the
    rows it needs with ``weight.row_sparse_data(x)``. Not hybridizable (a plain Block)."""

    def __init__(self, input_dim, output_dim, dtype="float32", weight_initializer=None, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype, "sparse_grad": True}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim), init=weight_initializer, dtype=dtype,
                                      grad_stype="row_sparse", stype="row_sparse")

    def forward(self, x):
        weight = self.weight.row_sparse_data(x)
        return _nd.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        return "{}({} -> {}, {})".format(type(self).__name__, self._kwargs["input_dim"], self._kwargs["output_dim"],
                                         self._kwargs["dtype"])
