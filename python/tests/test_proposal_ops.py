"""MXNet 1.9.1's region proposal operators (contrib.Proposal, one image, and contrib.MultiProposal, a
batch) against a NumPy reference written here from the algorithm MXNet documents and implements:
anchors, box deltas (or IoU-loss offsets), clipping, min-size filtering, sorting, NMS in the +1 pixel
convention and the cyclic padding of the output; MultiProposal on a batch equals Proposal per image
(MXNet's test_multi_proposal_op); shapes, the zero gradient and attribute errors."""
import ctypes
import ctypes.util

import numpy as np
import pytest

import braid as mx

f32 = np.float32

# ---- NumPy reference ----------------------------------------------------------------------------


def ref_anchors(feature_stride, scales, ratios):
    """(A, 4) base anchors, ratios outermost, with MXNet's float32 rounding."""
    base = f32(feature_stride - 1.0)
    w = h = base + f32(1)
    x_ctr = f32(0.5 * (w - 1.0))
    y_ctr = x_ctr
    size = w * h
    out = []
    for ratio in ratios:
        for scale in scales:
            ratio, scale = f32(ratio), f32(scale)
            size_ratios = np.floor(size / ratio)
            new_w = np.floor(np.sqrt(size_ratios) + f32(0.5)) * scale
            new_h = np.floor(new_w / scale * ratio + f32(0.5)) * scale
            half_w, half_h = f32(0.5) * (new_w - f32(1)), f32(0.5) * (new_h - f32(1))
            out.append([x_ctr - half_w, y_ctr - half_h, x_ctr + half_w, y_ctr + half_h])
    return np.array(out, dtype=f32)


def _load_expf():
    try:
        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        fn = libm.expf
        fn.argtypes, fn.restype = [ctypes.c_float], ctypes.c_float
        return fn
    except (OSError, AttributeError):
        return None


_EXPF = _load_expf()


def ref_exp(x):
    """exp of float32 values as MXNet's kernels compute it: the C library's expf, which is not always
    correctly rounded (NumPy's float32 exp can differ from it in the last bit)."""
    x = np.asarray(x, f32)
    if _EXPF is None:
        return np.exp(x.astype(np.float64)).astype(f32)
    return np.array([_EXPF(float(v)) for v in x.ravel()], f32).reshape(x.shape)


def ref_one_image(cls, deltas, info, b, p):
    """rois (post, 5) and scores (post,) of one image; cls (2A, H, W), deltas (4A, H, W), info (3,)."""
    stride = p["feature_stride"]
    anchors = ref_anchors(stride, p["scales"], p["ratios"])
    A = anchors.shape[0]
    _, H, W = cls.shape
    count = A * H * W
    pre = p["rpn_pre_nms_top_n"] if p["rpn_pre_nms_top_n"] > 0 else count
    pre = min(pre, count)
    post = min(p["rpn_post_nms_top_n"], pre)
    im_h, im_w, im_scale = info.astype(f32)
    real_h = int(im_h / f32(stride))
    real_w = int(im_w / f32(stride))
    # Boxes in (h, w, anchor) order.
    jj, kk, aa = np.meshgrid(np.arange(H), np.arange(W), np.arange(A), indexing="ij")
    jj, kk, aa = jj.ravel(), kk.ravel(), aa.ravel()
    sx, sy = (kk * stride).astype(f32), (jj * stride).astype(f32)
    ax1, ay1 = anchors[aa, 0] + sx, anchors[aa, 1] + sy
    ax2, ay2 = anchors[aa, 2] + sx, anchors[aa, 3] + sy
    d = [deltas[aa * 4 + c, jj, kk].astype(f32) for c in range(4)]
    if p["iou_loss"]:
        x1, y1, x2, y2 = ax1 + d[0], ay1 + d[1], ax2 + d[2], ay2 + d[3]
    else:
        w = ((ax2 - ax1).astype(np.float64) + 1.0).astype(f32)
        h = ((ay2 - ay1).astype(np.float64) + 1.0).astype(f32)
        cx = (ax1.astype(np.float64) + 0.5 * (w.astype(np.float64) - 1.0)).astype(f32)
        cy = (ay1.astype(np.float64) + 0.5 * (h.astype(np.float64) - 1.0)).astype(f32)
        pcx, pcy = d[0] * w + cx, d[1] * h + cy
        pw, ph = ref_exp(d[2]) * w, ref_exp(d[3]) * h
        hw = 0.5 * (pw.astype(np.float64) - 1.0)
        hh = 0.5 * (ph.astype(np.float64) - 1.0)
        x1 = (pcx.astype(np.float64) - hw).astype(f32)
        y1 = (pcy.astype(np.float64) - hh).astype(f32)
        x2 = (pcx.astype(np.float64) + hw).astype(f32)
        y2 = (pcy.astype(np.float64) + hh).astype(f32)

    def clip(v, hi):
        return np.maximum(np.minimum(v, hi - f32(1)), f32(0)).astype(f32)

    boxes = np.stack([clip(x1, im_w), clip(y1, im_h), clip(x2, im_w), clip(y2, im_h)], axis=1)
    score = cls[A + aa, jj, kk].astype(f32)
    score = np.where((jj >= real_h) | (kk >= real_w), f32(-1), score).astype(f32)
    # Too small boxes grow by min_size / 2 on every side and get score -1.
    min_size = f32(p["rpn_min_size"]) * im_scale
    iw = boxes[:, 2] - boxes[:, 0] + f32(1)
    ih = boxes[:, 3] - boxes[:, 1] + f32(1)
    small = (iw < min_size) | (ih < min_size)
    half = min_size / f32(2)
    boxes[small, :2] -= half
    boxes[small, 2:] += half
    score[small] = f32(-1)
    order = np.argsort(-score, kind="stable")[:pre]
    dets, dscore = boxes[order], score[order]
    area = (dets[:, 2] - dets[:, 0] + f32(1)) * (dets[:, 3] - dets[:, 1] + f32(1))
    suppressed = np.zeros(pre, bool)
    keep = []
    for i in range(pre):
        if len(keep) >= post:
            break
        if suppressed[i]:
            continue
        keep.append(i)
        j = np.arange(i + 1, pre)
        xx1 = np.maximum(dets[i, 0], dets[j, 0])
        yy1 = np.maximum(dets[i, 1], dets[j, 1])
        xx2 = np.minimum(dets[i, 2], dets[j, 2])
        yy2 = np.minimum(dets[i, 3], dets[j, 3])
        iw = np.maximum(f32(0), xx2 - xx1 + f32(1))
        ih = np.maximum(f32(0), yy2 - yy1 + f32(1))
        inter = (iw * ih).astype(f32)
        ovr = inter / (area[i] + area[j] - inter)
        suppressed[j[ovr > f32(p["threshold"])]] = True
    n_out = p["rpn_post_nms_top_n"]
    rows = [keep[i] if i < len(keep) else keep[i % len(keep)] for i in range(n_out)]
    rois = np.concatenate([np.full((n_out, 1), b, f32), dets[rows]], axis=1)
    return rois, dscore[rows].reshape(n_out, 1)


