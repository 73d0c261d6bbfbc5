"""NumPy's advanced indexing on NDArrays (integer arrays mixed with ints, slices and None, read and
assigned), nd.save/load under NumPy shape semantics, nd.contrib's element tests, nd.CachedOp,
split_v2 and asscalar; values against NumPy."""
import os

import numpy as np
import pytest

import braid as mx
from braid import nd
from braid.base import MXNetError

INDICES = [
    [1, 2], np.array([[3, 4], [0, 6]]), (1, [2, 3]), (1, [2, 3], np.array([[3], [0]])),
    (1, [2], np.array([[5], [3]]), slice(None)), (slice(0, 2), [[1], [6]], slice(0, 2), slice(0, 5, 2)),
    ([1, 2], slice(3, 5), [2, 3], [3, 4]), ((slice(None), slice(3, 5), None, [2, 3], None, [3, 4])),
    ([-1, 0], Ellipsis, [-2, 1]),
]


@pytest.mark.parametrize("index", INDICES, ids=range(len(INDICES)))
def test_advanced_indexing_reads_and_writes_as_numpy(index):
    base = np.arange(8 * 16 * 9 * 9, dtype=np.float32).reshape(8, 16, 9, 9)
    x = nd.array(base)
    assert np.array_equal(x[index].asnumpy(), base[index])
    value = -np.arange(base[index].size, dtype=np.float32).reshape(base[index].shape)
    base[index] = value
    x[index] = nd.array(value)
    assert np.array_equal(x.asnumpy(), base)


def test_advanced_indexing_gradient_scatters_back():
    x = nd.array(np.arange(12).reshape(3, 4))
    x.attach_grad()
    with mx.autograd.record():
        y = x[[0, 2, 0], [1, 1, 3]]
    y.backward()
    expected = np.zeros((3, 4))
    np.add.at(expected, ([0, 2, 0], [1, 1, 3]), 1)
    assert np.array_equal(x.grad.asnumpy(), expected)


def test_advanced_index_out_of_bounds_names_the_axis():
    with pytest.raises(IndexError, match="out of bounds for axis 1"):
        nd.zeros((3, 4))[[0], [4]]


def test_none_axes_in_an_assigned_value():
    base = np.zeros((4, 3, 5))
    x = nd.array(base)
    value = np.ones((2, 3, 1))
    x[:2, ..., None, 0] = value
    base[:2, ..., None, 0] = value
    assert np.array_equal(x.asnumpy(), base)


def test_save_load_under_numpy_shape_semantics(tmp_path):
    path = str(tmp_path / "arrays")
    with mx.np_shape(True):
        nd.save(path, [nd.array(np.array(3.0)), nd.zeros((2, 0))])
        loaded = nd.load(path)
        assert loaded[0].shape == () and loaded[0].asscalar() == 3.0 and loaded[1].shape == (2, 0)
    with pytest.raises(MXNetError, match="np_shape"):
        nd.load(path)
    nd.save(path, [nd.ones((2,))])
    with mx.np_shape(True):
        with pytest.raises(MXNetError, match="np_shape"):
            nd.load(path)
    with open(path, "rb") as f:
        assert nd.load_frombuffer(f.read())[0].shape == (2,)
    with pytest.raises(MXNetError, match="0-d"):
        nd.save(path, [nd.array(np.array(3.0))])  # outside np_shape a scalar cannot be saved
    assert os.path.exists(path)


def test_contrib_element_tests():
    x = nd.array([1.0, np.inf, -np.inf, np.nan, 0.0])
    assert nd.contrib.isinf(x).asnumpy().tolist() == [0, 1, 1, 0, 0]
    assert nd.contrib.isnan(x).asnumpy().tolist() == [0, 0, 0, 1, 0]
    assert nd.contrib.isfinite(x).asnumpy().tolist() == [1, 0, 0, 0, 1]


def test_cached_op_runs_a_symbol_with_out_and_autograd():
    data, weight = mx.sym.var("data"), mx.sym.var("weight")
    op = nd.CachedOp(mx.sym.FullyConnected(data, weight, num_hidden=2, no_bias=True) * 2)
    x, w = nd.array([[1.0, 2.0]]), nd.array([[1.0, 0.0], [0.0, 1.0]])
    assert op(x, w).asnumpy().tolist() == [[2.0, 4.0]]
    out = nd.zeros((1, 2))
    op(x, w, out=out)
    assert out.asnumpy().tolist() == [[2.0, 4.0]]
    w.attach_grad()
    with mx.autograd.record():
        y = op(x, w)
    y.backward()
    assert w.grad.asnumpy().tolist() == [[2.0, 4.0], [2.0, 4.0]]
    with pytest.raises(MXNetError, match="takes 2"):
        op(x)


def test_split_v2_and_numpy_scalars():
    x = nd.array(np.arange(10).reshape(2, 5))
    parts = x.split_v2((1, 4), axis=1)
    for got, want in zip(parts, np.split(np.arange(10).reshape(2, 5), (1, 4), axis=1)):
        assert np.array_equal(got.asnumpy(), want)
    assert [p.shape for p in nd.split_v2(x, 2, squeeze_axis=True)] == [(5,), (5,)]
    s = nd.array([2.5]).asscalar()
    assert isinstance(s, np.float32) and s.shape == ()


def test_reflection_pad_layer_matches_numpy():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    y = mx.gluon.nn.ReflectionPad2D(2)(nd.array(x))
    assert np.array_equal(y.asnumpy(), np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)), mode="reflect"))


def test_one_element_selected_by_ints_is_a_one_element_array_as_in_mxnet_1x():
    x = nd.array(np.arange(6).reshape(2, 3))
    assert x[1, 2].shape == (1,) and x[1, 2].asscalar() == 5
    assert x[1][2].shape == (1,)
    assert nd.arange(3)[1].shape == (1,)
    x[1, 2] = 7
    assert x.asnumpy()[1, 2] == 7
    with mx.np_shape(True):
        assert nd.arange(3)[1].shape == ()
