"""mx.nd.contrib.foreach, while_loop and cond against plain Python loops over NumPy arrays, with
their output formats and gradients."""
import numpy as np
import pytest

import braid as mx


def test_foreach_stacks_outputs_and_carries_states():
    data = np.arange(12.0).reshape(4, 3)

    def body(x, states):
        total = states[0] + x
        return [x * 2, total], [total]

    outputs, states = mx.nd.contrib.foreach(body, mx.nd.array(data), [mx.nd.zeros(3)])
    np.testing.assert_array_equal(outputs[0].asnumpy(), data * 2)
    np.testing.assert_array_equal(outputs[1].asnumpy(), np.cumsum(data, axis=0))
    np.testing.assert_array_equal(states[0].asnumpy(), data.sum(axis=0))


def test_foreach_slices_nested_data_together_and_keeps_formats():
    a, b = np.arange(6.0).reshape(3, 2), np.arange(3.0).reshape(3, 1)
    seen = []

    def body(x, state):
        seen.append(type(x).__name__)
        return mx.nd.broadcast_add(x[0], x[1][0]), state + x[1][0]

    out, state = mx.nd.contrib.foreach(body, [mx.nd.array(a), [mx.nd.array(b)]], mx.nd.zeros(1))
    assert isinstance(out, mx.nd.NDArray) and isinstance(state, mx.nd.NDArray)
    np.testing.assert_array_equal(out.asnumpy(), a + b)
    assert state.asscalar() == b.sum() and seen == ["list"] * 3


def test_foreach_records_each_step_for_autograd():
    x = mx.nd.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    w = mx.nd.array([0.5, -1.0])
    w.attach_grad()
    with mx.autograd.record():
        out, state = mx.nd.contrib.foreach(lambda row, s: (row * w, s * w + row), x, mx.nd.ones(2))
        loss = out.sum() + state.sum()
    loss.backward()
    # state_3 = w³ + w² x0 + w x1 + x2, d/dw = 3w² + 2w x0 + x1; out sums to w·Σx
    xs = x.asnumpy()
    wn = w.asnumpy()
    expected = xs.sum(axis=0) + 3 * wn ** 2 + 2 * wn * xs[0] + xs[1]
    np.testing.assert_allclose(w.grad.asnumpy(), expected, rtol=1e-6)


def test_while_loop_pads_outputs_to_max_iterations():
    outputs, (i, s) = mx.nd.contrib.while_loop(
        cond=lambda i, s: i <= 5, func=lambda i, s: ([i * 10], (i + 1, s + i)),
        loop_vars=(mx.nd.array([1], dtype="int64"), mx.nd.array([0], dtype="int64")), max_iterations=8)
    assert i.asscalar() == 6 and s.asscalar() == 15
    assert outputs[0].shape == (8, 1) and outputs[0].dtype == np.int64
    np.testing.assert_array_equal(outputs[0].asnumpy()[:5, 0], [10, 20, 30, 40, 50])


def test_while_loop_stops_at_max_iterations_and_returns_a_single_var_as_given():
    outputs, x = mx.nd.contrib.while_loop(lambda x: x < 100, lambda x: (x, x * 2), mx.nd.array([1.0]),
                                          max_iterations=3)
    assert isinstance(x, mx.nd.NDArray) and x.asscalar() == 8
    np.testing.assert_array_equal(outputs.asnumpy()[:, 0], [1, 2, 4])
    with pytest.raises(ValueError, match="max_iterations"):
        mx.nd.contrib.while_loop(lambda x: x < 1, lambda x: (x, x), mx.nd.array([0.0]))
    with pytest.raises(ValueError, match="loop variables"):
        mx.nd.contrib.while_loop(lambda x, y: x < 1, lambda x, y: (None, [x + 1]), [mx.nd.zeros(1), mx.nd.zeros(1)],
                                 max_iterations=2)


def test_cond_runs_one_branch():
    calls = []
    a = mx.nd.array([2.0])
    out = mx.nd.contrib.cond(a > 1, lambda: calls.append("then") or a * 3, lambda: calls.append("else") or a)
    assert out.asscalar() == 6 and calls == ["then"]
    out = mx.nd.contrib.cond(mx.nd.array([0]), lambda: a * 3, lambda: a - 1)
    assert out.asscalar() == 1