DEFAULTS = dict(
    rpn_pre_nms_top_n=6000,
    rpn_post_nms_top_n=300,
    threshold=0.7,
    rpn_min_size=16,
    scales=(4, 8, 16, 32),
    ratios=(0.5, 1, 2),
    feature_stride=16,
    output_score=False,
    iou_loss=False,
)


def ref_proposal(cls, deltas, info, **kw):
    p = dict(DEFAULTS, **kw)
    outs = [ref_one_image(cls[b], deltas[b], info[b], b, p) for b in range(cls.shape[0])]
    return np.concatenate([o[0] for o in outs]), np.concatenate([o[1] for o in outs])


def make_inputs(rng, n, A, H, W, stride, delta_scale=0.3, min_scale=0.7):
    cls = rng.random_sample((n, 2 * A, H, W)).astype(f32)
    deltas = (rng.standard_normal((n, 4 * A, H, W)) * delta_scale).astype(f32)
    info = np.zeros((n, 3), f32)
    for b in range(n):
        info[b] = [rng.randint(stride, H * stride + 1), rng.randint(stride, W * stride + 1),
                   rng.randint(int(min_scale * 100), 101) / 100.0]
    return cls, deltas, info


def run(op, cls, deltas, info, **kw):
    fn = mx.nd.contrib.MultiProposal if op == "multi" else mx.nd.contrib.Proposal
    out = fn(cls_prob=mx.nd.array(cls), bbox_pred=mx.nd.array(deltas), im_info=mx.nd.array(info), **kw)
    if kw.get("output_score"):
        return out[0].asnumpy(), out[1].asnumpy()
    return out.asnumpy(), None


# ---- against the reference ----------------------------------------------------------------------

