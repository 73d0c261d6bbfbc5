"""Python custom operators (mx.operator): forward and backward against NumPy, several inputs and
outputs, keyword arguments reaching the prop as strings, and the errors of a wrong call;
imperatively, in bound symbols and Modules (the label's shape inferred by the prop), in
hybridized Gluon blocks and through JSON."""
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
    with pytest.raises(mx.MXNetError, match="input 'b' is missing"):
        mx.nd.Custom(mx.nd.zeros((2,)), op_type="test_sum_diff", scale=1)
    with pytest.raises(mx.MXNetError, match="no custom operator registered as 'nope'"):
        mx.sym.Custom(mx.sym.var("x"), op_type="nope")
    with pytest.raises(mx.MXNetError, match="not a CustomOpProp"):
        mx.operator.register("bad")(object)


class _Softmax(mx.operator.CustomOp):
    """MXNet's classic custom softmax loss: the gradient is softmax - one_hot(label)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        e = np.exp(x - x.max(axis=1, keepdims=True))
        self.assign(out_data[0], req[0], mx.nd.array(e / e.sum(axis=1, keepdims=True)))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        label = in_data[1].asnumpy().astype(int)
        y = out_data[0].asnumpy()
        y[np.arange(label.shape[0]), label] -= 1.0
        self.assign(in_grad[0], req[0], mx.nd.array(y))


@mx.operator.register("test_softmax")
class _SoftmaxProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def infer_shape(self, in_shape):
        return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _Softmax()


def test_a_bound_symbol_runs_the_operator_forward_and_backward():
    x_np = np.random.RandomState(1).uniform(-2, 2, (3, 4)).astype(np.float32)
    y = mx.sym.Custom(data=mx.sym.var("x"), op_type="test_sigmoid", name="sig")
    assert y.list_arguments() == ["x"] and y.list_outputs() == ["sig_output"]
    ex = y.bind(mx.cpu(), {"x": mx.nd.array(x_np)}, args_grad={"x": mx.nd.zeros((3, 4))})
    ex.forward(is_train=True)
    ex.backward(mx.nd.ones((3, 4)) * 3)
    expect = 1 / (1 + np.exp(-x_np))
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), expect, rtol=1e-6)
    np.testing.assert_allclose(ex.grad_dict["x"].asnumpy(), 3 * expect * (1 - expect), rtol=1e-5)
    # Between built-in operators, and saved to JSON and loaded back.
    z = mx.sym.exp(mx.sym.Custom(mx.sym.var("x") * 2, op_type="test_sigmoid"))
    loaded = mx.sym.load_json(z.tojson())
    out = loaded.bind(mx.cpu(), {"x": mx.nd.array(x_np)}).forward()[0]
    np.testing.assert_allclose(out.asnumpy(), np.exp(1 / (1 + np.exp(-2 * x_np))), rtol=1e-5)


def test_a_custom_loss_trains_a_module_as_softmax_output_does():
    rng = np.random.RandomState(0)
    data, label = rng.uniform(-1, 1, (8, 5)).astype(np.float32), rng.randint(0, 3, 8).astype(np.float32)
    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    custom = mx.sym.Custom(fc, mx.sym.var("softmax_label"), op_type="test_softmax", name="softmax")
    builtin = mx.sym.SoftmaxOutput(fc, mx.sym.var("softmax_label"), name="softmax")
    # The prop infers the label's shape from the data's.
    assert custom.infer_shape(data=(8, 5))[0] == builtin.infer_shape(data=(8, 5))[0]
    grads = []
    for net in (custom, builtin):
        mod = mx.mod.Module(net, context=mx.cpu())
        mod.bind(data_shapes=[("data", (8, 5))], label_shapes=[("softmax_label", (8,))])
        mod.init_params(mx.init.Constant(0.1))
        mod.forward_backward(mx.io.DataBatch([mx.nd.array(data)], [mx.nd.array(label)]))
        grads.append((mod.get_outputs()[0].asnumpy(), mod._exec_group.grad_arrays[0][0].asnumpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], rtol=1e-5)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-4, atol=1e-6)


class _Counter(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        aux[0][:] = aux[0] + 1
        self.assign(out_data[0], req[0], in_data[0] * aux[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * aux[0])


@mx.operator.register("test_counter")
class _CounterProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["count"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [(1,)]

    def create_operator(self, ctx, shapes, dtypes):
        return _Counter()


def test_aux_states_are_bound_and_updated():
    y = mx.sym.Custom(mx.sym.var("x"), op_type="test_counter", name="c")
    assert y.list_auxiliary_states() == ["c_count"]
    ex = y.simple_bind(mx.cpu(), x=(2,))
    ex.arg_dict["x"][:] = 2
    ex.forward()
    ex.forward()
    np.testing.assert_array_equal(ex.aux_dict["c_count"].asnumpy(), [2])
    np.testing.assert_array_equal(ex.outputs[0].asnumpy(), [4, 4])


class _TwiceSigmoid(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.Custom(x * 2, op_type="test_sigmoid")


def test_a_hybridized_block_records_the_custom_node(tmp_path):
    x_np = np.linspace(-2, 2, 6, dtype=np.float32).reshape(2, 3)
    results = []
    for hybridize in (False, True):
        net = _TwiceSigmoid()
        if hybridize:
            net.hybridize()
        x = mx.nd.array(x_np)
        x.attach_grad()
        for _ in range(2):  # the second call runs the compiled graph
            with mx.autograd.record():
                y = net(x)
            y.backward()
        results.append((y.asnumpy(), x.grad.asnumpy()))
    s = 1 / (1 + np.exp(-2 * x_np))
    for y, g in results:
        np.testing.assert_allclose(y, s, rtol=1e-6)
        np.testing.assert_allclose(g, 2 * s * (1 - s), rtol=1e-5)
    net.export(str(tmp_path / "net"))
    assert '"op": "Custom"' in (tmp_path / "net-symbol.json").read_text()


class _Broken(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        raise ValueError("bad input")


@mx.operator.register("test_broken")
class _BrokenProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, shapes, dtypes):
        return _Broken()


def test_an_exception_in_a_bound_forward_is_an_mxnet_error():
    ex = mx.sym.Custom(mx.sym.var("x"), op_type="test_broken").simple_bind(mx.cpu(), x=(2,))
    with pytest.raises(mx.MXNetError, match="custom operator 'test_broken' raised ValueError: bad input"):
        ex.forward()
