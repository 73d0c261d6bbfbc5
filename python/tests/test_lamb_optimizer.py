"""mx.optimizer.LAMB against a NumPy reference of its rule: weights updated one by one and in
aggregated lists (MXNet's fused multi-tensor path), float32, float64, and float16 with float32
master copies."""
import numpy as np
import pytest

import braid as mx

OPTIONS = dict(learning_rate=0.02, beta1=0.8, beta2=0.95, epsilon=1e-6, wd=0.01, rescale_grad=0.5,
               clip_gradient=0.3)


def reference_lamb(weight, grads, lower_bound=None, upper_bound=None):
    """The weight after LAMB steps with OPTIONS, in float64."""
    w = weight.astype(np.float64)
    mean, var = np.zeros_like(w), np.zeros_like(w)
    o = OPTIONS
    for t, grad in enumerate(grads, start=1):
        g = np.clip(grad.astype(np.float64) * o["rescale_grad"], -o["clip_gradient"], o["clip_gradient"])
        mean = o["beta1"] * mean + (1 - o["beta1"]) * g
        var = o["beta2"] * var + (1 - o["beta2"]) * g * g
        d = (mean / (1 - o["beta1"] ** t)) / (np.sqrt(var / (1 - o["beta2"] ** t)) + o["epsilon"]) + o["wd"] * w
        r1, r2 = np.linalg.norm(w), np.linalg.norm(d)
        if lower_bound:
            r1 = max(r1, lower_bound)
        if upper_bound:
            r1 = min(r1, upper_bound)
        w = w - o["learning_rate"] * (r1 / r2 if r1 > 0 and r2 > 0 else 1.0) * d
    return w


@pytest.mark.parametrize("aggregation", [1, 45])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_lamb_steps_match_the_rule(dtype, aggregation):
    rng = np.random.RandomState(7)
    shapes = [(30, 4), (17,), (5, 5, 3)]
    weights = [rng.uniform(-1, 1, s) for s in shapes]
    grads = [[rng.uniform(-2, 2, s) for _ in range(3)] for s in shapes]
    bounds = dict(lower_bound=0.5, upper_bound=3.0)
    opt = mx.optimizer.LAMB(multi_precision=dtype == "float16", **bounds, **OPTIONS)
    opt.aggregate_num = aggregation
    updater = mx.optimizer.get_updater(opt)
    arrays = [mx.nd.array(w, dtype=dtype) for w in weights]
    for step in range(3):
        updater(list(range(len(shapes))), [mx.nd.array(g[step], dtype=dtype) for g in grads], arrays)
    tolerance = 2e-3 if dtype == "float16" else 1e-5
    for i, a in enumerate(arrays):
        start = np.asarray(mx.nd.array(weights[i], dtype=dtype).asnumpy(), np.float64)  # as stored
        want = reference_lamb(start, [np.asarray(mx.nd.array(g, dtype=dtype).asnumpy()) for g in grads[i]], **bounds)
        np.testing.assert_allclose(a.asnumpy().astype(np.float64), want, rtol=tolerance, atol=tolerance)
