"""Object-detection pipelines of mx.image, as MXNet's: augmenters that move the boxes with the
pixels, and ImageDetIter. A detection label is a row per object, [class, xmin, ymin, xmax, ymax,
...] with coordinates as fractions of the image's width and height; in a record or list it is
stored flat behind a header: [header width A, object width B, (A - 2 more header values),
object 1's B values, object 2's, ...]."""
import logging
import random
import warnings
from math import sqrt
from numbers import Number

import numpy as np

from .. import ndarray as nd
from .augmenters import (Augmenter, _KeptArguments, CastAug, ColorJitterAug, ColorNormalizeAug, ForceResizeAug, HueJitterAug,
                         LightingAug, RandomGrayAug, ResizeAug, _IMAGENET_MEAN, _IMAGENET_STD, _PCA_EIGVAL,
                         _PCA_EIGVEC)
from .image import copyMakeBorder, fixed_crop
from .image_iter import ImageIter

__all__ = ["DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug", "DetRandomCropAug",
           "DetRandomPadAug", "CreateMultiRandCropAugmenter", "CreateDetAugmenter", "ImageDetIter"]


class DetAugmenter(_KeptArguments):
    """A detection augmenter: (image, label) to (image, label)."""

    def __call__(self, src, label):
        raise NotImplementedError("Must override implementation.")


