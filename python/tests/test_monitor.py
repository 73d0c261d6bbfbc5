"""mx.mon.Monitor on a Module and Executor.set_monitor_callback: what is collected, when, in what
order, and that the statistics are those of the arrays the network computed."""
import logging

import numpy as np

import braid as mx


def _module(batch=4):
    x = mx.sym.var("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=3, name="fc"), act_type="tanh", name="act")
    net = mx.sym.LinearRegressionOutput(h, name="out")
    mod = mx.mod.Module(net, label_names=["out_label"])
    mod.bind(data_shapes=[("data", (batch, 2))], label_shapes=[("out_label", (batch, 3))])
    mod.init_params(mx.init.Uniform(0.5))
    return mod


def _batch(seed, batch=4):
    rng = np.random.RandomState(seed)
    return mx.io.DataBatch([mx.nd.array(rng.rand(batch, 2))], [mx.nd.array(rng.rand(batch, 3))])


def test_monitor_collects_matching_arrays_every_interval_batches():
    mod = _module()
    mon = mx.mon.Monitor(2, stat_func=lambda a: mx.nd.max(a), pattern="act_.*|fc_weight", sort=True)
    mod.install_monitor(mon)
    collected = []
    for step in range(3):
        mon.tic()
        mod.forward_backward(_batch(step))
        collected.append(mon.toc())
    # Batches 0 and 2 are monitored; batch 1 gives nothing.
    assert collected[1] == []
    names = [name for _, name, _ in collected[0]]
    assert names == sorted(names) == ["act_backward_output", "act_output", "fc_weight"]
    assert [step for step, _, _ in collected[2]] == [3, 3, 3]
    # The statistic of act_output is the maximum of the module's output before the loss.
    out = mod.get_outputs()[0].asnumpy()
    got = dict((name, text) for _, name, text in collected[2])
    assert np.isclose(float(got["act_output"].strip()), out.max(), atol=1e-6)


def test_default_statistic_is_the_rms_and_toc_print_logs(caplog):
    mod = _module()
    mon = mx.mon.Monitor(1, pattern="fc_output")
    mod.install_monitor(mon)
    mon.tic()
    mod.forward(_batch(5), is_train=False)
    caplog.set_level(logging.INFO)
    mon.toc_print()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "fc_output" in lines[0] and lines[0].startswith("Batch:       1")
    x = _batch(5).data[0].asnumpy()
    w, b = mod.get_params()[0]["fc_weight"].asnumpy(), mod.get_params()[0]["fc_bias"].asnumpy()
    h = x @ w.T + b
    assert np.isclose(float(lines[0].split()[-1]), np.sqrt((h ** 2).mean()), rtol=1e-5)


def test_executor_callback_with_monitor_all_sees_inputs_then_outputs():
    x = mx.sym.var("data")
    net = mx.sym.FullyConnected(x, num_hidden=2, name="fc")
    exe = net.simple_bind(mx.cpu(), data=(3, 4), grad_req="null")
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append((name, arr.shape)), monitor_all=True)
    exe.forward()
    # Each variable under its own name first, then as the node's input (MXNet's graph executor).
    assert seen == [("data", (3, 4)), ("fc_data", (3, 4)), ("fc_weight", (2, 4)), ("fc_weight", (2, 4)),
                    ("fc_bias", (2,)), ("fc_bias", (2,)), ("fc_output", (3, 2))]
    exe.set_monitor_callback(None)
    exe.forward()
    assert len(seen) == 7


def test_gluon_op_hooks_see_every_node_of_a_hybridized_block():
    """register_op_hook: MXNet's names (bytes), operators and arrays, on the tracing call and on
    the calls of the compiled graph alike, for the block's children too; None removes it."""
    net = mx.gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(3), mx.gluon.nn.Activation("relu"))
    net.initialize(mx.init.Uniform(1.0))
    net.hybridize()
    seen = []
    net.register_op_hook(lambda name, op, arr: seen.append((name, op, arr.asnumpy())), monitor_all=True)
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 4)))
    dense = net[0](x).asnumpy()  # the child alone, before its parent's graph exists
    expected_names = [b"net_dense0_fwd_data", b"net_dense0_fwd_weight", b"net_dense0_fwd_bias",
                      b"net_dense0_fwd_output", b"net_relu0_fwd_input0", b"net_relu0_fwd_output"]
    for call in range(2):  # the traced call, then the compiled graph
        seen.clear()
        out = net(x).asnumpy()
        assert [s[0] for s in seen] == expected_names, call
        assert [s[1] for s in seen] == [b"FullyConnected"] * 4 + [b"Activation"] * 2
        np.testing.assert_allclose(seen[0][2], x.asnumpy())
        np.testing.assert_allclose(seen[3][2], seen[4][2])
        np.testing.assert_allclose(seen[5][2], out)
        np.testing.assert_allclose(seen[3][2], dense, rtol=1e-6)
    net.register_op_hook(None)
    seen.clear()
    net(x).wait_to_read()
    assert seen == []


def test_a_callbacks_array_casts_to_a_handle_that_makes_one_ndarray():
    # MXNet's callbacks receive handles: code written for it wraps them back with NDArray(handle).
    import ctypes
    import pytest
    from braid.base import NDArrayHandle
    ex = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc").simple_bind(mx.cpu(), data=(3, 4))
    ex.arg_dict["data"][:] = 1.5
    seen = {}

    def callback(name, arr):
        handle = ctypes.cast(arr, NDArrayHandle)
        seen[name] = mx.nd.NDArray(handle, writable=False).asnumpy()
        with pytest.raises(mx.MXNetError, match="not an unused NDArray handle"):
            mx.nd.NDArray(handle)  # taken over by the first NDArray
    ex.set_monitor_callback(callback, monitor_all=True)
    ex.forward()
    np.testing.assert_array_equal(seen["data"], np.full((3, 4), 1.5))
    np.testing.assert_array_equal(seen["fc_output"], ex.outputs[0].asnumpy())
    with pytest.raises(mx.MXNetError, match="not an unused NDArray handle"):
        mx.nd.NDArray(ctypes.c_void_p(12345))
