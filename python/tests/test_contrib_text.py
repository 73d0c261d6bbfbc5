"""mx.contrib.text: token counting, Vocabulary, embeddings read from small local files, and the
error for a pre-trained file that is not on disk."""
import hashlib
import os
import warnings
import zipfile
from collections import Counter

import numpy as np
import pytest

import mxnet as mx
from mxnet.contrib import text


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def test_count_tokens_from_str():
    counts = text.utils.count_tokens_from_str(" Life is great ! \n life is good . \n",
                                              to_lower=True)
    assert counts == Counter({"life": 2, "is": 2, "great": 1, "!": 1, "good": 1, ".": 1})
    base = Counter({"life": 1})
    same = text.utils.count_tokens_from_str("*life*x*|*x*", r"\*", r"\|", counter_to_update=base)
    assert same is base and base == Counter({"life": 2, "x": 2})


def test_vocabulary_indexing():
    counter = Counter(["a", "b", "b", "c", "c", "c", "d"])
    vocab = text.vocab.Vocabulary(counter, reserved_tokens=["<pad>"])
    assert vocab.idx_to_token == ["<unk>", "<pad>", "c", "b", "a", "d"]
    assert vocab.token_to_idx == {"<unk>": 0, "<pad>": 1, "c": 2, "b": 3, "a": 4, "d": 5}
    assert len(vocab) == 6
    assert vocab.unknown_token == "<unk>" and vocab.reserved_tokens == ["<pad>"]
    assert vocab.to_indices("b") == 3
    assert vocab.to_indices(["a", "zzz", "<pad>"]) == [4, 0, 1]
    assert vocab.to_tokens(2) == "c"
    assert vocab.to_tokens([5, 0]) == ["d", "<unk>"]
    with pytest.raises(ValueError):
        vocab.to_tokens(6)


def test_vocabulary_limits():
    counter = Counter(["a", "b", "b", "c", "c", "c", "d"])
    # Ties (a and d, both once) go by token order.
    top3 = text.vocab.Vocabulary(counter, most_freq_count=3)
    assert top3.idx_to_token == ["<unk>", "c", "b", "a"]
    assert text.vocab.Vocabulary(counter, min_freq=2).idx_to_token == ["<unk>", "c", "b"]
    # A key that is a reserved token keeps its reserved index and does not use up the count.
    v = text.vocab.Vocabulary(counter, most_freq_count=1, reserved_tokens=["c"])
    assert v.idx_to_token == ["<unk>", "c", "b"]
    tuples = text.vocab.Vocabulary(Counter([("x", 1), ("x", 1), ("y", 2)]), unknown_token=("?", 0))
    assert tuples.to_indices(("x", 1)) == 1 and tuples.to_indices(("q", 9)) == 0
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary(counter, min_freq=0)
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary(counter, reserved_tokens=["b", "b"])
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary(counter, reserved_tokens=["<unk>"])
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary({"a": 1})


