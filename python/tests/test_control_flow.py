"""mx.nd.contrib.foreach, while_loop and cond against plain Python loops over NumPy arrays, with
their output formats and gradients."""
import warnings

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


def _bind_and_run(sym, args, head_grads):
    grads = {k: mx.nd.zeros(v.shape, dtype=v.dtype) for k, v in args.items()}
    exe = sym.bind(mx.cpu(), args=args, args_grad=grads)
    outputs = [o.asnumpy() for o in exe.forward(is_train=True)]
    exe.backward(head_grads)
    return outputs, {k: g.asnumpy() for k, g in grads.items()}


def test_symbolic_foreach_matches_the_imperative_loop_with_gradients():
    rng = np.random.RandomState(3)
    values = {"x": rng.uniform(-1, 1, (4, 3)), "h": rng.uniform(-1, 1, 3), "w": rng.uniform(-1, 1, 3),
              "u": rng.uniform(-1, 1, 3)}
    heads = [rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, 3)]
    x, h, w, u = (mx.sym.var(n) for n in "xhwu")
    outside = w * 2 + u  # computed outside the body: an input of the loop node

    def step(F, wv):
        def body(xt, states):
            new = F.tanh(xt * wv + states[0])
            return new * 3, [new]
        return body

    out, states = mx.sym.contrib.foreach(step(mx.sym, outside), x, [h])
    sym = mx.sym.Group([out, states[0]])
    assert sym.list_arguments() == ["x", "h", "w", "u"]
    sym = mx.sym.load_json(sym.tojson())  # the body travels in the node's JSON
    args = {k: mx.nd.array(v) for k, v in values.items()}
    outputs, grads = _bind_and_run(sym, args, [mx.nd.array(g) for g in heads])

    arrays = {k: mx.nd.array(v) for k, v in values.items()}
    for a in arrays.values():
        a.attach_grad()
    with mx.autograd.record():
        ref_out, ref_states = mx.nd.contrib.foreach(step(mx.nd, arrays["w"] * 2 + arrays["u"]), arrays["x"],
                                                    [arrays["h"]])
    mx.autograd.backward([ref_out, ref_states[0]], [mx.nd.array(g) for g in heads])
    np.testing.assert_allclose(outputs[0], ref_out.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(outputs[1], ref_states[0].asnumpy(), rtol=1e-5)
    for k in "xhwu":
        np.testing.assert_allclose(grads[k], arrays[k].grad.asnumpy(), rtol=1e-5, atol=1e-6)


class _Accumulate(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, data, state):
        out, states = F.contrib.foreach(lambda x, s: (x + s[0], [s[0] + x]), data, [state])
        return out, states[0]


def test_a_hybridized_block_with_python_control_flow_keeps_running_its_forward():
    # A recorded graph would hold this call's trip count: the block says so and keeps its loop.
    state = mx.nd.array([1.0, -1.0])
    plain, hybrid = _Accumulate(), _Accumulate()
    hybrid.hybridize()
    for steps in (4, 6):
        values = np.arange(2.0 * steps).reshape(steps, 2)
        data = mx.nd.array(values)
        for block in (plain, hybrid):
            data.attach_grad()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                with mx.autograd.record():
                    out, last = block(data, state)
                    (out.sum() + last.sum()).backward()
            # the hybridized block's first call warns, once
            warned = any("runs its forward" in str(w.message) for w in caught)
            assert warned == (block is hybrid and steps == 4)
            np.testing.assert_array_equal(out.asnumpy(), np.cumsum(values, axis=0) + [1, -1])
            np.testing.assert_array_equal(last.asnumpy(), values.sum(axis=0) + [1, -1])
            # x_t reaches out_t, out_{t+1}, ..., and the last state
            np.testing.assert_array_equal(data.grad.asnumpy()[:, 0], np.arange(steps, 0, -1) + 1)


def test_symbolic_foreach_infers_shapes_through_the_body():
    x = mx.sym.var("x", shape=(0, 3, 8))
    out, states = mx.sym.contrib.foreach(lambda xt, s: (xt * 2, [s[0] + xt]), x, [mx.sym.var("s")])
    args, outs, _ = mx.sym.Group([out, states[0]]).infer_shape_partial()
    assert outs == [(0, 3, 8), (3, 8)] and args == [(0, 3, 8), (3, 8)]
    with pytest.raises(AssertionError, match="does not use its input"):
        mx.sym.contrib.foreach(lambda xt, s: (s[0] * 2, s), x, [mx.sym.var("s")])


def test_symbolic_while_loop_pads_and_differentiates_like_the_imperative_one():
    i, s, w = mx.sym.var("i"), mx.sym.var("s"), mx.sym.var("w")
    outs, (last_i, last_s) = mx.sym.contrib.while_loop(
        cond=lambda i, s: i < 4, func=lambda i, s: ([s * w], (i + 1, s * w + 1)), loop_vars=(i, s), max_iterations=6)
    sym = mx.sym.load_json(mx.sym.Group([outs[0], last_i, last_s]).tojson())
    values = {"i": np.array([1.0]), "s": np.array([0.5, -1.0]), "w": np.array([2.0, 3.0])}
    heads = [np.random.RandomState(0).uniform(-1, 1, (6, 2)), np.ones(1), np.array([1.0, 2.0])]
    outputs, grads = _bind_and_run(sym, {k: mx.nd.array(v) for k, v in values.items()},
                                   [mx.nd.array(h) for h in heads])
    arrays = {k: mx.nd.array(v) for k, v in values.items()}
    for a in arrays.values():
        a.attach_grad()
    with mx.autograd.record():
        ref, (ref_i, ref_s) = mx.nd.contrib.while_loop(
            lambda i, s: i < 4, lambda i, s: ([s * arrays["w"]], (i + 1, s * arrays["w"] + 1)),
            (arrays["i"], arrays["s"]), max_iterations=6)
        steps = ref[0][:3]  # three steps ran; the rest is padding
        loss = (steps * mx.nd.array(heads[0][:3])).sum() + (ref_s * mx.nd.array(heads[2])).sum()
    loss.backward()
    assert outputs[1].tolist() == [4.0]
    np.testing.assert_allclose(outputs[0][:3], ref[0][:3].asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(outputs[0][3:], np.zeros((3, 2)))  # padded with zeros
    np.testing.assert_allclose(outputs[2], ref_s.asnumpy(), rtol=1e-6)
    for k in ("s", "w"):
        np.testing.assert_allclose(grads[k], arrays[k].grad.asnumpy(), rtol=1e-5)


def test_symbolic_cond_runs_the_chosen_branch_and_differentiates_it():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    out = mx.sym.contrib.cond(mx.sym.sum(a) > 0, lambda: a * b, lambda: a - b)
    sym = mx.sym.load_json(out.tojson())
    for a_value, expected_out, expected_grad_a in [([1.0, 2.0], [3.0, 8.0], [3.0, 4.0]),
                                                   ([-1.0, -2.0], [-4.0, -6.0], [1.0, 1.0])]:
        outputs, grads = _bind_and_run(sym, {"a": mx.nd.array(a_value), "b": mx.nd.array([3.0, 4.0])},
                                       [mx.nd.ones(2)])
        assert outputs[0].tolist() == expected_out
        assert grads["a"].tolist() == expected_grad_a


def test_foreach_over_one_dimensional_data_steps_through_one_element_arrays():
    # MXNet 1.x: the steps of a 1-d array are (1,)-shaped, so they combine with (1,) states.
    data, init = np.array([1.0, 2.0, 3.0], dtype=np.float32), np.array([0.5], dtype=np.float32)
    step = lambda x, s: ([x * s[0]], [s[0] * 2])
    out, states = mx.nd.contrib.foreach(step, mx.nd.array(data), [mx.nd.array(init)])
    expected = np.array([[1 * 0.5], [2 * 1.0], [3 * 2.0]], dtype=np.float32)
    assert out[0].shape == (3, 1) and np.allclose(out[0].asnumpy(), expected)
    sym_out, sym_states = mx.sym.contrib.foreach(step, mx.sym.var("x"), [mx.sym.var("s")])
    exe = mx.sym.Group(sym_out + sym_states).bind(mx.cpu(), {"x": mx.nd.array(data), "s": mx.nd.array(init)})
    exe.forward()
    assert exe.outputs[0].shape == (3, 1) and np.allclose(exe.outputs[0].asnumpy(), expected)
    assert np.allclose(exe.outputs[1].asnumpy(), states[0].asnumpy())
