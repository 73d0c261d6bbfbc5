"""MXNet 1.9.1's SSD operators (contrib.MultiBoxPrior, MultiBoxTarget, MultiBoxDetection) against NumPy
references written here and the values of MXNet's own tests (test_multibox_prior_op,
test_multibox_target_op): anchor order, steps and offsets, clipping; bipartite-then-threshold matching,
-1 padding rows, negative mining; decoding with variances, threshold, NMS with and without force_suppress,
nms_topk. All three have zero gradients, as in MXNet."""
import numpy as np
import pytest

import braid as mx

# ---- NumPy references ---------------------------------------------------------------------------


def ref_prior(h, w, sizes=(1.0,), ratios=(1.0,), steps=(-1.0, -1.0), offsets=(0.5, 0.5), clip=False):
    """(1, h * w * (len(sizes) + len(ratios) - 1), 4): per pixel the sizes with the first ratio, then
    the first size with the other ratios, computed in float32 as MXNet."""
    f = np.float32
    step_y, step_x = f(steps[0]), f(steps[1])
    if step_y <= 0 or step_x <= 0:
        step_y, step_x = f(1) / f(h), f(1) / f(w)
    shapes = [(f(s), np.sqrt(f(ratios[0]))) for s in sizes] + [(f(sizes[0]), np.sqrt(f(r))) for r in ratios[1:]]
    out = []
    for r in range(h):
        cy = (f(r) + f(offsets[0])) * step_y
        for c in range(w):
            cx = (f(c) + f(offsets[1])) * step_x
            for size, ratio in shapes:
                bw = size * f(h) / f(w) * ratio / f(2)
                bh = size / ratio / f(2)
                out.append([cx - bw, cy - bh, cx + bw, cy + bh])
    out = np.array(out, dtype=np.float32).reshape(1, -1, 4)
    return np.clip(out, 0, 1) if clip else out


def ref_iou(a, b):
    """IoU of corner boxes, areas not clamped, 0 where the union is 0."""
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return 0.0 if union == 0 else inter / union


def ref_target(anchors, labels, cls_preds, overlap_threshold=0.5, ignore_label=-1.0, negative_mining_ratio=-1.0,
               negative_mining_thresh=0.5, variances=(0.1, 0.1, 0.2, 0.2)):
    anchors = np.asarray(anchors, np.float64).reshape(-1, 4)
    n = len(anchors)
    batch = labels.shape[0]
    loc = np.zeros((batch, n * 4))
    mask = np.zeros((batch, n * 4))
    cls = np.full((batch, n), ignore_label, dtype=np.float64)
    for b in range(batch):
        lab = [row for row in np.asarray(labels[b], np.float64)]
        valid = 0
        while valid < len(lab) and lab[valid][0] != -1:
            valid += 1
        if valid == 0:
            continue
        iou = np.array([[ref_iou(anchors[j], lab[k][1:5]) for k in range(valid)] for j in range(n)])
        flag = [-1] * n
        best = [(-1.0, -1)] * n
        gt_done = [False] * valid
        positives = 0
        while not all(gt_done):  # bipartite: largest remaining overlap first, anchor-major ties
            top, ba, bg = 1e-6, -1, -1
            for j in range(n):
                if flag[j] == 1:
                    continue
                for k in range(valid):
                    if not gt_done[k] and iou[j, k] > top:
                        top, ba, bg = iou[j, k], j, k
            if ba < 0:
                break
            best[ba] = (top, bg)
            gt_done[bg] = True
            flag[ba] = 1
            positives += 1
        if overlap_threshold > 0:
            for j in range(n):
                if flag[j] == 1:
                    continue
                k = int(np.argmax(iou[j]))
                best[j] = (iou[j, k], k)
                if iou[j, k] > overlap_threshold:
                    flag[j] = 1
                    positives += 1
        if negative_mining_ratio > 0:
            num_neg = min(int(positives * negative_mining_ratio), n - positives)
            if num_neg > 0:
                cand = []
                for j in range(n):
                    if flag[j] == 1:
                        continue
                    if best[j][0] < 0:
                        k = int(np.argmax(iou[j]))
                        best[j] = (iou[j, k], k)
                    if best[j][0] < negative_mining_thresh:
                        p = np.asarray(cls_preds[b][:, j], np.float64)
                        e = np.exp(p - p.max())
                        cand.append((e[0] / e.sum(), j))
                cand.sort(key=lambda t: t[0])  # stable: lowest background probability first
                for _, j in cand[:num_neg]:
                    flag[j] = 0
        else:
            flag = [1 if f == 1 else 0 for f in flag]
        vx, vy, vw, vh = variances
        for j in range(n):
            if flag[j] == 1:
                g = lab[best[j][1]]
                cls[b, j] = g[0] + 1
                mask[b, j * 4:j * 4 + 4] = 1
                al, at, ar, ab = anchors[j]
                aw, ah, ax, ay = ar - al, ab - at, (al + ar) / 2, (at + ab) / 2
                gw, gh, gx, gy = g[3] - g[1], g[4] - g[2], (g[1] + g[3]) / 2, (g[2] + g[4]) / 2
                loc[b, j * 4:j * 4 + 4] = [(gx - ax) / aw / vx, (gy - ay) / ah / vy, np.log(gw / aw) / vw,
                                           np.log(gh / ah) / vh]
            elif flag[j] == 0:
                cls[b, j] = 0
    return loc, mask, cls


