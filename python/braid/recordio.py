"""mxnet.recordio: MXNet's RecordIO files (`.rec`, written and read by the C++ core,
braid/io/recordio.h) and the image-record header: ``MXRecordIO`` (records in order),
``MXIndexedRecordIO`` (with an ``.idx`` file of "key<TAB>offset" lines for random access),
``IRHeader``, ``pack`` and ``unpack``, and ``pack_img``/``unpack_img`` for records holding an encoded
image (pixels in OpenCV's BGR order, as MXNet's, which calls OpenCV)."""
import numbers
import os
import struct
from collections import namedtuple

import numpy as np

from ._core import image as _codec
from ._core.io import RecordReader as _RecordReader, RecordWriter as _RecordWriter

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img", "unpack_img"]


class MXRecordIO(object):
    """Records of the file ``uri``, read (flag 'r') or written (flag 'w') in order."""

    def __init__(self, uri, flag):
        self.uri = uri
        self.flag = flag
        self.handle = None
        self.writable = None
        self.is_open = False
        self.pid = None
        self.open()

    def open(self):
        """Opens the file (a 'w' record file starts empty)."""
        if self.flag == "w":
            self.handle, self.writable = _RecordWriter(self.uri), True
        elif self.flag == "r":
            self.handle, self.writable = _RecordReader(self.uri), False
        else:
            raise ValueError("Invalid flag %s" % self.flag)
        self.pid = os.getpid()
        self.is_open = True

    def __del__(self):
        self.close()

    def __getstate__(self):
        """Pickled closed (a DataLoader's worker processes reopen it), as MXNet's."""
        was_open = self.is_open
        self.close()
        state = dict(self.__dict__, is_open=was_open, handle=None)
        if was_open:
            self.open()
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self.is_open:
            self.is_open = False
            self.open()

    def _check_pid(self, allow_reset=False):
        """A handle opened by another process (after a fork) is reopened for reading."""
        if self.pid == os.getpid():
            return
        if not allow_reset:
            raise RuntimeError("Forbidden operation in multiple processes")
        self.reset()

    def close(self):
        """Closes the file (flushing what was written)."""
        if not getattr(self, "is_open", False):
            return
        if self.writable:
            self.handle.close()
        self.handle = None
        self.is_open = False
        self.pid = None

    def reset(self):
        """Back to the first record (reopens the file; a 'w' file starts over)."""
        self.close()
        self.open()

    def write(self, buf):
        """Appends one record (bytes)."""
        assert self.writable, "the record file was opened for reading"
        self._check_pid(allow_reset=False)
        self.handle.write(bytes(buf))

    def read(self):
        """The next record as bytes, or None at the end of the file."""
        assert not self.writable, "the record file was opened for writing"
        self._check_pid(allow_reset=True)
        return self.handle.read()


class MXIndexedRecordIO(MXRecordIO):
    """Records with keys: ``idx_path`` lists "key<TAB>offset" lines (keys of ``key_type``)."""

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = idx_path
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super(MXIndexedRecordIO, self).__init__(uri, flag)

    def open(self):
        super(MXIndexedRecordIO, self).open()
        self.idx = {}
        self.keys = []
        self.fidx = open(self.idx_path, self.flag)
        if not self.writable:
            for number, line in enumerate(self.fidx, 1):
                fields = line.strip().split("\t")
                if len(fields) < 2:
                    raise ValueError("%s line %d is not 'key<TAB>offset': %r" % (self.idx_path, number, line[:200]))
                key = self.key_type(fields[0])
                self.idx[key] = int(fields[1])
                self.keys.append(key)

    def close(self):
        if not getattr(self, "is_open", False):
            return
        super(MXIndexedRecordIO, self).close()
        self.fidx.close()

    def __getstate__(self):
        state = super(MXIndexedRecordIO, self).__getstate__()
        state["fidx"] = None
        return state

    def seek(self, idx):
        """Moves to the record of key ``idx``."""
        assert not self.writable, "the record file was opened for writing"
        self._check_pid(allow_reset=True)
        self.handle.seek(self.idx[idx])

    def tell(self):
        """The offset the next record will have."""
        assert self.writable, "the record file was opened for reading"
        return self.handle.tell()

    def read_idx(self, idx):
        """The record of key ``idx``."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        """Appends a record under key ``idx``."""
        key = self.key_type(idx)
        position = self.tell()
        self.write(buf)
        self.fidx.write("%s\t%d\n" % (str(key), position))
        self.idx[key] = position
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
IRHeader.__doc__ = """An image record's header: flag (0: one float label; n > 0: n float labels stored
before the payload), label, id and id2 (uint64)."""
_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """A record of ``header`` (an IRHeader or a tuple; a label array is stored as float32 before
    the payload) and the bytes ``s``."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s):
    """(IRHeader, payload bytes) of a record made by ``pack``."""
    if len(s) < _IR_SIZE:
        raise ValueError("a record of %d bytes is shorter than the %d-byte image record header" % (len(s), _IR_SIZE))
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < header.flag * 4:
            raise ValueError("a record announces %d labels but holds %d bytes" % (header.flag, len(s)))
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """A record of ``header`` and the image ``img`` (uint8 (H, W) or (H, W, C), colour in BGR
    order) encoded as img_fmt ('.jpg' with quality 1..100, or '.png' with quality as the
    compression level)."""
    img = np.asarray(img)
    if img.dtype != np.uint8:
        img = np.clip(np.rint(img), 0, 255).astype(np.uint8)
    return pack(header, _codec.encode(img, img_fmt, int(quality), True))


def unpack_img(s, iscolor=-1):
    """(IRHeader, image) of a record made by ``pack_img``: a uint8 NumPy array in BGR order,
    (H, W, 3) for iscolor=1, (H, W) for 0, as stored for -1."""
    header, s = unpack(s)
    img = _codec.decode(np.frombuffer(s, dtype=np.uint8), int(iscolor), False)
    if iscolor < 0 and img.shape[2] >= 3:
        img = img[:, :, [2, 1, 0] + list(range(3, img.shape[2]))]
    if img.shape[2] == 1:
        img = img[:, :, 0]
    return header, np.ascontiguousarray(img)
