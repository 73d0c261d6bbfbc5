"""amp.convert_symbol / convert_model / convert_hybrid_block: the casts MXNet's graph pass
inserts, the lists' consistency checks, and converted models computing what the float32 ones do
(within the target dtype's precision), on the CPU."""
import json

import numpy as np
import pytest

import mxnet as mx
from mxnet.contrib import amp
from mxnet.test_utils import same_symbol_structure


def ops(sym):
    return [n["op"] for n in json.loads(sym.tojson())["nodes"]]


def test_casts_follow_the_lists():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    res = mx.sym.FullyConnected(x, y, num_hidden=10, no_bias=True) + mx.sym.sin(y)
    converted = amp.convert_symbol(res, target_dtype="float16", target_dtype_ops=["FullyConnected"], fp32_ops=["sin"])
    # float16 products, float32 sin, and the sum in the wider of its inputs' dtypes
    x16, y16 = mx.sym.amp_cast(x, dtype="float16"), mx.sym.amp_cast(y, dtype="float16")
    expected = mx.sym.amp_cast(mx.sym.FullyConnected(x16, y16, num_hidden=10, no_bias=True),
                               dtype="float32") + mx.sym.sin(y)
    assert same_symbol_structure(converted, expected)
    assert ops(converted).count("amp_cast") == 3
    assert not same_symbol_structure(converted, res)


def test_conditional_float32_ops():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    fc = mx.sym.FullyConnected(x, y, num_hidden=10, no_bias=True)
    kept = amp.convert_symbol(fc, target_dtype_ops=[], fp32_ops=["sin"],
                              conditional_fp32_ops=[("FullyConnected", "no_bias", ["False"])])
    assert ops(kept) == ["null", "null", "FullyConnected"]
    cast = amp.convert_symbol(fc, target_dtype_ops=[], fp32_ops=["sin"],
                              conditional_fp32_ops=[("FullyConnected", "no_bias", ["True"])])
    assert ops(cast) == ["null", "amp_cast", "null", "amp_cast", "FullyConnected"]


@pytest.mark.parametrize("lists", [
    dict(target_dtype_ops=["FullyConnected"], fp32_ops=["elemwise_add"]),  # also a widest-type op
    dict(target_dtype_ops=["FullyConnected"], fp32_ops=["Activation"],
         conditional_fp32_ops=[("Activation", "act_type", ["selu"])]),
    dict(target_dtype_ops=["FullyConnected"], fp32_ops=["FullyConnected"]),
])
def test_an_operator_in_two_lists_is_refused(lists):
    x = mx.sym.var("x")
    with pytest.raises(AssertionError, match="one list only"):
        amp.convert_symbol(mx.sym.relu(x), target_dtype="float16", **lists)


def small_cnn():
    data = mx.sym.var("data")
    net = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), name="conv")
    net = mx.sym.BatchNorm(net, name="bn")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.FullyConnected(mx.sym.Flatten(net), num_hidden=5, name="fc")
    return mx.sym.softmax(net)


def params_of(sym, shape):
    rng = np.random.RandomState(0)
    arg_shapes, _, aux_shapes = sym.infer_shape(data=shape)
    args = {n: mx.nd.array(rng.uniform(-0.5, 0.5, s)) for n, s in zip(sym.list_arguments(), arg_shapes) if n != "data"}
    aux = {n: mx.nd.array(rng.uniform(0.5, 1.0, s)) for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}
    return args, aux


def run(sym, args, aux, x):
    exe = sym.bind(mx.cpu(), dict(args, data=x), aux_states=aux, grad_req="null")
    return exe.forward(is_train=False)[0].astype("float32").asnumpy()


