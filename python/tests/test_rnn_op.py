"""The fused RNN operator (mx.nd.RNN / mx.sym.RNN) against PyTorch's nn.LSTM, nn.GRU and nn.RNN
with the same weights: outputs, final states and every gradient, for stacked and bidirectional
layers; variable sequence lengths against running each sequence alone; FusedRNNCell against the
unfused cells."""
import numpy as np
import pytest
import torch

import mxnet as mx

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def torch_layer(mode, input_size, hidden, layers, bidirectional):
    kwargs = dict(num_layers=layers, bidirectional=bidirectional)
    if mode == "lstm":
        return torch.nn.LSTM(input_size, hidden, **kwargs)
    if mode == "gru":
        return torch.nn.GRU(input_size, hidden, **kwargs)
    return torch.nn.RNN(input_size, hidden, nonlinearity=mode[4:], **kwargs)


def pack_torch_weights(net, layers, directions):
    """MXNet's packed vector: every layer's and direction's Wx and Wh, then their biases."""
    suffixes = ["", "_reverse"][:directions]
    weights = [getattr(net, "weight_%s_l%d%s" % (kind, l, sfx)) for l in range(layers) for sfx in suffixes
               for kind in ("ih", "hh")]
    biases = [getattr(net, "bias_%s_l%d%s" % (kind, l, sfx)) for l in range(layers) for sfx in suffixes
              for kind in ("ih", "hh")]
    return torch.cat([p.reshape(-1) for p in weights + biases])