def ref_detection(cls_prob, loc_pred, anchors, clip=True, threshold=0.01, nms_threshold=0.5, force_suppress=False,
                  variances=(0.1, 0.1, 0.2, 0.2), nms_topk=-1):
    cls_prob = np.asarray(cls_prob, np.float64)
    batch, classes, n = cls_prob.shape
    anchors = np.asarray(anchors, np.float64).reshape(-1, 4)
    loc_pred = np.asarray(loc_pred, np.float64).reshape(batch, n, 4)
    out = np.full((batch, n, 6), -1.0)
    for b in range(batch):
        rows = []
        for i in range(n):
            score, cid = -1.0, 0
            for k in range(1, classes):
                if cls_prob[b, k, i] > score:
                    score, cid = cls_prob[b, k, i], k
            if cid == 0 or score < threshold:
                continue
            al, at, ar, ab = anchors[i]
            aw, ah, ax, ay = ar - al, ab - at, (al + ar) / 2, (at + ab) / 2
            px, py, pw, ph = loc_pred[b, i]
            ox, oy = px * variances[0] * aw + ax, py * variances[1] * ah + ay
            ow, oh = np.exp(pw * variances[2]) * aw / 2, np.exp(ph * variances[3]) * ah / 2
            box = [ox - ow, oy - oh, ox + ow, oy + oh]
            if clip:
                box = list(np.clip(box, 0, 1))
            rows.append([cid - 1, score] + box)
        valid = len(rows)
        for i, row in enumerate(rows):
            out[b, i] = row
        if valid < 1 or nms_threshold <= 0 or nms_threshold > 1:
            continue
        order = sorted(range(valid), key=lambda i: -rows[i][1])
        keep = valid
        if 0 < nms_topk < valid:
            keep = nms_topk
            out[b, keep:valid, 0] = -1  # the rest keep their unsorted numbers
        for i in range(keep):
            out[b, i] = rows[order[i]]
        for i in range(keep):
            if out[b, i, 0] < 0:
                continue
            for j in range(i + 1, keep):
                if out[b, j, 0] < 0 or not (force_suppress or out[b, i, 0] == out[b, j, 0]):
                    continue
                if ref_iou(out[b, i, 2:], out[b, j, 2:]) >= nms_threshold:
                    out[b, j, 0] = -1
    return out


# ---- MultiBoxPrior ------------------------------------------------------------------------------


