"""gluon.rnn's cells against PyTorch's LSTMCell / GRUCell / RNNCell with the same weights, step
by step and unrolled (both layouts, merged or not); the containers and modifiers (sequential,
bidirectional, residual, dropout, zoneout) against the cells they wrap; ParameterDict deepcopy."""
import copy

import numpy as np
import pytest
import torch

import braid as mx
from braid import autograd, gluon, nd

N, C, H, T = 3, 4, 5, 6


def torch_cell(kind, cell):
    twin = {"lstm": torch.nn.LSTMCell, "gru": torch.nn.GRUCell, "rnn": torch.nn.RNNCell}[kind](C, H).double()
    p = {name[len(cell.prefix):]: v.data().asnumpy() for name, v in cell.collect_params().items()}
    with torch.no_grad():
        twin.weight_ih.copy_(torch.tensor(p["i2h_weight"]))
        twin.weight_hh.copy_(torch.tensor(p["h2h_weight"]))
        twin.bias_ih.copy_(torch.tensor(p["i2h_bias"]))
        twin.bias_hh.copy_(torch.tensor(p["h2h_bias"]))
    return twin


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn"])
@pytest.mark.parametrize("layout", ["NTC", "TNC"])
def test_cells_unrolled_match_pytorch_cells(kind, layout):
    cell = {"lstm": gluon.rnn.LSTMCell, "gru": gluon.rnn.GRUCell, "rnn": gluon.rnn.RNNCell}[kind](H, input_size=C)
    cell.initialize(mx.init.Uniform(0.5))
    cell.cast("float64")
    x = np.random.RandomState(1).uniform(-1, 1, (N, T, C))
    data = nd.array(x if layout == "NTC" else x.transpose(1, 0, 2), dtype="float64")
    data.attach_grad()
    with autograd.record():
        out, states = cell.unroll(T, data, layout=layout, merge_outputs=True)
        (out * out).sum().backward()
    twin, tx = torch_cell(kind, cell), torch.tensor(x, requires_grad=True)
    h = c = torch.zeros(N, H, dtype=torch.float64)
    steps = []
    for t in range(T):
        if kind == "lstm":
            h, c = twin(tx[:, t], (h, c))
        else:
            h = twin(tx[:, t], h)
        steps.append(h)
    ref = torch.stack(steps, dim=1)
    (ref * ref).sum().backward()
    got = out.asnumpy() if layout == "NTC" else out.asnumpy().transpose(1, 0, 2)
    assert np.allclose(got, ref.detach().numpy(), atol=1e-10)
    assert np.allclose(states[0].asnumpy(), h.detach().numpy(), atol=1e-10)
    grad = data.grad.asnumpy() if layout == "NTC" else data.grad.asnumpy().transpose(1, 0, 2)
    assert np.allclose(grad, tx.grad.numpy(), atol=1e-9)


def test_containers_and_modifiers_compose_their_cells():
    x = nd.random.uniform(shape=(N, T, C))
    stack = gluon.rnn.SequentialRNNCell()
    with stack.name_scope():
        stack.add(gluon.rnn.LSTMCell(H, input_size=C))
        stack.add(gluon.rnn.DropoutCell(0.0))
        stack.add(gluon.rnn.ResidualCell(gluon.rnn.GRUCell(H, input_size=H)))
    stack.initialize()
    out, states = stack.unroll(T, x, merge_outputs=True)
    assert out.shape == (N, T, H) and [s.shape for s in states] == [(N, H)] * 3
    assert isinstance(stack, gluon.rnn.RecurrentCell) and isinstance(stack[0], gluon.rnn.RecurrentCell)
    # the residual cell's output is its GRU's output plus its input
    lstm_out, _ = stack[0].unroll(T, x, merge_outputs=True)
    gru = stack[2].base_cell
    gru._modified = False
    gru_out, _ = gru.unroll(T, lstm_out, merge_outputs=True)
    assert np.allclose(out.asnumpy(), (gru_out + lstm_out).asnumpy(), atol=1e-6)

    bi = gluon.rnn.BidirectionalCell(gluon.rnn.RNNCell(H, input_size=C), gluon.rnn.RNNCell(H, input_size=C))
    bi.initialize()
    out, states = bi.unroll(T, x, merge_outputs=True)
    forward, _ = bi._children["l_cell"].unroll(T, x, merge_outputs=True)
    backward, _ = bi._children["r_cell"].unroll(T, x[:, ::-1], merge_outputs=True)
    assert np.allclose(out.asnumpy()[:, :, :H], forward.asnumpy(), atol=1e-6)
    assert np.allclose(out.asnumpy()[:, :, H:], backward.asnumpy()[:, ::-1], atol=1e-6)

    base = gluon.rnn.LSTMCell(H, input_size=C)
    zoneout = gluon.rnn.ZoneoutCell(base, zoneout_outputs=0.0, zoneout_states=0.0)
    zoneout.initialize()
    zoned, _ = zoneout.unroll(T, x, merge_outputs=True)
    base._modified = False
    plain, _ = base.unroll(T, x, merge_outputs=True)
    assert np.allclose(zoned.asnumpy(), plain.asnumpy())


def test_a_parameter_dict_deep_copies_its_values():
    params = gluon.ParameterDict("net_")
    params.get("w", shape=(2, 3))
    params.initialize(mx.init.One())
    copied = copy.deepcopy(params)
    copied["net_w"].set_data(nd.zeros((2, 3)))
    assert list(copied.keys()) == ["net_w"] and params["net_w"].data().asnumpy().sum() == 6


def test_a_hybridized_unrolled_cell_exports_and_imports_with_the_same_outputs(tmp_path):
    class Layer(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.cell = gluon.rnn.GRUCell(hidden_size=2)

        def hybrid_forward(self, F, seq):
            return self.cell.unroll(inputs=seq, length=2, merge_outputs=True)[0]

    net = Layer()
    net.initialize()
    net.hybridize()
    x = nd.ones((1, 2, 3))
    first = net(x).asnumpy()
    assert np.array_equal(net(x).asnumpy(), first)
    net.export(str(tmp_path / "model"), epoch=0)
    back = gluon.SymbolBlock.imports(str(tmp_path / "model-symbol.json"), ["data"],
                                     str(tmp_path / "model-0000.params"))
    assert np.allclose(back(x).asnumpy(), first)


def test_variational_dropout_keeps_one_mask_for_all_steps_of_a_sequence():
    # A DropoutCell(0) passes its input through, so the outputs are the masked inputs themselves.
    cell = gluon.contrib.rnn.VariationalDropoutCell(gluon.rnn.DropoutCell(0.0), drop_inputs=0.5)
    x = nd.ones((4, T, 16))
    with autograd.record(train_mode=True):
        out, _ = cell.unroll(T, x, merge_outputs=True)
        again, _ = cell.unroll(T, x, merge_outputs=True)
    steps = out.asnumpy()
    assert set(np.unique(steps)) == {0.0, 2.0}
    assert all(np.array_equal(steps[:, t], steps[:, 0]) for t in range(T))
    assert not np.array_equal(again.asnumpy()[:, 0], steps[:, 0])  # a new sequence draws a new mask
    out, _ = cell.unroll(T, x, merge_outputs=True)  # not training: no dropout
    assert np.array_equal(out.asnumpy(), x.asnumpy())