def test_custom_embedding(tmp_path):
    path = _write(tmp_path / "vecs.txt", ["a\t0.1\t0.2\t0.3", "b\t0.4\t0.5\t0.6", "<unk>\t9\t9\t9"])
    embed = text.embedding.CustomEmbedding(path, "\t")
    assert embed.idx_to_token == ["<unk>", "a", "b"]
    assert embed.token_to_idx == {"<unk>": 0, "a": 1, "b": 2}
    assert len(embed) == 3 and embed.vec_len == 3
    np.testing.assert_allclose(embed.idx_to_vec.asnumpy(),
                               [[9, 9, 9], [0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], rtol=1e-6)
    vec = embed.get_vecs_by_tokens("b")
    assert vec.shape == (3,)
    np.testing.assert_allclose(vec.asnumpy(), [0.4, 0.5, 0.6], rtol=1e-6)
    np.testing.assert_allclose(embed.get_vecs_by_tokens(["B", "zz"]).asnumpy(),
                               [[9, 9, 9], [9, 9, 9]])
    np.testing.assert_allclose(embed.get_vecs_by_tokens(["B"], lower_case_backup=True).asnumpy(),
                               [[0.4, 0.5, 0.6]], rtol=1e-6)
    assert embed.to_indices(["b", "zz"]) == [2, 0]

    embed.update_token_vectors(["a", "<unk>"], mx.nd.array([[1, 2, 3], [4, 5, 6]]))
    embed.update_token_vectors("b", mx.nd.array([7, 8, 9]))
    np.testing.assert_allclose(embed.idx_to_vec.asnumpy(), [[4, 5, 6], [1, 2, 3], [7, 8, 9]])
    with pytest.raises(ValueError):
        embed.update_token_vectors("zz", mx.nd.array([0, 0, 0]))
    with pytest.raises(AssertionError):
        embed.update_token_vectors("a", mx.nd.array([0, 0]))


def test_custom_embedding_unknown_init_header_and_duplicates(tmp_path):
    path = _write(tmp_path / "vecs.vec", ["2 2", "x 1 2", "y 3 4", "x 5 6"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        embed = text.embedding.CustomEmbedding(path, init_unknown_vec=mx.nd.ones,
                                               reserved_tokens=["<pad>"])
    assert len(caught) == 2  # the header line and the second vector of x
    assert embed.idx_to_token == ["<unk>", "<pad>", "x", "y"]
    np.testing.assert_allclose(embed.idx_to_vec.asnumpy(), [[1, 1], [1, 1], [1, 2], [3, 4]])


def test_custom_embedding_bad_files(tmp_path):
    with pytest.raises(AssertionError):
        text.embedding.CustomEmbedding(_write(tmp_path / "short.txt", ["a 1 2", "b"]))
    with pytest.raises(AssertionError):
        text.embedding.CustomEmbedding(_write(tmp_path / "ragged.txt", ["a 1 2", "b 1 2 3"]))
    with pytest.raises(ValueError):
        text.embedding.CustomEmbedding(str(tmp_path / "missing.txt"))


def test_embedding_for_vocabulary(tmp_path):
    path = _write(tmp_path / "vecs.txt", ["a 1 1", "b 2 2", "c 3 3"])
    vocab = text.vocab.Vocabulary(Counter(["c", "c", "z"]), reserved_tokens=["<pad>"])
    embed = text.embedding.CustomEmbedding(path, vocabulary=vocab)
    assert embed.idx_to_token == ["<unk>", "<pad>", "c", "z"]
    assert embed.reserved_tokens == ["<pad>"]
    np.testing.assert_allclose(embed.idx_to_vec.asnumpy(), [[0, 0], [0, 0], [3, 3], [0, 0]])


def test_composite_embedding(tmp_path):
    first = text.embedding.CustomEmbedding(_write(tmp_path / "1.txt", ["a 1 2", "b 3 4"]),
                                           init_unknown_vec=mx.nd.ones)
    second = text.embedding.CustomEmbedding(
        _write(tmp_path / "2.txt", ["b 5 50", "c 6 60", "<unk> 7 70"]))
    vocab = text.vocab.Vocabulary(Counter(["a", "b", "b", "c", "c", "c"]))
    joined = text.embedding.CompositeEmbedding(vocab, [first, second])
    assert joined.idx_to_token == ["<unk>", "c", "b", "a"]
    assert joined.vec_len == 4
    # A token an embedding lacks gets that embedding's unknown vector in its part.
    np.testing.assert_allclose(joined.idx_to_vec.asnumpy(),
                               [[1, 1, 7, 70], [1, 1, 6, 60], [3, 4, 5, 50], [1, 2, 7, 70]])
    np.testing.assert_allclose(joined.get_vecs_by_tokens("a").asnumpy(), [1, 2, 7, 70])
    single = text.embedding.CompositeEmbedding(vocab, first)
    np.testing.assert_allclose(single.idx_to_vec.asnumpy(), [[1, 1], [1, 1], [3, 4], [1, 2]])


def test_pretrained_file_names():
    assert len(text.embedding.get_pretrained_file_names("glove")) == 10
    assert "wiki.en.vec" in text.embedding.get_pretrained_file_names("fasttext")
    assert len(text.embedding.get_pretrained_file_names()["fasttext"]) == 327
    with pytest.raises(KeyError):
        text.embedding.get_pretrained_file_names("nothing")


def test_glove_file_missing(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        text.embedding.create("glove", pretrained_file_name="glove.6B.50d.txt",
                              embedding_root=str(tmp_path))
    message = str(err.value)
    assert str(tmp_path / "glove" / "glove.6B.50d.txt") in message
    assert "gluon/embeddings/glove/glove.6B.zip" in message
    with pytest.raises(KeyError):
        text.embedding.GloVe("glove.1B.txt", embedding_root=str(tmp_path))


def test_registered_embedding_from_local_file_and_archive(tmp_path, monkeypatch):
    monkeypatch.setattr(text.embedding, "_REGISTRY", dict(text.embedding._REGISTRY))
    content = b"hi 1 2\nyo 3 4\n"

    @text.embedding.register
    class Tiny(text.embedding._TokenEmbedding):
        pretrained_file_name_sha1 = {"tiny.vec": hashlib.sha1(content).hexdigest()}

        @classmethod
        def _get_download_file_name(cls, pretrained_file_name):
            return "tiny.zip"

        def __init__(self, embedding_root, **kwargs):
            super(Tiny, self).__init__(**kwargs)
            path = Tiny._get_pretrained_file(embedding_root, "tiny.vec")
            self._load_embedding(path, " ", mx.nd.zeros)

    os.makedirs(tmp_path / "tiny")
    with zipfile.ZipFile(tmp_path / "tiny" / "tiny.zip", "w") as archive:
        archive.writestr("tiny.vec", content)
    embed = text.embedding.create("TINY", embedding_root=str(tmp_path))
    assert embed.idx_to_token == ["<unk>", "hi", "yo"]
    np.testing.assert_allclose(embed.idx_to_vec.asnumpy(), [[0, 0], [1, 2], [3, 4]])

    (tmp_path / "tiny" / "tiny.vec").write_bytes(b"hi 1 2\n")
    with pytest.raises(ValueError, match="SHA-1"):
        Tiny(str(tmp_path))
