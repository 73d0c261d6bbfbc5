"""mx.recordio: image-record headers packed as MXNet packs them (struct 'IfQQ', float32 labels before
the payload), indexed files whose .idx lines point at each record, handles that survive pickling
(as a DataLoader's workers need), and malformed input refused."""
import pickle
import struct

import numpy as np
import pytest

import braid as mx


def test_pack_lays_out_the_header_and_labels():
    one = mx.recordio.pack(mx.recordio.IRHeader(7, 2.5, 11, 12), b"payload")
    assert one == struct.pack("<IfQQ", 0, 2.5, 11, 12) + b"payload"  # one label: flag 0
    many = mx.recordio.pack((0, [1.0, 2.0, 3.0], 5, 0), b"xy")
    assert many == struct.pack("<IfQQ", 3, 0.0, 5, 0) + np.float32([1, 2, 3]).tobytes() + b"xy"
    header, payload = mx.recordio.unpack(many)
    assert header.flag == 3 and header.id == 5 and payload == b"xy"
    np.testing.assert_array_equal(header.label, [1, 2, 3])
    with pytest.raises(ValueError, match="shorter than the 24-byte"):
        mx.recordio.unpack(b"short")


def test_indexed_records_point_at_their_offsets(tmp_path):
    rec, idx = str(tmp_path / "d.rec"), str(tmp_path / "d.idx")
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for key, payload in [(3, b"abc"), (1, b""), (2, b"abcdefgh")]:
        writer.write_idx(key, payload)
    writer.close()
    assert open(idx).read() == "3\t0\n1\t12\n2\t20\n"  # 8-byte heads, payloads padded to 4 bytes
    reader = mx.recordio.MXIndexedRecordIO(idx, rec, "r")
    assert reader.keys == [3, 1, 2]
    assert [reader.read_idx(k) for k in (2, 3, 1)] == [b"abcdefgh", b"abc", b""]
    copy = pickle.loads(pickle.dumps(reader))  # reopened: reads from the start
    assert copy.read() == b"abc" and copy.read_idx(2) == b"abcdefgh"
    plain = mx.recordio.MXRecordIO(rec, "r")
    assert [plain.read(), plain.read(), plain.read(), plain.read()] == [b"abc", b"", b"abcdefgh", None]
    plain.reset()
    assert plain.read() == b"abc"


def test_malformed_files_are_refused(tmp_path):
    bad = tmp_path / "bad.rec"
    bad.write_bytes(b"not a record file")
    with pytest.raises(mx.base.MXNetError, match="has no record at byte 0"):
        mx.recordio.MXRecordIO(str(bad), "r").read()
    idx = tmp_path / "bad.idx"
    idx.write_text("1\t0\nbroken\n")
    with pytest.raises(ValueError, match="bad.idx line 2"):
        mx.recordio.MXIndexedRecordIO(str(idx), str(bad), "r")
    with pytest.raises(ValueError, match="Invalid flag"):
        mx.recordio.MXRecordIO(str(bad), "x")