class DetBorrowAug(DetAugmenter):
    """An image augmenter that leaves the boxes where they are (colour, cast, resize)."""

    def __init__(self, augmenter):
        if not isinstance(augmenter, Augmenter):
            raise TypeError("Borrowing from invalid Augmenter")
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self):
        return [self.__class__.__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """One of aug_list at random, or none with probability skip_prob."""

    def __init__(self, aug_list, skip_prob=0):
        super().__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise ValueError("Allow DetAugmenter in list only")
        if not aug_list:
            skip_prob = 1
        self.aug_list, self.skip_prob = aug_list, skip_prob

    def dumps(self):
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """With probability p, image and boxes mirrored left to right."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
            label = label.copy()
            label[:, (1, 3)] = 1.0 - label[:, (3, 1)]
        return src, label


def _pair(value, what, name):
    if isinstance(value, (tuple, list)):
        return tuple(value)
    assert isinstance(value, Number)
    logging.info("Using fixed %s: %s in %s", what, value, name)
    return (value, value)


def _areas(boxes):
    """Areas of (xmin, ymin, xmax, ymax) rows (the first four columns)."""
    return np.maximum(0, boxes[:, 3] - boxes[:, 1]) * np.maximum(0, boxes[:, 2] - boxes[:, 0])


class DetRandomCropAug(DetAugmenter):
    """A random crop (area a fraction in area_range of the image's, aspect ratio in
    aspect_ratio_range) that covers more than min_object_covered of each object it touches; boxes
    are cut to it and objects keeping no more than min_eject_coverage of their area dropped.
    max_attempts tries, else the image unchanged."""

    def __init__(self, min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                 min_eject_coverage=0.3, max_attempts=50):
        aspect_ratio_range = _pair(aspect_ratio_range, "aspect ratio", "DetRandomCropAug")
        area_range = _pair(area_range, "area range", "DetRandomCropAug")
        super().__init__(min_object_covered=min_object_covered, aspect_ratio_range=aspect_ratio_range,
                         area_range=area_range, min_eject_coverage=min_eject_coverage, max_attempts=max_attempts)
        self.min_object_covered, self.min_eject_coverage = min_object_covered, min_eject_coverage
        self.max_attempts, self.aspect_ratio_range, self.area_range = max_attempts, aspect_ratio_range, area_range
        self.enabled = False
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            warnings.warn("Skip DetRandomCropAug due to invalid area_range: %s" % (area_range,))
        elif aspect_ratio_range[0] > aspect_ratio_range[1] or aspect_ratio_range[0] <= 0:
            warnings.warn("Skip DetRandomCropAug due to invalid aspect_ratio_range: %s" % (aspect_ratio_range,))
        else:
            self.enabled = True

    def __call__(self, src, label):
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    def _satisfied(self, label, xmin, ymin, xmax, ymax, width, height):
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False  # too small a crop
        boxes = label[:, 1:]
        areas = _areas(boxes)
        valid = np.where(areas * width * height > 2)[0]
        if valid.size < 1:
            return False
        b = boxes[valid]
        left, right = np.maximum(b[:, 0], xmin / width), np.minimum(b[:, 2], xmax / width)
        top, bottom = np.maximum(b[:, 1], ymin / height), np.minimum(b[:, 3], ymax / height)
        inside = np.maximum(0, right - left) * np.maximum(0, bottom - top)
        inside[np.logical_or(left >= right, top >= bottom)] = 0
        coverages = inside / areas[valid]
        coverages = coverages[coverages > 0]
        return coverages.size > 0 and np.amin(coverages) > self.min_object_covered

    def _update_labels(self, label, crop_box, height, width):
        xmin, ymin = float(crop_box[0]) / width, float(crop_box[1]) / height
        w, h = float(crop_box[2]) / width, float(crop_box[3]) / height
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] - xmin) / w
        out[:, (2, 4)] = (out[:, (2, 4)] - ymin) / h
        out[:, 1:5] = np.clip(out[:, 1:5], 0, 1)
        coverage = _areas(out[:, 1:]) * w * h / _areas(label[:, 1:])
        valid = np.logical_and(np.logical_and(out[:, 3] > out[:, 1], out[:, 4] > out[:, 2]),
                               coverage > self.min_eject_coverage)
        return out[valid] if valid.any() else None

    def _random_crop_proposal(self, label, height, width):
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area, max_area = self.area_range[0] * height * width, self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h, max_h = int(round(sqrt(min_area / ratio))), int(round(sqrt(max_area / ratio)))
            if round(max_h * ratio) > width:
                max_h = int((width + 0.4999999) / ratio)  # keep w = round(h * ratio) <= width
            max_h = min(max_h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            area = w * h
            if area < min_area:
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (min_area <= area <= max_area and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._satisfied(label, x, y, x + w, y + h, width, height):
                new_label = self._update_labels(label, (x, y, w, h), height, width)
                if new_label is not None:
                    return (x, y, w, h, new_label)
        return ()


class DetRandomPadAug(DetAugmenter):
    """The image placed at a random spot of a larger canvas filled with pad_val (area a factor in
    area_range of the image's, aspect ratio in aspect_ratio_range), boxes moved with it."""

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0), max_attempts=50,
                 pad_val=(128, 128, 128)):
        if not isinstance(pad_val, (list, tuple)):
            assert isinstance(pad_val, Number)
            pad_val = (pad_val,)
        aspect_ratio_range = _pair(aspect_ratio_range, "aspect ratio", "DetRandomPadAug")
        area_range = _pair(area_range, "area range", "DetRandomPadAug")
        super().__init__(aspect_ratio_range=aspect_ratio_range, area_range=area_range, max_attempts=max_attempts,
                         pad_val=pad_val)
        self.pad_val, self.aspect_ratio_range, self.area_range = pad_val, aspect_ratio_range, area_range
        self.max_attempts = max_attempts
        self.enabled = False
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            warnings.warn("Skip DetRandomPadAug due to invalid parameters: %s" % (area_range,))
        elif aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
            warnings.warn("Skip DetRandomPadAug due to invalid aspect_ratio_range: %s" % (aspect_ratio_range,))
        else:
            self.enabled = True

    def __call__(self, src, label):
        height, width, _ = src.shape
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            src = copyMakeBorder(src, y, h - y - height, x, w - x - width, 16, values=self.pad_val)
        return src, label

    def _random_pad_proposal(self, label, height, width):
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area, max_area = self.area_range[0] * height * width, self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h, max_h = int(round(sqrt(min_area / ratio))), int(round(sqrt(max_area / ratio)))
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)
            h = max(h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if (h - height) < 2 or (w - width) < 2:
                continue  # too little padding to bother
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            out = label.copy()
            out[:, (1, 3)] = (out[:, (1, 3)] * width + x) / w
            out[:, (2, 4)] = (out[:, (2, 4)] * height + y) / h
            return (x, y, w, h, out)
        return ()


def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                                 min_eject_coverage=0.3, max_attempts=50, skip_prob=0):
    """DetRandomSelectAug over DetRandomCropAugs, one per value of the parameters given as lists
    (single values repeat)."""
    params = [p if isinstance(p, list) else [p] for p in [min_object_covered, aspect_ratio_range, area_range,
                                                           min_eject_coverage, max_attempts]]
    count = max(len(p) for p in params)
    for p in params:
        assert len(p) in (1, count), "the list parameters must have the same length"
    params = [p * count if len(p) == 1 else p for p in params]
    augs = [DetRandomCropAug(min_object_covered=moc, aspect_ratio_range=arr, area_range=ar, min_eject_coverage=mec,
                             max_attempts=ma) for moc, arr, ar, mec, ma in zip(*params)]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def CreateDetAugmenter(data_shape, resize=0, rand_crop=0, rand_pad=0, rand_gray=0, rand_mirror=False, mean=None,
                       std=None, brightness=0, contrast=0, saturation=0, pca_noise=0, hue=0, inter_method=2,
                       min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 3.0),
                       min_eject_coverage=0.3, max_attempts=50, pad_val=(127, 127, 127)):
    """The detection augmenters of a pipeline making images of data_shape (C, H, W): resize,
    random crop (probability rand_crop), mirror, random pad (probability rand_pad), forced
    resize to data_shape, cast, colour jitter, hue, PCA noise, random gray, normalisation."""
    auglist = []
    if resize > 0:
        auglist.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        auglist.append(CreateMultiRandCropAugmenter(min_object_covered, aspect_ratio_range, area_range,
                                                    min_eject_coverage, max_attempts, skip_prob=1 - rand_crop))
    if rand_mirror > 0:
        auglist.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:
        pad = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val)
        auglist.append(DetRandomSelectAug([pad], 1 - rand_pad))
    auglist.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    auglist.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        auglist.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        auglist.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        auglist.append(DetBorrowAug(LightingAug(pca_noise, _PCA_EIGVAL, _PCA_EIGVEC)))
    if rand_gray > 0:
        auglist.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    if mean is True:
        mean = np.array(_IMAGENET_MEAN)
    elif mean is not None:
        assert isinstance(mean, np.ndarray) and mean.shape[0] in [1, 3]
    if std is True:
        std = np.array(_IMAGENET_STD)
    elif std is not None:
        assert isinstance(std, np.ndarray) and std.shape[0] in [1, 3]
    if mean is not None or std is not None:
        auglist.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return auglist