def test_prior_mxnet_values():
    """MXNet's test_multibox_prior_op, on a smaller map around the same pixel's neighbourhood."""
    h, w = 561, 728
    x = mx.nd.zeros((1, 3, h, w))
    y = mx.nd.contrib.MultiBoxPrior(x, sizes=[0.75, 0.5, 0.25], ratios=[1, 2, 0.5])
    assert y.shape == (1, 2042040, 4)
    boxes = y.reshape((h, w, 5, 4)).asnumpy()
    np.testing.assert_allclose(boxes[250, 250, 0], [0.055117, 0.071524, 0.63307, 0.821524], atol=1e-5, rtol=1e-5)
    y = mx.nd.contrib.MultiBoxPrior(x, sizes=[0.75, 0.5, 0.25], ratios=[20, 2, 0.5])
    boxes = y.reshape((h, w, 5, 4)).asnumpy()
    np.testing.assert_allclose(boxes[250, 250, 0], [-0.948249, 0.362671, 1.636436, 0.530377], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("kw", [
    {},
    dict(sizes=(0.5, 0.25, 0.1), ratios=(1, 2, 0.5)),
    dict(sizes=(0.3,), ratios=(2, 0.5, 3)),
    dict(sizes=(0.9, 0.4), ratios=(1,), clip=True),
    dict(sizes=(0.2, 0.1), ratios=(1, 2), steps=(0.1, 0.2), offsets=(0.25, 0.75)),
    dict(sizes=(0.7,), ratios=(0.5, 2), steps=(0.3, 0.3), offsets=(0, 1), clip=True),
])
def test_prior_against_reference(kw):
    h, w = 3, 5
    x = mx.nd.zeros((2, 4, h, w))
    attrs = {k: (str(v) if k == "clip" else v) for k, v in kw.items()}
    y = mx.nd.contrib.MultiBoxPrior(x, **attrs)
    np.testing.assert_allclose(y.asnumpy(), ref_prior(h, w, **kw), rtol=1e-6, atol=1e-7)


def test_prior_string_attributes_and_symbol():
    x = mx.nd.zeros((1, 2, 2, 3))
    y = mx.nd.contrib.MultiBoxPrior(x, sizes="(0.5, 0.2)", ratios="[1, 2]", clip="True", steps="(-1, -1)")
    np.testing.assert_allclose(y.asnumpy(), ref_prior(2, 3, (0.5, 0.2), (1, 2), clip=True), rtol=1e-6)
    sym = mx.sym.contrib.MultiBoxPrior(mx.sym.var("data"), sizes=(0.5, 0.2), ratios=(1, 2, 0.5))
    _, out_shapes, _ = sym.infer_shape(data=(1, 8, 4, 6))
    assert out_shapes == [(1, 4 * 6 * 4, 4)]


def test_prior_bad_attributes():
    x = mx.nd.zeros((1, 2, 2, 3))
    for kw, message in ((dict(steps=(0.1,)), "steps"), (dict(steps=(0.1, -1)), "steps"),
                        (dict(offsets=(1.5, 0.5)), "offsets"), (dict(offsets=(0.5,)), "offsets"),
                        (dict(sizes=()), "sizes"), (dict(ratios=()), "ratios"), (dict(clip="maybe"), "clip"),
                        (dict(size=0.5), "size")):
        with pytest.raises(mx.MXNetError, match=message):
            mx.nd.contrib.MultiBoxPrior(x, **kw).asnumpy()
    with pytest.raises(mx.MXNetError, match="4-d"):
        mx.nd.contrib.MultiBoxPrior(mx.nd.zeros((2, 3))).asnumpy()


# ---- MultiBoxTarget -----------------------------------------------------------------------------


def test_target_mxnet_values():
    """MXNet's test_multibox_target_op."""
    anchors = mx.nd.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]]).reshape((1, -1, 4))
    cls_pred = mx.nd.array(list(range(10))).reshape((1, -1, 2))
    label = mx.nd.array([1, 0.1, 0.1, 0.5, 0.6]).reshape((1, -1, 5))
    loc_target, loc_mask, cls_target = mx.nd.contrib.MultiBoxTarget(
        anchors, label, cls_pred, overlap_threshold=0.5, negative_mining_ratio=3, negative_mining_thresh=0.4)
    np.testing.assert_allclose(loc_target.asnumpy(), [[5.0, 2.5000005, 3.4657357, 4.581454, 0., 0., 0., 0.]],
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(loc_mask.asnumpy(), [[1, 1, 1, 1, 0, 0, 0, 0]])
    np.testing.assert_array_equal(cls_target.asnumpy(), [[2, 0]])


ANCHORS = np.array([[0.0, 0.0, 0.5, 0.5], [0.05, 0.0, 0.55, 0.5], [0.5, 0.5, 1.0, 1.0], [0.0, 0.5, 0.5, 1.0],
                    [0.3, 0.3, 0.6, 0.6], [0.6, 0.0, 1.0, 0.4]], dtype=np.float32)


def run_target(labels, cls_pred, **kw):
    outs = mx.nd.contrib.MultiBoxTarget(mx.nd.array(ANCHORS.reshape(1, -1, 4)), mx.nd.array(labels),
                                        mx.nd.array(cls_pred), **kw)
    return [o.asnumpy() for o in outs]


@pytest.mark.parametrize("kw", [
    {},
    dict(overlap_threshold=0.3),
    dict(overlap_threshold=0.95),  # only the forced (bipartite) matches
    dict(overlap_threshold=0),  # no threshold stage
    dict(negative_mining_ratio=1, negative_mining_thresh=0.5),
    dict(negative_mining_ratio=2, negative_mining_thresh=0.3, ignore_label=-2),
    dict(variances=(0.2, 0.2, 0.5, 0.5), overlap_threshold=0.4),
])
def test_target_against_reference(kw):
    labels = np.array([
        # a box overlapping anchors 0 and 1 well, a small box best matched by anchor 4 below threshold
        [[0, 0.02, 0.0, 0.52, 0.5], [2, 0.4, 0.4, 0.5, 0.5], [-1, -1, -1, -1, -1]],
        # one box, padded
        [[1, 0.5, 0.45, 1.0, 1.0], [-1, -1, -1, -1, -1], [-1, -1, -1, -1, -1]],
        # only padding: everything ignored
        [[-1, -1, -1, -1, -1], [-1, -1, -1, -1, -1], [-1, -1, -1, -1, -1]],
    ], dtype=np.float32)
    cls_pred = np.random.RandomState(3).randn(3, 4, len(ANCHORS)).astype(np.float32)
    got = run_target(labels, cls_pred, **kw)
    want = ref_target(ANCHORS, labels, cls_pred, **kw)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2])


