"""contrib.boolean_mask, whose output shape depends on its index's values, against NumPy: imperative
calls in several dtypes and axes, gradients, hybridized blocks (run op by op) and the clear error of
an executor, which cannot plan such a graph."""
import numpy as np
import pytest

import braid as mx


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
def test_the_rows_whose_index_is_nonzero(dtype):
    data = np.arange(24).reshape(6, 4).astype(dtype)
    index = np.array([0, 1, 1, 0, 3, 0], dtype="float32")
    out = mx.nd.contrib.boolean_mask(mx.nd.array(data, dtype=dtype), mx.nd.array(index))
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out.asnumpy(), data[index != 0])


def test_index_dtypes_and_another_axis():
    data = np.random.RandomState(0).uniform(-1, 1, (2, 5, 3))
    for index_dtype in ["bool", "int64", "float16", "bfloat16"]:
        index = mx.nd.array([1, 0, 0, 1, 1]).astype(index_dtype)
        out = mx.nd.contrib.boolean_mask(mx.nd.array(data, dtype="float64"), index, axis=1)
        np.testing.assert_array_equal(out.asnumpy(), data[:, [0, 3, 4], :])
    out = mx.nd.contrib.boolean_mask(mx.nd.array(data), mx.nd.array([1, 0, 1]), axis=-1)
    assert out.shape == (2, 5, 2)


def test_nothing_selected_gives_an_empty_axis():
    mx.set_np_shape(True)
    try:
        out = mx.nd.contrib.boolean_mask(mx.nd.ones((3, 2)), mx.nd.zeros((3,)))
        assert out.shape == (0, 2)
    finally:
        mx.set_np_shape(False)


def test_the_gradient_goes_back_to_the_selected_rows():
    rng = np.random.RandomState(1)
    data, head = rng.uniform(-1, 1, (5, 3)), rng.uniform(-1, 1, (3, 3))
    a = mx.nd.array(data, dtype="float64")
    a.attach_grad()
    index = mx.nd.array([1, 0, 1, 1, 0])
    with mx.autograd.record():
        out = mx.nd.contrib.boolean_mask(a, index)
    out.backward(mx.nd.array(head, dtype="float64"))
    expected = np.zeros_like(data)
    expected[[0, 2, 3]] = head
    np.testing.assert_array_equal(a.grad.asnumpy(), expected)


class _Masked(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, data, index):
        return F.contrib.boolean_mask(data * 2, index).sum(axis=1)


def test_a_hybridized_block_runs_it_and_follows_each_calls_index():
    block = _Masked()
    block.hybridize()
    data = mx.nd.array(np.arange(12).reshape(4, 3))
    data.attach_grad()
    for index, rows in [([0, 1, 1, 0], [1, 2]), ([1, 1, 1, 0], [0, 1, 2])]:
        with mx.autograd.record():
            out = block(data, mx.nd.array(index))
        out.backward()
        np.testing.assert_array_equal(out.asnumpy(), 2 * np.arange(12).reshape(4, 3)[rows].sum(axis=1))
        expected = np.zeros((4, 3))
        expected[rows] = 2
        np.testing.assert_array_equal(data.grad.asnumpy(), expected)


def test_bad_index_and_executor_errors_say_what_to_do():
    with pytest.raises(mx.MXNetError, match="1-D with one entry per slice"):
        mx.nd.contrib.boolean_mask(mx.nd.ones((3, 2)), mx.nd.ones((2,)))
    with pytest.raises(mx.MXNetError, match="out of range"):
        mx.nd.contrib.boolean_mask(mx.nd.ones((3, 2)), mx.nd.ones((3,)), axis=2)
    sym = mx.sym.contrib.boolean_mask(mx.sym.var("data"), mx.sym.var("index"))
    with pytest.raises(mx.MXNetError, match="depend on its input values"):
        sym.simple_bind(mx.cpu(), data=(3, 2), index=(3,))
