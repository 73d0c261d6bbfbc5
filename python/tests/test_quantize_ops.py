"""contrib.quantize / dequantize against NumPy written from MXNet's formulas: int8 codes
zero-centred (x * 127 / max(|min|, |max|), half away from zero, limited to +-127), uint8 codes
over min..max onto 0..255 (half up), and the ranges they return; round trips within one step."""
import numpy as np
import pytest

import braid as mx
from braid.base import MXNetError


def int8_codes(x, lo, hi):
    r = max(abs(lo), abs(hi))
    return (np.sign(x) * np.minimum(np.abs(x) * np.float32(127 / r) + 0.5, 127)).astype(np.int8), -r, r


def uint8_codes(x, lo, hi):
    return np.clip((x - lo) * np.float32(255 / (hi - lo)) + 0.5, 0, 255).astype(np.uint8), lo, hi


@pytest.mark.parametrize("out_type, reference", [("int8", int8_codes), ("uint8", uint8_codes)])
def test_quantize_and_dequantize_follow_mxnet_formulas(out_type, reference):
    rng = np.random.default_rng(4)
    x = rng.uniform(-3, 2, size=(5, 7)).astype(np.float32)
    lo, hi = float(x.min()), float(x.max())
    q, qmin, qmax = mx.nd.contrib.quantize(mx.nd.array(x), mx.nd.array([lo]), mx.nd.array([hi]), out_type=out_type)
    codes, rmin, rmax = reference(x, np.float32(lo), np.float32(hi))
    assert q.dtype == codes.dtype and np.array_equal(q.asnumpy(), codes)
    assert np.allclose([qmin.asscalar(), qmax.asscalar()], [rmin, rmax])
    back = mx.nd.contrib.dequantize(q, qmin, qmax, out_type="float32").asnumpy()
    step = (max(abs(lo), abs(hi)) / 127) if out_type == "int8" else (hi - lo) / 255
    assert back.dtype == np.float32 and np.abs(back - x).max() <= step / 2 + 1e-6


def test_mxnet_s_example_values():
    qa, lo, hi = mx.nd.contrib.quantize(mx.nd.array([[0.1392, 0.5928], [0.6027, 0.8579]]), mx.nd.array([0.0]),
                                        mx.nd.array([1.0]), out_type='int8')
    assert qa.asnumpy().tolist() == [[18, 75], [77, 109]]
    assert np.allclose(mx.nd.contrib.dequantize(qa, lo, hi).asnumpy(), np.array([[18, 75], [77, 109]]) / 127)


def test_symbols_infer_the_code_types_and_shapes_and_refuse_others():
    q = mx.sym.contrib.quantize(mx.sym.var("x"), mx.sym.var("lo"), mx.sym.var("hi"), out_type="int8")
    shapes = q.infer_shape(x=(2, 3))
    assert shapes[0] == [(2, 3), (1,), (1,)] and shapes[1] == [(2, 3), (1,), (1,)]
    assert q.infer_type(x="float32")[1] == [np.int8, np.float32, np.float32]
    d = mx.sym.contrib.dequantize(q[0], q[1], q[2])
    assert d.infer_type(x="float32")[1] == [np.float32]
    with pytest.raises(MXNetError, match="data must be float32"):
        q.infer_type(x="float64")
    with pytest.raises(MXNetError, match="out_type"):
        mx.nd.contrib.quantize(mx.nd.ones(2), mx.nd.zeros(1), mx.nd.ones(1), out_type="int4")
    with pytest.raises(MXNetError, match="int8 or uint8"):
        mx.nd.contrib.dequantize(mx.nd.ones(2), mx.nd.zeros(1), mx.nd.ones(1))
