"""MXNet's legacy Python operators (mx.operator.NumpyOp, NDArrayOp): several inputs and outputs,
shapes from infer_shape, gradients against NumPy, loss layers without a head gradient, and the
error of a node whose Python object is not in the process."""
import warnings

import numpy as np
import pytest

import braid as mx


class _ProductAndSum(mx.operator.NumpyOp):
    """out0 = a * b (a's shape), out1 = row sums of a (a's first axis)."""

    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["product", "rowsum"]

    def infer_shape(self, in_shape):
        return [in_shape[0], in_shape[0]], [in_shape[0], [in_shape[0][0]]]

    def forward(self, in_data, out_data):
        a, b = in_data
        out_data[0][:] = a * b
        out_data[1][:] = a.sum(axis=1)

    def backward(self, out_grad, in_data, out_data, in_grad):
        a, b = in_data
        g_prod, g_sum = out_grad
        in_grad[0][:] = g_prod * b + g_sum[:, None]
        in_grad[1][:] = g_prod * a


def _quiet(cls, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(*args)


def test_a_numpy_op_computes_both_outputs_and_their_gradients():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=(3, 4)).astype(np.float32)
    g_prod, g_sum = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=3).astype(np.float32)
    sym = _quiet(_ProductAndSum).get_symbol(mx.sym.var("a"), mx.sym.var("b"), name="ps")
    assert sym.list_arguments() == ["a", "b"]
    assert sym.list_outputs() == ["ps_product", "ps_rowsum"]
    _, out_shapes, _ = sym.infer_shape(a=(3, 4), b=(3, 4))
    assert out_shapes == [(3, 4), (3,)]
    grads = {"a": mx.nd.zeros((3, 4)), "b": mx.nd.zeros((3, 4))}
    ex = sym.bind(mx.cpu(), args={"a": mx.nd.array(a), "b": mx.nd.array(b)}, args_grad=grads)
    ex.forward(is_train=True)
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), a * b, rtol=1e-6)
    np.testing.assert_allclose(ex.outputs[1].asnumpy(), a.sum(axis=1), rtol=1e-5)
    ex.backward([mx.nd.array(g_prod), mx.nd.array(g_sum)])
    np.testing.assert_allclose(grads["a"].asnumpy(), g_prod * b + g_sum[:, None], rtol=1e-5)
    np.testing.assert_allclose(grads["b"].asnumpy(), g_prod * a, rtol=1e-5)


class _Square(mx.operator.NDArrayOp):
    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0] * in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 2 * in_data[0] * out_grad[0]


def test_an_ndarray_op_adds_its_gradient_where_the_binding_says_add():
    x = np.array([1.0, -2.0, 3.0], dtype=np.float32)
    sym = _quiet(_Square).get_symbol(mx.sym.var("x"))
    grad = mx.nd.ones((3,))
    ex = sym.bind(mx.cpu(), args={"x": mx.nd.array(x)}, args_grad={"x": grad}, grad_req="add")
    ex.forward(is_train=True)
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), x * x)
    ex.backward(mx.nd.full((3,), 0.5))
    np.testing.assert_allclose(grad.asnumpy(), 1 + x)


class _HalfSquaredError(mx.operator.NumpyOp):
    """A loss layer: its gradient does not use the head gradient (need_top_grad False)."""

    def __init__(self):
        super().__init__(need_top_grad=False)

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = in_data[0] - 3.0


def test_a_loss_layer_runs_backward_without_a_head_gradient():
    x = np.array([1.0, 5.0], dtype=np.float32)
    op = _quiet(_HalfSquaredError)
    assert op.need_top_grad() is False
    grad = mx.nd.zeros((2,))
    ex = op.get_symbol(mx.sym.var("x")).bind(mx.cpu(), args={"x": mx.nd.array(x)}, args_grad={"x": grad})
    ex.forward(is_train=True)
    ex.backward()
    np.testing.assert_allclose(grad.asnumpy(), x - 3.0)


def test_the_legacy_operators_warn_that_they_are_deprecated():
    with pytest.warns(UserWarning, match="NumpyOp has been deprecated"):
        mx.operator.NumpyOp()
    with pytest.warns(UserWarning, match="NDArrayOp has been deprecated"):
        mx.operator.NDArrayOp()


def test_a_node_whose_python_object_is_not_in_this_process_is_a_clear_error():
    with pytest.raises(mx.MXNetError, match="no Python operator with info 'beef'"):
        mx.sym._internal._Native(mx.sym.var("x"), info="beef")
    with pytest.raises(mx.MXNetError, match="info is required"):
        mx.sym._internal._NDArray(mx.sym.var("x"))