@pytest.mark.parametrize("mode", sorted(GATES))
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, True), (3, False)])
def test_rnn_matches_torch(mode, layers, bidirectional):
    T, N, I, H = 5, 3, 4, 6
    D = 2 if bidirectional else 1
    torch.manual_seed(layers * 10 + D)
    net = torch_layer(mode, I, H, layers, bidirectional).double()
    x = torch.randn(T, N, I, dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(layers * D, N, H, dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(layers * D, N, H, dtype=torch.float64, requires_grad=True)
    out = net(x, (h0, c0)) if mode == "lstm" else net(x, h0)
    y, states = out[0], out[1] if mode == "lstm" else (out[1],)
    dy = torch.randn_like(y)
    dstates = [torch.randn_like(s) for s in states]
    torch.autograd.backward([y] + list(states), [dy] + dstates)

    params = pack_torch_weights(net, layers, D).detach()
    args = [mx.nd.array(x.detach().numpy(), dtype="float64"), mx.nd.array(params.numpy(), dtype="float64"),
            mx.nd.array(h0.detach().numpy(), dtype="float64")]
    if mode == "lstm":
        args.append(mx.nd.array(c0.detach().numpy(), dtype="float64"))
    for a in args:
        a.attach_grad()
    with mx.autograd.record():
        outs = mx.nd.RNN(*args, state_size=H, num_layers=layers, bidirectional=bidirectional, mode=mode,
                         state_outputs=True)
    mx.autograd.backward(outs, [mx.nd.array(g.numpy(), dtype="float64") for g in [dy] + dstates])

    assert len(outs) == 1 + len(states)
    np.testing.assert_allclose(outs[0].asnumpy(), y.detach().numpy(), rtol=1e-10, atol=1e-12)
    for got, want in zip(outs[1:], states):
        np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    torch_param_grad = pack_torch_weights(
        type("Grads", (), {n: p.grad for n, p in net.named_parameters()}), layers, D)
    np.testing.assert_allclose(args[0].grad.asnumpy(), x.grad.numpy(), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(args[1].grad.asnumpy(), torch_param_grad.numpy(), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(args[2].grad.asnumpy(), h0.grad.numpy(), rtol=1e-9, atol=1e-11)
    if mode == "lstm":
        np.testing.assert_allclose(args[3].grad.asnumpy(), c0.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_sequence_length_equals_each_sequence_alone(mode):
    T, N, I, H, layers = 6, 3, 4, 5, 2
    lengths = [6, 2, 4]
    rng = np.random.RandomState(0)
    size = sum(2 * GATES[mode] * H * ((I if l == 0 else 2 * H) + H + 2) for l in range(layers))
    x = rng.uniform(-1, 1, (T, N, I))
    w = rng.uniform(-0.5, 0.5, size)
    h0 = rng.uniform(-1, 1, (2 * layers, N, H))
    kwargs = dict(state_size=H, num_layers=layers, bidirectional=True, mode=mode, state_outputs=True)
    states = [mx.nd.array(h0)] * (2 if mode == "lstm" else 1)
    outs = mx.nd.RNN(mx.nd.array(x), mx.nd.array(w), *states, mx.nd.array(lengths), use_sequence_length=True,
                     **kwargs)
    for n, length in enumerate(lengths):
        alone = mx.nd.RNN(mx.nd.array(x[:length, n:n + 1]), mx.nd.array(w),
                          *[mx.nd.array(h0[:, n:n + 1])] * len(states), **kwargs)
        np.testing.assert_allclose(outs[0].asnumpy()[:length, n], alone[0].asnumpy()[:, 0], rtol=1e-5, atol=1e-6)
        assert np.all(outs[0].asnumpy()[length:, n] == 0)
        for k in range(1, len(outs)):
            np.testing.assert_allclose(outs[k].asnumpy()[:, n], alone[k].asnumpy()[:, 0], rtol=1e-5, atol=1e-6)


def pack_torch_lstmp(net, layers, directions):
    """The packed vector of an LSTM with a projection: per layer and direction Wx, Wh, Wr; then
    the biases."""
    suffixes = ["", "_reverse"][:directions]
    weights = [getattr(net, "weight_%s_l%d%s" % (kind, l, sfx)) for l in range(layers) for sfx in suffixes
               for kind in ("ih", "hh", "hr")]
    biases = [getattr(net, "bias_%s_l%d%s" % (kind, l, sfx)) for l in range(layers) for sfx in suffixes
              for kind in ("ih", "hh")]
    return torch.cat([p.reshape(-1) for p in weights + biases])


@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, True), (3, False)])
def test_lstm_projection_matches_torch(layers, bidirectional):
    T, N, I, H, P = 5, 3, 4, 6, 2
    D = 2 if bidirectional else 1
    torch.manual_seed(layers + D)
    net = torch.nn.LSTM(I, H, num_layers=layers, bidirectional=bidirectional, proj_size=P).double()
    x = torch.randn(T, N, I, dtype=torch.float64, requires_grad=True)
    h0 = torch.randn(layers * D, N, P, dtype=torch.float64, requires_grad=True)
    c0 = torch.randn(layers * D, N, H, dtype=torch.float64, requires_grad=True)
    y, (hy, cy) = net(x, (h0, c0))
    grads = [torch.randn_like(t) for t in (y, hy, cy)]
    torch.autograd.backward([y, hy, cy], grads)

    params = pack_torch_lstmp(net, layers, D).detach()
    args = [mx.nd.array(t.detach().numpy(), dtype="float64") for t in (x, params, h0, c0)]
    for a in args:
        a.attach_grad()
    with mx.autograd.record():
        outs = mx.nd.RNN(*args, state_size=H, num_layers=layers, bidirectional=bidirectional, mode="lstm",
                         projection_size=P, state_outputs=True)
    mx.autograd.backward(outs, [mx.nd.array(g.numpy(), dtype="float64") for g in grads])
    assert [o.shape for o in outs] == [(T, N, D * P), (layers * D, N, P), (layers * D, N, H)]
    for got, want in zip(outs, (y, hy, cy)):
        np.testing.assert_allclose(got.asnumpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    torch_param_grad = pack_torch_lstmp(type("Grads", (), {n: p.grad for n, p in net.named_parameters()}), layers, D)
    for got, want in zip(args, (x.grad, torch_param_grad, h0.grad, c0.grad)):
        np.testing.assert_allclose(got.grad.asnumpy(), want.numpy(), rtol=1e-9, atol=1e-11)


def test_lstm_projection_with_sequence_length_equals_each_sequence_alone():
    T, N, I, H, P, layers = 6, 3, 4, 5, 3, 2
    lengths = [6, 2, 4]
    rng = np.random.RandomState(1)
    size = sum(2 * (4 * H * ((I if l == 0 else 2 * P) + P + 2) + P * H) for l in range(layers))
    x, w = rng.uniform(-1, 1, (T, N, I)), rng.uniform(-0.5, 0.5, size)
    h0, c0 = rng.uniform(-1, 1, (2 * layers, N, P)), rng.uniform(-1, 1, (2 * layers, N, H))
    kwargs = dict(state_size=H, num_layers=layers, bidirectional=True, mode="lstm", projection_size=P,
                  state_outputs=True)
    args = [mx.nd.array(a) for a in (x, w, h0, c0)]
    for a in args:
        a.attach_grad()
    with mx.autograd.record():
        outs = mx.nd.RNN(*args, mx.nd.array(lengths), use_sequence_length=True, **kwargs)
        loss = sum((o * o).sum() for o in outs)
    loss.backward()
    for n, length in enumerate(lengths):
        alone_args = [mx.nd.array(x[:length, n:n + 1]), mx.nd.array(w), mx.nd.array(h0[:, n:n + 1]),
                      mx.nd.array(c0[:, n:n + 1])]
        alone_args[0].attach_grad()
        with mx.autograd.record():
            alone = mx.nd.RNN(*alone_args, **kwargs)
            alone_loss = sum((o * o).sum() for o in alone)
        alone_loss.backward()
        np.testing.assert_allclose(outs[0].asnumpy()[:length, n], alone[0].asnumpy()[:, 0], rtol=1e-5, atol=1e-6)
        assert np.all(outs[0].asnumpy()[length:, n] == 0)
        for k in (1, 2):
            np.testing.assert_allclose(outs[k].asnumpy()[:, n], alone[k].asnumpy()[:, 0], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(args[0].grad.asnumpy()[:length, n], alone_args[0].grad.asnumpy()[:, 0],
                                   rtol=1e-4, atol=1e-5)
        assert np.all(args[0].grad.asnumpy()[length:, n] == 0)


def test_output_names_shapes_and_errors():
    sym = mx.sym.RNN(mx.sym.Variable("x"), mx.sym.Variable("w"), mx.sym.Variable("h"), mx.sym.Variable("c"),
                     state_size=7, num_layers=2, mode="lstm", bidirectional=True, state_outputs=True, name="rnn")
    assert sym.list_outputs() == ["rnn_output", "rnn_state_output", "rnn_statecell_output"]
    args, outs, _ = sym.infer_shape(x=(5, 3, 4))
    assert args == [(5, 3, 4), (4 * 7 * 2 * (4 + 7 + 2) + 4 * 7 * 2 * (14 + 7 + 2),), (4, 3, 7), (4, 3, 7)]
    assert outs == [(5, 3, 14), (4, 3, 7), (4, 3, 7)]
    assert mx.sym.RNN(state_size=2, num_layers=1, mode="gru", name="g").list_arguments() == [
        "g_data", "g_parameters", "g_state"]
    with pytest.raises(mx.MXNetError, match="mode"):
        mx.nd.RNN(mx.nd.ones((2, 1, 2)), mx.nd.ones((12,)), mx.nd.ones((1, 1, 2)), state_size=2, num_layers=1,
                  mode="lstmm")
    with pytest.raises(mx.MXNetError, match="parameters"):
        mx.nd.RNN(mx.nd.ones((2, 1, 2)), mx.nd.ones((13,)), mx.nd.ones((1, 1, 2)), state_size=2, num_layers=1,
                  mode="rnn_tanh")
    with pytest.raises(mx.MXNetError, match="sequence_length"):
        mx.nd.RNN(mx.nd.ones((2, 1, 2)), mx.nd.ones((12,)), mx.nd.ones((1, 1, 2)), mx.nd.array([3]), state_size=2,
                  num_layers=1, mode="rnn_tanh", use_sequence_length=True).asnumpy()
    with pytest.raises(mx.MXNetError, match="projection_size is for LSTM only"):
        mx.nd.RNN(mx.nd.ones((2, 1, 2)), mx.nd.ones((12,)), mx.nd.ones((1, 1, 2)), state_size=2, num_layers=1,
                  mode="gru", projection_size=1)
    lstmp = mx.sym.RNN(mx.sym.Variable("x"), state_size=7, num_layers=2, mode="lstm", projection_size=3,
                       bidirectional=True, state_outputs=True, name="p")
    args, outs, _ = lstmp.infer_shape(x=(5, 2, 4))
    assert args == [(5, 2, 4), (2 * (4 * 7 * (4 + 3 + 2) + 3 * 7) + 2 * (4 * 7 * (6 + 3 + 2) + 3 * 7),), (4, 2, 3),
                    (4, 2, 7)]
    assert outs == [(5, 2, 6), (4, 2, 3), (4, 2, 7)]


def test_dropout_between_layers_only_in_training():
    T, N, I, H = 4, 8, 3, 16
    size = sum(H * ((I if l == 0 else H) + H + 2) for l in range(2))
    args = [mx.nd.random.uniform(-1, 1, (T, N, I)), mx.nd.random.uniform(-1, 1, (size,)), mx.nd.zeros((2, N, H))]
    kwargs = dict(state_size=H, num_layers=2, mode="rnn_relu")
    plain = mx.nd.RNN(*args, **kwargs).asnumpy()
    assert np.array_equal(mx.nd.RNN(*args, p=0.5, **kwargs).asnumpy(), plain)  # inference: no dropout
    with mx.autograd.train_mode():
        dropped = mx.nd.RNN(*args, p=0.5, **kwargs).asnumpy()
    assert not np.allclose(dropped, plain)


@pytest.mark.parametrize("mode,cell", [("lstm", mx.rnn.LSTMCell), ("gru", mx.rnn.GRUCell)])
def test_fused_cell_equals_unfused_stack(mode, cell):
    T, N, I, H = 4, 3, 5, 6
    fused = mx.rnn.FusedRNNCell(H, num_layers=2, mode=mode, bidirectional=True, prefix="")
    stack = fused.unfuse()
    data = mx.sym.Variable("data")
    y1, _ = fused.unroll(T, data, layout="NTC", merge_outputs=True)
    y2, _ = stack.unroll(T, data, layout="NTC", merge_outputs=True)
    mod1 = mx.mod.Module(y1, label_names=None)
    mod1.bind(data_shapes=[("data", (N, T, I))], inputs_need_grad=True)
    mod1.init_params(mx.init.Xavier())
    args, auxs = mod1.get_params()
    mod2 = mx.mod.Module(y2, label_names=None)
    mod2.bind(data_shapes=[("data", (N, T, I))], inputs_need_grad=True)
    mod2.set_params(stack.pack_weights(fused.unpack_weights(args)), auxs)
    batch = mx.io.DataBatch(data=[mx.nd.random.uniform(shape=(N, T, I))])
    dy = mx.nd.random.uniform(shape=(N, T, 2 * H))
    for mod in (mod1, mod2):
        mod.forward(batch, is_train=True)
        mod.backward(out_grads=[dy])
    np.testing.assert_allclose(mod1.get_outputs()[0].asnumpy(), mod2.get_outputs()[0].asnumpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(mod1.get_input_grads()[0].asnumpy(), mod2.get_input_grads()[0].asnumpy(),
                               rtol=1e-4, atol=1e-6)


def test_fused_initializer_sets_lstm_forget_bias():
    fused = mx.rnn.FusedRNNCell(3, num_layers=1, mode="lstm", forget_bias=2.5, prefix="")
    y, _ = fused.unroll(2, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    mod = mx.mod.Module(y, label_names=None)
    mod.bind(data_shapes=[("data", (2, 1, 4))])
    mod.init_params(mx.init.Zero())
    unpacked = fused.unpack_weights(mod.get_params()[0])
    assert np.all(unpacked["l0_i2h_f_bias"].asnumpy() == 2.5)
    assert np.all(unpacked["l0_h2h_i_weight"].asnumpy() == 0)