@pytest.mark.parametrize("target", ["float16", "bfloat16"])
@pytest.mark.parametrize("cast_optional_params", [False, True])
def test_a_converted_model_computes_what_the_float32_one_does(target, cast_optional_params):
    sym = small_cnn()
    args, aux = params_of(sym, (2, 3, 8, 8))
    x = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (2, 3, 8, 8)))
    converted, cargs, caux = amp.convert_model(sym, args, aux, target_dtype=target,
                                               cast_optional_params=cast_optional_params)
    assert "amp_cast" in ops(converted)
    weight_dtype = cargs["conv_weight"].dtype
    # with cast_optional_params the weights only the float16 products read are stored in the target dtype
    if cast_optional_params:
        assert str(np.dtype(weight_dtype)) == target or (target == "bfloat16" and weight_dtype != np.float32)
    else:
        assert weight_dtype == np.float32
    assert caux["bn_moving_mean"].dtype == np.float32  # BatchNorm's statistics stay float32
    tolerance = 2e-2 if target == "float16" else 8e-2
    np.testing.assert_allclose(run(converted, cargs, caux, x), run(sym, args, aux, x), rtol=tolerance, atol=tolerance)


def test_convert_hybrid_block():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(4, 3), mx.gluon.nn.Activation("relu"), mx.gluon.nn.Dense(5))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(2).uniform(-1, 1, (2, 3, 8, 8)))
    expected = net(x).asnumpy()
    converted = amp.convert_hybrid_block(net, target_dtype="float16", cast_optional_params=True)
    assert isinstance(converted, mx.gluon.SymbolBlock)
    got = converted(x)
    np.testing.assert_allclose(got.astype("float32").asnumpy(), expected, rtol=2e-2, atol=2e-2)
    dtypes = {p.name: p.data().dtype for p in converted.collect_params().values()}
    assert np.float16 in dtypes.values(), dtypes


def test_either_precision_list_holds_every_other_operator():
    lists = amp.lists.symbol_fp16
    groups = [lists.FP16_FUNCS, lists.FP16_FP32_FUNCS, lists.FP32_FUNCS, lists.WIDEST_TYPE_CASTS,
              [op for op, _, _ in lists.CONDITIONAL_FP32_FUNCS]]
    seen = [op for group in groups for op in group]
    assert len(seen) == len(set(seen))
    assert "Convolution" in lists.FP16_FUNCS and "Convolution" not in lists.FP16_FP32_FUNCS
    assert "Reshape" in lists.FP16_FP32_FUNCS


def test_convert_bucketing_module():
    def sym_gen(seq_len):
        data, label = mx.sym.var("data"), mx.sym.var("softmax_label")
        embedded = mx.sym.Embedding(data, input_dim=20, output_dim=8, name="embed")
        hidden = mx.sym.FullyConnected(mx.sym.mean(embedded, axis=1), num_hidden=6, name="fc")
        return mx.sym.SoftmaxOutput(hidden, label, name="softmax"), ("data",), ("softmax_label",)

    module = mx.mod.BucketingModule(sym_gen, default_bucket_key=10)
    module.bind([("data", (4, 10))], [("softmax_label", (4,))], for_training=False)
    module.init_params(mx.init.Xavier())
    converted = amp.convert_bucketing_module(module, target_dtype="float16")
    converted.bind([("data", (4, 10))], [("softmax_label", (4,))], for_training=False)
    rng = np.random.RandomState(3)
    for seq_len in (10, 5):  # the default bucket and another one
        batch = mx.io.DataBatch([mx.nd.array(rng.randint(0, 20, (4, seq_len)))], [mx.nd.zeros((4,))],
                                bucket_key=seq_len, provide_data=[mx.io.DataDesc("data", (4, seq_len))],
                                provide_label=[mx.io.DataDesc("softmax_label", (4,))])
        module.forward(batch, is_train=False)
        converted.forward(batch, is_train=False)
        assert "amp_cast" in ops(converted.symbol)
        np.testing.assert_allclose(converted.get_outputs()[0].astype("float32").asnumpy(),
                                   module.get_outputs()[0].asnumpy(), rtol=2e-2, atol=2e-3)