def test_target_hand_case():
    labels = np.array([[[0, 0.02, 0.0, 0.52, 0.5], [2, 0.4, 0.4, 0.5, 0.5], [-1, -1, -1, -1, -1]]], np.float32)
    cls_pred = np.zeros((1, 3, len(ANCHORS)), np.float32)
    cls_pred[0, 0] = [0, 0, 5, -3, 0, 1]  # background logits: anchor 3 the least background-like, then 5, then 2
    loc, mask, cls = run_target(labels, cls_pred)
    # anchor 0 (IoU 0.92) takes label 0 in the bipartite stage, then anchor 4 takes the small box although its
    # IoU is only 0.11 (its best anchor); anchor 1 (IoU 0.89) matches label 0 in the threshold stage.
    assert cls[0].tolist() == [1, 1, 0, 0, 3, 0]
    assert mask[0].reshape(-1, 4)[:, 0].tolist() == [1, 1, 0, 0, 1, 0]
    np.testing.assert_allclose(loc[0, :4], [0.4, 0, np.log(0.5 / 0.5) / 0.2, 0], atol=1e-5)
    # negative mining: 3 positives * 0.67 -> 2 negatives, the lowest background probability first (3, 5);
    # anchor 2 is ignored
    loc, mask, cls = run_target(labels, cls_pred, negative_mining_ratio=0.67, negative_mining_thresh=0.5)
    assert cls[0].tolist() == [1, 1, -1, 0, 3, 0]
    np.testing.assert_array_equal(
        cls, ref_target(ANCHORS, labels, cls_pred, negative_mining_ratio=0.67, negative_mining_thresh=0.5)[2])


def test_target_symbol_outputs_and_errors():
    sym = mx.sym.contrib.MultiBoxTarget(mx.sym.var("a"), mx.sym.var("l"), mx.sym.var("c"), name="t")
    assert sym.list_outputs() == ["t_loc_target", "t_loc_mask", "t_cls_target"]
    _, out_shapes, _ = sym.infer_shape(a=(1, 6, 4), l=(2, 3, 5), c=(2, 4, 6))
    assert out_shapes == [(2, 24), (2, 24), (2, 6)]
    labels = np.array([[[0, 0.02, 0.0, 0.52, 0.5]]], np.float32)
    cls_pred = np.zeros((1, 3, len(ANCHORS)), np.float32)
    for kw, message in ((dict(variances=(0.1, 0.1)), "variances"), (dict(overlap="0.5"), "overlap"),
                        (dict(negative_mining_ratio=3, negative_mining_thresh=0), "negative_mining_thresh")):
        with pytest.raises(mx.MXNetError, match=message):
            run_target(labels, cls_pred, **kw)
    with pytest.raises(mx.MXNetError, match="padding"):
        run_target(np.array([[[-1, 0.1, 0.1, 0.2, 0.2]]], np.float32), cls_pred)
    with pytest.raises(mx.MXNetError, match="cls_pred"):
        run_target(labels, np.zeros((1, 3, 5), np.float32))


# ---- MultiBoxDetection --------------------------------------------------------------------------


def detection_case(seed=0, batch=2, classes=4, n=8):
    rs = np.random.RandomState(seed)
    logits = rs.randn(batch, classes, n) * 2
    prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    centres = rs.uniform(0.2, 0.8, size=(n, 2))
    centres[1] = centres[0] + 0.01  # near-duplicates, to suppress
    centres[3] = centres[2] + 0.02
    half = rs.uniform(0.05, 0.3, size=(n, 2))
    anchors = np.concatenate([centres - half, centres + half], axis=1).reshape(1, n, 4)
    loc = rs.randn(batch, n * 4) * 0.5
    return [a.astype(np.float32) for a in (prob, loc, anchors)]


