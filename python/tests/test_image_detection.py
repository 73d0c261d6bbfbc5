"""mx.image's detection pipeline: labels parsed from MXNet's flat layout, augmenters that move the
boxes with the pixels (checked by locating the boxes' pixels before and after), and ImageDetIter
over image lists and record files."""
import io
import random

import numpy as np
import pytest
from PIL import Image

import braid as mx
from braid.image import detection


def picture(h=40, w=60, seed=0):
    return np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype(np.uint8)


def flat(*objects):
    """MXNet's flat label: header width 2, object width 5, then the objects."""
    return np.array([2, 5] + [v for o in objects for v in o], dtype=np.float32)


def test_labels_parse_and_bad_ones_are_refused():
    it = detection.ImageDetIter.__new__(detection.ImageDetIter)
    objects = it._parse_label(flat([1, 0.1, 0.2, 0.5, 0.6], [2, 0.5, 0.5, 0.4, 0.9]))  # the second is empty
    np.testing.assert_allclose(objects, [[1, 0.1, 0.2, 0.5, 0.6]])
    with pytest.raises(RuntimeError, match="inconsistent"):
        it._parse_label(np.array([2, 5, 1, 0.1, 0.2, 0.5, 0.6, 7], dtype=np.float32))
    with pytest.raises(RuntimeError, match="no valid label"):
        it._parse_label(flat([1, 0.5, 0.5, 0.4, 0.4]))


def box_pixels(img, box):
    h, w = img.shape[:2]
    x1, y1, x2, y2 = (int(round(box[0] * w)), int(round(box[1] * h)), int(round(box[2] * w)),
                      int(round(box[3] * h)))
    return img[y1:y2, x1:x2]


def test_flip_moves_the_boxes_with_the_pixels():
    img = mx.nd.array(picture(), dtype="uint8")
    label = np.array([[0, 0.1, 0.25, 0.4, 0.75]], dtype=np.float32)
    out, moved = detection.DetHorizontalFlipAug(1)(img, label)
    np.testing.assert_allclose(moved, [[0, 0.6, 0.25, 0.9, 0.75]], rtol=1e-6)
    np.testing.assert_array_equal(box_pixels(out.asnumpy(), moved[0, 1:])[:, ::-1],
                                  box_pixels(img.asnumpy(), label[0, 1:]))


def test_random_crop_keeps_the_covered_objects_where_their_pixels_are():
    img = mx.nd.array(picture(80, 100), dtype="uint8")
    label = np.array([[0, 0.3, 0.3, 0.5, 0.5], [1, 0.0, 0.0, 0.05, 0.05]], dtype=np.float32)
    aug = detection.DetRandomCropAug(min_object_covered=0.9, area_range=(0.3, 0.8), min_eject_coverage=0.9)
    random.seed(4)
    x, y, w, h, new = aug._random_crop_proposal(label, 80, 100)
    random.seed(4)
    out, moved = aug(img, label)
    np.testing.assert_allclose(moved, new)
    assert out.shape == (h, w, 3)
    np.testing.assert_array_equal(out.asnumpy(), img.asnumpy()[y:y + h, x:x + w])
    assert moved.shape[0] >= 1 and moved[0, 0] == 0  # the big object is kept; its box maps back:
    back = moved[0, 1:] * [w, h, w, h] + [x, y, x, y]
    np.testing.assert_allclose(back, label[0, 1:] * [100, 80, 100, 80], atol=1e-3)


def test_random_pad_places_the_image_on_a_canvas():
    img = mx.nd.array(picture(), dtype="uint8")
    label = np.array([[3, 0.2, 0.2, 0.6, 0.8]], dtype=np.float32)
    aug = detection.DetRandomPadAug(area_range=(1.5, 2.0), pad_val=(1, 2, 3))
    random.seed(2)
    x, y, w, h, _ = aug._random_pad_proposal(label, 40, 60)
    random.seed(2)
    out, moved = aug(img, label)
    a = out.asnumpy()
    assert a.shape == (h, w, 3)
    np.testing.assert_array_equal(a[y:y + 40, x:x + 60], img.asnumpy())
    assert (a[:y] == [1, 2, 3]).all() and (a[y + 40:] == [1, 2, 3]).all()
    np.testing.assert_allclose(moved[0, 1:] * [w, h, w, h], label[0, 1:] * [60, 40, 60, 40] + [x, y, x, y], atol=1e-3)


