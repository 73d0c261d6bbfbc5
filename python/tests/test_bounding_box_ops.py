"""The bounding-box operators of MXNet 1.9.1 (contrib.box_nms, box_iou, bipartite_matching, box_encode,
box_decode) against NumPy references written here, on the cases MXNet's own tests check (batches with extra
leading axes, -1 rows, force_suppress, background_id, topk, box formats) and on random ones; box_nms's
gradient goes back to the rows it kept."""
import itertools

import numpy as np
import pytest

import braid as mx

# ---- NumPy references ---------------------------------------------------------------------------


def to_corners(b, fmt):
    """(..., 4) boxes as (left, top, right, bottom)."""
    b = np.asarray(b, dtype=np.float64)
    if fmt == "corner":
        return b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    x, y, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return x - w / 2, y - h / 2, x + w / 2, y + h / 2


def ref_area(b, fmt):
    """Area, 0 for boxes of negative width or height (MXNet's rule)."""
    b = np.asarray(b, dtype=np.float64)
    w, h = (b[..., 2] - b[..., 0], b[..., 3] - b[..., 1]) if fmt == "corner" else (b[..., 2], b[..., 3])
    return np.where((w < 0) | (h < 0), 0.0, w * h)


def ref_iou_matrix(a, b, fmt="corner"):
    """IoU of every box of a (..., 4) with every box of b (..., 4): shape a.shape[:-1] + b.shape[:-1]."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    fa, fb = a.reshape(-1, 1, 4), b.reshape(1, -1, 4)
    al, at, ar, ab = to_corners(fa, fmt)
    bl, bt, br, bb = to_corners(fb, fmt)
    inter = np.clip(np.minimum(ar, br) - np.maximum(al, bl), 0, None) * \
        np.clip(np.minimum(ab, bb) - np.maximum(at, bt), 0, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = np.where(inter > 0, inter / (ref_area(fa, fmt) + ref_area(fb, fmt) - inter), 0.0)
    return iou.reshape(a.shape[:-1] + b.shape[:-1])


def convert_rows(rows, start, to):
    """Boxes at columns start..start+3 converted to `to`, except rows whose first coordinate is negative."""
    rows = rows.copy()
    for r in rows.reshape(-1, rows.shape[-1]):
        if r[start] < 0:
            continue
        c = r[start:start + 4].copy()
        if to == "center":
            r[start:start + 4] = [(c[0] + c[2]) / 2, (c[1] + c[3]) / 2, c[2] - c[0], c[3] - c[1]]
        else:
            r[start:start + 4] = [c[0] - c[2] / 2, c[1] - c[3] / 2, c[0] + c[2] / 2, c[1] + c[3] / 2]
    return rows


def ref_box_nms(data, overlap_thresh=0.5, valid_thresh=0.0, topk=-1, coord_start=2, score_index=1, id_index=-1,
                background_id=-1, force_suppress=False, in_format="corner", out_format="corner"):
    """Greedy NMS per batch; returns (output, the flat input row of each output row or -1)."""
    data = np.asarray(data, dtype=np.float64)
    n, w = data.shape[-2:]
    batches = data.reshape(-1, n, w)
    k = n if topk < 0 else min(n, topk)
    if k < 1:
        return data.copy(), np.arange(batches.shape[0] * n).reshape(data.shape[:-1])
    out = np.full(batches.shape, -1.0)
    source = np.full(batches.shape[:2], -1, dtype=np.int64)
    cs = slice(coord_start, coord_start + 4)
    for b, rows in enumerate(batches):
        candidates = [i for i in range(n) if rows[i, score_index] > valid_thresh and
                      (id_index < 0 or rows[i, id_index] != background_id)]
        candidates = sorted(candidates, key=lambda i: -rows[i, score_index])[:k]  # stable: ties keep their order
        kept = []
        for i in candidates:
            rivals = [j for j in kept if force_suppress or id_index < 0 or
                      int(rows[j, id_index]) == int(rows[i, id_index])]
            if not any(pair_iou(rows[j, cs], rows[i, cs], in_format) > overlap_thresh for j in rivals):
                kept.append(i)
        for pos, i in enumerate(kept):
            out[b, pos] = rows[i]
            source[b, pos] = b * n + i
    if in_format != out_format:
        out = convert_rows(out, coord_start, out_format)
    return out.reshape(data.shape), source.reshape(data.shape[:-1])


def pair_iou(a, b, fmt):
    al, at, ar, ab = to_corners(a, fmt)
    bl, bt, br, bb = to_corners(b, fmt)
    inter = max(min(ar, br) - max(al, bl), 0.0) * max(min(ab, bb) - max(at, bt), 0.0)
    union = ref_area(a, fmt) + ref_area(b, fmt) - inter
    return inter / union if union != 0 else float("nan")  # 0/0: never above a threshold


def ref_nms_grad(head_grad, source):
    """The gradient of box_nms' input: each kept output row's head gradient at its input row."""
    head_grad = np.asarray(head_grad, np.float64)
    w = head_grad.shape[-1]
    g = np.zeros((head_grad.size // w, w))
    for i, s in enumerate(source.reshape(-1)):
        if s >= 0:
            g[s] = head_grad.reshape(-1, w)[i]
    return g.reshape(head_grad.shape)


def ref_bipartite_matching(scores, threshold, is_ascend=False, topk=-1):
    scores = np.asarray(scores, np.float64)
    n, m = scores.shape[-2:]
    flat = scores.reshape(-1, n * m)
    row_match = np.full((flat.shape[0], n), -1)
    col_match = np.full((flat.shape[0], m), -1)
    for b, s in enumerate(flat):
        order = sorted(range(n * m), key=lambda i: s[i] if is_ascend else -s[i])
        count = 0
        for i in order:
            r, c = divmod(i, m)
            if row_match[b, r] >= 0 or col_match[b, c] >= 0:
                continue
            if not (s[i] < threshold if is_ascend else s[i] > threshold):
                break
            row_match[b, r], col_match[b, c] = c, r
            count += 1
            if topk > 0 and count > topk:  # MXNet's limit lets one more match through
                break
    return row_match.reshape(scores.shape[:-1]), col_match.reshape(scores.shape[:-2] + (m,))


def center_size(b):
    b = np.asarray(b, np.float64)
    w, h = b[..., 2] - b[..., 0], b[..., 3] - b[..., 1]
    return b[..., 0] + w / 2, b[..., 1] + h / 2, w, h


def ref_box_encode(samples, matches, anchors, refs, means, stds):
    samples, anchors, refs = np.asarray(samples), np.asarray(anchors, np.float64), np.asarray(refs, np.float64)
    matched = refs[np.arange(refs.shape[0])[:, None], np.asarray(matches).astype(np.int64).clip(0, refs.shape[1] - 1)]
    rx, ry, rw, rh = center_size(matched)
    ax, ay, aw, ah = center_size(anchors)
    t = np.stack([(rx - ax) / aw, (ry - ay) / ah, np.log(rw / aw), np.log(rh / ah)], axis=-1)
    t = (t - np.asarray(means)) / np.asarray(stds)
    positive = (samples > 0.5)[..., None]
    return np.where(positive, t, 0.0), np.broadcast_to(positive, t.shape).astype(np.float64)


def ref_box_decode(data, anchors, stds=(1, 1, 1, 1), clip=-1, fmt="center"):
    data, anchors = np.asarray(data, np.float64), np.asarray(anchors, np.float64).reshape(1, -1, 4)
    if fmt == "corner":
        ax, ay, aw, ah = center_size(anchors)
    else:
        ax, ay, aw, ah = anchors[..., 0], anchors[..., 1], anchors[..., 2], anchors[..., 3]
    ox, oy = data[..., 0] * stds[0] * aw + ax, data[..., 1] * stds[1] * ah + ay
    dw, dh = data[..., 2] * stds[2], data[..., 3] * stds[3]
    if clip > 0:
        dw, dh = np.minimum(dw, clip), np.minimum(dh, clip)
    hw, hh = np.exp(dw) * aw / 2, np.exp(dh) * ah / 2
    return np.stack([ox - hw, oy - hh, ox + hw, oy + hh], axis=-1)


# ---- box_nms ------------------------------------------------------------------------------------

# MXNet's hand-made example: [id, score, xmin, ymin, xmax, ymax].
BOXES = np.array([[0, 0.5, 0.1, 0.1, 0.2, 0.2], [1, 0.4, 0.1, 0.1, 0.2, 0.2],
                  [0, 0.3, 0.1, 0.1, 0.14, 0.14], [2, 0.6, 0.5, 0.5, 0.7, 0.8]])
NONE = [-1] * 6


def nms(data, dtype="float32", **kw):
    return mx.nd.contrib.box_nms(mx.nd.array(data, dtype=dtype), **kw)


def nms_grad(data, head, **kw):
    x = mx.nd.array(data, dtype="float64")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.box_nms(x, **kw)
    y.backward(mx.nd.array(head, dtype="float64"))
    return x.grad.asnumpy()


def check_nms(data, expected, grad_rows=None, **kw):
    """Forward in every float type against `expected`; with grad_rows (the input row of each output row,
    -1 for none), the gradient too, for the rows of data as given and stacked into batches."""
    expected = np.asarray(expected, np.float64)
    for dtype in ("float16", "float32", "float64"):
        tol = 2e-3 if dtype == "float16" else 1e-6
        np.testing.assert_allclose(nms(data, dtype, **kw).asnumpy(), expected, rtol=tol, atol=tol)
    if grad_rows is None:
        return
    rng = np.random.RandomState(3)
    for lead in ((), (3,), (2, 3)):
        batch = np.broadcast_to(data, lead + data.shape).copy()
        np.testing.assert_allclose(nms(batch, **kw).asnumpy(), np.broadcast_to(expected, batch.shape), rtol=1e-6,
                                   atol=1e-6)
        head = rng.uniform(0.1, 1, batch.shape)
        flat_head = head.reshape(-1, *data.shape)
        want = np.zeros_like(flat_head)
        for b in range(flat_head.shape[0]):
            for out_row, in_row in enumerate(grad_rows):
                if in_row >= 0:
                    want[b, in_row] = flat_head[b, out_row]
        np.testing.assert_allclose(nms_grad(batch, head, **kw), want.reshape(batch.shape), rtol=0, atol=0)


def test_box_nms_force_suppress_keeps_the_best_of_overlapping_boxes():
    expected = [BOXES[3], BOXES[0], BOXES[2], NONE]
    check_nms(BOXES, expected, grad_rows=[3, 0, 2, -1], id_index=0, overlap_thresh=0.5, force_suppress=True)


def test_box_nms_lower_threshold_suppresses_more():
    expected = [BOXES[3], BOXES[0], NONE, NONE]
    check_nms(BOXES, expected, grad_rows=[3, 0, -1, -1], id_index=0, overlap_thresh=0.1, force_suppress=True)


def test_box_nms_suppresses_within_a_class_only_unless_forced():
    expected = [BOXES[3], BOXES[0], BOXES[1], NONE]
    check_nms(BOXES, expected, grad_rows=[3, 0, 1, -1], id_index=0, overlap_thresh=0.1, force_suppress=False)
    # Without a class column every box competes, as with force_suppress.
    check_nms(BOXES, [BOXES[3], BOXES[0], BOXES[2], NONE], id_index=-1, overlap_thresh=0.5)


def test_box_nms_box_formats():
    kw = dict(id_index=0, overlap_thresh=0.1)
    corner = np.array([BOXES[3], BOXES[0], BOXES[1], NONE], np.float64)
    centered = convert_rows(BOXES, 2, "center")
    centered_out = convert_rows(corner, 2, "center")
    check_nms(centered, corner, in_format="center", **kw)
    check_nms(BOXES, centered_out, out_format="center", **kw)
    check_nms(centered, centered_out, in_format="center", out_format="center", **kw)
    assert centered_out[0].tolist() == pytest.approx([2, 0.6, 0.6, 0.65, 0.2, 0.3])
    # As MXNet's, a kept box whose first coordinate is negative is not converted.
    shifted = BOXES.copy()
    shifted[3, 2] = -0.1
    out = nms(shifted, "float64", out_format="center", **kw).asnumpy()
    np.testing.assert_array_equal(out[0], shifted[3])


def test_box_nms_columns_anywhere_in_wider_rows():
    # id, score and coordinates moved among 8 columns (the others hold -1).
    expected = np.array([BOXES[3], BOXES[0], BOXES[1], NONE])
    for coord, score, cid in ((4, 0, 2), (0, 7, 5), (1, 6, 0)):
        def place(rows):
            wide = np.full((rows.shape[0], 8), -1.0)
            wide[:, coord:coord + 4], wide[:, score], wide[:, cid] = rows[:, 2:6], rows[:, 1], rows[:, 0]
            return wide
        check_nms(place(BOXES), place(expected), grad_rows=[3, 0, 1, -1], coord_start=coord, score_index=score,
                  id_index=cid, overlap_thresh=0.1)


def test_box_nms_valid_thresh_and_topk_per_batch():
    data = np.array([[[c, 1, 0, 0, 10, 10], [c, 0.4, 0, 0, 10, 10], [c, 0.3, 0, 0, 10, 10]] for c in (1, 2, 3)],
                    np.float64)
    expected = np.full(data.shape, -1.0)
    expected[:, 0] = data[:, 0]
    kw = dict(id_index=0, overlap_thresh=0.5, valid_thresh=0.5, topk=2)
    check_nms(data, expected, **kw)
    head = np.random.RandomState(0).uniform(size=data.shape)
    want = np.zeros_like(head)
    want[:, 0] = head[:, 0]
    np.testing.assert_array_equal(nms_grad(data, head, **kw), want)


def test_box_nms_topk_considers_only_the_best_rows():
    data = np.array([[0, 0.9, 0, 0, 1, 1], [0, 0.8, 5, 5, 6, 6], [0, 0.7, 8, 8, 9, 9]], np.float64)
    np.testing.assert_array_equal(nms(data, "float64", topk=2).asnumpy(), [data[0], data[1], NONE])
    np.testing.assert_array_equal(nms(data, "float64", topk=5).asnumpy(), data)
    # topk=0 hands the input on unchanged, gradient included.
    unsorted = data[::-1].copy()
    np.testing.assert_array_equal(nms(unsorted, "float64", topk=0, out_format="center").asnumpy(), unsorted)
    head = np.arange(18.0).reshape(3, 6)
    np.testing.assert_array_equal(nms_grad(unsorted, head, topk=0), head)


def test_box_nms_background_class_is_dropped():
    data = np.array([[0, 0.5, 0.1, 0.1, 0.2, 0.2], [0, 0.4, 0.1, 0.1, 0.2, 0.2],
                     [1, 0.3, 0.1, 0.1, 0.14, 0.14], [-1, 0.6, 0.5, 0.5, 0.7, 0.8]])
    # The default background id is -1.
    check_nms(data, [data[0], data[2], NONE, NONE], grad_rows=[0, 2, -1, -1], id_index=0, force_suppress=True)
    check_nms(data, [data[3], data[2], NONE, NONE], grad_rows=[3, 2, -1, -1], id_index=0, force_suppress=True,
              background_id=0)
    # Without a class column nothing is background.
    out = nms(data, "float64", id_index=-1, background_id=0, force_suppress=True).asnumpy()
    np.testing.assert_array_equal(out[0], data[3])


def test_box_nms_equal_scores_keep_their_input_order():
    data = np.array([[0, 0.5, 0, 0, 1, 1], [1, 0.7, 3, 3, 4, 4], [2, 0.5, 6, 6, 7, 7], [3, 0.5, 9, 9, 10, 10]])
    out = nms(data, "float64").asnumpy()
    np.testing.assert_array_equal(out[:, 0], [1, 0, 2, 3])
    # Of two equal-scored overlapping boxes the first in the input stays.
    twins = np.array([[0, 0.5, 0, 0, 1, 1], [1, 0.5, 0, 0, 1, 1]])
    np.testing.assert_array_equal(nms(twins, "float64").asnumpy(), [twins[0], NONE])


def test_box_nms_nothing_valid_gives_minus_ones():
    data = np.array([[[0, 0.1, 0, 0, 1, 1], [0, -0.2, 0, 0, 2, 2]]] * 2)
    np.testing.assert_array_equal(nms(data, "float64", valid_thresh=0.5).asnumpy(), np.full(data.shape, -1.0))
    np.testing.assert_array_equal(nms_grad(data, np.ones(data.shape), valid_thresh=0.5), np.zeros(data.shape))


@pytest.mark.parametrize("lead", [(), (1,), (4,), (2, 3)])
@pytest.mark.parametrize("fmt", ["corner", "center"])
def test_box_nms_matches_the_reference_on_random_boxes(lead, fmt):
    rng = np.random.RandomState(len(lead) * 10 + len(fmt))
    n = 12
    data = np.empty(lead + (n, 7))
    data[..., 0] = rng.randint(0, 3, lead + (n,))                    # class
    data[..., 1] = rng.uniform(-0.2, 1, lead + (n,))                 # score
    xy, wh = rng.uniform(0, 10, lead + (n, 2)), rng.uniform(1, 6, lead + (n, 2))
    data[..., 2:6] = np.concatenate([xy, xy + wh] if fmt == "corner" else [xy, wh], axis=-1)
    data[..., 6] = rng.uniform(size=lead + (n,))                     # an extra column, carried along
    for thresh, valid, topk, cid, bid, force in itertools.product((0.1, 0.45), (0.0, 0.3), (-1, 5), (0, -1),
                                                                  (-1, 2), (False, True)):
        kw = dict(overlap_thresh=thresh, valid_thresh=valid, topk=topk, id_index=cid, background_id=bid,
                  force_suppress=force, in_format=fmt, out_format="corner")
        want, source = ref_box_nms(data, **kw)
        for dtype in ("float32", "float64"):
            got = nms(data, dtype, **kw).asnumpy()
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=str(kw))
        head = rng.uniform(size=data.shape)
        np.testing.assert_array_equal(nms_grad(data, head, **kw), ref_nms_grad(head, source), err_msg=str(kw))


def test_box_nms_alias_symbol_and_grad_req_add():
    data = np.stack([BOXES, BOXES[::-1]])
    kw = dict(id_index=0, overlap_thresh=0.1)
    want, source = ref_box_nms(data, **kw)
    alias = mx.nd.contrib.box_non_maximum_suppression(mx.nd.array(data, dtype="float64"), **kw)
    np.testing.assert_array_equal(alias.asnumpy(), want)

    sym = mx.sym.contrib.box_nms(mx.sym.var("data"), **kw)
    assert len(sym.list_outputs()) == 1  # the row indices are a hidden output
    _, out_shapes, _ = sym.infer_shape(data=(2, 4, 6))
    assert out_shapes == [(2, 4, 6)]
    head = np.random.RandomState(5).uniform(size=data.shape)
    grad = mx.nd.ones(data.shape, dtype="float64")
    exe = sym.bind(mx.cpu(), {"data": mx.nd.array(data, dtype="float64")}, args_grad={"data": grad}, grad_req="add")
    exe.forward(is_train=True)
    np.testing.assert_array_equal(exe.outputs[0].asnumpy(), want)
    exe.backward(mx.nd.array(head, dtype="float64"))
    np.testing.assert_array_equal(grad.asnumpy(), 1 + ref_nms_grad(head, source))


def test_box_nms_bad_attributes_and_shapes():
    x = mx.nd.array(BOXES)
    for kw, message in ((dict(score_index=3), "score_index"), (dict(id_index=2), "id_index"),
                        (dict(id_index=1), "id_index"), (dict(coord_start=3), "coord_start"),
                        (dict(coord_start=-1), "coord_start"), (dict(in_format="xywh"), "in_format"),
                        (dict(out_format="ltrb"), "out_format"), (dict(overlap="0.5"), "overlap"),
                        (dict(topk="two"), "topk")):
        with pytest.raises(mx.MXNetError, match=message):
            mx.nd.contrib.box_nms(x, **kw).asnumpy()
    with pytest.raises(mx.MXNetError, match="at least 2 axes"):
        mx.nd.contrib.box_nms(mx.nd.array(BOXES[0])).asnumpy()
    with pytest.raises(mx.MXNetError, match="at least 6"):  # 5 columns cannot hold an id as well
        mx.nd.contrib.box_nms(mx.nd.array(BOXES[:, 1:]), id_index=5, score_index=0, coord_start=1).asnumpy()


# ---- box_iou ------------------------------------------------------------------------------------


def random_boxes(rng, dims):
    """The same boxes as (x, y, w, h) and as corners."""
    xy = rng.uniform(0, 1, dims + [2]) * rng.uniform(1, 100) + rng.uniform(0, 100)
    wh = rng.uniform(0, 1, dims + [2]) * rng.uniform(1, 100) + rng.uniform(0, 100)
    return np.concatenate([xy, wh], -1), np.concatenate([xy - wh / 2, xy + wh / 2], -1)


def test_box_iou_of_every_pair_for_any_leading_axes():
    rng = np.random.RandomState(0)
    for nda, ndb in itertools.product(range(1, 5), range(1, 5)):
        dims_a, dims_b = rng.randint(1, 3, nda).tolist(), rng.randint(1, 3, ndb).tolist()
        center_a, corner_a = random_boxes(rng, dims_a)
        center_b, corner_b = random_boxes(rng, dims_b)
        want = ref_iou_matrix(corner_a, corner_b)
        np.testing.assert_allclose(ref_iou_matrix(center_a, center_b, "center"), want, rtol=1e-10, atol=1e-12)
        got = mx.nd.contrib.box_iou(mx.nd.array(corner_a), mx.nd.array(corner_b), format="corner")
        assert got.shape == tuple(dims_a + dims_b)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)
        got = mx.nd.contrib.box_iou(mx.nd.array(center_a, dtype="float64"), mx.nd.array(center_b, dtype="float64"),
                                    "center")
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-10, atol=1e-12)


def test_box_iou_values_and_zero_gradient():
    x = mx.nd.array([[0.5, 0.5, 1.0, 1.0], [0.0, 0.0, 0.5, 0.5], [2, 2, 1, 1]], dtype="float64")
    y = mx.nd.array([[0.25, 0.25, 0.75, 0.75]], dtype="float64")
    np.testing.assert_allclose(mx.nd.contrib.box_iou(x, y).asnumpy(), [[1 / 7], [1 / 7], [0]], rtol=1e-12)
    x.attach_grad()
    y.attach_grad()
    with mx.autograd.record():
        z = mx.nd.contrib.box_iou(x, y)
    z.backward(mx.nd.ones(z.shape, dtype="float64"))
    assert not x.grad.asnumpy().any() and not y.grad.asnumpy().any()
    half = mx.nd.contrib.box_iou(x.astype("float16"), y.astype("float16"))
    assert half.dtype == np.float16
    np.testing.assert_allclose(half.asnumpy(), [[1 / 7], [1 / 7], [0]], rtol=1e-3)


def test_box_iou_bad_shapes_and_format():
    four = mx.nd.ones((2, 4))
    with pytest.raises(mx.MXNetError, match="lhs"):
        mx.nd.contrib.box_iou(mx.nd.ones((2, 5)), four).asnumpy()
    with pytest.raises(mx.MXNetError, match="rhs"):
        mx.nd.contrib.box_iou(four, mx.nd.ones((4,))).asnumpy()
    with pytest.raises(mx.MXNetError, match="format"):
        mx.nd.contrib.box_iou(four, four, format="xyxy").asnumpy()


# ---- bipartite_matching -------------------------------------------------------------------------


def test_bipartite_matching_mxnet_examples():
    scores = [[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]]
    for dtype in ("float16", "float32", "float64"):
        rows, cols = mx.nd.contrib.bipartite_matching(mx.nd.array(scores, dtype=dtype), threshold=1e-12)
        assert rows.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(rows.asnumpy(), [1, -1, 0])
        np.testing.assert_array_equal(cols.asnumpy(), [2, 0])
        rows, cols = mx.nd.contrib.bipartite_matching(mx.nd.array(scores, dtype=dtype), threshold=100,
                                                      is_ascend=True)
        np.testing.assert_array_equal(rows.asnumpy(), [-1, 0, 1])
        np.testing.assert_array_equal(cols.asnumpy(), [1, 2])


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4), (2, 3, 6, 2)])
def test_bipartite_matching_matches_the_reference(shape):
    rng = np.random.RandomState(sum(shape))
    scores = rng.uniform(size=shape)
    scores[..., 0, :2] = 0.5  # ties are taken in row-major order
    for threshold, ascend, topk in itertools.product((0.2, 0.6), (False, True), (-1, 1, 2)):
        rows, cols = mx.nd.contrib.bipartite_matching(mx.nd.array(scores, dtype="float64"), threshold=threshold,
                                                      is_ascend=ascend, topk=topk)
        want_rows, want_cols = ref_bipartite_matching(scores, threshold, ascend, topk)
        assert rows.shape == shape[:-1] and cols.shape == shape[:-2] + shape[-1:]
        np.testing.assert_array_equal(rows.asnumpy(), want_rows)
        np.testing.assert_array_equal(cols.asnumpy(), want_cols)


def test_bipartite_matching_topk_stops_one_match_late_as_mxnet():
    scores = np.array([[0.9, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.7]])
    rows, _ = mx.nd.contrib.bipartite_matching(mx.nd.array(scores), threshold=0.5, topk=1)
    np.testing.assert_array_equal(rows.asnumpy(), [0, 1, -1])


def test_bipartite_matching_errors_and_zero_gradient():
    with pytest.raises(mx.MXNetError, match="threshold"):  # required, as in MXNet
        mx.nd.contrib.bipartite_matching(mx.nd.ones((2, 2))).asnumpy()
    with pytest.raises(mx.MXNetError, match="at least 2 axes"):
        mx.nd.contrib.bipartite_matching(mx.nd.ones((3,)), threshold=0.1).asnumpy()
    x = mx.nd.array([[0.5, 0.6], [0.1, 0.2]])
    x.attach_grad()
    with mx.autograd.record():
        a, b = mx.nd.contrib.bipartite_matching(x, threshold=0.1)
        y = a.sum() + b.sum()
    y.backward()
    assert not x.grad.asnumpy().any()


# ---- box_encode / box_decode --------------------------------------------------------------------


def test_box_encode_mxnet_example():
    anchors = mx.nd.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]]).reshape((1, -1, 4))
    refs = anchors.copy()
    targets, masks = mx.nd.contrib.box_encode(mx.nd.array([[0, 1]]), mx.nd.array([[0, 1]]), anchors, refs,
                                              mx.nd.array([0, 0, 0, 0]), mx.nd.array([0.1, 0.1, 0.2, 0.2]))
    np.testing.assert_allclose(targets.asnumpy(), np.zeros((1, 2, 4)), atol=1e-6)
    np.testing.assert_array_equal(masks.asnumpy(), [[[0, 0, 0, 0], [1, 1, 1, 1]]])


def test_box_encode_matches_the_reference():
    rng = np.random.RandomState(1)
    b, n, m = 3, 7, 4
    _, anchors = random_boxes(rng, [b, n])
    _, refs = random_boxes(rng, [b, m])
    samples = rng.choice([-1.0, 0.0, 1.0], (b, n))
    matches = rng.randint(0, m, (b, n)).astype(np.float64)
    matches[samples < 0.5] = -1  # unmatched anchors are not read
    means, stds = np.array([0.1, -0.2, 0.0, 0.3]), np.array([0.1, 0.1, 0.2, 0.2])
    want_t, want_m = ref_box_encode(samples, matches, anchors, refs, means, stds)
    for dtype, tol in (("float32", 1e-4), ("float64", 1e-10)):
        args = [mx.nd.array(v, dtype=dtype) for v in (samples, matches, anchors, refs, means, stds)]
        t, mask = mx.nd.contrib.box_encode(*args)
        np.testing.assert_allclose(t.asnumpy(), want_t, rtol=tol, atol=tol)
        np.testing.assert_array_equal(mask.asnumpy(), want_m)
    for v in args:
        v.attach_grad()
    with mx.autograd.record():
        t, mask = mx.nd.contrib.box_encode(*args)
        y = t.sum() + mask.sum()
    y.backward()
    assert not any(v.grad.asnumpy().any() for v in args)  # zero gradients, as MXNet's


def test_box_encode_bad_shapes_and_matches():
    s, mt, a, r, mean, std = (mx.nd.ones(sh) for sh in ((1, 2), (1, 2), (1, 2, 4), (1, 3, 4), (4,), (4,)))
    with pytest.raises(mx.MXNetError, match="anchors"):
        mx.nd.contrib.box_encode(s, mt, mx.nd.ones((1, 2, 5)), r, mean, std)[0].asnumpy()
    with pytest.raises(mx.MXNetError, match="samples"):
        mx.nd.contrib.box_encode(mx.nd.ones((1, 3)), mt, a, r, mean, std)[0].asnumpy()
    with pytest.raises(mx.MXNetError, match="refs"):
        mx.nd.contrib.box_encode(s, mt, a, mx.nd.ones((2, 3, 4)), mean, std)[0].asnumpy()
    with pytest.raises(mx.MXNetError, match="means"):
        mx.nd.contrib.box_encode(s, mt, a, r, mx.nd.ones((3,)), std)[0].asnumpy()
    with pytest.raises(mx.MXNetError, match="matched to ref 3"):
        mx.nd.contrib.box_encode(s, mx.nd.array([[0, 3]]), a, r, mean, std)[0].asnumpy()


def test_box_decode_mxnet_example():
    data = mx.nd.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8]]).reshape((1, -1, 4))
    anchors = data.copy()
    out = mx.nd.contrib.box_decode(data, anchors, .1, .1, .2, .2)  # std0..std3 by position, as MXNet's
    np.testing.assert_allclose(out.asnumpy(), [[[-0.0562755, -0.00865743, 0.26227552, 0.42465743],
                                                [0.13240421, 0.17859563, 0.93759584, 1.1174043]]], atol=1e-5)


@pytest.mark.parametrize("fmt", ["center", "corner"])
@pytest.mark.parametrize("clip", [-1.0, 0.3])
def test_box_decode_matches_the_reference(fmt, clip):
    rng = np.random.RandomState(2)
    data = rng.uniform(-1, 1, (3, 5, 4))
    center, corner = random_boxes(rng, [1, 5])
    anchors = corner if fmt == "corner" else center
    stds = (0.1, 0.2, 0.3, 0.4)
    want = ref_box_decode(data, anchors, stds, clip, fmt)
    kw = dict(std0=0.1, std1=0.2, std2=0.3, std3=0.4, clip=clip, format=fmt)
    for dtype, tol in (("float16", 3e-2), ("float32", 1e-4), ("float64", 1e-6)):
        got = mx.nd.contrib.box_decode(mx.nd.array(data, dtype=dtype), mx.nd.array(anchors, dtype=dtype), **kw)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=tol, atol=tol * np.abs(want).max())


def test_box_decode_bad_shapes_and_zero_gradient():
    with pytest.raises(mx.MXNetError, match="data"):
        mx.nd.contrib.box_decode(mx.nd.ones((5, 4)), mx.nd.ones((1, 5, 4))).asnumpy()
    with pytest.raises(mx.MXNetError, match="anchors"):
        mx.nd.contrib.box_decode(mx.nd.ones((2, 5, 4)), mx.nd.ones((2, 5, 4))).asnumpy()
    with pytest.raises(mx.MXNetError, match="format"):
        mx.nd.contrib.box_decode(mx.nd.ones((2, 5, 4)), mx.nd.ones((1, 5, 4)), format="ltrb").asnumpy()
    x, a = mx.nd.ones((2, 5, 4)), mx.nd.ones((1, 5, 4))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.box_decode(x, a)
    y.backward(mx.nd.ones(y.shape))
    assert not x.grad.asnumpy().any()
