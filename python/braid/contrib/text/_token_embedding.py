"""The base class of every token embedding: a vocabulary whose tokens each have a vector.

``_TokenEmbedding`` reads vectors from a pre-trained text file (one token and its numbers a
line), re-indexes them for a given vocabulary, looks vectors up and overwrites them. GloVe,
FastText, CustomEmbedding and CompositeEmbedding (in ``embedding.py``) build on it.
"""
import logging
import os
import warnings

import numpy as np

from . import _local_files
from .vocab import UNKNOWN_IDX, Vocabulary
from ... import ndarray as nd
from ...util import is_np_array

__all__ = ["_TokenEmbedding"]


def _to_array(values):
    """An NDArray of the active array kind (mx.np when numpy semantics are on, else mx.nd)."""
    if is_np_array():
        from ... import numpy as mx_np
        return mx_np.array(values)
    return nd.array(values)


def _host_vector(vec):
    """A vector returned by an `init_unknown_vec` callback, as a NumPy float32 array."""
    if hasattr(vec, "asnumpy"):
        vec = vec.asnumpy()
    return np.asarray(vec, dtype=np.float32).reshape(-1)


class _TokenEmbedding(Vocabulary):
    """A vocabulary with one embedding vector per indexed token.

    Index 0 is the unknown token; its vector is the one the pre-trained file gives for
    `unknown_token`, else the one `init_unknown_vec` makes, and every token outside the vocabulary
    is looked up as that vector. The first vector a file gives for a token is kept; later ones are
    skipped with a warning.

    Subclasses load their vectors in ``__init__`` with :meth:`_load_embedding` (and may narrow
    them to a vocabulary with :meth:`_build_embedding_for_vocabulary`). Keyword arguments go to
    :class:`~mxnet.contrib.text.vocab.Vocabulary` (`unknown_token`, `reserved_tokens`).

    Attributes
    ----------
    idx_to_vec : NDArray
        Shape (len(self), vec_len): row i is the vector of the token of index i.
    vec_len : int
        The length of every vector.
    """

    # Overridden by embeddings that name pre-trained files: each file name's SHA-1 digest.
    pretrained_file_name_sha1 = {}

    _vec_len = None
    _idx_to_vec = None

    def __init__(self, **kwargs):
        super(_TokenEmbedding, self).__init__(**kwargs)

    # -- pre-trained files -------------------------------------------------------------------

    @classmethod
    def _get_download_file_name(cls, pretrained_file_name):
        """The file MXNet downloads for `pretrained_file_name`: the file itself by default, an
        archive holding it for GloVe and FastText."""
        return pretrained_file_name

    @classmethod
    def _get_pretrained_file_url(cls, pretrained_file_name):
        """The address MXNet downloads `pretrained_file_name` (or its archive) from."""
        return _local_files.download_url(cls.__name__.lower(),
                                         cls._get_download_file_name(pretrained_file_name))

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        """The local path of a pre-trained file: ``<embedding_root>/<class name>/<file>``.

        Nothing is downloaded: a missing file raises FileNotFoundError naming that path and the
        address to get it from; a file whose SHA-1 differs from the table's raises ValueError.
        """
        if embedding_root is None:
            embedding_root = _local_files.default_embedding_root()
        return _local_files.find_pretrained_file(
            embedding_root, cls.__name__.lower(), pretrained_file_name,
            cls.pretrained_file_name_sha1.get(pretrained_file_name),
            cls._get_download_file_name(pretrained_file_name))

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        """Raises KeyError unless `pretrained_file_name` is one of this embedding's files."""
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            name = cls.__name__.lower()
            raise KeyError("Cannot find pre-trained file %s for token embedding %s. Valid "
                           "pre-trained files for embedding %s: %s"
                           % (pretrained_file_name, name, name,
                              ", ".join(cls.pretrained_file_name_sha1.keys())))

    # -- loading -----------------------------------------------------------------------------

    def _load_embedding(self, pretrained_file_path, elem_delim, init_unknown_vec, encoding="utf8"):
        """Reads the vectors of a text file of lines ``token<delim>v1<delim>v2...``.

        Tokens not indexed yet are appended in file order. A line of a new token with a single
        number is taken for a header (as fastText's first line) and skipped with a warning. The
        unknown token and the reserved tokens keep their indices: a vector the file gives for one
        of them is used, the others get ``init_unknown_vec(shape=vec_len)``.

        Raises ValueError for a path that is not a file and AssertionError for a line without a
        number or with a vector length unlike the previous ones.
        """
        path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(path):
            raise ValueError("`pretrained_file_path` must be the path of a pre-trained token "
                             "embedding file; %s is not a file." % path)
        logging.info("Loading pre-trained token embedding vectors from %s", path)

        known = len(self._idx_to_token)   # the unknown and reserved tokens, indexed already
        preset = {}                       # index < known -> the vector the file gives it
        rows = []                         # vectors of the tokens appended, in index order
        vec_len = None
        with open(path, "r", encoding=encoding) as f:
            for line_num, line in enumerate(f, 1):
                elems = line.rstrip().split(elem_delim)
                assert len(elems) > 1, \
                    "Line %d of the pre-trained token embedding file %s is not a token followed " \
                    "by its vector." % (line_num, path)
                token = elems[0]
                vec = np.asarray(elems[1:], dtype=np.float32)
                idx = self._token_to_idx.get(token)
                if idx is not None and idx < known and idx not in preset:
                    preset[idx] = vec
                elif idx is not None:
                    warnings.warn("Line %d of the pre-trained token embedding file %s: token %s "
                                  "has a vector already; this one is skipped."
                                  % (line_num, path, token))
                elif vec.size == 1:
                    warnings.warn("Line %d of the pre-trained token embedding file %s: token %s "
                                  "with the 1-dimensional vector %s is likely a header and is "
                                  "skipped." % (line_num, path, token, vec.tolist()))
                else:
                    if vec_len is None:
                        vec_len = vec.size
                    assert vec.size == vec_len, \
                        "Line %d of the pre-trained token embedding file %s: token %s has a " \
                        "vector of length %d but the previous tokens' have length %d; all must " \
                        "have one length." % (line_num, path, token, vec.size, vec_len)
                    self._token_to_idx[token] = len(self._idx_to_token)
                    self._idx_to_token.append(token)
                    rows.append(vec)

        if vec_len is None:
            if not preset:
                raise ValueError("The pre-trained token embedding file %s holds no vector." % path)
            vec_len = next(iter(preset.values())).size
        for idx, vec in preset.items():
            assert vec.size == vec_len, \
                "The pre-trained token embedding file %s gives token %s a vector of length %d, " \
                "others have length %d." % (path, self._idx_to_token[idx], vec.size, vec_len)

        table = np.empty((len(self._idx_to_token), vec_len), dtype=np.float32)
        if len(preset) < known:
            init_vec = _host_vector(init_unknown_vec(shape=vec_len))
            table[:known] = init_vec
        for idx, vec in preset.items():
            table[idx] = vec
        if rows:
            table[known:] = np.stack(rows)
        self._vec_len = vec_len
        self._idx_to_vec = _to_array(table)

    def _index_tokens_from_vocabulary(self, vocabulary):
        """Takes over the indexing of `vocabulary` (copies of its token lists)."""
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._unknown_token = vocabulary.unknown_token
        reserved = vocabulary.reserved_tokens
        self._reserved_tokens = None if reserved is None else list(reserved)

    def _set_idx_to_vec_by_embeddings(self, token_embeddings, vocab_len, vocab_idx_to_token):
        """Makes each token's vector the concatenation of its vectors in `token_embeddings`.

        Row 0 joins the embeddings' unknown vectors; every other row is looked up by token, so a
        token one embedding lacks gets that embedding's unknown vector there.
        """
        vec_len = sum(embed.vec_len for embed in token_embeddings)
        if is_np_array():
            from ... import numpy as mx_np
            table = mx_np.zeros((vocab_len, vec_len))
        else:
            table = nd.zeros((vocab_len, vec_len))
        start = 0
        for embed in token_embeddings:
            end = start + embed.vec_len
            table[0, start:end] = embed.idx_to_vec[UNKNOWN_IDX]
            if vocab_len > 1:
                table[1:, start:end] = embed.get_vecs_by_tokens(list(vocab_idx_to_token[1:]))
            start = end
        self._vec_len = vec_len
        self._idx_to_vec = table

    def _build_embedding_for_vocabulary(self, vocabulary):
        """Re-indexes this embedding as `vocabulary`, keeping the vectors of its tokens."""
        if vocabulary is None:
            return
        assert isinstance(vocabulary, Vocabulary), \
            "`vocabulary` must be a mxnet.contrib.text.vocab.Vocabulary, got %s." \
            % type(vocabulary).__name__
        self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
        self._index_tokens_from_vocabulary(vocabulary)

    # -- use ---------------------------------------------------------------------------------

    @property
    def vec_len(self):
        """int: the length of every embedding vector."""
        return self._vec_len

    @property
    def idx_to_vec(self):
        """NDArray of shape (len(self), vec_len): row i is the vector of the token of index i."""
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The embedding vector of a token, or of each token of a list.

        Parameters
        ----------
        tokens : str or list of str
            One token (a 1-D result of length `vec_len`) or a list (a 2-D result, one row each).
        lower_case_backup : bool, default False
            Whether a token not indexed as given is looked up again in lower case before falling
            back to the unknown token's vector.

        Returns
        -------
        NDArray
        """
        single = not isinstance(tokens, list)
        if single:
            tokens = [tokens]
        lookup = self._token_to_idx
        if lower_case_backup:
            indices = [lookup[tok] if tok in lookup else lookup.get(tok.lower(), UNKNOWN_IDX)
                       for tok in tokens]
        else:
            indices = [lookup.get(tok, UNKNOWN_IDX) for tok in tokens]

        rows, cols = self._idx_to_vec.shape
        if is_np_array():
            from ... import numpy_extension as mx_npx
            vecs = mx_npx.embedding(_to_array(indices), self._idx_to_vec, input_dim=rows,
                                    output_dim=cols)
        else:
            vecs = nd.Embedding(data=nd.array(indices), weight=self._idx_to_vec, input_dim=rows,
                                output_dim=cols)
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Overwrites, in place, the vectors of indexed tokens.

        Parameters
        ----------
        tokens : str or list of str
            The tokens whose vectors change. To change the unknown token's vector, name
            `unknown_token` itself: any other token not indexed raises ValueError.
        new_vectors : NDArray
            Shape (len(tokens), vec_len); for a single token a 1-D vector of length `vec_len`
            will do as well.
        """
        assert self._idx_to_vec is not None, "This embedding has no vectors yet."
        if not isinstance(tokens, list) or len(tokens) == 1:
            assert isinstance(new_vectors, nd.NDArray) and len(new_vectors.shape) in (1, 2), \
                "`new_vectors` must be a 1-D or 2-D NDArray when `tokens` is a single token."
            if not isinstance(tokens, list):
                tokens = [tokens]
            if len(new_vectors.shape) == 1:
                new_vectors = new_vectors.reshape((1, -1))
        else:
            assert isinstance(new_vectors, nd.NDArray) and len(new_vectors.shape) == 2, \
                "`new_vectors` must be a 2-D NDArray when `tokens` is a list of several tokens."
        assert new_vectors.shape == (len(tokens), self._vec_len), \
            "`new_vectors` must have shape (number of tokens, vec_len) = (%d, %d), got %s." \
            % (len(tokens), self._vec_len, new_vectors.shape)

        indices = []
        for tok in tokens:
            if tok not in self._token_to_idx:
                raise ValueError("Token %s is unknown. To update the vector of unknown tokens, "
                                 "name the unknown token %s itself in `tokens` (so that nothing "
                                 "is updated by mistake)." % (tok, self._idx_to_token[UNKNOWN_IDX]))
            indices.append(self._token_to_idx[tok])
        self._idx_to_vec[_to_array(indices)] = new_vectors