def _draw_rectangle(image, x1, y1, x2, y2, color, thickness):
    """The outline of the box (x1, y1)-(x2, y2), inclusive, ``thickness`` pixels wide centred on
    its edges (odd widths as OpenCV's rectangle draws them), or the box filled for a negative
    thickness; clipped to the image."""
    height, width = image.shape[:2]

    def fill(ya, yb, xa, xb):
        ya, yb, xa, xb = max(ya, 0), min(yb, height - 1), max(xa, 0), min(xb, width - 1)
        if ya <= yb and xa <= xb:
            image[ya:yb + 1, xa:xb + 1] = color

    if thickness < 0:
        fill(y1, y2, x1, x2)
        return
    r = max(thickness, 1) // 2
    for y in (y1, y2):
        fill(y - r, y + r, x1 - r, x2 + r)
    for x in (x1, x2):
        fill(y1 - r, y2 + r, x - r, x + r)


class ImageDetIter(ImageIter):
    """ImageIter for detection: labels (batch, objects, object width), each image's objects
    first and rows of -1 after them; the object count is the largest in the data set."""

    def __init__(self, batch_size, data_shape, path_imgrec=None, path_imglist=None, path_root=None, path_imgidx=None,
                 shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None, data_name="data",
                 label_name="label", last_batch_handle="pad", **kwargs):
        super().__init__(batch_size=batch_size, data_shape=data_shape, path_imgrec=path_imgrec,
                         path_imglist=path_imglist, path_root=path_root, path_imgidx=path_imgidx, shuffle=shuffle,
                         part_index=part_index, num_parts=num_parts, aug_list=[], imglist=imglist,
                         data_name=data_name, label_name=label_name, last_batch_handle=last_batch_handle)
        self.auglist = CreateDetAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.label_shape = self._estimate_label_shape()
        self._provide_label = [type(self._provide_label[0])(label_name, (batch_size,) + self.label_shape)]

    def _check_valid_label(self, label):
        if len(label.shape) != 2 or label.shape[1] < 5:
            raise RuntimeError("Label with shape (1+, 5+) required, %s received." % str(label))
        valid = np.logical_and(label[:, 0] >= 0, np.logical_and(label[:, 3] > label[:, 1], label[:, 4] > label[:, 2]))
        if not valid.any():
            raise RuntimeError("Invalid label occurs.")

    def _estimate_label_shape(self):
        """(most objects of any image, object width), reading every label once."""
        max_count, width = 0, 0
        self.reset()
        try:
            while True:
                label, _ = self.next_sample()
                label = self._parse_label(label)
                max_count, width = max(max_count, label.shape[0]), label.shape[1]
        except StopIteration:
            pass
        self.reset()
        return (max_count, width)

    def _parse_label(self, label):
        """The objects of a flat label (header, then objects) with a non-empty box."""
        raw = (label.asnumpy() if isinstance(label, nd.NDArray) else np.asarray(label)).ravel()
        if raw.size < 7:
            raise RuntimeError("Label shape is invalid: " + str(raw.shape))
        header_width, obj_width = int(raw[0]), int(raw[1])
        if obj_width <= 0 or (raw.size - header_width) % obj_width != 0:
            raise RuntimeError("Label shape %s inconsistent with annotation width %d." % (str(raw.shape), obj_width))
        out = np.reshape(raw[header_width:], (-1, obj_width))
        valid = np.logical_and(out[:, 3] > out[:, 1], out[:, 4] > out[:, 2])
        if not valid.any():
            raise RuntimeError("Encounter sample with no valid label.")
        return out[valid]

    def reshape(self, data_shape=None, label_shape=None):
        """New data and/or label shapes (a multi-scale pipeline changes them between batches)."""
        if data_shape is not None:
            self.check_data_shape(data_shape)
            self._provide_data = [type(self._provide_data[0])(self._provide_data[0].name,
                                                              (self.batch_size,) + tuple(data_shape))]
            self.data_shape = tuple(data_shape)
        if label_shape is not None:
            self.check_label_shape(label_shape)
            self._provide_label = [type(self._provide_label[0])(self._provide_label[0].name,
                                                                (self.batch_size,) + tuple(label_shape))]
            self.label_shape = tuple(label_shape)

    def _batchify(self, data, label, start=0):
        i = start
        try:
            while i < self.batch_size:
                raw_label, raw = self.next_sample()
                img = self.imdecode(raw)
                try:
                    self.check_valid_image([img])
                    objects = self._parse_label(raw_label)
                    img, objects = self.augmentation_transform(img, objects)
                    self._check_valid_label(objects)
                except RuntimeError as e:
                    logging.debug("Invalid image, skipping:  %s", str(e))
                    continue
                data[i] = self.postprocess_data(img)
                rows = np.full(label.shape[1:], -1, dtype=np.float32)
                count = min(objects.shape[0], rows.shape[0])
                rows[:count] = objects[:count, :rows.shape[1]]
                label[i] = nd.array(rows)
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def augmentation_transform(self, data, label):
        for aug in self.auglist:
            data, label = aug(data, label)
        return data, label

    def check_label_shape(self, label_shape):
        """Checks that label_shape (objects, width) can hold this data set's labels."""
        if len(label_shape) != 2:
            raise ValueError("label_shape should have length 2")
        if label_shape[0] < self.label_shape[0]:
            raise ValueError("Attempts to reduce label count from %d to %d, not allowed." % (
                self.label_shape[0], label_shape[0]))
        if label_shape[1] != self._provide_label[0].shape[2]:
            raise ValueError("label_shape object width inconsistent: %d vs %d." % (
                self._provide_label[0].shape[2], label_shape[1]))

    def draw_next(self, color=None, thickness=2, mean=None, std=None, clip=True, waitKey=None,
                  window_name="draw_next", id2labels=None):
        """Yields the next images (numpy uint8, BGR, as MXNet's) after augmentation with their boxes
        drawn: ``color`` in RGB (None: a random colour per box), ``thickness`` pixels wide (-1
        fills the box); ``std`` / ``mean`` (True: ImageNet's) undo a colour normalisation, ``clip``
        keeps values in [0, 255]. Braid has no window system and no font renderer: ``waitKey`` (show
        each image) and ``id2labels`` (write class names) are accepted and warned about once."""
        if waitKey is not None or id2labels is not None:
            warnings.warn("draw_next: Braid cannot show images in a window (waitKey) or write class names "
                          "(id2labels); the images with their boxes are yielded")
        if std is True:
            std = np.array([58.395, 57.12, 57.375])
        if mean is True:
            mean = np.array([123.68, 116.28, 103.53])
        bgr = tuple(color[::-1]) if color else None
        while True:
            try:
                label, raw = self.next_sample()
            except StopIteration:
                return
            data = self.imdecode(raw)
            try:
                self.check_valid_image([data])
                label = self._parse_label(label)
            except RuntimeError as e:
                logging.debug("Invalid image, skipping:  %s", str(e))
                continue
            data, label = self.augmentation_transform(data, label)
            image = data.asnumpy().astype(np.float64)
            if std is not None:
                image *= std
            if mean is not None:
                image += mean
            image = image[:, :, ::-1]  # RGB to BGR
            if clip:
                image = np.clip(image, 0, 255)
            image = np.ascontiguousarray(image.astype(np.uint8))
            height, width = image.shape[:2]
            for obj in label:
                x1 = int(obj[1] * width)
                if x1 < 0:
                    continue
                box_color = bgr if bgr else tuple(np.random.rand(3) * 255)
                _draw_rectangle(image, x1, int(obj[2] * height), int(obj[3] * width), int(obj[4] * height), box_color,
                                thickness)
            yield image

    def sync_label_shape(self, it, verbose=False):
        """Gives this iterator and `it` (another ImageDetIter, e.g. validation's) the same label
        shape, the larger object count of the two; returns `it`."""
        assert isinstance(it, ImageDetIter), "Synchronize with invalid iterator."
        train_shape, val_shape = self.label_shape, it.label_shape
        assert train_shape[1] == val_shape[1], "object width mismatch."
        max_count = max(train_shape[0], val_shape[0])
        if max_count > train_shape[0]:
            self.reshape(None, (max_count, train_shape[1]))
        if max_count > val_shape[0]:
            it.reshape(None, (max_count, val_shape[1]))
        if verbose and max_count > min(train_shape[0], val_shape[0]):
            logging.info("Resized label_shape to (%d, %d).", max_count, train_shape[1])
        return it
