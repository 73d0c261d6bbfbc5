"""MXNet's NDArray API details: mx.runtime, mxnet.ndarray.ndarray, pickling, views of basic
indexing, creation with out=, NumPy-rule helpers; values against NumPy."""
import pickle

import numpy as np
import pytest

import braid as mx
from braid import nd
from braid.base import MXNetError


def test_runtime_features_are_a_singleton_with_mxnet_names():
    f = mx.runtime.Features()
    assert f is mx.runtime.Features() and len(f) >= 30 and "CUDA" in f
    assert f.is_enabled("int64_tensor_size") and not f.is_enabled("MKLDNN")
    with pytest.raises(RuntimeError):
        f.is_enabled("NO_SUCH_FEATURE")


def test_ndarray_module_layout():
    from braid.ndarray.ndarray import NDArray, py_slice, _STORAGE_TYPE_STR_TO_ID
    assert NDArray is nd.NDArray and py_slice is slice and _STORAGE_TYPE_STR_TO_ID["csr"] == 2


def test_pickle_round_trip_and_mxnet_raw_bytes():
    a = nd.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    b = pickle.loads(pickle.dumps(a))
    assert np.array_equal(a.asnumpy(), b.asnumpy())
    # MXNet's raw bytes of mx.nd.arange(1, ctx=mx.gpu()): loaded on the cpu.
    raw = bytearray(b'\xc9\xfa\x93\xf9\x00\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00'
                    b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00')
    c = nd.zeros((5,))
    c.__setstate__({"handle": raw})
    assert c.shape == (1,) and c.asscalar() == 0
    with pytest.raises(MXNetError):
        c.__setstate__({"handle": raw[:-2]})


def test_contiguous_basic_index_is_a_view():
    x = nd.array(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    v = x[1, 1:3]
    v[:] = -1
    expected = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    expected[1, 1:3] = -1
    assert np.array_equal(x.asnumpy(), expected)
    assert nd.NDArray._basic_indexing_slice_is_contiguous((slice(1, 2), slice(1, 3), slice(None)), (2, 3, 4))
    assert not nd.NDArray._basic_indexing_slice_is_contiguous((slice(None), slice(1, 3), slice(None)), (2, 3, 4))


def test_partial_assignment_while_recording_is_refused():
    x = nd.zeros((3,))
    y = nd.ones((1,))
    y.attach_grad()
    with mx.autograd.record():
        with pytest.raises(MXNetError, match="Inplace operations"):
            x[0:1] = y


def test_creation_into_out_and_numpy_helpers():
    out = nd.zeros((2, 2))
    nd.full((2, 2), 3, out=out)
    assert np.array_equal(out.asnumpy(), np.full((2, 2), 3))
    assert np.allclose(nd.linspace(0, 1, 5).asnumpy(), np.linspace(0, 1, 5))
    assert np.array_equal(nd.linspace(0, 10, 4, dtype="int32").asnumpy(), np.linspace(0, 10, 4, dtype="int32"))
    assert nd.moveaxis(nd.zeros((4, 1, 2, 3)), [0, 1], [2, 3]).shape == (2, 3, 4, 1)
    with pytest.raises(ValueError):
        nd.moveaxis(nd.zeros((1, 2, 3)), 3, 0)
    a = nd.array([[1, 2, 3], [4, 5, 6]])
    assert np.array_equal(nd.add_n(a, a, a).asnumpy(), 3 * a.asnumpy())
    assert np.array_equal(nd.fill_element_0index(a, nd.array([9, 8]), nd.array([2, 0])).asnumpy(),
                          [[1, 2, 9], [8, 5, 6]])
    assert a.astype("float32", copy=False) is a


def test_maximum_and_relu_propagate_nan():
    a = nd.array([np.nan, 1.0, -1.0])
    b = nd.array([0.0, np.nan, 0.0])
    assert np.array_equal(nd.maximum(a, b).asnumpy(), [np.nan, np.nan, 0.0], equal_nan=True)
    assert np.array_equal(nd.relu(a).asnumpy(), [np.nan, 1.0, 0.0], equal_nan=True)


def test_reset_arrays_zeroes_every_array_in_place():
    arrays = [mx.nd.ones((2, 3), dtype=d) * 5 for d in ("float16", "float32", "float64", "int32")]
    kept = mx.nd.ones((4,))
    result = mx.nd.reset_arrays(*arrays, num_arrays=len(arrays))
    assert result == []  # no outputs, as MXNet
    for a in arrays:
        assert a.asnumpy().tolist() == [[0, 0, 0], [0, 0, 0]]
    assert kept.asnumpy().tolist() == [1, 1, 1, 1]
    try:
        mx.nd.reset_arrays(arrays[0], num_arrays=0)
        raise AssertionError("num_arrays=0 was accepted")
    except mx.base.MXNetError as e:
        assert "num_arrays" in str(e)


def test_depth_to_space_and_space_to_depth_against_numpy():
    """DCR order, as MXNet's documentation and ONNX: (N, C, H, W) -> (N, C/b², H b, W b) and back."""
    n, c, h, w, b = 2, 12, 3, 4, 2
    x = np.random.RandomState(0).rand(n, c, h, w).astype(np.float32)
    expected = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2).reshape(n, c // (b * b), h * b, w * b)
    y = mx.nd.depth_to_space(mx.nd.array(x), b)
    np.testing.assert_array_equal(y.asnumpy(), expected)
    np.testing.assert_array_equal(mx.nd.space_to_depth(y, b).asnumpy(), x)
    with pytest.raises(mx.MXNetError, match="block_size"):
        mx.nd.depth_to_space(mx.nd.zeros((1, 3, 2, 2)), 2)
    with pytest.raises(mx.MXNetError, match="block_size"):
        mx.nd.space_to_depth(mx.nd.zeros((1, 1, 3, 2)), 2)


def test_sequence_mask_reverse_last_against_numpy():
    x = np.random.RandomState(1).rand(5, 3, 2).astype(np.float32)  # (time, batch, feature)
    lengths = np.array([2, 5, 1], dtype=np.float32)
    masked, reversed_, last = x.copy(), x.copy(), np.empty((3, 2), np.float32)
    for n, k in enumerate(lengths.astype(int)):
        masked[k:, n] = -7
        reversed_[:k, n] = x[:k, n][::-1]
        last[n] = x[k - 1, n]
    xs, ls = mx.nd.array(x), mx.nd.array(lengths)
    np.testing.assert_array_equal(
        mx.nd.SequenceMask(xs, ls, use_sequence_length=True, value=-7).asnumpy(), masked)
    np.testing.assert_array_equal(mx.nd.SequenceReverse(xs, ls, use_sequence_length=True).asnumpy(), reversed_)
    np.testing.assert_array_equal(mx.nd.SequenceLast(xs, ls, use_sequence_length=True).asnumpy(), last)
    # batch-major, and without lengths: the whole time axis
    np.testing.assert_array_equal(
        mx.nd.SequenceLast(mx.nd.array(x.transpose(1, 0, 2)), ls, use_sequence_length=True, axis=1).asnumpy(), last)
    np.testing.assert_array_equal(mx.nd.SequenceLast(xs).asnumpy(), x[-1])
    with pytest.raises(mx.MXNetError, match="sequence_length"):
        mx.nd.SequenceMask(xs, mx.nd.array([2, 9, 1]), use_sequence_length=True).asnumpy()


@pytest.mark.parametrize("use_linear", [True, False])
def test_svm_output_gradient_is_the_hinge_loss_gradient(use_linear):
    """Forward passes the scores; backward is d/dx of reg · Σ max(margin - s x, 0) (squared for the
    L2-SVM), s = +1 for the label's class, checked by central differences of that loss."""
    rs = np.random.RandomState(3)
    x, label = rs.uniform(-2, 2, (4, 5)), np.array([0, 3, 4, 1])
    margin, reg = 0.7, 1.5
    s = np.where(np.arange(5)[None, :] == label[:, None], 1.0, -1.0)

    def loss(v):
        slack = np.maximum(margin - s * v, 0)
        return reg * (slack if use_linear else slack ** 2).sum()

    xs = mx.nd.array(x, dtype="float64")
    xs.attach_grad()
    with mx.autograd.record():
        out = mx.nd.SVMOutput(xs, mx.nd.array(label), margin=margin, regularization_coefficient=reg,
                              use_linear=use_linear)
    out.backward()
    np.testing.assert_array_equal(out.asnumpy(), x)
    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = 1e-6
        numeric[i] = (loss(x + d) - loss(x - d)) / 2e-6
    np.testing.assert_allclose(xs.grad.asnumpy(), numeric, rtol=1e-5, atol=1e-6)


def test_moments_against_numpy():
    x = np.random.RandomState(2).rand(2, 3, 4)
    for axes, keepdims in [((0, 2), False), ((1,), True), (None, False)]:
        mean, var = mx.nd.moments(mx.nd.array(x, dtype="float64"), axes=axes, keepdims=keepdims)
        ref_mean = np.mean(x, axis=axes, keepdims=keepdims)
        ref_var = np.var(x, axis=axes, keepdims=keepdims)
        np.testing.assert_allclose(mean.asnumpy().reshape(ref_mean.shape), ref_mean, rtol=1e-12)
        np.testing.assert_allclose(var.asnumpy().reshape(ref_var.shape), ref_var, rtol=1e-12)


def test_diag_against_numpy():
    v = np.arange(1.0, 4.0)
    for k in (0, 2, -1):
        np.testing.assert_array_equal(mx.nd.diag(mx.nd.array(v), k=k).asnumpy(), np.diag(v, k=k))
    m = np.random.RandomState(4).rand(3, 5)
    for k in (0, 3, -2):
        np.testing.assert_array_equal(mx.nd.diag(mx.nd.array(m), k=k).asnumpy(), np.diag(m, k=k).astype(np.float32))
    t = np.random.RandomState(5).rand(2, 3, 4).astype(np.float32)
    np.testing.assert_array_equal(mx.nd.diag(mx.nd.array(t), k=1, axis1=2, axis2=0).asnumpy(),
                                  np.diagonal(t, offset=1, axis1=2, axis2=0))
    with pytest.raises(mx.MXNetError, match="no diagonal"):
        mx.nd.diag(mx.nd.array(m), k=6)


def test_broadcast_like_and_slice_like_take_any_dtype_for_the_shape():
    x = mx.nd.array([[1.5, 2.5]], dtype="float64")
    like = mx.nd.zeros((3, 2), dtype="int32")
    out = mx.nd.broadcast_like(x, like)
    assert out.dtype == np.float64 and out.shape == (3, 2)
    sliced = mx.nd.slice_like(mx.nd.ones((4, 5), dtype="float16"), mx.nd.zeros((2, 3), dtype="uint8"))
    assert sliced.dtype == np.float16 and sliced.shape == (2, 3)
