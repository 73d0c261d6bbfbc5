"""mx.rnn, MXNet's legacy symbolic RNN cells: each cell unrolled and run, checked against the
RNN, LSTM and GRU equations computed here in NumPy; names as MXNet gives them; unroll layouts;
weights packed and unpacked; BucketSentenceIter's batches; RNN checkpoints."""
import os

import numpy as np
import pytest

import braid as mx
from braid.base import MXNetError


# --- NumPy reference ----------------------------------------------------------------------

def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def rnn_step(x, h, w, activation=np.tanh):
    return activation(x @ w["i2h_weight"].T + w["i2h_bias"] + h @ w["h2h_weight"].T + w["h2h_bias"])


def lstm_step(x, h, c, w):
    gates = x @ w["i2h_weight"].T + w["i2h_bias"] + h @ w["h2h_weight"].T + w["h2h_bias"]
    i, f, g, o = np.split(gates, 4, axis=1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    return sigmoid(o) * np.tanh(c), c


def gru_step(x, h, w):
    i_r, i_z, i_n = np.split(x @ w["i2h_weight"].T + w["i2h_bias"], 3, axis=1)
    h_r, h_z, h_n = np.split(h @ w["h2h_weight"].T + w["h2h_bias"], 3, axis=1)
    r = sigmoid(i_r + h_r)
    z = sigmoid(i_z + h_z)
    n = np.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h


def random_weights(rng, prefix, gates, num_input, num_hidden):
    rows = gates * num_hidden
    return {prefix + "i2h_weight": rng.uniform(-0.5, 0.5, (rows, num_input)).astype(np.float32),
            prefix + "i2h_bias": rng.uniform(-0.5, 0.5, (rows,)).astype(np.float32),
            prefix + "h2h_weight": rng.uniform(-0.5, 0.5, (rows, num_hidden)).astype(np.float32),
            prefix + "h2h_bias": rng.uniform(-0.5, 0.5, (rows,)).astype(np.float32)}


def strip(weights, prefix):
    return {k[len(prefix):]: v for k, v in weights.items() if k.startswith(prefix)}


def evaluate(outputs, **arrays):
    """The outputs of a symbol (or list of symbols) for NumPy inputs, as NumPy arrays."""
    group = mx.sym.Group(outputs) if isinstance(outputs, list) else outputs
    results = group.eval(ctx=mx.cpu(), **{k: mx.nd.array(v) for k, v in arrays.items()})
    return [r.asnumpy() for r in results]


N, T, C, H = 3, 4, 5, 6


@pytest.fixture
def rng():
    return np.random.RandomState(7)


# --- single cells against NumPy -----------------------------------------------------------

def test_lstm_unroll_ntc_merged_matches_numpy(rng):
    cell = mx.rnn.LSTMCell(H, prefix="lstm_")
    outputs, states = cell.unroll(T, mx.sym.Variable("data"), layout="NTC", merge_outputs=True)
    x = rng.uniform(-1, 1, (N, T, C)).astype(np.float32)
    w = random_weights(rng, "lstm_", 4, C, H)
    out, h_last, c_last = evaluate([outputs] + states, data=x, **w)

    h = np.zeros((N, H), np.float32)
    c = np.zeros((N, H), np.float32)
    expected = []
    for t in range(T):
        h, c = lstm_step(x[:, t], h, c, strip(w, "lstm_"))
        expected.append(h)
    assert out.shape == (N, T, H)
    np.testing.assert_allclose(out, np.stack(expected, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h_last, h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c_last, c, rtol=1e-5, atol=1e-6)


def test_gru_unroll_tnc_list_matches_numpy(rng):
    cell = mx.rnn.GRUCell(H, prefix="gru_")
    outputs, states = cell.unroll(T, mx.sym.Variable("data"), layout="TNC", merge_outputs=False)
    assert isinstance(outputs, list) and len(outputs) == T
    x = rng.uniform(-1, 1, (T, N, C)).astype(np.float32)
    w = random_weights(rng, "gru_", 3, C, H)
    results = evaluate(outputs + states, data=x, **w)

    h = np.zeros((N, H), np.float32)
    for t in range(T):
        h = gru_step(x[t], h, strip(w, "gru_"))
        np.testing.assert_allclose(results[t], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results[-1], h, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_rnn_cell_list_inputs_tnc_merged(rng, activation):
    cell = mx.rnn.RNNCell(H, activation=activation, prefix="rnn_")
    inputs = [mx.sym.Variable("x%d" % t) for t in range(T)]
    outputs, _ = cell.unroll(T, inputs, layout="TNC", merge_outputs=True)
    xs = {"x%d" % t: rng.uniform(-1, 1, (N, C)).astype(np.float32) for t in range(T)}
    w = random_weights(rng, "rnn_", 1, C, H)
    out, = evaluate(outputs, **dict(xs, **w))

    act = np.tanh if activation == "tanh" else (lambda v: np.maximum(v, 0))
    h = np.zeros((N, H), np.float32)
    expected = []
    for t in range(T):
        h = rnn_step(xs["x%d" % t], h, strip(w, "rnn_"), act)
        expected.append(h)
    assert out.shape == (T, N, H)
    np.testing.assert_allclose(out, np.stack(expected), rtol=1e-5, atol=1e-6)


def test_begin_state_variables_feed_the_first_step(rng):
    cell = mx.rnn.LSTMCell(H, prefix="l_")
    begin = cell.begin_state(func=mx.sym.Variable)
    assert [s.name for s in begin] == ["l_begin_state_0", "l_begin_state_1"]
    outputs, states = cell.unroll(2, mx.sym.Variable("data"), begin_state=begin, merge_outputs=False)
    x = rng.uniform(-1, 1, (N, 2, C)).astype(np.float32)
    h0 = rng.uniform(-1, 1, (N, H)).astype(np.float32)
    c0 = rng.uniform(-1, 1, (N, H)).astype(np.float32)
    w = random_weights(rng, "l_", 4, C, H)
    results = evaluate(outputs + states, data=x, l_begin_state_0=h0, l_begin_state_1=c0, **w)
    h, c = h0, c0
    for t in range(2):
        h, c = lstm_step(x[:, t], h, c, strip(w, "l_"))
        np.testing.assert_allclose(results[t], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results[3], c, rtol=1e-5, atol=1e-6)


def test_cell_step_by_step_equals_unroll(rng):
    cell = mx.rnn.GRUCell(H, prefix="g_")
    states = cell.begin_state()
    steps = []
    for t in range(2):
        out, states = cell(mx.sym.Variable("x%d" % t), states)
        steps.append(out)
    assert [s.name for s in steps] == ["g_t0_out", "g_t1_out"]
    xs = {"x%d" % t: rng.uniform(-1, 1, (N, C)).astype(np.float32) for t in range(2)}
    w = random_weights(rng, "g_", 3, C, H)
    results = evaluate(steps, **dict(xs, **w))
    h = np.zeros((N, H), np.float32)
    for t in range(2):
        h = gru_step(xs["x%d" % t], h, strip(w, "g_"))
        np.testing.assert_allclose(results[t], h, rtol=1e-5, atol=1e-6)


# --- composite cells ----------------------------------------------------------------------

def test_sequential_stack_of_lstms_matches_numpy(rng):
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(H, prefix="lstm_l0_"))
    stack.add(mx.rnn.LSTMCell(H, prefix="lstm_l1_"))
    outputs, states = stack.unroll(T, mx.sym.Variable("data"), merge_outputs=True)
    assert len(states) == 4
    x = rng.uniform(-1, 1, (N, T, C)).astype(np.float32)
    w = random_weights(rng, "lstm_l0_", 4, C, H)
    w.update(random_weights(rng, "lstm_l1_", 4, H, H))
    out, = evaluate(outputs, data=x, **w)

    h0 = c0 = h1 = c1 = np.zeros((N, H), np.float32)
    expected = []
    for t in range(T):
        h0, c0 = lstm_step(x[:, t], h0, c0, strip(w, "lstm_l0_"))
        h1, c1 = lstm_step(h0, h1, c1, strip(w, "lstm_l1_"))
        expected.append(h1)
    np.testing.assert_allclose(out, np.stack(expected, axis=1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("merge", [True, False])
def test_bidirectional_matches_numpy(rng, merge):
    cell = mx.rnn.BidirectionalCell(mx.rnn.GRUCell(H, prefix="l_"), mx.rnn.GRUCell(H, prefix="r_"),
                                    output_prefix="bi_")
    outputs, states = cell.unroll(T, mx.sym.Variable("data"), merge_outputs=merge)
    x = rng.uniform(-1, 1, (N, T, C)).astype(np.float32)
    w = random_weights(rng, "l_", 3, C, H)
    w.update(random_weights(rng, "r_", 3, C, H))

    forward, backward = [], [None] * T
    h = np.zeros((N, H), np.float32)
    for t in range(T):
        h = gru_step(x[:, t], h, strip(w, "l_"))
        forward.append(h)
    h = np.zeros((N, H), np.float32)
    for t in reversed(range(T)):
        h = gru_step(x[:, t], h, strip(w, "r_"))
        backward[t] = h
    expected = np.stack([np.concatenate([f, b], axis=1) for f, b in zip(forward, backward)], axis=1)

    if merge:
        assert outputs.name == "bi_out"
        out, = evaluate(outputs, data=x, **w)
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    else:
        assert [o.name for o in outputs] == ["bi_t%d" % t for t in range(T)]
        results = evaluate(outputs, data=x, **w)
        for t in range(T):
            np.testing.assert_allclose(results[t], expected[:, t], rtol=1e-5, atol=1e-6)


def test_residual_cell_adds_the_input(rng):
    cell = mx.rnn.ResidualCell(mx.rnn.RNNCell(C, prefix="res_"))
    outputs, _ = cell.unroll(2, mx.sym.Variable("data"), merge_outputs=False)
    assert [o.name for o in outputs] == ["res_t0_out_plus_residual", "res_t1_out_plus_residual"]
    x = rng.uniform(-1, 1, (N, 2, C)).astype(np.float32)
    w = random_weights(rng, "res_", 1, C, C)
    results = evaluate(outputs, data=x, **w)
    h = np.zeros((N, C), np.float32)
    for t in range(2):
        h = rnn_step(x[:, t], h, strip(w, "res_"))
        np.testing.assert_allclose(results[t], h + x[:, t], rtol=1e-5, atol=1e-6)


def test_dropout_and_zoneout_pass_through_in_inference(rng):
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.ZoneoutCell(mx.rnn.RNNCell(H, prefix="z_"), zoneout_outputs=0.5, zoneout_states=0.5))
    stack.add(mx.rnn.DropoutCell(0.5))
    outputs, _ = stack.unroll(T, mx.sym.Variable("data"), merge_outputs=True)
    x = rng.uniform(-1, 1, (N, T, C)).astype(np.float32)
    w = random_weights(rng, "z_", 1, C, H)
    out, = evaluate(outputs, data=x, **w)  # eval runs in inference: dropout is the identity
    h = np.zeros((N, H), np.float32)
    expected = []
    for t in range(T):
        h = rnn_step(x[:, t], h, strip(w, "z_"))
        expected.append(h)
    np.testing.assert_allclose(out, np.stack(expected, axis=1), rtol=1e-5, atol=1e-6)


def test_modified_cell_cannot_be_used_directly():
    base = mx.rnn.LSTMCell(H, prefix="m_")
    mx.rnn.ResidualCell(base)
    with pytest.raises(AssertionError):
        base.begin_state()


# --- names --------------------------------------------------------------------------------

def test_names_are_mxnets():
    stack = mx.rnn.SequentialRNNCell()
    for i in range(2):
        stack.add(mx.rnn.LSTMCell(num_hidden=H, prefix="lstm_l%d_" % i))
    outputs, states = stack.unroll(3, mx.sym.Variable("data"), merge_outputs=False)
    assert sorted(stack.params._params) == sorted(
        "lstm_l%d_%s_%s" % (i, g, k) for i in range(2) for g in ("i2h", "h2h") for k in ("weight", "bias"))
    assert mx.sym.Group(outputs).list_outputs() == ["lstm_l1_t%d_out_output" % t for t in range(3)]
    assert [s.name for s in states] == ["lstm_l0_t2_out", "lstm_l0_t2_state", "lstm_l1_t2_out", "lstm_l1_t2_state"]
    args = mx.sym.Group(outputs).list_arguments()
    assert args[:5] == ["data", "lstm_l0_i2h_weight", "lstm_l0_i2h_bias", "lstm_l0_h2h_weight", "lstm_l0_h2h_bias"]
    internals = mx.sym.Group(outputs).get_internals().list_outputs()
    for node in ("lstm_l0_t0_i2h_output", "lstm_l0_t0_h2h_output", "lstm_l0_t0_slice_output0",
                 "lstm_l0_t0_i_output", "lstm_l0_t0_f_output", "lstm_l0_t0_c_output", "lstm_l0_t0_o_output",
                 "lstm_l0_t0_state_output"):
        assert node in internals
    # begin states count up per cell until reset
    stack.reset()
    assert [s.name for s in stack.begin_state()] == ["lstm_l0_begin_state_0", "lstm_l0_begin_state_1",
                                                     "lstm_l1_begin_state_0", "lstm_l1_begin_state_1"]


def test_gru_and_rnn_node_names():
    gru = mx.rnn.GRUCell(H, prefix="gru_")
    out, _ = gru(mx.sym.Variable("x"), gru.begin_state())
    internals = out.get_internals().list_outputs()
    for node in ("gru_t0__i2h_output", "gru_t0__h2h_output", "gru_t0__r_act_output", "gru_t0__z_act_output",
                 "gru_t0__h_act_output", "gru_t0_out_output"):
        assert node in internals
    rnn = mx.rnn.RNNCell(H, prefix="rnn_")
    out, _ = rnn(mx.sym.Variable("x"), rnn.begin_state())
    assert out.name == "rnn_t0_out"


def test_shared_params_between_cells():
    params = mx.rnn.RNNParams("shared_")
    a = mx.rnn.LSTMCell(H, prefix="a_", params=params)
    b = mx.rnn.LSTMCell(H, prefix="b_", params=params)
    out_a, _ = a.unroll(2, mx.sym.Variable("x"))
    out_b, _ = b.unroll(2, mx.sym.Variable("y"))
    weights = [n for n in mx.sym.Group(out_a + out_b).list_arguments() if n not in ("x", "y")]
    assert sorted(weights) == ["shared_h2h_bias", "shared_h2h_weight", "shared_i2h_bias", "shared_i2h_weight"]


def test_unroll_layouts_and_shapes():
    cell = mx.rnn.LSTMCell(H, prefix="s_")
    merged, _ = cell.unroll(T, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    _, shapes, _ = merged.infer_shape(data=(T, N, C))
    assert shapes == [(T, N, H)]
    merged, _ = cell.unroll(T, mx.sym.Variable("data"), layout="NTC", merge_outputs=True)
    _, shapes, _ = merged.infer_shape(data=(N, T, C))
    assert shapes == [(N, T, H)]
    steps, _ = cell.unroll(T, mx.sym.Variable("data"), layout="NTC")  # default: a list
    assert isinstance(steps, list) and len(steps) == T
    _, shapes, _ = mx.sym.Group(steps).infer_shape(data=(N, T, C))
    assert shapes == [(N, H)] * T
    with pytest.raises(Exception):
        cell.unroll(T, None)


# --- weights ------------------------------------------------------------------------------

def test_pack_unpack_weights_round_trip(rng):
    cell = mx.rnn.LSTMCell(H, prefix="p_")
    w = random_weights(rng, "p_", 4, C, H)
    args = {k: mx.nd.array(v) for k, v in w.items()}
    unpacked = cell.unpack_weights(args)
    assert sorted(unpacked) == sorted("p_%s%s_%s" % (g, gate, k) for g in ("i2h", "h2h")
                                      for gate in ("_i", "_f", "_c", "_o") for k in ("weight", "bias"))
    np.testing.assert_array_equal(unpacked["p_i2h_f_weight"].asnumpy(), w["p_i2h_weight"][H:2 * H])
    np.testing.assert_array_equal(unpacked["p_h2h_o_bias"].asnumpy(), w["p_h2h_bias"][3 * H:])
    packed = cell.pack_weights(unpacked)
    assert sorted(packed) == sorted(w)
    for k in w:
        np.testing.assert_array_equal(packed[k].asnumpy(), w[k])


def test_lstm_forget_bias_initialization():
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(4, forget_bias=2.5, prefix="fb_"))
    out, _ = stack.unroll(1, mx.sym.Variable("data"), merge_outputs=True)
    mod = mx.mod.Module(out, label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[("data", (2, 1, 3))], label_shapes=None)
    mod.init_params()
    bias = mod.get_params()[0]["fb_i2h_bias"].asnumpy()
    np.testing.assert_array_equal(bias, np.hstack([np.zeros(4), np.full(4, 2.5), np.zeros(8)]))


def test_fused_cell_unrolls_into_one_rnn_node_and_unfuses():
    fused = mx.rnn.FusedRNNCell(H, num_layers=2, mode="gru", bidirectional=True, prefix="f_")
    out, states = fused.unroll(T, mx.sym.Variable("data"), merge_outputs=True)
    assert states == [] and out.list_arguments() == ["data", "f_parameters"]
    assert out.infer_shape(data=(N, T, C))[1] == [(N, T, 2 * H)]
    stack = fused.unfuse()
    outputs, _ = stack.unroll(T, [mx.sym.Variable("x%d" % t) for t in range(T)])
    assert mx.sym.Group(outputs).list_outputs() == ["f_bi_l1_t%d_output" % t for t in range(T)]
    shapes = {"x%d" % t: (N, C) for t in range(T)}
    _, outs, _ = mx.sym.Group(outputs).infer_shape(**shapes)
    assert outs == [(N, 2 * H)] * T


def test_fused_pack_unpack_round_trip(rng):
    fused = mx.rnn.FusedRNNCell(H, num_layers=2, mode="lstm", bidirectional=True, prefix="f_")
    size = (C + H + 2) * H * 4 * 2 + (2 - 1) * 4 * H * (H + 2 * H + 2) * 2
    flat = rng.uniform(-1, 1, (size,)).astype(np.float32)
    unpacked = fused.unpack_weights({"f_parameters": mx.nd.array(flat)})
    assert unpacked["f_l0_i2h_i_weight"].shape == (H, C)
    assert unpacked["f_r1_i2h_o_weight"].shape == (H, 2 * H)
    assert unpacked["f_l1_h2h_c_bias"].shape == (H,)
    np.testing.assert_array_equal(unpacked["f_l0_i2h_i_weight"].asnumpy().ravel(), flat[:H * C])
    packed = fused.pack_weights(unpacked)
    assert list(packed) == ["f_parameters"]
    np.testing.assert_array_equal(packed["f_parameters"].asnumpy(), flat)


def test_rnn_checkpoint_saves_unpacked_weights(tmp_path, rng):
    cell = mx.rnn.GRUCell(H, prefix="ck_")
    out, _ = cell.unroll(2, mx.sym.Variable("data"), merge_outputs=True)
    w = {k: mx.nd.array(v) for k, v in random_weights(rng, "ck_", 3, C, H).items()}
    prefix = os.path.join(str(tmp_path), "gru")
    mx.rnn.save_rnn_checkpoint(cell, prefix, 3, out, w, {})
    saved = mx.nd.load("%s-0003.params" % prefix)
    assert "arg:ck_i2h_r_weight" in saved and "arg:ck_i2h_weight" not in saved
    sym, args, aux = mx.rnn.load_rnn_checkpoint(cell, prefix, 3)
    assert sym.list_outputs() == out.list_outputs() and aux == {}
    assert sorted(args) == sorted(w)
    for k in w:
        np.testing.assert_array_equal(args[k].asnumpy(), w[k].asnumpy())
    callback = mx.rnn.do_rnn_checkpoint([cell], prefix, period=2)
    callback(0, out, w, {})
    assert not os.path.exists("%s-0001.params" % prefix)
    callback(1, out, w, {})
    assert os.path.exists("%s-0002.params" % prefix)


# --- data ---------------------------------------------------------------------------------

def test_encode_sentences():
    encoded, vocab = mx.rnn.encode_sentences([["a", "b"], ["b", "c", "a"]], invalid_label=0, start_label=0)
    assert vocab == {"\n": 0, "a": 1, "b": 2, "c": 3}
    assert encoded == [[1, 2], [2, 3, 1]]
    encoded, vocab = mx.rnn.encode_sentences([["a", "z"]], vocab={"a": 5}, unknown_token="<unk>", start_label=1)
    assert encoded == [[5, 1]] and vocab == {"a": 5, "<unk>": 1}
    with pytest.raises(AssertionError):
        mx.rnn.encode_sentences([["q"]], vocab={"a": 1})


def test_bucket_sentence_iter_batches():
    sentences = [[1, 2, 3]] * 4 + [[4, 5, 6, 7, 8]] * 5 + [list(range(1, 12))]  # the last fits no bucket
    it = mx.rnn.BucketSentenceIter(sentences, batch_size=2, buckets=[4, 2, 6], invalid_label=-1)
    assert it.buckets == [4, 6]  # sorted, the empty bucket 2 dropped
    assert it.default_bucket_key == 6 and it.batch_size == 2
    assert it.provide_data[0].name == "data" and it.provide_data[0].shape == (2, 6)
    assert it.provide_label[0].name == "softmax_label" and it.provide_label[0].shape == (2, 6)

    batches = list(it)
    assert sorted(b.bucket_key for b in batches) == [4, 4, 6, 6]  # 5 sentences of 5: two full batches
    for b in batches:
        data, label = b.data[0].asnumpy(), b.label[0].asnumpy()
        assert data.shape == (2, b.bucket_key) and b.provide_data[0].shape == (2, b.bucket_key)
        row = [1, 2, 3, -1] if b.bucket_key == 4 else [4, 5, 6, 7, 8, -1]
        np.testing.assert_array_equal(data, [row, row])
        np.testing.assert_array_equal(label, [row[1:] + [-1]] * 2)  # the next token
        assert b.pad == 0
    with pytest.raises(StopIteration):
        it.next()
    it.reset()
    assert len(list(it)) == 4


def test_bucket_sentence_iter_time_major_and_default_buckets():
    sentences = [[1, 2]] * 3 + [[3, 4, 5]] * 2
    it = mx.rnn.BucketSentenceIter(sentences, batch_size=2, layout="TN", data_name="words", label_name="next")
    assert it.buckets == [2, 3]  # lengths that at least batch_size sentences have
    assert it.provide_data[0].name == "words" and it.provide_data[0].shape == (3, 2)
    for b in it:
        assert b.data[0].shape == (b.bucket_key, 2)
        assert b.provide_label[0].name == "next" and b.provide_label[0].layout == "TN"


def test_bucketing_module_trains_on_bucket_sentence_iter():
    rng = np.random.RandomState(3)
    sentences = [list(rng.randint(0, 10, size=rng.randint(3, 9))) for _ in range(64)]
    it = mx.rnn.BucketSentenceIter(sentences, batch_size=8, buckets=[4, 8], invalid_label=0)
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(8, prefix="lstm_l0_"))

    def sym_gen(seq_len):
        embed = mx.sym.Embedding(mx.sym.Variable("data"), input_dim=10, output_dim=4, name="embed")
        stack.reset()
        outputs, _ = stack.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.FullyConnected(mx.sym.Reshape(outputs, shape=(-1, 8)), num_hidden=10, name="pred")
        label = mx.sym.Reshape(mx.sym.Variable("softmax_label"), shape=(-1,))
        return mx.sym.SoftmaxOutput(pred, label, name="softmax"), ("data",), ("softmax_label",)

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=it.default_bucket_key, context=mx.cpu())
    mod.fit(it, num_epoch=2, optimizer="sgd", optimizer_params={"learning_rate": 0.1},
            initializer=mx.init.Xavier(), eval_metric=mx.metric.Perplexity(0))
    assert sorted(mod._buckets) == [4, 8]
    # the buckets share the default bucket's parameters and its input arrays
    small, large = mod._buckets[4]._exec_group, mod._buckets[8]._exec_group
    assert small.shared_data_arrays is large.shared_data_arrays
    assert mx.test_utils.same_array(small.execs[0].arg_dict["lstm_l0_i2h_weight"],
                                    large.execs[0].arg_dict["lstm_l0_i2h_weight"])
