"""Row-sparse values in the one-machine KVStores: pushes of row_sparse gradients summed over the
union of their rows, row_sparse_pull of chosen rows, and lazy optimizer updates on the store that
touch only the pushed rows, against NumPy."""
import numpy as np
import pytest

import braid as mx

SHAPE = (6, 3)


def _rows(values, rows):
    dense = np.zeros(SHAPE, dtype=np.float32)
    dense[rows] = values
    return mx.nd.array(dense).tostype("row_sparse"), dense


@pytest.mark.parametrize("store", ["local", "device"])
def test_pushed_row_sparse_values_are_summed_and_pulled(store):
    kv = mx.kv.create(store)
    kv.init("emb", mx.nd.zeros(SHAPE).tostype("row_sparse"))
    a, a_np = _rows([[1, 2, 3]], [1])
    b, b_np = _rows([[4, 5, 6], [7, 8, 9]], [1, 4])
    kv.push("emb", [a.copyto(mx.cpu(0)), b.copyto(mx.cpu(1))])
    whole = mx.nd.zeros(SHAPE)
    kv.pull("emb", out=whole)
    np.testing.assert_array_equal(whole.asnumpy(), a_np + b_np)
    out = mx.nd.sparse.zeros("row_sparse", SHAPE)
    kv.row_sparse_pull("emb", out=out, row_ids=mx.nd.array([4, 0, 4]))
    assert out.stype == "row_sparse"
    np.testing.assert_array_equal(out.indices.asnumpy(), [0, 4])
    expected = np.zeros(SHAPE, dtype=np.float32)
    expected[4] = (a_np + b_np)[4]
    np.testing.assert_array_equal(out.asnumpy(), expected)
    # A dense output of row_sparse_pull is refused; pull skips compressed outputs by default.
    with pytest.raises(mx.base.MXNetError, match="must be row_sparse"):
        kv.row_sparse_pull("emb", out=mx.nd.zeros(SHAPE), row_ids=mx.nd.array([1]))
    untouched = mx.nd.ones(SHAPE).tostype("row_sparse")
    kv.pull("emb", out=untouched)
    np.testing.assert_array_equal(untouched.asnumpy(), np.ones(SHAPE))


def test_row_sparse_pull_into_several_outputs_and_keys():
    kv = mx.kv.create("local")
    kv.init(["w0", "w1"], [mx.nd.arange(18).reshape(SHAPE), mx.nd.ones(SHAPE)])
    outs = [[mx.nd.sparse.zeros("row_sparse", SHAPE) for _ in range(2)], mx.nd.sparse.zeros("row_sparse", SHAPE)]
    kv.row_sparse_pull(["w0", "w1"], out=outs, row_ids=[mx.nd.array([2]), mx.nd.array([5])])
    for o in outs[0]:
        np.testing.assert_array_equal(o.indices.asnumpy(), [2])
        np.testing.assert_array_equal(o.data.asnumpy(), [[6, 7, 8]])
    np.testing.assert_array_equal(outs[1].indices.asnumpy(), [5])


def test_lazy_sgd_on_the_store_updates_only_pushed_rows():
    kv = mx.kv.create("local")
    kv.init(0, mx.nd.ones(SHAPE))
    kv.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.5, wd=0.1))
    grad, grad_np = _rows([[1, 1, 1], [2, 2, 2]], [0, 3])
    kv.push(0, grad)
    weight = mx.nd.zeros(SHAPE)
    kv.pull(0, out=weight)
    expected = np.ones(SHAPE, dtype=np.float32)
    for r in (0, 3):
        expected[r] = (1 - 0.5 * 0.1) * 1 - 0.5 * grad_np[r]
    np.testing.assert_allclose(weight.asnumpy(), expected, rtol=1e-6)