@pytest.mark.parametrize("kw", [
    {},
    dict(threshold=0.3),
    dict(force_suppress=True),
    dict(nms_threshold=0.2, force_suppress=True),
    dict(nms_topk=3),
    dict(nms_topk=2, force_suppress=True, threshold=0.2),
    dict(clip=False, variances=(0.2, 0.2, 0.4, 0.4)),
    dict(nms_threshold=0),  # no NMS, no sorting
    dict(background_id=2),  # accepted; as MXNet's, class 0 stays the background
])
def test_detection_against_reference(kw):
    prob, loc, anchors = detection_case()
    attrs = {k: (str(v) if isinstance(v, bool) else v) for k, v in kw.items()}
    got = mx.nd.contrib.MultiBoxDetection(mx.nd.array(prob), mx.nd.array(loc), mx.nd.array(anchors), **attrs)
    kw.pop("background_id", None)
    want = ref_detection(prob, loc, anchors, **kw)
    assert got.shape == (2, 8, 6)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_detection_hand_case():
    prob = np.array([[[0.1, 0.2, 0.9], [0.6, 0.5, 0.05], [0.3, 0.3, 0.05]]], np.float32)  # (1, 3 classes, 3)
    loc = np.zeros((1, 12), np.float32)
    anchors = np.array([[[0.1, 0.1, 0.4, 0.4], [0.12, 0.1, 0.42, 0.4], [0.5, 0.5, 0.9, 0.9]]], np.float32)
    out = mx.nd.contrib.MultiBoxDetection(mx.nd.array(prob), mx.nd.array(loc), mx.nd.array(anchors)).asnumpy()
    np.testing.assert_allclose(out[0], [[0, 0.6, 0.1, 0.1, 0.4, 0.4], [-1, 0.5, 0.12, 0.1, 0.42, 0.4],
                                        [0, 0.05, 0.5, 0.5, 0.9, 0.9]], rtol=1e-6)
    # above the threshold only the first anchor survives; the others are -1 rows
    out = mx.nd.contrib.MultiBoxDetection(mx.nd.array(prob), mx.nd.array(loc), mx.nd.array(anchors),
                                          threshold=0.55).asnumpy()
    np.testing.assert_allclose(out[0], [[0, 0.6, 0.1, 0.1, 0.4, 0.4], [-1] * 6, [-1] * 6], rtol=1e-6)


def test_detection_errors_and_symbol():
    prob, loc, anchors = detection_case()
    for kw, message in ((dict(variances=(0.1, 0.2)), "variances"), (dict(nms_topk="three"), "nms_topk"),
                        (dict(keep_topk=3), "keep_topk")):
        with pytest.raises(mx.MXNetError, match=message):
            mx.nd.contrib.MultiBoxDetection(mx.nd.array(prob), mx.nd.array(loc), mx.nd.array(anchors),
                                            **kw).asnumpy()
    with pytest.raises(mx.MXNetError, match="loc_pred"):
        mx.nd.contrib.MultiBoxDetection(mx.nd.array(prob), mx.nd.array(loc[:, :-4]), mx.nd.array(anchors)).asnumpy()
    sym = mx.sym.contrib.MultiBoxDetection(mx.sym.var("c"), mx.sym.var("l"), mx.sym.var("a"))
    _, out_shapes, _ = sym.infer_shape(c=(2, 4, 8), l=(2, 32), a=(1, 8, 4))
    assert out_shapes == [(2, 8, 6)]


# ---- gradients ----------------------------------------------------------------------------------


def test_zero_gradients():
    x = mx.nd.ones((1, 2, 3, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.MultiBoxPrior(x, sizes=(0.5, 0.2))
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), 0)

    prob, loc, anchors = [mx.nd.array(a) for a in detection_case()]
    for a in (prob, loc, anchors):
        a.attach_grad()
    with mx.autograd.record():
        out = mx.nd.contrib.MultiBoxDetection(prob, loc, anchors)
    out.backward()
    for a in (prob, loc, anchors):
        np.testing.assert_array_equal(a.grad.asnumpy(), 0)

    labels = mx.nd.array([[[0, 0.02, 0.0, 0.52, 0.5]]])
    cls_pred = mx.nd.ones((1, 3, len(ANCHORS)))
    cls_pred.attach_grad()
    with mx.autograd.record():
        outs = mx.nd.contrib.MultiBoxTarget(mx.nd.array(ANCHORS.reshape(1, -1, 4)), labels, cls_pred)
    mx.autograd.backward(list(outs))
    np.testing.assert_array_equal(cls_pred.grad.asnumpy(), 0)