CASES = [
    # (H, W, attributes)
    (3, 4, dict(feature_stride=16, scales=(8, 16), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=50,
                rpn_post_nms_top_n=20)),
    (5, 5, dict(feature_stride=16, scales=(2, 4), ratios=(1,), rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=30,
                threshold=0.5)),
    (1, 1, dict(feature_stride=8, scales=(1, 2), ratios=(0.5, 2), rpn_post_nms_top_n=7, rpn_min_size=4)),
    (6, 3, dict(feature_stride=4, scales=(1, 2, 3), ratios=(0.5, 1, 2), rpn_min_size=2, threshold=0.3,
                rpn_pre_nms_top_n=12, rpn_post_nms_top_n=16)),
    (4, 7, dict()),  # the defaults: 12 anchors, 300 rows, most of them padding
    (8, 8, dict(feature_stride=16, scales=(8, 16, 32), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=100,
                rpn_post_nms_top_n=40, threshold=0.9)),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("output_score", [False, True])
@pytest.mark.parametrize("iou_loss", [False, True])
def test_proposal_matches_reference(case, output_score, iou_loss):
    H, W, kw = CASES[case]
    kw = dict(kw, output_score=output_score, iou_loss=iou_loss)
    p = dict(DEFAULTS, **kw)
    A = len(p["scales"]) * len(p["ratios"])
    rng = np.random.RandomState(1000 + 10 * case + 2 * output_score + iou_loss)
    cls, deltas, info = make_inputs(rng, 1, A, H, W, p["feature_stride"], delta_scale=3.0 if iou_loss else 0.3)
    rois, scores = run("single", cls, deltas, info, **kw)
    want_rois, want_scores = ref_proposal(cls, deltas, info, **kw)
    assert rois.shape == (p["rpn_post_nms_top_n"], 5)
    np.testing.assert_array_equal(rois, want_rois)
    if output_score:
        assert scores.shape == (p["rpn_post_nms_top_n"], 1)
        np.testing.assert_array_equal(scores, want_scores)

    rois, scores = run("multi", cls, deltas, info, **kw)
    np.testing.assert_array_equal(rois, want_rois)
    if output_score:
        np.testing.assert_array_equal(scores, want_scores)


@pytest.mark.parametrize("iou_loss", [False, True])
def test_multi_proposal_batch_matches_reference_and_single(iou_loss):
    rng = np.random.RandomState(7 + iou_loss)
    kw = dict(feature_stride=8, scales=(2, 4, 8), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=120,
              rpn_post_nms_top_n=25, threshold=0.6, rpn_min_size=8, output_score=True, iou_loss=iou_loss)
    n, H, W = 4, 6, 5
    cls, deltas, info = make_inputs(rng, n, 9, H, W, 8, delta_scale=2.0 if iou_loss else 0.3)
    rois, scores = run("multi", cls, deltas, info, **kw)
    assert rois.shape == (n * 25, 5) and scores.shape == (n * 25, 1)
    want_rois, want_scores = ref_proposal(cls, deltas, info, **kw)
    np.testing.assert_array_equal(rois, want_rois)
    np.testing.assert_array_equal(scores, want_scores)
    for b in range(n):
        r, s = run("single", cls[b:b + 1], deltas[b:b + 1], info[b:b + 1], **kw)
        np.testing.assert_array_equal(rois[b * 25:(b + 1) * 25, 1:], r[:, 1:])
        assert (rois[b * 25:(b + 1) * 25, 0] == b).all() and (r[:, 0] == 0).all()
        np.testing.assert_array_equal(scores[b * 25:(b + 1) * 25], s)


def test_few_survivors_repeat_cyclically():
    # Every anchor of the one cell sits on the same spot: NMS keeps one box per distinct box, and the
    # output repeats the kept boxes in order.
    cls = np.zeros((1, 4, 1, 1), f32)
    cls[0, 2:, 0, 0] = [0.9, 0.8]
    deltas = np.zeros((1, 8, 1, 1), f32)
    info = np.array([[16, 16, 1.0]], f32)
    kw = dict(feature_stride=16, scales=(1,), ratios=(1, 1), rpn_min_size=1, rpn_post_nms_top_n=5, output_score=True)
    rois, scores = run("single", cls, deltas, info, **kw)
    np.testing.assert_array_equal(rois, np.tile([[0, 0, 0, 15, 15]], (5, 1)).astype(f32))
    np.testing.assert_array_equal(scores, np.full((5, 1), 0.9, f32))
    # Two distinct boxes: kept in score order, then repeated 0, 1, 0, 1, ...
    kw["ratios"] = (0.5, 2)
    kw["threshold"] = 0.5  # their IoU is about 0.42
    cls[0, 2:, 0, 0] = [0.2, 0.7]
    info = np.array([[31, 31, 1.0]], f32)
    rois, scores = run("single", cls, deltas, info, **kw)
    want_rois, want_scores = ref_proposal(cls, deltas, info, **kw)
    np.testing.assert_array_equal(rois, want_rois)
    np.testing.assert_array_equal(scores[:, 0], np.array([0.7, 0.2, 0.7, 0.2, 0.7], f32))


def test_padded_cells_and_small_boxes_score_minus_one():
    # The image covers 2 x 2 of the 4 x 4 cells: the other cells' boxes score -1.
    rng = np.random.RandomState(3)
    kw = dict(feature_stride=16, scales=(1,), ratios=(1,), rpn_min_size=1, rpn_post_nms_top_n=16, threshold=1.0,
              output_score=True)
    cls = (rng.random_sample((1, 2, 4, 4)) + 0.1).astype(f32)
    deltas = np.zeros((1, 4, 4, 4), f32)
    info = np.array([[32, 40, 1.0]], f32)
    rois, scores = run("single", cls, deltas, info, **kw)
    want_rois, want_scores = ref_proposal(cls, deltas, info, **kw)
    np.testing.assert_array_equal(rois, want_rois)
    np.testing.assert_array_equal(scores, want_scores)
    assert (scores[:4] > 0).all() and (scores[4:] == -1).all()
    # rpn_min_size 20 at scale 1: every 16-pixel box is too small, grows by 10 per side, scores -1.
    kw["rpn_min_size"] = 20
    rois, scores = run("single", cls, deltas, info, **kw)
    want_rois, want_scores = ref_proposal(cls, deltas, info, **kw)
    np.testing.assert_array_equal(rois, want_rois)
    assert (scores == -1).all()


def test_symbol_outputs_shapes_and_zero_gradient():
    cls_s, bbox_s, info_s = mx.sym.Variable("cls_prob"), mx.sym.Variable("bbox_pred"), mx.sym.Variable("im_info")
    sym = mx.sym.contrib.MultiProposal(cls_prob=cls_s, bbox_pred=bbox_s, im_info=info_s, rpn_post_nms_top_n=7,
                                       scales=(2, 4), ratios=(1,))
    assert sym.list_arguments() == ["cls_prob", "bbox_pred", "im_info"]
    assert len(sym.list_outputs()) == 1
    args, outs, _ = sym.infer_shape(cls_prob=(3, 4, 5, 6))
    assert args == [(3, 4, 5, 6), (3, 8, 5, 6), (3, 3)]
    assert outs == [(21, 5)]
    sym2 = mx.sym.contrib.Proposal(cls_prob=cls_s, bbox_pred=bbox_s, im_info=info_s, rpn_post_nms_top_n=7,
                                   scales=(2, 4), ratios=(1,), output_score=True)
    assert len(sym2.list_outputs()) == 2
    _, outs, _ = sym2.infer_shape(cls_prob=(1, 4, 5, 6))
    assert outs == [(7, 5), (7, 1)]

    rng = np.random.RandomState(0)
    cls, deltas, info = make_inputs(rng, 2, 2, 5, 6, 16)
    xs = [mx.nd.array(v) for v in (cls, deltas, info)]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.MultiProposal(*xs, rpn_post_nms_top_n=7, scales=(2, 4), ratios=(1,))
    y.backward(mx.nd.ones(y.shape))
    for x in xs:
        assert (x.grad.asnumpy() == 0).all()


def test_errors():
    rng = np.random.RandomState(0)
    cls, deltas, info = make_inputs(rng, 2, 12, 3, 3, 16)
    with pytest.raises(mx.MXNetError, match="batch"):
        run("single", cls, deltas, info)
    one = (cls[:1], deltas[:1], info[:1])
    with pytest.raises(mx.MXNetError, match="channels"):
        run("single", *one, scales=(8, 16))
    with pytest.raises(mx.MXNetError, match="bbox_pred"):
        run("single", cls[:1], deltas[:1, :8], info[:1])
    with pytest.raises(mx.MXNetError, match="im_info"):
        run("single", cls[:1], deltas[:1], info[:1, :2])
    with pytest.raises(mx.MXNetError, match="feature_stride"):
        run("single", *one, feature_stride=0)
    with pytest.raises(mx.MXNetError, match="ratios"):
        run("single", *one, ratios=(0, 1, 2))
    with pytest.raises(mx.MXNetError, match="scales"):
        run("single", *one, scales=())
    with pytest.raises(mx.MXNetError, match="rpn_post_nms_top_n"):
        run("multi", cls, deltas, info, rpn_post_nms_top_n=-1)
    with pytest.raises(mx.MXNetError, match="rpn_min_size"):
        run("multi", cls, deltas, info, rpn_min_size=-2)
    with pytest.raises(mx.MXNetError, match="no_such_attr"):
        run("multi", cls, deltas, info, no_such_attr=1)
    with pytest.raises(mx.MXNetError, match="output_score"):
        run("multi", cls, deltas, info, output_score="maybe")
    # An image larger than the feature map covers.
    big = info[:1].copy()
    big[0, 0] = 16 * 3 + 16
    with pytest.raises(mx.MXNetError, match="im_info"):
        run("single", cls[:1], deltas[:1], big)
        mx.nd.waitall()
    with pytest.raises(mx.MXNetError, match="float32"):
        mx.nd.contrib.MultiProposal(mx.nd.array(cls, dtype="float64"), mx.nd.array(deltas, dtype="float64"),
                                    mx.nd.array(info, dtype="float64"))
