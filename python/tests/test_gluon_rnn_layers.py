"""gluon.rnn.RNN / LSTM / GRU against PyTorch's layers with the same weights: outputs, final
states and gradients, both layouts, bidirectional and stacked, hybridized or not; MXNet's
parameter names and deferred input size."""
import numpy as np
import pytest
import torch

import braid as mx
from braid import autograd, gluon, nd

T, N, C, H, L = 5, 3, 4, 6, 2


def make(mode, bidirectional, layout="TNC"):
    if mode == "lstm":
        return gluon.rnn.LSTM(H, num_layers=L, bidirectional=bidirectional, layout=layout)
    if mode == "gru":
        return gluon.rnn.GRU(H, num_layers=L, bidirectional=bidirectional, layout=layout)
    return gluon.rnn.RNN(H, num_layers=L, activation="tanh", bidirectional=bidirectional, layout=layout)


def torch_twin(mode, layer, bidirectional):
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}[mode]
    twin = cls(C, H, num_layers=L, bidirectional=bidirectional).double()
    params = layer.collect_params()
    with torch.no_grad():
        for l in range(L):
            for d, suffix in (("l", ""), ("r", "_reverse"))[:2 if bidirectional else 1]:
                for group, tg in (("i2h", "ih"), ("h2h", "hh")):
                    for kind in ("weight", "bias"):
                        value = params[layer.prefix + "%s%d_%s_%s" % (d, l, group, kind)].data().asnumpy()
                        getattr(twin, "%s_%s_l%d%s" % (kind, tg, l, suffix)).copy_(torch.tensor(value))
    return twin


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("hybridize", [False, True])
def test_layers_match_pytorch_with_the_same_weights(mode, bidirectional, hybridize):
    layer = make(mode, bidirectional, layout="NTC")
    layer.initialize(mx.init.Uniform(0.5))
    if hybridize:
        layer.hybridize()
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (N, T, C))
    dirs = 2 if bidirectional else 1
    h0 = [rng.uniform(-1, 1, (L * dirs, N, H)) for _ in range(2 if mode == "lstm" else 1)]
    xs = nd.array(x, dtype="float64")
    xs.attach_grad()
    states = [nd.array(s, dtype="float64") for s in h0]
    layer.cast("float64")
    with autograd.record():
        out, new_states = layer(xs, states)
        loss = (out * out).sum() + sum((s * s).sum() for s in new_states)
    loss.backward()
    twin = torch_twin(mode, layer, bidirectional)
    tx = torch.tensor(x.transpose(1, 0, 2), requires_grad=True)
    th = [torch.tensor(s) for s in h0]
    ref, ref_states = twin(tx, tuple(th) if mode == "lstm" else th[0])
    ref_states = list(ref_states) if mode == "lstm" else [ref_states]
    ((ref * ref).sum() + sum((s * s).sum() for s in ref_states)).backward()
    assert out.shape == (N, T, H * dirs)
    assert np.allclose(out.asnumpy(), ref.detach().numpy().transpose(1, 0, 2), atol=1e-10)
    for mine, theirs in zip(new_states, ref_states):
        assert np.allclose(mine.asnumpy(), theirs.detach().numpy(), atol=1e-10)
    assert np.allclose(xs.grad.asnumpy(), tx.grad.numpy().transpose(1, 0, 2), atol=1e-9)
    w = layer.collect_params()[layer.prefix + "l1_h2h_weight"]
    assert np.allclose(w.grad().asnumpy(), twin.weight_hh_l1.grad.numpy(), atol=1e-9)


def test_names_states_and_deferred_input_size_are_mxnet_s():
    lstm = gluon.rnn.LSTM(8, num_layers=2, bidirectional=True, prefix="lstm0_")
    names = sorted(lstm.collect_params().keys())
    assert names[:4] == ["lstm0_l0_h2h_bias", "lstm0_l0_h2h_weight", "lstm0_l0_i2h_bias", "lstm0_l0_i2h_weight"]
    assert len(names) == 16 and "lstm0_r1_i2h_weight" in names
    lstm.initialize()
    out = lstm(nd.ones((7, 2, 3)))  # no states given: zeros, and only the output comes back
    assert out.shape == (7, 2, 16)
    assert lstm.collect_params()["lstm0_l0_i2h_weight"].shape == (32, 3)
    assert lstm.collect_params()["lstm0_l1_i2h_weight"].shape == (32, 16)
    states = lstm.begin_state(batch_size=2)
    assert [s.shape for s in states] == [(4, 2, 8), (4, 2, 8)]
    with pytest.raises(ValueError, match="Invalid recurrent state shape"):
        lstm(nd.ones((7, 2, 3)), [nd.zeros((4, 3, 8)), nd.zeros((4, 3, 8))])
    with pytest.raises(ValueError, match="Invalid layout"):
        gluon.rnn.GRU(4, layout="CTN")


