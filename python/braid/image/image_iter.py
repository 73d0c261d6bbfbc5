"""ImageIter: batches (N, C, H, W) of augmented images, read from a record file (.rec, with its
.idx for shuffling and parts) or from an image list (a .lst file "index<TAB>labels...<TAB>path" or
a Python list [label(s), path]), as MXNet's mx.image.ImageIter."""
import logging
import os
import random
from numbers import Number

from .. import ndarray as nd
from .. import recordio
from ..io import DataBatch, DataDesc, DataIter
from .augmenters import CreateAugmenter
from .image import imdecode

__all__ = ["ImageIter"]


class ImageIter(DataIter):
    """Images of `data_shape` (3, H, W) in batches of `batch_size`, labels of `label_width`.
    last_batch_handle: 'pad' (the last batch filled from the start, pad set), 'discard', or
    'roll_over' (the short last batch completed from the next epoch). Extra keyword arguments go to
    CreateAugmenter unless aug_list is given."""

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None, path_imglist=None, path_root=None,
                 path_imgidx=None, shuffle=False, part_index=0, num_parts=1, aug_list=None, imglist=None,
                 data_name="data", label_name="softmax_label", dtype="float32", last_batch_handle="pad", **kwargs):
        super().__init__()
        assert path_imgrec or path_imglist or isinstance(imglist, list)
        assert dtype in ["int32", "float32", "int64", "float64"], dtype + " label not supported"
        assert last_batch_handle in ["pad", "discard", "roll_over"], "unknown last_batch_handle " + last_batch_handle
        self.imgrec, self.imgidx = None, None
        if path_imgrec:
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
        keys = None
        self.imglist = None
        if path_imglist:
            self.imglist, keys = self._read_list_file(path_imglist, dtype)
        elif isinstance(imglist, list):
            self.imglist, keys = self._from_list(imglist, dtype)
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self._batch_size = batch_size
        self._provide_data = [DataDesc(data_name, (batch_size,) + tuple(data_shape))]
        label_shape = (batch_size, label_width) if label_width > 1 else (batch_size,)
        self._provide_label = [DataDesc(label_name, label_shape)]
        self.data_shape, self.label_width, self.shuffle = tuple(data_shape), label_width, shuffle
        if self.imgrec is None:
            self.seq = keys
        elif shuffle or num_parts > 1 or path_imgidx:
            assert self.imgidx is not None, "shuffling or parts of a record file need its .idx file (path_imgidx)"
            self.seq = self.imgidx
        else:
            self.seq = None
        if num_parts > 1:
            assert part_index < num_parts
            share = len(self.seq) // num_parts
            self.seq = self.seq[part_index * share:(part_index + 1) * share]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self.cur = 0
        self._allow_read = True
        self._cache = None  # roll_over: (data, label, filled) of the short last batch
        self.reset()

    @staticmethod
    def _read_list_file(path, dtype):
        entries, keys = {}, []
        with open(path) as f:
            for line in f:
                fields = line.strip().split("\t")
                if len(fields) < 3:
                    continue
                key = int(fields[0])
                entries[key] = (nd.array([float(x) for x in fields[1:-1]], dtype=dtype), fields[-1])
                keys.append(key)
        return entries, keys

    @staticmethod
    def _from_list(imglist, dtype):
        entries, keys = {}, []
        for index, img in enumerate(imglist, start=1):
            if len(img) > 2:
                label = nd.array(img[:-1], dtype=dtype)
            elif isinstance(img[0], Number):
                label = nd.array([img[0]], dtype=dtype)
            else:
                label = nd.array(img[0], dtype=dtype)
            entries[str(index)] = (label, img[-1])
            keys.append(str(index))
        return entries, keys

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def provide_data(self):
        return self._provide_data

    @property
    def provide_label(self):
        return self._provide_label

    def reset(self):
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """Resets, dropping a rolled-over batch."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache = None

    def next_sample(self):
        """(label, image bytes) of the next image."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:
            record = self.imgrec.read()
            if record is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, img = recordio.unpack(record)
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        idx = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            header, img = recordio.unpack(self.imgrec.read_idx(idx))
            return (header.label if self.imglist is None else self.imglist[idx][0]), img
        label, fname = self.imglist[idx]
        return label, self.read_image(fname)

    def _batchify(self, data, label, start=0):
        i = start
        try:
            while i < self._batch_size:
                lab, raw = self.next_sample()
                img = self.imdecode(raw)
                try:
                    self.check_valid_image(img)
                except RuntimeError as e:
                    logging.debug("Invalid image, skipping:  %s", str(e))
                    continue
                img = self.augmentation_transform(img)
                data[i] = self.postprocess_data(img)
                label[i] = lab
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self):
        c, h, w = self.data_shape
        if self._cache is not None:
            data, label, filled = self._cache
        else:
            data = nd.zeros((self._batch_size, c, h, w))
            label = nd.empty(self._provide_label[0].shape)
            filled = self._batchify(data, label)
        pad = self._batch_size - filled
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache is None:
                self._cache = (data, label, filled)
                raise StopIteration
            self._batchify(data, label, filled)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache = None
        return DataBatch([data], [label], pad=pad)

    def check_data_shape(self, data_shape):
        """Checks that data_shape is (3, H, W)."""
        if len(data_shape) != 3:
            raise ValueError("data_shape should have length 3, with dimensions CxHxW")
        if data_shape[0] != 3:
            raise ValueError("This iterator expects inputs to have 3 channels.")

    def check_valid_image(self, data):
        """Raises RuntimeError for an image with no pixels."""
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def imdecode(self, s):
        """Decodes the bytes of one image, naming the image when they are broken."""
        try:
            return imdecode(s)
        except Exception as e:  # the image's name is added to any decoding error
            where = self.seq[(self.cur % self.num_image) - 1] if self.seq is not None else self.cur - 1
            name = "filename: %s" % self.imglist[where][1] if self.imglist is not None else "index: %s" % where
            raise RuntimeError("Broken image %s, %s" % (name, e))

    def read_image(self, fname):
        """The bytes of the image file `fname` under path_root."""
        with open(os.path.join(self.path_root or "", fname), "rb") as f:
            return f.read()

    def augmentation_transform(self, data):
        """The image through every augmenter of auglist."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """(H, W, C) to (C, H, W)."""
        return nd.transpose(datum, axes=(2, 0, 1))