def test_create_det_augmenter_lists_the_pipeline():
    augs = detection.CreateDetAugmenter((3, 32, 32), resize=40, rand_crop=0.5, rand_pad=0.5, rand_mirror=True,
                                        mean=True, std=True, brightness=0.1, hue=0.1, pca_noise=0.1, rand_gray=0.2)
    kinds = [type(a).__name__ if not isinstance(a, detection.DetBorrowAug) else type(a.augmenter).__name__
             for a in augs]
    assert kinds == ["ResizeAug", "DetRandomSelectAug", "DetHorizontalFlipAug", "DetRandomSelectAug",
                     "ForceResizeAug", "CastAug", "ColorJitterAug", "HueJitterAug", "LightingAug", "RandomGrayAug",
                     "ColorNormalizeAug"]


def test_image_det_iter_batches_images_and_padded_labels(tmp_path):
    paths, imglist = [], []
    for i in range(5):
        path = tmp_path / ("%d.png" % i)
        Image.fromarray(picture(30 + i, 40, seed=i)).save(path)
        objects = [[i, 0.1, 0.1, 0.5, 0.5]] + ([[9, 0.2, 0.3, 0.9, 0.8]] if i % 2 else [])
        imglist.append(list(flat(*objects)) + [str(path)])
    it = mx.image.ImageDetIter(2, (3, 24, 24), imglist=imglist, path_root="")
    assert it.label_shape == (2, 5)
    assert it.provide_label[0].shape == (2, 2, 5)
    batches = list(it)
    assert len(batches) == 3 and batches[0].data[0].shape == (2, 3, 24, 24)
    first = batches[0].label[0].asnumpy()
    np.testing.assert_allclose(first[0], [[0, 0.1, 0.1, 0.5, 0.5], [-1] * 5])  # one object, then -1 rows
    np.testing.assert_allclose(first[1], [[1, 0.1, 0.1, 0.5, 0.5], [9, 0.2, 0.3, 0.9, 0.8]])
    expected = mx.image.imresize(mx.image.imread(str(tmp_path / "0.png")), 24, 24, interp=2).asnumpy()
    np.testing.assert_allclose(batches[0].data[0][0].asnumpy(), expected.transpose(2, 0, 1))
    # a record file with the same labels, and a validation iterator whose labels are synchronised
    rec, idx = str(tmp_path / "d.rec"), str(tmp_path / "d.idx")
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for i, entry in enumerate(imglist[:3]):
        writer.write_idx(i, mx.recordio.pack_img((0, np.array(entry[:-1]), i, 0), picture(30, 40, seed=i)[:, :, ::-1]))
    writer.close()
    small = mx.image.ImageDetIter(1, (3, 24, 24), path_imgrec=rec, path_imgidx=idx)
    assert small.label_shape == (2, 5)
    one = mx.image.ImageDetIter(1, (3, 24, 24), imglist=imglist[:1], path_root="")
    assert one.label_shape == (1, 5)
    it.sync_label_shape(one)
    assert one.label_shape == (2, 5) and one.next().label[0].shape == (1, 2, 5)
    with pytest.raises(ValueError, match="reduce label count"):
        it.reshape(label_shape=(1, 5))


def test_draw_next_yields_bgr_images_with_the_boxes_outlined(tmp_path):
    image = np.full((20, 40, 3), 100, dtype=np.uint8)
    image[:, :, 0] = 10  # red channel 10, green and blue 100
    path = tmp_path / "flat.png"
    Image.fromarray(image).save(path)
    imglist = [list(flat([3, 0.25, 0.25, 0.75, 0.75])) + [str(path)]]
    it = mx.image.ImageDetIter(1, (3, 20, 40), imglist=imglist, path_root="")
    drawn = list(it.draw_next(color=(255, 0, 0), thickness=1))
    assert len(drawn) == 1
    out = drawn[0]
    assert out.dtype == np.uint8 and out.shape == (20, 40, 3)
    x1, y1, x2, y2 = 10, 5, 30, 15  # the box in pixels
    edge = np.zeros((20, 40), dtype=bool)
    edge[[y1, y2], x1:x2 + 1] = True
    edge[y1:y2 + 1, [x1, x2]] = True
    assert (out[edge] == [0, 0, 255]).all()  # red, in BGR
    assert (out[~edge] == [100, 100, 10]).all()  # the picture, in BGR
    filled = next(mx.image.ImageDetIter(1, (3, 20, 40), imglist=imglist, path_root="").draw_next(
        color=(0, 255, 0), thickness=-1))
    assert (filled[y1:y2 + 1, x1:x2 + 1] == [0, 255, 0]).all()
    assert (filled[:y1] == [100, 100, 10]).all()
    normalised = mx.image.ImageDetIter(1, (3, 20, 40), imglist=imglist, path_root="", mean=True, std=True)
    back = next(normalised.draw_next(color=(255, 0, 0), mean=True, std=True))
    assert np.abs(back[0, 0].astype(int) - [100, 100, 10]).max() <= 1  # the normalisation undone
    with pytest.warns(UserWarning, match="window"):
        next(it.draw_next(waitKey=0), None)
