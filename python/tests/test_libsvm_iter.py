"""mx.io.LibSVMIter: csr batches from LibSVM text files, against the dense rows written; labels from
the lines or from a label file; the wrap-around of the last batch; parts for distributed
workers; malformed lines refused with the file and line."""
import numpy as np
import pytest

import braid as mx

LINES = ["1.0 0:0.5 2:1.2", "-2.0", "-3.0 0:0.6 1:2.4 2:1.2", "4 2:-1.2", "5 1:7 0:3"]
DENSE = np.array([[0.5, 0, 1.2], [0, 0, 0], [0.6, 2.4, 1.2], [0, 0, -1.2], [3, 7, 0]], dtype=np.float32)
LABELS = np.array([1, -2, -3, 4, 5], dtype=np.float32)


def write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def batches(it):
    return [(b.data[0], b.label[0], b.pad) for b in it]


def test_batches_hold_the_rows_and_the_last_wraps_around(tmp_path):
    it = mx.io.LibSVMIter(data_libsvm=write(tmp_path / "d.t", LINES), data_shape=(3,), batch_size=2)
    assert it.provide_data[0].shape == (2, 3) and it.provide_label[0].shape == (2,)
    for epoch in range(2):  # reset starts over
        got = batches(it)
        assert [pad for _, _, pad in got] == [0, 0, 1]
        rows = [0, 1, 2, 3, 4, 0]
        for i, (data, label, _) in enumerate(got):
            assert data.stype == "csr"
            data.check_format(True)  # indices sorted within each row (line 5 gave them unsorted)
            np.testing.assert_allclose(data.asnumpy(), DENSE[rows[2 * i:2 * i + 2]], rtol=1e-6)
            np.testing.assert_array_equal(label.asnumpy(), LABELS[rows[2 * i:2 * i + 2]])
        it.reset()


def test_without_round_batch_the_partial_batch_is_dropped(tmp_path):
    it = mx.io.LibSVMIter(data_libsvm=write(tmp_path / "d.t", LINES), data_shape=(3,), batch_size=2,
                          round_batch=False)
    assert len(batches(it)) == 2


def test_labels_from_a_label_file_are_csr(tmp_path):
    # MXNet's test_io example: the last batch of 3 takes row 3 then rows 0 and 1 again
    data = write(tmp_path / "d.t", LINES[:4])
    label = write(tmp_path / "l.t", ["1.0", "-2.0 0:0.125", "-3.0 2:1.2", "4 1:1.0 2:-1.2"])
    it = mx.io.LibSVMIter(data_libsvm=data, label_libsvm=label, data_shape=(3,), label_shape=(3,), batch_size=3)
    (d0, l0, p0), (d1, l1, p1) = batches(it)
    np.testing.assert_allclose(d1.asnumpy(), DENSE[[3, 0, 1]], rtol=1e-6)
    assert l0.stype == "csr" and (p0, p1) == (0, 2)
    np.testing.assert_allclose(l0.asnumpy(), [[0, 0, 0], [0.125, 0, 0], [0, 0, 1.2]], rtol=1e-6)
    np.testing.assert_allclose(l1.asnumpy(), [[0, 1, -1.2], [0, 0, 0], [0.125, 0, 0]], rtol=1e-6)


def test_parts_split_the_lines_between_workers(tmp_path):
    path = write(tmp_path / "d.t", LINES)
    seen = []
    for part in range(2):
        it = mx.io.LibSVMIter(data_libsvm=path, data_shape=(3,), batch_size=1, num_parts=2, part_index=part)
        seen.append([float(label.asnumpy()[0]) for _, label, _ in batches(it)])
    assert seen == [[1, -2], [-3, 4, 5]]  # every line once, in order


@pytest.mark.parametrize("line, message", [
    ("-3.0 -1:0.6 1:2.4", "feature index -1, outside [0, 3)"),
    ("2 3:1", "feature index 3, outside [0, 3)"),
    ("2 1:x", "is not 'label index:value ...'"),
    ("2 1:1 1:2", "gives feature 1 twice"),
])
def test_malformed_lines_name_the_file_and_line(tmp_path, line, message):
    path = write(tmp_path / "bad.t", ["1 0:1", line])
    it = mx.io.LibSVMIter(data_libsvm=path, data_shape=(3,), batch_size=2)
    with pytest.raises(mx.base.MXNetError, match="bad.t line 2") as e:
        batches(it)
    assert message in str(e.value)


def test_ndarray_iter_takes_csr_rows_and_drops_the_partial_batch():
    """(NDArrayIter over csr matrices, MXNet's or SciPy's, here beside the other csr batches.)"""
    import scipy.sparse as spsp
    dense = np.arange(35, dtype=np.float32).reshape(7, 5) * (np.arange(35).reshape(7, 5) % 3 == 0)
    for source in (mx.nd.array(dense).tostype("csr"), spsp.csr_matrix(dense)):
        with pytest.raises(NotImplementedError, match="discard"):  # MXNet's rule: no padding of csr batches
            mx.io.NDArrayIter(source, None, 3)
        for shuffle in (False, True):
            it = mx.io.NDArrayIter({"x": source}, dense[:, 0], 3, shuffle=shuffle, last_batch_handle="discard")
            got = list(it)
            assert len(got) == 2
            for b in got:  # Braid's NDArrayIter fills index: the rows each batch holds
                assert b.data[0].stype == "csr"
                np.testing.assert_array_equal(b.data[0].asnumpy(), dense[b.index])
                np.testing.assert_array_equal(b.label[0].asnumpy(), dense[b.index, 0])