def test_a_hybridized_layer_with_a_deferred_input_size_gives_the_same_output_each_call():
    # the first call completes and initializes the input weights while it traces the graph: their
    # initialization must not become part of the graph (it drew new weights at every call)
    layer = gluon.rnn.LSTM(3)
    layer.initialize()
    layer.hybridize()
    x = nd.ones((2, 1, 4))
    first = layer(x).asnumpy()
    assert np.array_equal(layer(x).asnumpy(), first)
    assert np.array_equal(layer(x).asnumpy(), first)


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("hybridize", [False, True])
def test_lstm_with_projection_matches_pytorch(bidirectional, hybridize):
    P = 3
    layer = gluon.rnn.LSTM(H, num_layers=L, bidirectional=bidirectional, projection_size=P)
    layer.initialize(mx.init.Uniform(0.5))
    layer.cast("float64")
    if hybridize:
        layer.hybridize()
    dirs = 2 if bidirectional else 1
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, (T, N, C))
    h0, c0 = rng.uniform(-1, 1, (L * dirs, N, P)), rng.uniform(-1, 1, (L * dirs, N, H))
    assert [s["shape"] for s in layer.state_info(N)] == [(L * dirs, N, P), (L * dirs, N, H)]
    xs = nd.array(x, dtype="float64")
    xs.attach_grad()
    with autograd.record():
        out, (hn, cn) = layer(xs, [nd.array(h0, dtype="float64"), nd.array(c0, dtype="float64")])
        loss = (out * out).sum() + (hn * hn).sum() + (cn * cn).sum()
    loss.backward()
    twin = torch.nn.LSTM(C, H, num_layers=L, bidirectional=bidirectional, proj_size=P).double()
    params = layer.collect_params()
    with torch.no_grad():
        for l in range(L):
            for d, suffix in (("l", ""), ("r", "_reverse"))[:dirs]:
                for mine, theirs in (("i2h_weight", "weight_ih"), ("h2h_weight", "weight_hh"), ("i2h_bias", "bias_ih"),
                                     ("h2h_bias", "bias_hh"), ("h2r_weight", "weight_hr")):
                    value = params[layer.prefix + "%s%d_%s" % (d, l, mine)].data().asnumpy()
                    getattr(twin, "%s_l%d%s" % (theirs, l, suffix)).copy_(torch.tensor(value))
    tx = torch.tensor(x, requires_grad=True)
    ref, (rh, rc) = twin(tx, (torch.tensor(h0), torch.tensor(c0)))
    ((ref * ref).sum() + (rh * rh).sum() + (rc * rc).sum()).backward()
    assert out.shape == (T, N, P * dirs)
    np.testing.assert_allclose(out.asnumpy(), ref.detach().numpy(), atol=1e-10)
    np.testing.assert_allclose(hn.asnumpy(), rh.detach().numpy(), atol=1e-10)
    np.testing.assert_allclose(cn.asnumpy(), rc.detach().numpy(), atol=1e-10)
    np.testing.assert_allclose(xs.grad.asnumpy(), tx.grad.numpy(), atol=1e-9)
    for l in range(L):
        for d, suffix in (("l", ""), ("r", "_reverse"))[:dirs]:
            for mine, theirs in (("h2r_weight", "weight_hr"), ("h2h_weight", "weight_hh"), ("i2h_bias", "bias_ih")):
                want = getattr(twin, "%s_l%d%s" % (theirs, l, suffix)).grad.numpy()
                np.testing.assert_allclose(params[layer.prefix + "%s%d_%s" % (d, l, mine)].grad().asnumpy(), want,
                                           atol=1e-9)


def test_lstm_state_clipping_clips_the_cell_state_each_step():
    layer = gluon.rnn.LSTM(H, num_layers=1, state_clip_min=-0.2, state_clip_max=0.1)
    layer.initialize(mx.init.Uniform(1.0))
    x = np.random.RandomState(2).uniform(-2, 2, (T, N, C))
    out, (h, c) = layer(nd.array(x), layer.begin_state(N))
    # the same LSTM step by step in NumPy, clipping c after each step
    p = {k[len(layer.prefix):]: v.data().asnumpy() for k, v in layer.collect_params().items()}
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    hs, cs = np.zeros((N, H)), np.zeros((N, H))
    for t in range(T):
        g = x[t] @ p["l0_i2h_weight"].T + p["l0_i2h_bias"] + hs @ p["l0_h2h_weight"].T + p["l0_h2h_bias"]
        i, f, gg, o = np.split(g, 4, axis=1)
        cs = np.clip(sig(f) * cs + sig(i) * np.tanh(gg), -0.2, 0.1)
        hs = sig(o) * np.tanh(cs)
        np.testing.assert_allclose(out.asnumpy()[t], hs, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(c.asnumpy()[0], cs, rtol=1e-4, atol=1e-5)
    assert c.asnumpy().min() >= -0.2 - 1e-6 and c.asnumpy().max() <= 0.1 + 1e-6
    with pytest.raises(ValueError, match="both"):
        gluon.rnn.LSTM(H, state_clip_min=-1)
