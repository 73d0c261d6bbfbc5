"""MXNet's contrib optimizer operators against NumPy written from their formulas: AdamW (array
rescale_grad, skipped updates, multi-precision, multi-weight), LAMB's two phases and the fused
multi-tensor LAMB, LARS (multi_sum_sq, multi_lars), the preloaded multi-SGD forms, Group AdaGrad,
and the straight-through estimators."""
import numpy as np
import pytest

import braid as mx

RNG = np.random.RandomState(7)


def arrays(*shapes):
    return [RNG.uniform(-1, 1, s).astype(np.float32) for s in shapes]


def adamw_reference(w, g, m, v, scale, lr, eta, wd, beta1=0.9, beta2=0.999, eps=1e-8, clip=-1):
    d = scale * g
    if clip >= 0:
        d = np.clip(d, -clip, clip)
    m = beta1 * m + (1 - beta1) * d
    v = beta2 * v + (1 - beta2) * d * d
    return w - eta * (lr * m / (np.sqrt(v) + eps) + wd * w), m, v


def test_adamw_update_matches_its_formula_and_skips_non_finite_scales():
    w, g, m = arrays((3, 4), (3, 4), (3, 4))
    v = np.abs(arrays((3, 4))[0])
    W, M, V = mx.nd.array(w), mx.nd.array(m), mx.nd.array(v)
    mx.nd._internal._adamw_update(W, mx.nd.array(g), M, V, mx.nd.array([0.5]), lr=0.1, eta=0.7, wd=0.01,
                                  clip_gradient=0.3, out=W)
    want_w, want_m, want_v = adamw_reference(w, g, m, v, 0.5, 0.1, 0.7, 0.01, clip=0.3)
    np.testing.assert_allclose(W.asnumpy(), want_w, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(M.asnumpy(), want_m, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(V.asnumpy(), want_v, rtol=1e-5, atol=1e-8)
    for bad in (np.inf, np.nan, 0.0):  # a loss scaler's overflow: nothing moves
        before = [a.asnumpy() for a in (W, M, V)]
        mx.nd._internal._adamw_update(W, mx.nd.array(g), M, V, mx.nd.array([bad]), lr=0.1, eta=0.7, out=W)
        for a, b in zip((W, M, V), before):
            np.testing.assert_array_equal(a.asnumpy(), b)


def test_mp_and_multi_adamw_equal_the_single_update():
    w, g, m = arrays((5,), (5,), (5,))
    v = np.abs(arrays((5,))[0])
    W16, W32 = mx.nd.array(w, dtype="float16"), mx.nd.array(w.astype(np.float16).astype(np.float32))
    M, V = mx.nd.array(m), mx.nd.array(v)
    mx.nd._internal._mp_adamw_update(W16, mx.nd.array(g, dtype="float16"), M, V, W32, mx.nd.array([1.0]), lr=0.05,
                                     eta=1.0, wd=0.1, out=W16)
    want, _, _ = adamw_reference(w.astype(np.float16).astype(np.float32), g.astype(np.float16).astype(np.float32),
                                 m, v, 1.0, 0.05, 1.0, 0.1)
    np.testing.assert_allclose(W32.asnumpy(), want, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(W16.asnumpy(), want.astype(np.float16))
    # Two weights at once, each with its own lr / wd / eta.
    ws, gs, ms = arrays((2, 3), (4,)), arrays((2, 3), (4,)), arrays((2, 3), (4,))
    vs = [np.abs(x) for x in arrays((2, 3), (4,))]
    flat = []
    for k in range(2):
        flat += [mx.nd.array(ws[k]), mx.nd.array(gs[k]), mx.nd.array(ms[k]), mx.nd.array(vs[k])]
    outs = mx.nd._internal._multi_adamw_update(*flat, mx.nd.array([2.0]), num_weights=2, lrs=(0.1, 0.2),
                                               wds=(0.0, 0.3), etas=(1.0, 0.5))
    for k, (lr, wd, eta) in enumerate([(0.1, 0.0, 1.0), (0.2, 0.3, 0.5)]):
        want, want_m, _ = adamw_reference(ws[k], gs[k], ms[k], vs[k], 2.0, lr, eta, wd)
        np.testing.assert_allclose(outs[k].asnumpy(), want, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(flat[4 * k + 2].asnumpy(), want_m, rtol=1e-5, atol=1e-7)
    with pytest.raises(mx.MXNetError, match="lrs, wds and etas"):
        mx.nd._internal._multi_adamw_update(*flat, mx.nd.array([1.0]), num_weights=2, lrs=(0.1,), wds=(0, 0),
                                            etas=(1, 1))


def lamb_reference(w, g, m, v, t, wd, lr, beta1=0.9, beta2=0.999, eps=1e-6, bias_correction=True,
                   lower=-1, upper=-1):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    mh, vh = (m / (1 - beta1 ** t), v / (1 - beta2 ** t)) if bias_correction else (m, v)
    d = mh / (np.sqrt(vh) + eps) + wd * w
    r1, r2 = np.linalg.norm(w), np.linalg.norm(d)
    if lower >= 0:
        r1 = max(r1, lower)
    if upper >= 0:
        r1 = min(r1, upper)
    ratio = 1.0 if r1 == 0 or r2 == 0 else r1 / r2
    return d, w - lr * ratio * d, m, v


@pytest.mark.parametrize("bias_correction", [True, False])
def test_lamb_phases_match_the_formula(bias_correction):
    w, g, m = arrays((4, 3), (4, 3), (4, 3))
    v = np.abs(arrays((4, 3))[0])
    M, V = mx.nd.array(m), mx.nd.array(v)
    d = mx.nd.lamb_update_phase1(mx.nd.array(w), mx.nd.array(g), M, V, t=3, wd=0.01, bias_correction=bias_correction)
    want_d, want_w, want_m, _ = lamb_reference(w, g, m, v, 3, 0.01, 0.1, bias_correction=bias_correction, upper=2.0)
    np.testing.assert_allclose(d.asnumpy(), want_d, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(M.asnumpy(), want_m, rtol=1e-6)
    r1 = mx.nd.array([min(np.linalg.norm(w), 2.0)])
    new_w = mx.nd.lamb_update_phase2(mx.nd.array(w), d, r1, mx.nd.array([np.linalg.norm(want_d)]), lr=0.1,
                                     upper_bound=2.0)
    np.testing.assert_allclose(new_w.asnumpy(), want_w, rtol=1e-5, atol=1e-6)
    # A zero norm leaves the plain learning rate.
    same = mx.nd.lamb_update_phase2(mx.nd.array(w), d, mx.nd.array([0.0]), mx.nd.array([1.0]), lr=0.1)
    np.testing.assert_allclose(same.asnumpy(), w - 0.1 * d.asnumpy(), rtol=1e-6)


def test_mp_lamb_phases_read_the_master_weights():
    w, g, m = arrays((6,), (6,), (6,))
    v = np.abs(arrays((6,))[0])
    w32 = w.astype(np.float16).astype(np.float32)
    M, V, W32 = mx.nd.array(m), mx.nd.array(v), mx.nd.array(w32)
    d = mx.nd.mp_lamb_update_phase1(mx.nd.array(w, dtype="float16"), mx.nd.array(g, dtype="float16"), M, V, W32,
                                    t=1, wd=0.1)
    assert d.dtype == np.float32
    want_d, _, _, _ = lamb_reference(w32, g.astype(np.float16).astype(np.float32), m, v, 1, 0.1, 0.0)
    np.testing.assert_allclose(d.asnumpy(), want_d, rtol=1e-4, atol=1e-5)
    out = mx.nd.mp_lamb_update_phase2(mx.nd.array(w, dtype="float16"), d, mx.nd.array([2.0]), mx.nd.array([4.0]),
                                      W32, lr=0.2)
    np.testing.assert_array_equal(out.asnumpy(), (w32 - 0.2 * 0.5 * d.asnumpy()).astype(np.float16))
    np.testing.assert_array_equal(W32.asnumpy(), w32)  # the master stays, as in MXNet 1.9.1


def test_multi_lamb_runs_both_phases_per_tensor():
    ws, gs, ms = arrays((3, 2), (5,)), arrays((3, 2), (5,)), arrays((3, 2), (5,))
    vs = [np.abs(x) for x in arrays((3, 2), (5,))]
    flat = []
    for k in range(2):
        flat += [mx.nd.array(ws[k]), mx.nd.array(gs[k]), mx.nd.array(ms[k]), mx.nd.array(vs[k])]
    outs = mx.nd._internal._multi_lamb_update(*flat, num_tensors=2, learning_rates=(0.1, 0.3), wds=(0.01, 0.0),
                                              step_count=(1, 4), lower_bound=0.5)
    for k, (lr, wd, t) in enumerate([(0.1, 0.01, 1), (0.3, 0.0, 4)]):
        _, want, want_m, want_v = lamb_reference(ws[k], gs[k], ms[k], vs[k], t, wd, lr, lower=0.5)
        np.testing.assert_allclose(outs[k].asnumpy(), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(flat[4 * k + 3].asnumpy(), want_v, rtol=1e-5, atol=1e-7)


def test_lars_norms_and_rates():
    xs = arrays((3, 4), (7,), (2, 2, 2))
    sums = mx.nd.multi_sum_sq(*[mx.nd.array(x) for x in xs], num_arrays=3)
    np.testing.assert_allclose(sums.asnumpy(), [np.sum(x * x) for x in xs], rtol=1e-5)
    lrs, wsq, gsq, wds = (np.array(v, dtype=np.float32) for v in
                          ([0.1, 0.2, 0.3], [4.0, 0.0, 9.0], [1.0, 1.0, 0.0], [0.01, 0.02, 0.03]))
    out = mx.nd.multi_lars(*[mx.nd.array(v) for v in (lrs, wsq, gsq, wds)], eta=0.5, eps=1e-3, rescale_grad=2.0)
    want = lrs.copy()  # a zero norm (layers 1 and 2) keeps the rate
    want[0] = 0.1 * 0.5 * 2.0 / (1.0 * 2.0 + 0.01 * 2.0 + 1e-3)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)


def test_preloaded_multi_sgd_takes_rates_from_arrays():
    ws, gs, moms = arrays((3,), (2, 2)), arrays((3,), (2, 2)), arrays((3,), (2, 2))
    flat = []
    for k in range(2):
        flat += [mx.nd.array(ws[k]), mx.nd.array(gs[k]), mx.nd.array(moms[k])]
    outs = mx.nd.preloaded_multi_sgd_mom_update(*flat, mx.nd.array([0.1, 0.2]), mx.nd.array([0.0, 0.5]),
                                                momentum=0.9, num_weights=2)
    for k, (lr, wd) in enumerate([(0.1, 0.0), (0.2, 0.5)]):
        mom = 0.9 * moms[k] - lr * (wd * ws[k] + gs[k])
        np.testing.assert_allclose(outs[k].asnumpy(), ws[k] + mom, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(flat[3 * k + 2].asnumpy(), mom, rtol=1e-5, atol=1e-7)
    assert mx.sym.preloaded_multi_sgd_update(*[mx.sym.var("a%d" % i) for i in range(6)],
                                             num_weights=2).list_arguments()[-2:] == ["a4", "a5"]


def test_group_adagrad_keeps_one_history_per_row():
    w, g = arrays((3, 4), (3, 4))
    h = np.abs(arrays((3, 1))[0])
    H = mx.nd.array(h)
    out = mx.nd.contrib.group_adagrad_update(mx.nd.array(w), mx.nd.array(g), H, lr=0.1, rescale_grad=2.0,
                                             epsilon=1e-5)
    d = 2.0 * g
    want_h = h + np.mean(d * d, axis=1, keepdims=True)
    np.testing.assert_allclose(H.asnumpy(), want_h, rtol=1e-5)
    np.testing.assert_allclose(out.asnumpy(), w - 0.1 * d / np.sqrt(want_h + 1e-5), rtol=1e-5, atol=1e-7)


def test_straight_through_estimators_pass_the_gradient():
    x = mx.nd.array([-1.5, 1.5, -1.9, 0.2, 2.7])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.round_ste(x) * 2 + mx.nd.contrib.sign_ste(x)
    y.backward()
    np.testing.assert_array_equal(y.asnumpy(), np.round([-2, 2, -2, 0, 3]) * 2 + [-1, 1, -1, 1, 1])
    np.testing.assert_array_equal(x.grad.asnumpy(), [3] * 5)
    with mx.autograd.record():
        z = mx.nd.contrib.gradientmultiplier(x, scalar=-0.5) * 4
    z.backward()
    np.testing.assert_array_equal(z.asnumpy(), x.asnumpy() * 4)
    np.testing.assert_array_equal(x.grad.asnumpy(), [-2] * 5)


def test_group_adagrad_optimizer_follows_its_operator():
    opt = mx.optimizer.create("groupadagrad", learning_rate=0.1, rescale_grad=0.5)
    assert isinstance(opt, mx.optimizer.contrib.GroupAdaGrad)
    w, g = arrays((4, 3), (4, 3))
    W = mx.nd.array(w)
    state = opt.create_state(0, W)
    assert state.shape == (4, 1)
    opt.update(0, W, mx.nd.array(g), state)
    d = 0.5 * g
    h = np.mean(d * d, axis=1, keepdims=True)
    np.testing.assert_allclose(W.asnumpy(), w - 0.1 * d / np.sqrt(h + 1e-5), rtol=1e-5, atol=1e-7)
    with pytest.raises(mx.MXNetError, match="2-D weights"):
        opt.create_state(1, mx.nd.zeros((3,)))
