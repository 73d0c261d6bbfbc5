"""Python custom operators (mx.operator): forward and backward against NumPy, several inputs and
outputs, keyword arguments reaching the prop as strings, and the errors of a wrong call."""
import numpy as np
import pytest

import braid as mx


class _Sigmoid(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], 1 / (1 + mx.nd.exp(-in_data[0])))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        y = out_data[0]
        self.assign(in_grad[0], req[0], out_grad[0] * y * (1 - y))


@mx.operator.register("test_sigmoid")
class _SigmoidProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Sigmoid()


class _ScaledSumAndDiff(mx.operator.CustomOp):
    def __init__(self, scale):
        self.scale = scale

    def forward(self, is_train, req, in_data, out_data, aux):
        a, b = in_data
        self.assign(out_data[0], req[0], (a + b) * self.scale)
        self.assign(out_data[1], req[1], a - b)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        gs, gd = out_grad
        self.assign(in_grad[0], req[0], gs * self.scale + gd)
        self.assign(in_grad[1], req[1], gs * self.scale - gd)


@mx.operator.register("test_sum_diff")
class _SumDiffProp(mx.operator.CustomOpProp):
    def __init__(self, scale):
        super().__init__(need_top_grad=True)
        assert isinstance(scale, str)  # keyword arguments arrive as strings, as in MXNet
        self.scale = float(scale)

    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["sum", "diff"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], in_shape[0]], []

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _ScaledSumAndDiff(self.scale)


def test_forward_and_backward_match_numpy():
    x_np = np.random.RandomState(0).uniform(-3, 3, (4, 5)).astype(np.float32)
    x = mx.nd.array(x_np)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type="test_sigmoid")
    y.backward(mx.nd.ones_like(y) * 2)
    expect = 1 / (1 + np.exp(-x_np))
    np.testing.assert_allclose(y.asnumpy(), expect, rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * expect * (1 - expect), rtol=1e-5)


def test_several_inputs_outputs_and_string_arguments():
    a, b = mx.nd.array([1.0, 2.0]), mx.nd.array([0.5, 4.0])
    a.attach_grad()
    b.attach_grad()
    with mx.autograd.record():
        s, d = mx.nd.Custom(a, b=b, op_type="test_sum_diff", scale=3)
        loss = (s * 2 + d).sum()
    loss.backward()
    np.testing.assert_allclose(s.asnumpy(), [4.5, 18.0])
    np.testing.assert_allclose(d.asnumpy(), [0.5, -2.0])
    np.testing.assert_allclose(a.grad.asnumpy(), [7.0, 7.0])  # 2*3 + 1
    np.testing.assert_allclose(b.grad.asnumpy(), [5.0, 5.0])  # 2*3 - 1


def test_not_recorded_outside_autograd():
    y = mx.nd.Custom(mx.nd.zeros((2,)), op_type="test_sigmoid")
    np.testing.assert_allclose(y.asnumpy(), [0.5, 0.5])


def test_errors_name_the_problem():
    with pytest.raises(mx.MXNetError, match="no custom operator registered as 'nope'"):
        mx.nd.Custom(mx.nd.zeros((2,)), op_type="nope")
    with pytest.raises(mx.MXNetError, match="missing input 'b'"):
        mx.nd.Custom(mx.nd.zeros((2,)), op_type="test_sum_diff", scale=1)
    with pytest.raises(mx.MXNetError, match="sym.Custom"):
        mx.sym.Custom(mx.sym.var("x"), op_type="test_sigmoid")
    with pytest.raises(mx.MXNetError, match="not a CustomOpProp"):
        mx.operator.register("bad")(object)
