"""NDArray against NumPy: creation, conversion, indexing, arithmetic, operators, save/load."""
import numpy as np
import pytest

import braid as mx
from braid import nd
from braid.test_utils import assert_almost_equal


def rand(*shape):
    return np.random.RandomState(sum(shape)).uniform(-1, 1, shape).astype(np.float32)


def test_array_round_trip_and_properties():
    a = rand(2, 3)
    x = nd.array(a)
    assert x.shape == (2, 3) and x.dtype == np.float32 and x.context == mx.cpu(0) and x.size == 6
    assert_almost_equal(x, a, rtol=0, atol=0)
    assert nd.array(np.arange(4)).dtype == np.float32  # MXNet 1.x: float32 unless told otherwise
    assert nd.array([1, 2], dtype="int64").asnumpy().dtype == np.int64
    assert nd.array([[7.5]]).asscalar() == 7.5
    assert "<NDArray 2x3 @cpu(0)>" in repr(x)


def test_creation_functions():
    assert_almost_equal(nd.zeros((2, 2)), np.zeros((2, 2)))
    assert_almost_equal(nd.ones(3, dtype="float64"), np.ones(3))
    assert nd.ones(3, dtype="float64").dtype == np.float64
    assert_almost_equal(nd.full((2,), 4.5), np.full((2,), 4.5))
    assert_almost_equal(nd.arange(24).reshape((6, 4)), np.arange(24).reshape(6, 4))
    assert_almost_equal(nd.arange(2, 8, 2), np.arange(2, 8, 2))


@pytest.mark.parametrize("index", [1, -1, slice(1, 3), (1, 2), (slice(None), 1), (slice(None, None, 2),),
                                   (Ellipsis, 0), (slice(None), None, slice(1, 3)), (slice(None, None, -1), 2)])
def test_getitem_matches_numpy(index):
    a = rand(4, 3, 5)
    assert_almost_equal(nd.array(a)[index], a[index], rtol=0, atol=0)


def test_getitem_with_array_index_and_views_share_memory():
    a = rand(5, 2)
    assert_almost_equal(nd.array(a)[nd.array([4, 0, 2])], a[[4, 0, 2]])
    x = nd.array(a)
    row = x[1]
    row[:] = 9  # a view, as in MXNet
    a[1] = 9
    assert_almost_equal(x, a)


@pytest.mark.parametrize("index", [0, slice(1, 3), (slice(None), 2), (slice(None, None, 2), slice(1, None))])
def test_setitem_matches_numpy(index):
    a = rand(4, 3)
    x = nd.array(a)
    x[index] = 5
    a[index] = 5
    assert_almost_equal(x, a)
    x[index] = nd.array(np.full_like(a[index], -2))
    a[index] = -2
    assert_almost_equal(x, a)


def test_arithmetic_broadcasts_like_numpy():
    a, b, c = rand(3, 4), rand(1, 4), rand(3, 1)
    x, y, z = nd.array(a), nd.array(b), nd.array(c)
    assert_almost_equal(x + y, a + b)
    assert_almost_equal(x - z, a - c)
    assert_almost_equal(x * y / (z + 3), a * b / (c + 3), rtol=1e-6)
    assert_almost_equal(2 - x, 2 - a)
    assert_almost_equal(1 / (x + 3), 1 / (a + 3), rtol=1e-6)
    assert_almost_equal(-x, -a)
    assert_almost_equal(abs(x) ** 1.5, np.abs(a) ** 1.5, rtol=1e-5)
    assert_almost_equal(x > 0, (a > 0).astype(np.float32))
    assert_almost_equal(x == x, np.ones_like(a))
    assert_almost_equal(nd.maximum(x, 0.2), np.maximum(a, 0.2))
    x += 1
    assert_almost_equal(x, a + 1)
    x *= y
    assert_almost_equal(x, (a + 1) * b, rtol=1e-6)


