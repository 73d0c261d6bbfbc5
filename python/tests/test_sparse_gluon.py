"""Gluon with compressed storage: an Embedding with sparse_grad trained by a Trainer updates only
the rows a batch looked up (weight decay included), row_sparse parameters read through
row_sparse_data take gradients, and csr batches go through hybridized blocks; against NumPy."""
import numpy as np

import braid as mx
from braid import gluon


def test_embedding_sparse_grad_updates_only_looked_up_rows():
    emb = gluon.nn.Embedding(6, 2, sparse_grad=True)
    emb.initialize(mx.init.One())
    assert emb.weight.grad_stype == "row_sparse"
    trainer = gluon.Trainer(emb.collect_params(), "sgd", {"learning_rate": 0.5, "wd": 0.1})
    tokens = mx.nd.array([[1, 4], [4, 4]])
    with mx.autograd.record():
        loss = emb(tokens).sum()
    loss.backward()
    grad = emb.weight.grad()
    assert grad.stype == "row_sparse"
    np.testing.assert_array_equal(grad.indices.asnumpy(), [1, 4])
    trainer.step(1)
    counts = np.bincount([1, 4, 4, 4], minlength=6)[:, None]
    expected = np.where(counts > 0, (1 - 0.5 * 0.1) - 0.5 * counts, 1.0) * np.ones((6, 2))
    np.testing.assert_allclose(emb.weight.data().asnumpy(), expected, rtol=1e-6)


def test_row_sparse_parameter_gradients_reach_the_parameter():
    p = gluon.Parameter("w", shape=(5, 3), stype="row_sparse", grad_stype="row_sparse")
    p.initialize(mx.init.Constant(2))
    trainer = gluon.Trainer([p], "sgd", {"learning_rate": 1.0})  # noqa: F841 (row_sparse_data needs one alive)
    rows = p.row_sparse_data(mx.nd.array([0, 3]))
    assert rows.stype == "row_sparse"
    np.testing.assert_array_equal(rows.indices.asnumpy(), [0, 3])
    with mx.autograd.record():
        y = (rows * 3).sum()
    y.backward()
    expected = np.full((5, 3), 3.0)  # the gradient of a dense sum reaches every row of the value read
    assert p.grad().stype == "row_sparse"
    np.testing.assert_array_equal(p.grad().asnumpy(), expected)


def test_csr_batches_through_a_hybridized_block():
    net = gluon.nn.Dense(3, in_units=4)
    net.initialize(mx.init.Constant(0.5))
    net.hybridize()
    dense = np.array([[0, 1, 0, 2], [0, 0, 0, 0]], dtype=np.float32)
    batch = mx.nd.array(dense).tostype("csr")
    with mx.autograd.record():
        out = net(batch)
    out.backward()
    np.testing.assert_allclose(out.asnumpy(), dense @ np.full((4, 3), 0.5), rtol=1e-6)  # the bias starts at 0
    np.testing.assert_allclose(net.weight.grad().asnumpy(), np.tile(dense.sum(axis=0), (3, 1)), rtol=1e-6)
