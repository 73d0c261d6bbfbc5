"""mx.viz: print_summary's table and plot_network's drawing of a small network, with the
parameter counts MXNet's summary gives (its rules: counts from the inputs' channel axis)."""
import contextlib
import io
import json
import warnings

import numpy as np
import pytest

import mxnet as mx


def network():
    data = mx.sym.Variable("data")
    emb = mx.sym.Embedding(data=data, name="emb1", input_dim=100, output_dim=28)
    conv = mx.sym.Convolution(data=emb, name="conv1", num_filter=32, kernel=(3, 3), stride=(2, 2))
    bn = mx.sym.BatchNorm(data=conv, name="bn1")
    act = mx.sym.Activation(data=bn, name="relu1", act_type="relu")
    pool = mx.sym.Pooling(data=act, name="mp1", kernel=(2, 2), stride=(2, 2), pool_type="max")
    fc1 = mx.sym.FullyConnected(data=pool, name="fc1", num_hidden=10)
    return mx.sym.FullyConnected(data=fc1, name="fc2", num_hidden=10, no_bias=True)


def summary_rows(symbol, **kwargs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        mx.viz.print_summary(symbol, **kwargs)
    lines = out.getvalue().splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in lines if "(" in line and not line.startswith("Layer")}
    return rows, lines


def test_summary_counts_parameters_and_shapes_as_mxnet():
    rows, lines = summary_rows(network(), shape={"data": (1, 3, 28)})
    # Embedding 100 x 28; conv 3 input channels x 32 x 3 x 3 + 32; BatchNorm 2 x 32;
    # fc1 (32 channels + 1) x 10; fc2 without bias 10 x 10.
    assert rows["emb1(Embedding)"] == ["3x28x28", "2800", "data"]
    assert rows["conv1(Convolution)"] == ["32x13x13", "896", "emb1"]
    assert rows["bn1(BatchNorm)"] == ["32x13x13", "64", "conv1"]
    assert rows["mp1(Pooling)"] == ["32x6x6", "0", "relu1"]
    assert rows["fc1(FullyConnected)"] == ["10", "330", "mp1"]
    assert rows["fc2(FullyConnected)"] == ["10", "100", "fc1"]
    assert "Total params: %d" % (2800 + 896 + 64 + 330 + 100) in lines
    assert all(len(line) == 120 for line in lines if line and not line.startswith("Total"))


def test_summary_without_shapes_counts_what_it_can():
    rows, lines = summary_rows(network(), line_length=80)
    assert rows["conv1(Convolution)"] == ["32", "emb1"]  # no input channels known: the bias only
    assert rows["bn1(BatchNorm)"] == ["0", "conv1"]
    assert "Total params: %d" % (2800 + 32 + 10) in lines
    assert lines[0] == "_" * 80


def test_summary_refuses_what_is_not_a_symbol():
    with pytest.raises(TypeError):
        mx.viz.print_summary(mx.nd.ones((2,)))


def test_plot_draws_operators_inputs_and_labelled_edges():
    dot = mx.viz.plot_network(network(), shape={"data": (1, 3, 28)}, dtype={"data": np.float32},
                              node_attrs={"fixedsize": "false"})
    source = dot.source
    assert 'label="Convolution\n3x3/2x2, 32"' in source
    assert 'label="Pooling\nmax, 2x2/2x2"' in source
    assert "shape=oval" in source and "fixedsize=false" in source
    assert "conv1_weight" not in source  # weights hidden by default
    assert 'conv1 -> emb1 [label="3x28x28(float32)"' in source
    shown = mx.viz.plot_network(network(), hide_weights=False).source
    assert "conv1 -> conv1_weight" in shown


def test_plot_warns_of_repeated_names():
    net = mx.sym.FullyConnected(mx.sym.Variable("data"), name="fc", num_hidden=4)
    net = mx.sym.FullyConnected(net, name="fc", num_hidden=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mx.viz.plot_network(net)
    assert len(caught) == 1 and "Repeated names: fc" in str(caught[0].message)


def test_symbol_files_name_operators_as_mxnet():
    # MXNet's names, not their aliases, are written: Concat, SliceChannel, Pad.
    data = mx.sym.Variable("data")
    ops = [mx.sym.concat(data, data), mx.sym.split(data, num_outputs=2),
           mx.sym.pad(data, mode="constant", pad_width=(0, 0, 0, 0, 1, 1, 1, 1))]
    written = [json.loads(op.tojson())["nodes"][-1]["op"] for op in ops]
    assert written == ["Concat", "SliceChannel", "Pad"]
