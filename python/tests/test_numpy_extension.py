"""mx.npx (numpy_extension), mx.numpy_op_signature, the C-API names of mx.base, and the test_utils
helpers MXNet's NumPy and GPU test files import."""
import ctypes

import numpy as np
import pytest

import mxnet as mx
from mxnet import npx
from mxnet.numpy_op_signature import _get_builtin_op


def test_npx_operators_are_the_legacy_operators():
    x = mx.nd.array([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]])
    assert (npx.relu(x).asnumpy() == np.maximum(x.asnumpy(), 0)).all()
    np.testing.assert_allclose(npx.sigmoid(x).asnumpy(), 1 / (1 + np.exp(-x.asnumpy())), rtol=1e-6)
    np.testing.assert_allclose(npx.softmax(x, axis=-1).asnumpy(), mx.nd.softmax(x, axis=-1).asnumpy())
    assert (npx.one_hot(mx.nd.array([0, 2]), 3).asnumpy() == np.eye(3)[[0, 2]]).all()
    w, b = mx.nd.ones((4, 3)), mx.nd.zeros((4,))
    np.testing.assert_allclose(npx.fully_connected(x, w, b, num_hidden=4).asnumpy(), x.asnumpy() @ np.ones((3, 4)))
    assert npx.batch_flatten(mx.nd.zeros((2, 3, 4))).shape == (2, 12)


def test_npx_unknown_name_is_an_attribute_error_listing_what_exists():
    with pytest.raises(AttributeError, match="no attribute 'no_such_op'.*relu|softmax"):
        npx.no_such_op


def test_npx_switches_np_semantics():
    assert not npx.is_np_shape()
    npx.set_np()
    try:
        assert npx.is_np_shape() and npx.is_np_array()
    finally:
        npx.reset_np()
    assert not npx.is_np_shape() and not npx.is_np_array()

    @npx.use_np
    def inside():
        return npx.is_np_shape()
    assert inside() and not npx.is_np_shape()


def test_builtin_op_lookup():
    assert _get_builtin_op("_npx_softmax") is npx.softmax
    assert _get_builtin_op("_np_zeros") is mx.np.zeros
    assert _get_builtin_op("_np_random_uniform") is mx.np.random.uniform
    assert _get_builtin_op("softmax") is None
    with pytest.raises(ValueError, match="Cannot find operator no_such"):
        _get_builtin_op("_np_no_such")


def test_mxnet_c_api_names():
    with pytest.raises(mx.base.MXNetError, match="MXSetSubgraphPropertyOpNames.*Python API"):
        mx.base._LIB.MXSetSubgraphPropertyOpNames
    assert not mx.base._LIB
    assert mx.base.c_str("ab").value == b"ab"
    assert [s for s in mx.base.c_str_array(["x", "yz"])] == [b"x", b"yz"]
    assert list(mx.base.c_array(ctypes.c_int, [3, 4])) == [3, 4]
    mx.base.check_call(0)
    with pytest.raises(mx.base.MXNetError):
        mx.base.check_call(-1)


def test_matrices_with_real_eigenvalues():
    from mxnet.test_utils import new_matrix_with_real_eigvals_nd, new_sym_matrix_with_real_eigvals_nd
    m = new_matrix_with_real_eigvals_nd((3, 2, 5, 5))
    assert m.shape == (3, 2, 5, 5)
    eig = np.linalg.eigvals(m)
    assert np.abs(eig.imag).max() < 1e-8 and np.abs(eig.real).max() <= 10 + 1e-8
    assert np.linalg.cond(m).max() < 1e12
    s = new_sym_matrix_with_real_eigvals_nd((4, 6, 6))
    np.testing.assert_allclose(s, np.swapaxes(s, -1, -2), atol=1e-12)


def test_same_symbol_structure_compares_operators():
    from mxnet.test_utils import same_symbol_structure, has_tvm_ops
    x = mx.sym.var("x")
    a = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=3, name="fc"))
    b = mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=5, name="other"))
    c = mx.sym.sigmoid(mx.sym.FullyConnected(x, num_hidden=3))
    assert same_symbol_structure(a, b)
    assert not same_symbol_structure(a, c)
    assert has_tvm_ops() is False


def test_download_model_knows_mxnet_model_names():
    from mxnet.test_utils import download_model
    assert download_model("no-such-model") == (None, 0)
