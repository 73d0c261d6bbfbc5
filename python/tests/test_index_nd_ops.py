"""gather_nd, scatter_nd, _scatter_set_nd, ravel_multi_index, unravel_index, contrib.index_copy
and contrib.boolean_mask against NumPy."""
import numpy as np
import pytest

import mxnet as mx


def test_gather_nd_matches_numpy_fancy_indexing():
    rng = np.random.RandomState(0)
    data = rng.uniform(size=(4, 5, 3))
    idx = np.array([[0, 3, -1, 2], [4, 0, 2, -5]])
    got = mx.nd.gather_nd(mx.nd.array(data, dtype="float64"), mx.nd.array(idx, dtype="int32"))
    assert got.shape == (4, 3)
    np.testing.assert_array_equal(got.asnumpy(), data[tuple(idx)])
    with pytest.raises(IndexError, match="out of bounds"):
        mx.nd.gather_nd(mx.nd.array(data), mx.nd.array([[4], [0]])).asnumpy()
    with pytest.raises(mx.MXNetError):  # also an MXNetError, as MXNet's
        mx.nd.gather_nd(mx.nd.array(data), mx.nd.array([[0], [-6]])).asnumpy()


def test_gather_nd_gradient_accumulates_repeated_columns():
    data = mx.nd.array(np.arange(6.0).reshape(2, 3))
    data.attach_grad()
    with mx.autograd.record():
        y = mx.nd.gather_nd(data, mx.nd.array([[1, 1, 0]]))
    y.backward(mx.nd.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]]))
    np.testing.assert_array_equal(data.grad.asnumpy(), [[7, 8, 9], [5, 7, 9]])


def test_scatter_nd_and_scatter_set_nd():
    values = np.array([[1.0, 2.0], [3.0, 4.0]])
    idx = np.array([[2, 0]])
    out = mx.nd.scatter_nd(mx.nd.array(values), mx.nd.array(idx), shape=(3, 2)).asnumpy()
    want = np.zeros((3, 2))
    want[[2, 0]] = values
    np.testing.assert_array_equal(out, want)
    lhs = np.arange(6.0).reshape(3, 2)
    set_out = mx.nd._internal._scatter_set_nd(mx.nd.array(lhs), mx.nd.array([9.0, 8.0]),
                                              mx.nd.array([[0, 2], [1, 0]]), shape=(3, 2)).asnumpy()
    want = lhs.copy()
    want[[0, 2], [1, 0]] = [9.0, 8.0]
    np.testing.assert_array_equal(set_out, want)


def test_ravel_and_unravel_match_numpy():
    rng = np.random.RandomState(1)
    shape = (4, 7, 3)
    coords = np.stack([rng.randint(0, s, size=10) for s in shape])
    flat = mx.nd.ravel_multi_index(mx.nd.array(coords, dtype="int64"), shape=shape).asnumpy()
    np.testing.assert_array_equal(flat, np.ravel_multi_index(tuple(coords), shape))
    back = mx.nd.unravel_index(mx.nd.array(flat, dtype="int64"), shape=shape).asnumpy()
    np.testing.assert_array_equal(back, coords)
    unbounded = mx.nd.unravel_index(mx.nd.array([100], dtype="int64"), shape=(-1, 7)).asnumpy()
    np.testing.assert_array_equal(unbounded[:, 0], [14, 2])


def test_index_copy_values_and_gradients():
    old = mx.nd.array(np.arange(12.0).reshape(4, 3))
    new = mx.nd.array(-np.ones((2, 3)))
    old.attach_grad()
    new.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.index_copy(old, mx.nd.array([3, 1], dtype="int64"), new)
    out.backward(mx.nd.array(np.arange(12.0).reshape(4, 3) + 1))
    want = np.arange(12.0).reshape(4, 3)
    want[[3, 1]] = -1
    np.testing.assert_array_equal(out.asnumpy(), want)
    np.testing.assert_array_equal(old.grad.asnumpy()[[0, 2]], [[1, 2, 3], [7, 8, 9]])
    np.testing.assert_array_equal(old.grad.asnumpy()[[1, 3]], np.zeros((2, 3)))
    np.testing.assert_array_equal(new.grad.asnumpy(), [[10, 11, 12], [4, 5, 6]])
    with pytest.raises(mx.MXNetError, match="out of bounds"):
        mx.nd.contrib.index_copy(old, mx.nd.array([4, 0]), new).asnumpy()


def test_boolean_mask_keeps_flagged_slices():
    data = mx.nd.array(np.arange(12.0).reshape(3, 4))
    data.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.boolean_mask(data, mx.nd.array([0, 1, 1, 0]), axis=1)
    out.backward()
    np.testing.assert_array_equal(out.asnumpy(), np.arange(12.0).reshape(3, 4)[:, [1, 2]])
    np.testing.assert_array_equal(data.grad.asnumpy(), np.tile([0, 1, 1, 0], (3, 1)))
    with pytest.raises(mx.MXNetError, match="one entry per slice"):
        mx.nd.contrib.boolean_mask(data, mx.nd.array([1, 0]))