def test_registered_operators_by_position_and_keyword():
    a, w = rand(4, 6), rand(6, 3)
    assert_almost_equal(nd.dot(nd.array(a), nd.array(w)), a @ w, rtol=1e-5)
    assert_almost_equal(nd.sum(nd.array(a), axis=1), a.sum(axis=1), rtol=1e-5)
    assert_almost_equal(nd.sum(nd.array(a), 0), a.sum(axis=0), rtol=1e-5)
    assert_almost_equal(nd.array(a).mean(axis=0, keepdims=True), a.mean(axis=0, keepdims=True), rtol=1e-5)
    assert_almost_equal(nd.clip(nd.array(a), -0.5, 0.5), np.clip(a, -0.5, 0.5))
    assert_almost_equal(nd.array(a).argmax(axis=1), a.argmax(axis=1).astype(np.float32))
    assert_almost_equal(nd.concat(nd.array(a), nd.array(a), dim=0), np.concatenate([a, a]))
    assert_almost_equal(nd.array(a).T, a.T)
    fc = nd.FullyConnected(data=nd.array(a), weight=nd.array(w.T), num_hidden=3, no_bias=True)
    assert_almost_equal(fc, a @ w, rtol=1e-5)
    out = nd.zeros((4, 3))
    nd.dot(nd.array(a), nd.array(w), out=out)
    assert_almost_equal(out, a @ w, rtol=1e-5)
    parts = nd.split(nd.array(a), num_outputs=2, axis=1)
    assert len(parts) == 2 and parts[1].shape == (4, 3)


def test_errors_raise_mxnet_error_with_the_cpp_message():
    with pytest.raises(mx.MXNetError, match="unknown operator"):
        nd.invoke_missing = mx._core.invoke("NoSuchOp", [], {})
    with pytest.raises(mx.base.MXNetError, match="shape"):
        nd.dot(nd.ones((2, 3)), nd.ones((2, 3))).wait_to_read()
    with pytest.raises(AttributeError):
        nd.not_an_operator_at_all
    assert issubclass(mx.MXNetError, RuntimeError)


def test_errors_of_asynchronous_operations_surface_at_the_wait():
    x = nd.arange(4)
    y = nd.take(x, nd.array([0, 9]), mode='raise')  # pushed; the bad index is found by the kernel
    with pytest.raises(mx.MXNetError, match="9"):
        y.wait_to_read()


def test_save_and_load(tmp_path):
    a, b = rand(2, 2), rand(3)
    f = str(tmp_path / "x.params")
    nd.save(f, {"a": nd.array(a), "b": nd.array(b)})
    loaded = nd.load(f)
    assert sorted(loaded) == ["a", "b"]
    assert_almost_equal(loaded["b"], b, rtol=0, atol=0)
    nd.save(f, [nd.array(a)])
    assert_almost_equal(nd.load(f)[0], a, rtol=0, atol=0)


def test_random_is_reproducible_under_a_seed():
    mx.random.seed(7)
    a = nd.random.normal(0, 1, shape=(1000,)).asnumpy()
    mx.random.seed(7)
    b = nd.random.normal(0, 1, shape=(1000,)).asnumpy()
    assert (a == b).all()
    assert abs(a.mean()) < 0.15 and abs(a.std() - 1) < 0.1
    u = nd.random.uniform(2, 3, shape=(500,)).asnumpy()
    assert u.min() >= 2 and u.max() < 3
    r = nd.random.randint(0, 5, shape=(200,)).asnumpy()
    assert set(np.unique(r)) <= set(range(5))


def test_contexts_and_default_context():
    assert mx.cpu(1) != mx.cpu(0) and str(mx.cpu(1)) == "cpu(1)" and mx.gpu(0).device_type == "gpu"
    x = nd.ones((2,), ctx=mx.cpu(1))
    assert x.context == mx.cpu(1)
    assert x.as_in_context(mx.cpu(0)).context == mx.cpu(0)
    with mx.cpu(1):
        assert nd.zeros((1,)).context == mx.cpu(1)
    assert nd.zeros((1,)).context == mx.cpu(0)


def test_gpu_contexts_without_a_gpu_say_why():
    if mx.num_gpus() > 0:
        pytest.skip("checks the behaviour without a GPU; this machine has %d" % mx.num_gpus())
    with pytest.raises(mx.MXNetError, match=r"cannot run on gpu\(0\)|gpu\(0\)"):
        nd.zeros((2, 2), ctx=mx.gpu(0)).wait_to_read()
    with pytest.raises(mx.MXNetError, match="gpu"):
        nd.ones((2,)).as_in_context(mx.gpu(0)).wait_to_read()
